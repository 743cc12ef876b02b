/**
 * Step 11 of an attempt: the post, the ledger's place (issue 27). Every applied outcome that changes a payment's
 * state is posted exactly once, with the payment as it reads after the change: card attempts (whatever decided
 * them: the acquirer's answer, its notification, the re-check, an operator), APM initiations and payouts, the
 * schedule runner's charges, and the follow-ups (capture, refund, void, reversal). A held outcome (integrity.ts)
 * is not applied, so it is not posted until an operator decides it.
 *
 * The entries (services/money/postings.ts) are written with the state change, never after it:
 * - a card outcome computes them before its write (postingEntries) and hands them to the write itself, which
 *   folds them into its one statement, group-committed or not (store/payments-repo.ts): the compare-and-set
 *   that applies the outcome is the one that posts it;
 * - the other paths call `post` with `sql` the handle of their transaction, or of the statement's batch
 *   (the schedule runner's).
 * The entries' key (transaction, event, account) makes a second posting of one cause a no-op besides.
 */
import type { ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import type { Payment } from '../../domain/model/payment.ts';
import type { LedgerEntry } from '../../domain/ledger/postings.ts';
import { insertEntries } from '../../store/ledger-repo.ts';
import { entriesOfChange, NOTHING_MOVED, type MoneyState } from '../money/postings.ts';
import { countRiskOutcome } from '../risk/engine.ts';

export interface Posting {
  /** The payment after the state change. */
  payment: Payment;
  /** The transaction the outcome closed. */
  transId: string;
  /** What was applied: approved or declined (a challenge or redirect moves no money but is posted all the same). */
  outcome: 'approved' | 'declined' | 'challenge' | 'redirect';
  /** The payment's money before the change; absent: an attempt's outcome (nothing moved before it). */
  before?: MoneyState;
}

/** The entries a posting writes. */
export function postingEntries(ctx: ServiceContext, sql: Sql, posting: Posting): Promise<LedgerEntry[]> {
  return entriesOfChange(ctx, sql, { before: posting.before ?? NOTHING_MOVED, after: posting.payment, transId: posting.transId });
}

/** Posts within the caller's write (`sql` its transaction): the entries, then the probe. */
export async function post(ctx: ServiceContext, sql: Sql, posting: Posting): Promise<void> {
  await insertEntries(sql, await postingEntries(ctx, sql, posting), ctx.clock.now());
  posted(ctx, posting);
  await countForRisk(ctx, sql, posting);
}

/**
 * The risk engine's velocity counts an attempt's final outcome, declines apart from approvals (issue 26), with
 * the outcome's write where it has a transaction. A follow-up (capture, refund) is no attempt's outcome. A card
 * outcome counts in its own statement instead (outcome.ts: TransactionResult.riskOutcome), as it posts there.
 */
export async function countForRisk(ctx: ServiceContext, sql: Sql, posting: Posting): Promise<void> {
  if (posting.before === undefined && (posting.outcome === 'approved' || posting.outcome === 'declined')) await countRiskOutcome(ctx, sql, posting.payment.id, posting.outcome);
}

/** The post of an outcome whose entries its own write carried (outcome.ts): the probe only. */
export function posted(ctx: ServiceContext, posting: Posting): void {
  ctx.attemptHooks?.posted?.({ paymentId: posting.payment.id, status: posting.payment.status, transId: posting.transId });
}
