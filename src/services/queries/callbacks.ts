/** The callback outbox as the admin API lists it (see payments.ts for why it is here). */
export { listCallbacks, type CallbackFilter, type CallbackWithAttempts } from '../../store/callbacks-repo.ts';
