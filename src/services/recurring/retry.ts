/**
 * RETRY (S2S CARD; Checkout payment/retry): one more attempt at a declined recurring charge (a soft decline),
 * recorded as a RETRY transaction of the same payment. Its outcome may change the payment's final status:
 * the only way out of DECLINED, so it is a table of its own here rather than a row of the payment state
 * machine, which knows no retries.
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { insertTransaction, updatePayment, updatePaymentAndTransaction, type PaymentPatch } from '../../store/payments-repo.ts';
import { loadCard } from '../../store/card-vault.ts';
import { GatewayError } from '../../domain/errors.ts';
import { connectorPayer, midAccess } from '../connector-access.ts';
import { newId } from '../../domain/ids.ts';
import type { PaymentStatus } from '../../domain/payment-state.ts';
import type { ConnectorOutcome } from '../../connectors/types.ts';
import { notify } from '../callbacks/index.ts';
import { nextStatus } from '../../domain/payment-state.ts';
import { merchantInitiatedOutcome } from './card-on-file.ts';
import { intentOf, isRecurring } from '../../domain/operations.ts';
import { attemptResult } from '../../domain/model/attempt.ts';

/** The status an approved retry gives a declined charge, by what the charge asked for (the state table). */
function retryApproved(payment: Payment): PaymentStatus {
  const to = nextStatus('decline', payment.auth ? 'retried_authorized' : 'retried_sold');
  if (!to) throw new Error('the state table has no retry transition');
  return to;
}

/** The payment and transaction patch of a retry's answer. */
function retryPatch(payment: Payment, outcome: Exclude<ConnectorOutcome, { kind: 'pending' | 'challenge' | 'redirect' }>): { patch: PaymentPatch; approved: boolean } {
  if (outcome.kind === 'declined') return { patch: { declineReason: outcome.reason }, approved: false };
  return {
    approved: true,
    patch: {
      status: retryApproved(payment),
      capturedAmount: payment.auth ? 0n : payment.amount,
      declineReason: null,
      details: { connectorRef: outcome.reference, rrn: outcome.rrn, arn: outcome.arn, approvalCode: outcome.approvalCode },
    },
  };
}

async function ask(ctx: ServiceContext, mids: readonly Mid[], payment: Payment): Promise<ConnectorOutcome> {
  const mid = mids.find((m) => m.id === payment.midId);
  const connector = ctx.connectors.get(mid?.connector ?? '');
  const card = payment.vaultId ? await loadCard(ctx.db, ctx.keyring, payment.vaultId) : undefined;
  if (!mid || !connector || !card) return { kind: 'declined', reason: 'Card or connector no longer available' };
  try {
    const answer = await connector.authorize({
      paymentId: payment.id, intent: intentOf(payment), amount: payment.amount, currency: payment.currency,
      card: { pan: card.pan(), expMonth: card.expMonth, expYear: card.expYear, holder: card.holder ?? undefined },
      orderId: payment.orderId, description: payment.description, payer: connectorPayer(payment.payer),
      storedCard: { initiator: 'merchant', source: 'unscheduled', sequence: 'subsequent' },
      // A retry is a new attempt at the acquirer: keyed by its own transaction.
      idempotencyKey: payment.details.lastTransId ?? payment.id,
    }, midAccess(ctx, mid));
    return merchantInitiatedOutcome(answer);
  } catch (err) {
    ctx.logger.error({ paymentId: payment.id, err: (err as Error).message }, 'retry call failed; payment left for re-check');
    return { kind: 'pending', reason: 'Connector unavailable' };
  }
}

/** Retries a declined recurring charge; the merchant hears the outcome by callback. */
export async function retryRecurringCharge(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], payment: Payment): Promise<Payment> {
  if (!isRecurring(payment.operation) || payment.status !== 'decline') throw new GatewayError('incorrectTransaction');
  const transId = newId();
  // A new acquirer attempt of the payment, on the MID that declined it (none when that MID is gone: nothing is asked).
  const mid = mids.find((m) => m.id === payment.midId);
  const attempt = mid && ctx.connectors.has(mid.connector) ? { midId: mid.id, connector: mid.connector, why: 'retry' as const } : undefined;
  const claimed = await ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const claim = await updatePayment(tx, payment.id, { status: 'decline', pendingOperation: null }, { pendingOperation: 'retry', details: { lastTransId: transId } }, now);
    if (claim) await insertTransaction(tx, { id: transId, paymentId: payment.id, type: 'retry', status: 'waiting', amount: payment.amount, now }, attempt);
    return claim;
  });
  if (!claimed) throw new GatewayError('operationInProgress');
  const outcome = await ask(ctx, mids, claimed);
  if (outcome.kind !== 'approved' && outcome.kind !== 'declined') return claimed;
  const { patch, approved } = retryPatch(claimed, outcome);
  const status = approved ? 'success' : 'fail';
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const updated = await updatePaymentAndTransaction(tx, payment.id, { status: 'decline', pendingOperation: 'retry' }, { ...patch, pendingOperation: null }, now,
      { id: transId, status, details: outcome.kind === 'declined' ? { reason: outcome.reason } : { reference: outcome.reference }, ...(attempt ? { attempt: attemptResult(outcome) } : {}) });
    if (!updated) return claimed;
    // The callback reports the charge's own action (RECURRING_SALE or RECURRING_DEBIT), as the platform's newer docs do.
    await notify(tx, merchant, updated, { transId, type: 'recurring', status, ...(outcome.kind === 'declined' ? { reason: outcome.reason } : {}) }, now);
    return updated;
  });
}
