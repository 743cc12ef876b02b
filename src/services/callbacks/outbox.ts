/**
 * The callback outbox as the dispatcher works it: claim due rows under a lease, record each attempt, settle
 * (delivered, retry later, failed), release on shutdown, and each URL's health. Each is one statement of the
 * store, a compare-and-set on the row's lease; the worker reaches them through services, not the repository.
 */
export {
  claimDue, deferCallback, markFailed, recordAttempt, recordUrlTimeout, releaseCallback, scheduleRetry,
  settleDelivered,
  urlBlockedUntil, type ClaimedCallback,
} from '../../store/callbacks-repo.ts';
