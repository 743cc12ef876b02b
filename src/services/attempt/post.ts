/**
 * Step 11 of an attempt: the post, the ledger's place (issue 27). EMPTY TODAY: posts nothing.
 *
 * Contract (what the ledger may rely on, and what every payment path must keep):
 * - Every applied outcome that changes a payment's state calls `post` exactly once, with the payment as it reads
 *   after the change and the outcome applied: card attempts (whatever decided them: the acquirer's answer, its
 *   notification, the re-check, an operator), APM initiations and payouts, and the schedule runner's charges.
 *   A held outcome (integrity.ts) is not applied, so it is not posted until an operator decides it.
 * - `sql` is the handle of the outcome's own write: inside its transaction whenever the outcome needs one
 *   (outcome.ts: some consequence is `transactional`), so entries written through it commit or roll back with
 *   the state change. The group-committed outcome (a plain S2S sale: one statement) and the schedule runner's
 *   batch (one statement for many payments) have no transaction to lend today: there `sql` is the database and
 *   `post` runs right after the write. The day `post` writes, its consequence (consequences.ts) turns
 *   `transactional` (and the runner's batch statement gains its rows, as it carries the callbacks' outbox rows),
 *   so that no state change is ever without its entries.
 */
import type { ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import type { Payment } from '../../domain/model/payment.ts';

export interface Posting {
  /** The payment after the state change. */
  payment: Payment;
  /** The transaction the outcome closed. */
  transId: string;
  /** What was applied: approved or declined (a challenge or redirect moves no money but is posted all the same). */
  outcome: 'approved' | 'declined' | 'challenge' | 'redirect';
}

/** Whether the post step needs the outcome's write to be a transaction: not while it writes nothing. */
export const POST_IS_TRANSACTIONAL = false;

export async function post(ctx: ServiceContext, _sql: Sql, posting: Posting): Promise<void> {
  ctx.attemptHooks?.posted?.({ paymentId: posting.payment.id, status: posting.payment.status, transId: posting.transId });
}
