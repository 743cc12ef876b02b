/**
 * Step 9 of an attempt, the write: an acquirer's outcome applied to a payment claimed with `operation`, with a
 * compare-and-set, after the integrity check, with its consequences (consequences.ts). Every card outcome comes
 * here: the first answer, a cascade's last, a challenge's completion, the acquirer's notification, the re-check's
 * inquiry, and an operator's decision on a held one.
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { getPayment, updatePayment, updatePaymentAndTransaction, type Expectation, type PaymentPatch, type TransactionResult } from '../../store/payments-repo.ts';
import { awaitsAuthorization, type Intent } from '../../domain/operations.ts';
import { attemptResult, type AttemptStop } from '../../domain/model/attempt.ts';
import type { ConnectorOutcome } from '../../connectors/types.ts';
import { prepareRecurring } from '../recurring/recurring-init.ts';
import { merchantInitiatedOutcome } from '../recurring/card-on-file.ts';
import type { OperatorWrite } from '../operator-write.ts';
import { heldForIntegrity } from './integrity.ts';
import { planOutcome, type DecidedOutcome, type OutcomePlan } from './outcome-plan.ts';
import { consequencesOf, needsTransaction, type Consequence } from './consequences.ts';
import { postingEntries } from './post.ts';
import { reached, type AttemptState, type PaymentStep } from './types.ts';

/** A payment claimed for a step of its authorization, and the transaction that step opened. */
export interface Claim {
  merchant: Merchant;
  payment: Payment;
  transId: string;
  /** The pending operation the payment is claimed with (authorize, complete). */
  operation: string;
  intent: Intent;
  /** Why no further attempt follows this one's decline (the cascade's word), written with the outcome. */
  stop?: AttemptStop;
}

/**
 * A pending answer that names the acquirer's transaction: its reference is kept on the payment (still claimed, a
 * compare-and-set), so that the re-check asks about that transaction, the timeline and reconciliation see it.
 */
async function keepReference(ctx: ServiceContext, claim: Claim, reference: string | undefined): Promise<Payment> {
  const { payment, operation } = claim;
  if (!reference || payment.details.connectorRef === reference) return payment;
  const kept = await updatePayment(ctx.db, payment.id, { status: payment.status, pendingOperation: operation }, { details: { connectorRef: reference } }, ctx.clock.now());
  return kept ?? payment;
}

/** The step: the last answer applied to the payment (integrity, transition, consequences, post); it ends the attempt. */
export function outcomeStep(ctx: ServiceContext, state: AttemptState): Promise<PaymentStep> {
  const { payment, transId, outcome, stop } = reached(state, 'answer');
  return applyOutcome(ctx, { merchant: state.input.merchant, payment, transId, operation: 'authorize', intent: state.input.intent, stop }, outcome);
}

export async function applyOutcome(ctx: ServiceContext, claim: Claim, answer: ConnectorOutcome, byOperator?: OperatorWrite): Promise<PaymentStep> {
  const { merchant, payment, transId, operation } = claim;
  if (answer.kind === 'pending') return { kind: 'processing', payment: await keepReference(ctx, claim, answer.reference) };
  // An operator's decision on a held outcome is applied as it is: the mismatch is what they were asked to judge.
  const held = byOperator ? undefined : await heldForIntegrity(ctx, payment, operation, answer);
  if (held) return { kind: 'processing', payment: held };
  const outcome = payment.details.merchantInitiated === true ? merchantInitiatedOutcome(answer) : answer;
  const plan = planOutcome(payment, claim.intent, outcome);
  const recurring = outcome.kind === 'approved' ? await prepareRecurring(ctx, merchant, payment) : undefined;
  if (recurring) plan.patch.details = { ...plan.patch.details, ...recurring.details };
  const now = ctx.clock.now();
  // Spreads here, not Object.assign({}, payment, ...): a spread copies the payment's shape in one allocation, and the
  // patch only overwrites properties a payment has; Object.assign onto {} adds the 26 properties one by one, growing
  // the new object's property store as it goes (about 2.7 KB allocated per card payment, and 5 to 10 times slower).
  const entries = await postingEntries(ctx, ctx.db, { payment: { ...payment, ...plan.patch, details: payment.details }, transId, outcome: outcome.kind });
  const consequences = consequencesOf(ctx, { merchant, payment, transId, plan, outcome, recurring, byOperator, now, entries });
  const updated = await write(ctx, claim, plan, outcome, consequences, now, byOperator);
  if (!updated) return { kind: 'final', payment: (await getPayment(ctx.db, payment.id)) ?? payment, transId };
  for (const c of consequences) await c.after?.(updated);
  if (plan.step === 'challenge') return { kind: 'challenge', payment: updated };
  if (plan.step === 'redirect') return { kind: 'redirect', payment: updated };
  return { kind: 'final', payment: updated, transId };
}

/**
 * The outcome, its transaction and its consequences in one write: a single group-committed statement (the
 * callback's outbox row, the ledger's entries and the risk engine's outcome count in it) unless a consequence
 * writes rows of its own, then one transaction (the entries and the count still in the outcome's statement).
 */
async function write(ctx: ServiceContext, claim: Claim, plan: OutcomePlan, outcome: DecidedOutcome, consequences: readonly Consequence[], now: Date, byOperator?: OperatorWrite): Promise<Payment | undefined> {
  const { payment, transId } = claim;
  // No spread of a conditional object (a runtime call and an object more): the version is set when there is one.
  const expect: Expectation = { status: payment.status, pendingOperation: claim.operation };
  if (byOperator) expect.version = byOperator.version;
  // Object.assign rather than spreads on the path of every card payment (see index.ts).
  const patch: PaymentPatch = Object.assign({}, plan.patch, { pendingOperation: null });
  const transaction: TransactionResult = { id: transId, status: plan.txStatus, details: byOperator ? { ...plan.txDetails, ...byOperator.txDetails } : plan.txDetails };
  // The authorization's outcome answers the payment's current acquirer attempt too, in the same statement.
  if (awaitsAuthorization(claim.operation)) transaction.attempt = attemptResult(outcome, claim.stop);
  // The risk engine counts the attempt's final outcome under its screen's keys, in the same statement (post.ts).
  if (outcome.kind === 'approved' || outcome.kind === 'declined') transaction.riskOutcome = outcome.kind;
  const entries = consequences.find((c) => c.entries)?.entries;
  if (!needsTransaction(consequences)) {
    const of = consequences.find((c) => c.outbox)?.outbox;
    const updated = await updatePaymentAndTransaction(ctx.db, payment.id, expect, patch, now, transaction, of && { of, prior: payment }, entries);
    if (updated) for (const c of consequences) if (!c.outbox) await c.within?.(ctx.db, updated);
    return updated;
  }
  return ctx.db.transaction(async (tx) => {
    const updated = await updatePaymentAndTransaction(tx, payment.id, expect, patch, now, transaction, undefined, entries);
    if (updated) for (const c of consequences) await c.within?.(tx, updated);
    return updated;
  });
}
