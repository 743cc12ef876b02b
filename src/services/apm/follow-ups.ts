/**
 * Capture, void and credit-void of APM payments (S2S APM CAPTURE, VOID, CREDITVOID), with the rules of the
 * card follow-ups (D5, wire-reference 5.2): one capture of a held authorization, in full or in part; VOID only
 * of a SETTLED payment; CREDITVOID releases a held authorization (whole amount only) or refunds a settled one
 * (several partials up to the amount). Same shape as services/follow-ups.ts, but the provider is the APM
 * connector: claim with a compare-and-set (amounts reserved), call outside the transaction, apply and notify.
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../store/merchants-repo.ts';
import { getPayment, insertTransaction, updatePayment, updateTransactionStatus, type Payment, type PaymentPatch, type TransactionType } from '../../store/payments-repo.ts';
import { nextStatus, type PaymentStatus } from '../../domain/payment-state.ts';
import { GatewayError, MESSAGES, type ErrorName } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { ApmConnector } from '../../connectors/apm-types.ts';
import type { FollowUpOutcome } from '../../connectors/types.ts';
import { notify } from '../callbacks/index.ts';
import { apmConnector } from './connector.ts';

export interface ApmFollowUpResult {
  payment: Payment;
  transId: string;
  outcome: FollowUpOutcome;
}

interface Plan {
  operation: 'capture' | 'refund' | 'reversal' | 'void';
  type: TransactionType;
  amount: bigint;
  claim: { status: PaymentStatus; patch: PaymentPatch; refundCeiling?: bigint };
  call: (c: ApmConnector, p: Payment) => Promise<FollowUpOutcome>;
  onApproved: (p: Payment) => PaymentPatch;
  onDeclined: PaymentPatch;
  /** The error when the claim finds the payment changed and nothing is in flight. */
  busy: ErrorName;
}

const to = (from: PaymentStatus, event: Parameters<typeof nextStatus>[1]): PaymentStatus => {
  const status = nextStatus(from, event);
  if (!status) throw new Error(`transition ${from} -${event}-> is not in the state table`);
  return status;
};

async function run(ctx: ServiceContext, merchant: Merchant, payment: Payment, plan: Plan): Promise<ApmFollowUpResult> {
  const connector = apmConnector(ctx, merchant);
  const transId = newId();
  const now = ctx.clock.now();
  const claimed = await ctx.db.transaction(async (tx) => {
    const c = await updatePayment(tx, payment.id, { status: plan.claim.status, pendingOperation: null, refundCeiling: plan.claim.refundCeiling },
      { ...plan.claim.patch, pendingOperation: plan.operation, details: { lastTransId: transId } }, now);
    if (c) await insertTransaction(tx, { id: transId, paymentId: payment.id, type: plan.type, status: 'waiting', amount: plan.amount, now });
    return c;
  });
  if (!claimed) {
    const current = await getPayment(ctx.db, payment.id);
    throw new GatewayError(current?.pendingOperation ? 'operationInProgress' : plan.busy);
  }
  let outcome: FollowUpOutcome;
  try {
    outcome = await plan.call(connector, claimed);
  } catch (err) {
    ctx.logger.error({ err: (err as Error).message, paymentId: payment.id }, `APM ${plan.operation} failed; left in flight`);
    outcome = { kind: 'pending', reason: 'Connector unavailable' };
  }
  if (outcome.kind === 'pending') return { payment: claimed, transId, outcome };
  const approved = outcome.kind === 'approved';
  const done = ctx.clock.now();
  const updated = await ctx.db.transaction(async (tx) => {
    const u = await updatePayment(tx, payment.id, { pendingOperation: plan.operation }, { ...(approved ? plan.onApproved(claimed) : plan.onDeclined), pendingOperation: null }, done);
    if (!u) return claimed;
    await updateTransactionStatus(tx, transId, approved ? 'success' : 'fail', outcome.kind === 'declined' ? { reason: outcome.reason } : {});
    await notify(tx, merchant, u, { transId, type: plan.type, status: approved ? 'success' : 'fail', amount: plan.amount, ...(outcome.kind === 'declined' ? { reason: outcome.reason } : {}) }, done);
    return u;
  });
  return { payment: updated, transId, outcome };
}

const reference = (p: Payment) => (typeof p.details.connectorRef === 'string' ? p.details.connectorRef : p.id);

/** CAPTURE of a held authorization: in full, or once in part. */
export async function captureApm(ctx: ServiceContext, merchant: Merchant, payment: Payment, amount?: bigint): Promise<ApmFollowUpResult> {
  if (payment.status !== 'pending' || !payment.auth) throw new GatewayError('captureNotPending');
  const value = amount ?? payment.amount;
  if (value <= 0n) throw GatewayError.field('amount', MESSAGES.notPositive);
  if (value > payment.amount) throw new GatewayError('captureTooLarge');
  return run(ctx, merchant, payment, {
    operation: 'capture', type: 'capture', amount: value, busy: 'captureNotPending',
    claim: { status: 'pending', patch: {} },
    call: (c, p) => c.capture({ reference: reference(p), amount: value, currency: p.currency }),
    onApproved: () => ({ status: to('pending', 'captured'), capturedAmount: value }),
    onDeclined: {},
  });
}

/** VOID: only a SETTLED payment with nothing refunded; a held authorization answers "Void is not allowed." */
export async function voidApm(ctx: ServiceContext, merchant: Merchant, payment: Payment): Promise<ApmFollowUpResult> {
  if (payment.status !== 'settled' || payment.refundedAmount > 0n) throw new GatewayError('voidNotAllowed');
  return run(ctx, merchant, payment, {
    operation: 'void', type: 'void', amount: payment.capturedAmount, busy: 'voidNotAllowed',
    claim: { status: 'settled', patch: {}, refundCeiling: 0n },
    call: (c, p) => c.void({ reference: reference(p) }),
    onApproved: () => ({ status: to('settled', 'voided') }),
    onDeclined: {},
  });
}

/** CREDITVOID: releases a held authorization (REVERSAL, whole amount), or refunds a settled payment. */
export async function creditVoidApm(ctx: ServiceContext, merchant: Merchant, payment: Payment, amount?: bigint): Promise<ApmFollowUpResult> {
  if (payment.status === 'pending' && payment.auth) {
    if (amount !== undefined && amount !== payment.amount) throw new GatewayError('reversalPartial');
    return run(ctx, merchant, payment, {
      operation: 'reversal', type: 'reversal', amount: payment.amount, busy: 'refundNotAllowed',
      claim: { status: 'pending', patch: {} },
      call: (c, p) => c.reverse({ reference: reference(p), amount: p.amount, currency: p.currency }),
      onApproved: () => ({ status: to('pending', 'reversed') }),
      onDeclined: {},
    });
  }
  if (payment.status !== 'settled') throw new GatewayError('refundNotAllowed');
  const remaining = payment.capturedAmount - payment.refundedAmount;
  const value = amount ?? remaining;
  if (value <= 0n) throw amount === undefined ? new GatewayError('refundTooLarge') : GatewayError.field('amount', MESSAGES.notPositive);
  if (value > remaining) throw new GatewayError('refundTooLarge');
  return run(ctx, merchant, payment, {
    operation: 'refund', type: 'refund', amount: value, busy: 'refundTooLarge',
    claim: { status: 'settled', patch: { addRefunded: value }, refundCeiling: payment.capturedAmount },
    call: (c, p) => c.refund({ reference: reference(p), amount: value, currency: p.currency }),
    onApproved: (p) => ({ status: to('settled', p.refundedAmount >= p.capturedAmount ? 'refunded_fully' : 'refunded_partially') }),
    onDeclined: { addRefunded: -value },
  });
}
