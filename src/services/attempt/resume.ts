/**
 * The later steps of an authorization already under way: the payer back from the ACS or the provider page, the
 * acquirer's own notification, an operator's decision on a held outcome. Each claims the payment with a
 * compare-and-set and applies its outcome through outcome.ts, as the first answer is.
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { getPayment, insertTransaction, needsOperatorOf, updatePayment } from '../../store/payments-repo.ts';
import { GatewayError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { ChallengeResult, ConnectorOutcome } from '../../connectors/types.ts';
import { midAccess } from '../connector-access.ts';
import type { OperatorDecision, OperatorWrite } from '../operator-write.ts';
import { connectorFor } from './route.ts';
import { callConnector } from './call.ts';
import { applyOutcome } from './outcome.ts';
import { awaitsAuthorization, intentOf, intentTxType } from '../../domain/operations.ts';
import type { PaymentStep } from './types.ts';

/** Claims a payment waiting for its payer (3ds, redirect) for its completion, opening the step's transaction. */
async function claimForCompletion(ctx: ServiceContext, payment: Payment, from: Payment['status'] | Payment['status'][]): Promise<{ claimed: Payment; transId: string } | undefined> {
  const transId = newId();
  const now = ctx.clock.now();
  const claimed = await ctx.db.transaction(async (tx) => {
    const claimed = await updatePayment(tx, payment.id, { status: from, pendingOperation: null }, { pendingOperation: 'complete', details: { lastTransId: transId } }, now);
    if (claimed) await insertTransaction(tx, { id: transId, paymentId: payment.id, type: intentTxType(intentOf(payment)), status: 'waiting', amount: payment.amount, now });
    return claimed;
  });
  return claimed && { claimed, transId };
}

/** The payer finished the ACS challenge or the provider page (the sandbox's, or the acquirer's own: `returned`). */
export async function completeChallenge(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], paymentId: string, decision: ChallengeResult['decision'], params?: Record<string, string>): Promise<PaymentStep> {
  const payment = await getPayment(ctx.db, paymentId);
  if (!payment || payment.merchantId !== merchant.id) throw new GatewayError('paymentNotFound');
  const settled = { kind: 'final', payment, transId: payment.details.lastTransId ?? payment.id } as const;
  if ((payment.status !== '3ds' && payment.status !== 'redirect') || payment.pendingOperation !== null) return settled;
  // Resolved before the claim: a MID removed meanwhile must refuse the step, not strand a claimed payment.
  const { mid, connector } = connectorFor(ctx, payment.midId, mids);
  const step = await claimForCompletion(ctx, payment, ['3ds', 'redirect']);
  if (!step) return settled;
  const { claimed, transId } = step;
  const outcome = await callConnector(ctx, () => connector.complete(claimed.details.connectorState ?? {}, { decision, ...(params ? { params } : {}) }, midAccess(ctx, mid)));
  return applyOutcome(ctx, { merchant, payment: claimed, transId, operation: 'complete', intent: intentOf(claimed) }, outcome);
}

/**
 * The acquirer's own notification decides a payment of ours: in flight (authorize, complete), its outcome is
 * applied on that claim; waiting for its payer (3ds, redirect), it is claimed as the payer's return would claim
 * it. Whatever comes second finds the payment changed and changes nothing (compare-and-set).
 */
export async function applyNotifiedOutcome(ctx: ServiceContext, merchant: Merchant, payment: Payment, outcome: ConnectorOutcome): Promise<PaymentStep | undefined> {
  const op = payment.pendingOperation;
  // Held for an operator (an integrity mismatch): no automated word settles it.
  if (needsOperatorOf(payment)) return undefined;
  if (awaitsAuthorization(op)) {
    return applyOutcome(ctx, { merchant, payment, transId: payment.details.lastTransId ?? payment.id, operation: op, intent: intentOf(payment) }, outcome);
  }
  if (op !== null || (payment.status !== '3ds' && payment.status !== 'redirect')) return undefined;
  if (outcome.kind !== 'approved' && outcome.kind !== 'declined') return undefined;
  const step = await claimForCompletion(ctx, payment, payment.status);
  return step ? applyOutcome(ctx, { merchant, payment: step.claimed, transId: step.transId, operation: 'complete', intent: intentOf(step.claimed) }, outcome) : undefined;
}

/**
 * An authorization whose outcome was held for an operator (the acquirer reported another amount, currency or
 * reference): the operator checked with the acquirer and says whether it was carried out. Applied as the
 * acquirer's answer would have been: state, capture, session, recurring chain, daily-cap share, one callback.
 * Scheduled charges held by the schedule runner are resolved here too. Undefined when the payment moved meanwhile.
 */
export async function resolveHeldAuthorization(
  ctx: ServiceContext, merchant: Merchant, payment: Payment, decision: OperatorDecision, write: OperatorWrite,
): Promise<Payment | undefined> {
  const operation = payment.pendingOperation;
  if (!awaitsAuthorization(operation)) return undefined;
  let applied: Payment | undefined;
  const outcome: ConnectorOutcome = decision.settled ? { kind: 'approved', reference: decision.reference ?? String(payment.details.connectorRef ?? '') } : { kind: 'declined', reason: decision.reason };
  await applyOutcome(ctx, { merchant, payment, transId: payment.details.lastTransId ?? payment.id, operation, intent: intentOf(payment) }, outcome, {
    ...write,
    async within(tx, updated) {
      applied = updated;
      await write.within(tx, updated);
    },
  });
  return applied;
}
