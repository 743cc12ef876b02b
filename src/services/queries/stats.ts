/** The admin dashboard's figures (see payments.ts for why they are here). */
export { failingCallbacksSince, merchantNames, paymentFiguresSince, type CurrencyFigures } from '../../store/admin-stats-repo.ts';
