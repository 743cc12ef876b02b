/**
 * Capture, refund, reversal and void of an existing payment, for every channel. Each claims the payment
 * with a compare-and-set (an operation in flight blocks any other), calls the connector, then applies the
 * result with a second compare-and-set and writes the callback in the same transaction.
 */
import type { ServiceContext } from './context.ts';
import type { Merchant, Mid } from '../store/merchants-repo.ts';
import { getPayment, insertTransaction, updatePayment, updateTransactionStatus, type Payment, type PaymentPatch, type TransactionType } from '../store/payments-repo.ts';
import { nextStatus } from '../domain/payment-state.ts';
import { GatewayError, type ErrorName } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { CardConnector, FollowUpOutcome } from '../connectors/types.ts';
import { notify } from './callbacks/index.ts';

export interface FollowUpResult {
  payment: Payment;
  transId: string;
  outcome: FollowUpOutcome;
}

interface FollowUpPlan {
  operation: 'capture' | 'refund' | 'reversal' | 'void';
  type: TransactionType;
  amount: bigint;
  /** The claim: what must hold, and what to reserve, when the operation starts. */
  claim: { status: Payment['status']; patch: PaymentPatch; refundCeiling?: bigint };
  call: (connector: CardConnector, payment: Payment) => Promise<FollowUpOutcome>;
  onApproved: (payment: Payment) => PaymentPatch;
  onDeclined: (payment: Payment) => PaymentPatch;
}

function must<T>(value: T | undefined, error: ErrorName): T {
  if (value === undefined) throw new GatewayError(error);
  return value;
}

async function run(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], payment: Payment, plan: FollowUpPlan, busyError: ErrorName): Promise<FollowUpResult> {
  const connector = ctx.connectors.get(mids.find((m) => m.id === payment.midId)?.connector ?? '');
  if (!connector) throw new GatewayError('noEligibleMid');
  const transId = newId();
  const now = ctx.clock.now();
  const claimed = await ctx.db.transaction(async (tx) => {
    const claimed = await updatePayment(tx, payment.id,
      { status: plan.claim.status, pendingOperation: null, refundCeiling: plan.claim.refundCeiling },
      { ...plan.claim.patch, pendingOperation: plan.operation, details: { lastTransId: transId } }, now);
    if (claimed) await insertTransaction(tx, { id: transId, paymentId: payment.id, type: plan.type, status: 'waiting', amount: plan.amount, now });
    return claimed;
  });
  if (!claimed) {
    const current = await getPayment(ctx.db, payment.id);
    throw new GatewayError(current?.pendingOperation ? 'operationInProgress' : busyError);
  }
  let outcome: FollowUpOutcome;
  try {
    outcome = await plan.call(connector, claimed);
  } catch (err) {
    ctx.logger.error({ err: (err as Error).message, paymentId: payment.id }, `${plan.operation} call failed; left for re-check`);
    outcome = { kind: 'pending', reason: 'Connector unavailable' };
  }
  if (outcome.kind === 'pending') return { payment: claimed, transId, outcome };
  const done = ctx.clock.now();
  const approved = outcome.kind === 'approved';
  const updated = await ctx.db.transaction(async (tx) => {
    const patch = approved ? plan.onApproved(claimed) : plan.onDeclined(claimed);
    const updated = await updatePayment(tx, payment.id, { pendingOperation: plan.operation }, { ...patch, pendingOperation: null }, done);
    if (!updated) return claimed;
    await updateTransactionStatus(tx, transId, approved ? 'success' : 'fail', outcome.kind === 'declined' ? { reason: outcome.reason } : {});
    await notify(tx, merchant, updated, {
      transId, type: plan.type, status: approved ? 'success' : 'fail', amount: plan.amount,
      ...(outcome.kind === 'declined' ? { reason: outcome.reason } : {}),
    }, done);
    return updated;
  });
  return { payment: updated, transId, outcome };
}

const expiry = (p: Payment) => {
  const [expMonth = '', expYear = ''] = (p.details.cardExpiry ?? '/').split('/');
  return { expMonth, expYear };
};

/** DMS capture of a held authorization: in full, or once in part. */
export async function capture(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], payment: Payment, amount?: bigint): Promise<FollowUpResult> {
  if (payment.status !== 'pending' || !payment.auth) throw new GatewayError('captureNotPending');
  const value = amount ?? payment.amount;
  if (value <= 0n) throw GatewayError.field('amount', 'This value should be greater than 0.');
  if (value > payment.amount) throw new GatewayError('captureTooLarge');
  return run(ctx, merchant, mids, payment, {
    operation: 'capture',
    type: 'capture',
    amount: value,
    claim: { status: 'pending', patch: {} },
    call: (c, p) => c.capture({ reference: p.details.connectorRef ?? p.id, amount: value, currency: p.currency, card: expiry(p) }),
    onApproved: () => ({ status: must(nextStatus('pending', 'captured'), 'captureNotPending'), capturedAmount: value }),
    onDeclined: () => ({}),
  }, 'captureNotPending');
}

/**
 * Refund of a settled payment (several partials up to the captured amount; the full amount gives REFUND),
 * or reversal of a held authorization (whole amount only). The amount is reserved at the claim so racing
 * refunds can never exceed what was taken.
 */
export async function refund(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], payment: Payment, amount?: bigint): Promise<FollowUpResult> {
  if (payment.status === 'pending') return reverse(ctx, merchant, mids, payment, amount);
  if (payment.status !== 'settled') throw new GatewayError('refundNotAllowed');
  const remaining = payment.capturedAmount - payment.refundedAmount;
  const value = amount ?? remaining;
  if (value <= 0n) throw amount === undefined ? new GatewayError('refundTooLarge') : GatewayError.field('amount', 'This value should be greater than 0.');
  if (value > remaining) throw new GatewayError('refundTooLarge');
  return run(ctx, merchant, mids, payment, {
    operation: 'refund',
    type: 'refund',
    amount: value,
    claim: { status: 'settled', patch: { addRefunded: value }, refundCeiling: payment.capturedAmount },
    call: (c, p) => c.refund({ reference: p.details.connectorRef ?? p.id, amount: value, currency: p.currency }),
    onApproved: (p) => ({ status: must(nextStatus('settled', p.refundedAmount >= p.capturedAmount ? 'refunded_fully' : 'refunded_partially'), 'refundNotAllowed') }),
    onDeclined: () => ({ addRefunded: -value }),
  }, 'refundTooLarge');
}

/**
 * Reversal, whole amount only: of a held authorization (refund() routes those here), or of a completed
 * debit (S2S CARD CREDITVOID of a settled DEBIT; nothing may have been refunded from it).
 */
export async function reverse(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], payment: Payment, amount?: bigint): Promise<FollowUpResult> {
  const from = payment.status;
  const settledDebit = from === 'settled' && payment.operation === 'debit';
  if (from !== 'pending' && !settledDebit) throw new GatewayError('refundNotAllowed');
  if (amount !== undefined && amount !== payment.amount) throw new GatewayError('reversalPartial');
  return run(ctx, merchant, mids, payment, {
    operation: 'reversal',
    type: 'reversal',
    amount: payment.amount,
    claim: { status: from, patch: {}, ...(settledDebit ? { refundCeiling: 0n } : {}) },
    call: (c, p) => c.reverse({ reference: p.details.connectorRef ?? p.id, amount: p.amount, currency: p.currency }),
    onApproved: () => ({ status: must(nextStatus(from, 'reversed'), 'refundNotAllowed') }),
    onDeclined: () => ({}),
  }, 'refundNotAllowed');
}

/** Void: only a settled payment with nothing refunded; a held authorization answers "Void is not allowed." */
export async function voidPayment(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], payment: Payment): Promise<FollowUpResult> {
  if (payment.status !== 'settled' || payment.refundedAmount > 0n) throw new GatewayError('voidNotAllowed');
  return run(ctx, merchant, mids, payment, {
    operation: 'void',
    type: 'void',
    amount: payment.capturedAmount,
    claim: { status: 'settled', patch: {}, refundCeiling: 0n },
    call: (c, p) => c.void({ reference: p.details.connectorRef ?? p.id }),
    onApproved: () => ({ status: must(nextStatus('settled', 'voided'), 'voidNotAllowed') }),
    onDeclined: () => ({}),
  }, 'voidNotAllowed');
}
