/** The Checkout session reads of the payer pages (see payments.ts for why they are here). */
export { getSession, type SessionRequest } from '../../store/sessions-repo.ts';
