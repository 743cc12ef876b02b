/**
 * Cascading (issue 15): whether a declined attempt goes on to the next candidate, decided by the unified decline
 * table (domain/declines.ts), and the record of each attempt kept with the routing decision.
 */
import { DECLINES, type UnifiedCode } from '../declines.ts';

/** What the cascade reads of an attempt's outcome (a connector's outcome fits as it is). */
export interface AttemptOutcome {
  kind: 'approved' | 'declined' | 'challenge' | 'redirect' | 'pending';
  error?: { code: UnifiedCode };
  threeDs?: object;
}

/** One attempt of a payment on one MID (cascading, issue 15). */
export interface RoutingAttempt {
  midId: string;
  transId: string;
  /** routed: the router's first choice; cascade: the next candidate after a retryable decline. */
  why: 'routed' | 'cascade';
  outcome?: AttemptOutcome['kind'];
  /** The unified decline code and its retry decision (domain/declines.ts). */
  code?: string;
  retry?: string;
  /** Why no further attempt followed a decline. */
  stop?: 'hard_decline' | 'authenticated' | 'not_retryable' | 'no_more_candidates' | 'max_attempts' | 'integrity';
}

/**
 * Whether a declined attempt goes on to the next candidate, and if not why. Only a decline the error table marks
 * `other_mid` cascades; a hard decline (`no`) or one to retry later never does; nor does a decline that carries a
 * 3-D Secure result (the payer authenticated on this MID; that result cannot be reused on another).
 */
export function cascadeStop(outcome: AttemptOutcome, attemptsMade: number, maxExtra: number, nextExists: boolean): RoutingAttempt['stop'] | undefined {
  if (outcome.kind !== 'declined') return undefined;
  const retry = outcome.error ? DECLINES[outcome.error.code].retry : 'no';
  if (retry === 'no') return 'hard_decline';
  // A 3-D Secure result belongs to the MID's 3DS server: it cannot be carried to another acquirer.
  if (outcome.threeDs) return 'authenticated';
  if (retry !== 'other_mid') return 'not_retryable';
  if (attemptsMade > maxExtra) return 'max_attempts';
  if (!nextExists) return 'no_more_candidates';
  return undefined;
}

export function attemptRecord(midId: string, transId: string, why: RoutingAttempt['why'], outcome: AttemptOutcome, stop?: RoutingAttempt['stop']): RoutingAttempt {
  const a: RoutingAttempt = { midId, transId, why, outcome: outcome.kind };
  if (outcome.kind === 'declined' && outcome.error) {
    a.code = outcome.error.code;
    a.retry = DECLINES[outcome.error.code].retry;
  }
  if (stop) a.stop = stop;
  return a;
}
