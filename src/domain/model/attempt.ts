/**
 * A payment attempt: one request for the payment's authorization sent to one acquirer (a MID), with its outcome
 * (issue 24). A payment has one or more, in order: the router's choice, each MID a cascade moved to, each RETRY
 * of a declined recurring charge; a scheduled charge, an APM initiation and an APM payout have one. The store keeps them as rows of payment_attempts (migration 030), its id the transaction the
 * attempt opened; the steps of services/attempt/ write them with the payment's own writes.
 */
import { DECLINES, type UnifiedCode } from '../declines.ts';

/**
 * Why the attempt was made: the router's choice (an APM initiation or payout too), the next candidate after a
 * retryable decline, a schedule's charge, a merchant's RETRY of a declined recurring charge.
 */
export type AttemptWhy = 'routed' | 'cascade' | 'scheduled' | 'retry';

/** pending: sent, no answer yet (or an answer held for an operator); challenge, redirect: waiting for the payer. */
export type AttemptStatus = 'pending' | 'challenge' | 'redirect' | 'approved' | 'declined';

/** Why no further attempt followed a decline (domain/routing/cascade.ts). */
export type AttemptStop = 'hard_decline' | 'authenticated' | 'not_retryable' | 'no_more_candidates' | 'max_attempts' | 'integrity';

export interface PaymentAttempt {
  /** The transaction the attempt opened (our reference of the request at the acquirer). */
  id: string;
  paymentId: string;
  /** 1, 2, ... in the order the attempts were made. */
  seq: number;
  midId: string | null;
  connector: string | null;
  why: AttemptWhy;
  status: AttemptStatus;
  /** The unified decline code and its retry decision (domain/declines.ts). */
  declineCode: string | null;
  retry: string | null;
  stop: AttemptStop | null;
  /** The acquirer's reference of the attempt, once it answered. */
  acquirerRef: string | null;
  amount: bigint;
  currency: string;
  createdAt: Date;
  /** When the final word (approved, declined) was written; null while the attempt is open. */
  finishedAt: Date | null;
}

/** An attempt as it is opened, before its request goes out (its payment, amount and instant come with the write). */
export interface AttemptOpening {
  /** Null for an APM provider MID's payment, whose provider is the merchant's own. */
  midId: string | null;
  connector: string;
  why: AttemptWhy;
}

/** What an acquirer's answer writes to the attempt it answers (in the statement that applies it to the payment). */
export interface AttemptResult {
  status: AttemptStatus;
  declineCode: string | null;
  retry: string | null;
  /** Kept as written when undefined (a later step of the attempt does not erase an earlier stop). */
  stop?: AttemptStop;
  acquirerRef: string | null;
  /** approved and declined close the attempt. */
  finished: boolean;
}

/** What the attempt reads of an outcome (a connector's outcome fits as it is). */
export interface AnsweredOutcome {
  kind: 'approved' | 'declined' | 'challenge' | 'redirect';
  reference?: string;
  error?: { code: UnifiedCode };
}

/** The attempt's result for an acquirer's answer, and why no attempt follows when the cascade stopped there. */
export function attemptResult(outcome: AnsweredOutcome, stop?: AttemptStop): AttemptResult {
  const code = outcome.kind === 'declined' ? outcome.error?.code : undefined;
  return {
    status: outcome.kind,
    declineCode: code ?? null,
    retry: code ? DECLINES[code].retry : null,
    ...(stop ? { stop } : {}),
    acquirerRef: outcome.reference ?? null,
    finished: outcome.kind === 'approved' || outcome.kind === 'declined',
  };
}
