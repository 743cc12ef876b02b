/**
 * Cascading (issue 15): whether a declined attempt goes on to the next candidate, decided by the unified decline
 * table (domain/declines.ts). Each attempt is a row of its own (domain/model/attempt.ts).
 */
import { DECLINES, type UnifiedCode } from '../declines.ts';
import type { AttemptStop } from '../model/attempt.ts';
import { integrityMismatches, type Expected, type ReportedFacts } from '../integrity.ts';

/** What the cascade reads of an attempt's outcome (a connector's outcome fits as it is). */
export interface AttemptOutcome {
  kind: 'approved' | 'declined' | 'challenge' | 'redirect' | 'pending';
  error?: { code: UnifiedCode };
  threeDs?: object;
  /** What the acquirer says it declined (amount, currency, our reference). */
  reported?: ReportedFacts;
}

/**
 * Whether a declined attempt goes on to the next candidate, and if not why: the whole decision, in one place. A
 * decline that reports another payment than the one `sent` never cascades: it is held as it is for an operator
 * (services/attempt/integrity.ts). Only a decline the error table marks
 * `other_mid` cascades; a hard decline (`no`) or one to retry later never does; nor does a decline that carries a
 * 3-D Secure result (the payer authenticated on this MID; that result cannot be reused on another).
 */
export function cascadeStop(outcome: AttemptOutcome, attemptsMade: number, maxExtra: number, nextExists: boolean, sent?: Expected): AttemptStop | undefined {
  if (outcome.kind !== 'declined') return undefined;
  if (sent && integrityMismatches(sent, outcome.reported).length > 0) return 'integrity';
  const retry = outcome.error ? DECLINES[outcome.error.code].retry : 'no';
  if (retry === 'no') return 'hard_decline';
  // A 3-D Secure result belongs to the MID's 3DS server: it cannot be carried to another acquirer.
  if (outcome.threeDs) return 'authenticated';
  if (retry !== 'other_mid') return 'not_retryable';
  if (attemptsMade > maxExtra) return 'max_attempts';
  if (!nextExists) return 'no_more_candidates';
  return undefined;
}
