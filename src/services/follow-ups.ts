/**
 * Capture, refund, reversal and void of an existing payment, for every channel and every kind of payment.
 * Each claims the payment with a compare-and-set (an operation in flight blocks any other; refund amounts
 * are reserved), calls the acquirer or provider outside any transaction, then applies the result with a
 * second compare-and-set and writes the callback in the same transaction. What differs between card and
 * alternative-method payments is only who is called: a FollowUpPort.
 */
import { post } from './attempt/post.ts';
import type { ServiceContext } from './context.ts';
import type { Merchant } from '../domain/model/merchant.ts';
import type { Mid } from '../domain/model/mid.ts';
import type { Payment, TransactionType } from '../domain/model/payment.ts';
import { getPayment, insertTransaction, listTransactions, updatePayment, updateTransactionStatus, type PaymentPatch } from '../store/payments-repo.ts';
import { followUpRequest, midAccess } from './connector-access.ts';
import { STATUSES, nextStatus, type PaymentEvent, type PaymentStatus } from '../domain/payment-state.ts';
import { GatewayError, MESSAGES, type ErrorName } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { reversedWhenSettled } from '../domain/operations.ts';
import type { FollowUpOutcome } from '../connectors/types.ts';
import type { Sql } from '../store/database.ts';
import { notify } from './callbacks/index.ts';

export interface FollowUpResult {
  payment: Payment;
  transId: string;
  outcome: FollowUpOutcome;
}

/** Who carries out follow-ups of a payment: its card connector, or its alternative method's provider. */
export interface FollowUpPort {
  capture(p: Payment, amount: bigint): Promise<FollowUpOutcome>;
  refund(p: Payment, amount: bigint): Promise<FollowUpOutcome>;
  reverse(p: Payment): Promise<FollowUpOutcome>;
  void(p: Payment): Promise<FollowUpOutcome>;
}

/**
 * Who started a follow-up, when it is not the merchant's own request (an operator on the admin API): named on
 * its transaction, and told of the claim and of the answer inside their transactions, so that what it records
 * (the audit log) is written atomically with the change it records.
 */
export interface FollowUpOrigin {
  /** Stored in the transaction's details as initiatedBy. */
  initiatedBy: Record<string, unknown>;
  onClaimed?(tx: Sql, claimed: Payment, transId: string): Promise<void>;
  onApplied?(tx: Sql, updated: Payment, transId: string, outcome: FollowUpOutcome): Promise<void>;
}

interface FollowUpPlan {
  operation: 'capture' | 'refund' | 'reversal' | 'void';
  type: TransactionType;
  amount: bigint;
  /** The claim: what must hold, and what to reserve, when the operation starts. */
  claim: { status: PaymentStatus; patch: PaymentPatch; refundCeiling?: bigint };
  call: (payment: Payment) => Promise<FollowUpOutcome>;
  onApproved: (payment: Payment) => PaymentPatch;
  onDeclined: PaymentPatch;
  /** The error when the claim finds the payment changed and nothing is in flight. */
  busy: ErrorName;
}

/** The status a transition of the state table leads to; a missing row is a programming error. */
function to(from: PaymentStatus, event: PaymentEvent): PaymentStatus {
  const status = nextStatus(from, event);
  if (!status) throw new Error(`transition ${from} -${event}-> is not in the state table`);
  return status;
}

async function run(ctx: ServiceContext, merchant: Merchant, payment: Payment, plan: FollowUpPlan, origin?: FollowUpOrigin): Promise<FollowUpResult> {
  const transId = newId();
  const now = ctx.clock.now();
  const claimed = await ctx.db.transaction(async (tx) => {
    const claimed = await updatePayment(tx, payment.id,
      { status: plan.claim.status, pendingOperation: null, refundCeiling: plan.claim.refundCeiling },
      { ...plan.claim.patch, pendingOperation: plan.operation, details: { lastTransId: transId } }, now);
    if (claimed) {
      await insertTransaction(tx, { id: transId, paymentId: payment.id, type: plan.type, status: 'waiting', amount: plan.amount, now, ...(origin ? { details: { initiatedBy: origin.initiatedBy } } : {}) });
      await origin?.onClaimed?.(tx, claimed, transId);
    }
    return claimed;
  });
  if (!claimed) {
    const current = await getPayment(ctx.db, payment.id);
    throw new GatewayError(current?.pendingOperation ? 'operationInProgress' : plan.busy);
  }
  let outcome: FollowUpOutcome;
  try {
    outcome = await plan.call(claimed);
  } catch (err) {
    ctx.logger.error({ err: (err as Error).message, paymentId: payment.id }, `${plan.operation} call failed; left for re-check`);
    outcome = { kind: 'pending', reason: 'Connector unavailable' };
  }
  if (outcome.kind === 'pending') return { payment: claimed, transId, outcome };
  const done = ctx.clock.now();
  const updated = await ctx.db.transaction(async (tx) => {
    const patch = outcome.kind === 'approved' ? withArn(plan.onApproved(claimed), outcome) : plan.onDeclined;
    const updated = await settle(ctx, tx, merchant, claimed, { operation: plan.operation, transId, type: plan.type, amount: plan.amount, patch, outcome }, done);
    if (!updated) return claimed;
    await origin?.onApplied?.(tx, updated, transId, outcome);
    return updated;
  });
  return { payment: updated, transId, outcome };
}

/** What settling a follow-up takes: the operation in flight, its transaction and the payment's change for the outcome. */
interface Settlement {
  operation: string;
  transId: string;
  type: TransactionType;
  amount: bigint;
  patch: PaymentPatch;
  outcome: Exclude<FollowUpOutcome, { kind: 'pending' }>;
}

/**
 * Applies a follow-up's final outcome (compare-and-set on the operation in flight), closes its transaction, posts
 * what it moved to the ledger and queues the merchant's callback, in the caller's transaction. `claimed`: the
 * payment as its claim left it. Undefined when the operation was no longer in flight.
 */
async function settle(ctx: ServiceContext, tx: Sql, merchant: Merchant, claimed: Payment, s: Settlement, now: Date): Promise<Payment | undefined> {
  const { outcome } = s;
  const status = outcome.kind === 'approved' ? 'success' : 'fail';
  const applied = await applyOutcome(tx, claimed.id, s, now);
  if (!applied) return undefined;
  const { updated, statusBefore } = applied;
  // The claim reserved a refund's amount already: the money moves only if the refund is approved.
  const before = { status: statusBefore ?? claimed.status, capturedAmount: claimed.capturedAmount, refundedAmount: claimed.refundedAmount - (s.type === 'refund' ? s.amount : 0n) };
  await post(ctx, tx, { payment: updated, transId: s.transId, outcome: outcome.kind, before });
  // A decline keeps the acquirer's raw code and message on the transaction.
  await updateTransactionStatus(tx, s.transId, status, outcome.kind === 'declined' ? { reason: outcome.reason, ...(outcome.error ?? {}) } : {});
  await notify(tx, merchant, updated, {
    transId: s.transId, type: s.type, status, amount: s.amount,
    ...(outcome.kind === 'declined' ? { reason: outcome.reason } : {}),
  }, now);
  return updated;
}

/** Every status but the one a chargeback sets: what a follow-up's outcome may move a payment from. */
const NOT_CHARGED_BACK: readonly PaymentStatus[] = STATUSES.filter((st) => st !== 'chargeback');

/**
 * The follow-up's outcome on the payment (compare-and-set on the operation in flight). A chargeback that came while
 * it was in flight keeps its status: the outcome still moves the money (a refund's reservation kept, or given back
 * on a decline), and the status stays the dispute's, so a payment charged back cannot be refunded again nor posted
 * charged back twice. `statusBefore`: the status the ledger's posting starts from when it is not the claim's.
 */
async function applyOutcome(tx: Sql, id: string, s: Settlement, now: Date): Promise<{ updated: Payment; statusBefore?: PaymentStatus } | undefined> {
  const updated = await updatePayment(tx, id, { pendingOperation: s.operation, status: NOT_CHARGED_BACK }, { ...s.patch, pendingOperation: null }, now);
  if (updated) return { updated };
  const { status: _kept, ...money } = s.patch;
  const disputed = await updatePayment(tx, id, { pendingOperation: s.operation, status: 'chargeback' }, { ...money, pendingOperation: null }, now);
  return disputed && { updated: disputed, statusBefore: 'chargeback' };
}

/** An acquirer reference number the follow-up's outcome carries (a capture moves the funds) joins the payment. */
function withArn(patch: PaymentPatch, outcome: FollowUpOutcome): PaymentPatch {
  return outcome.kind === 'approved' && outcome.arn ? { ...patch, details: { ...patch.details, arn: outcome.arn } } : patch;
}

/** DMS capture of a held authorization: in full, or once in part. */
export async function captureWith(ctx: ServiceContext, merchant: Merchant, port: FollowUpPort, payment: Payment, amount?: bigint, origin?: FollowUpOrigin): Promise<FollowUpResult> {
  if (payment.status !== 'pending' || !payment.auth) throw new GatewayError('captureNotPending');
  const value = amount ?? payment.amount;
  if (value <= 0n) throw GatewayError.field('amount', MESSAGES.notPositive);
  if (value > payment.amount) throw new GatewayError('captureTooLarge');
  return run(ctx, merchant, payment, {
    operation: 'capture', type: 'capture', amount: value, busy: 'captureNotPending',
    claim: { status: 'pending', patch: {} },
    call: (p) => port.capture(p, value),
    onApproved: () => ({ status: to('pending', 'captured'), capturedAmount: value }),
    onDeclined: {},
  }, origin);
}

/**
 * Refund of a settled payment (several partials up to the captured amount; the full amount gives REFUND),
 * or reversal of a held authorization (whole amount only). The amount is reserved at the claim so racing
 * refunds can never exceed what was taken.
 */
export async function refundWith(ctx: ServiceContext, merchant: Merchant, port: FollowUpPort, payment: Payment, amount?: bigint, origin?: FollowUpOrigin): Promise<FollowUpResult> {
  if (payment.status === 'pending' && payment.auth) return reverseWith(ctx, merchant, port, payment, amount, origin);
  if (payment.status !== 'settled') throw new GatewayError('refundNotAllowed');
  const remaining = payment.capturedAmount - payment.refundedAmount;
  const value = amount ?? remaining;
  if (value <= 0n) throw amount === undefined ? new GatewayError('refundTooLarge') : GatewayError.field('amount', MESSAGES.notPositive);
  if (value > remaining) throw new GatewayError('refundTooLarge');
  return run(ctx, merchant, payment, {
    operation: 'refund', type: 'refund', amount: value, busy: 'refundTooLarge',
    claim: { status: 'settled', patch: { addRefunded: value }, refundCeiling: payment.capturedAmount },
    call: (p) => port.refund(p, value),
    onApproved: (p) => ({ status: to('settled', p.refundedAmount >= p.capturedAmount ? 'refunded_fully' : 'refunded_partially') }),
    onDeclined: { addRefunded: -value },
  }, origin);
}

/**
 * Reversal, whole amount only: of a held authorization (refundWith() routes those here), or of a completed
 * debit (S2S CARD CREDITVOID of a settled DEBIT; nothing may have been refunded from it).
 */
export async function reverseWith(ctx: ServiceContext, merchant: Merchant, port: FollowUpPort, payment: Payment, amount?: bigint, origin?: FollowUpOrigin): Promise<FollowUpResult> {
  const from = payment.status;
  const settledDebit = from === 'settled' && reversedWhenSettled(payment.operation);
  if (from !== 'pending' && !settledDebit) throw new GatewayError('refundNotAllowed');
  if (amount !== undefined && amount !== payment.amount) throw new GatewayError('reversalPartial');
  return run(ctx, merchant, payment, {
    operation: 'reversal', type: 'reversal', amount: payment.amount, busy: 'refundNotAllowed',
    claim: { status: from, patch: {}, ...(settledDebit ? { refundCeiling: 0n } : {}) },
    call: (p) => port.reverse(p),
    onApproved: () => ({ status: to(from, 'reversed') }),
    onDeclined: {},
  }, origin);
}

/** Void: only a settled payment with nothing refunded; a held authorization answers "Void is not allowed." */
export async function voidWith(ctx: ServiceContext, merchant: Merchant, port: FollowUpPort, payment: Payment, origin?: FollowUpOrigin): Promise<FollowUpResult> {
  if (payment.status !== 'settled' || payment.refundedAmount > 0n) throw new GatewayError('voidNotAllowed');
  return run(ctx, merchant, payment, {
    operation: 'void', type: 'void', amount: payment.capturedAmount, busy: 'voidNotAllowed',
    claim: { status: 'settled', patch: {}, refundCeiling: 0n },
    call: (p) => port.void(p),
    onApproved: () => ({ status: to('settled', 'voided') }),
    onDeclined: {},
  }, origin);
}

// --- card payments: the port is the card connector of the payment's MID ------------------------------------

export function cardPort(ctx: ServiceContext, mids: readonly Mid[], payment: Payment): FollowUpPort {
  const mid = mids.find((m) => m.id === payment.midId);
  const connector = ctx.connectors.get(mid?.connector ?? '');
  if (!mid || !connector) throw new GatewayError('noEligibleMid');
  const access = midAccess(ctx, mid);
  // The claim wrote this follow-up's transaction id as lastTransId: it is the acquirer's idempotency key.
  const request = (p: Payment, amount: bigint) => followUpRequest(p, amount, p.details.lastTransId);
  return {
    capture: (p, amount) => connector.capture(request(p, amount), access),
    refund: (p, amount) => connector.refund(request(p, amount), access),
    reverse: (p) => connector.reverse(request(p, p.amount), access),
    void: (p) => connector.void(request(p, p.capturedAmount), access),
  };
}

/**
 * What a follow-up's final outcome does to the payment, when it arrives later than the call (an acquirer that
 * decides asynchronously and notifies): the same transitions as the synchronous path above.
 */
const LATE_EFFECTS: Readonly<Record<string, { approved: (p: Payment, amount: bigint) => PaymentPatch; declined: (p: Payment, amount: bigint) => PaymentPatch; type: TransactionType }>> = {
  capture: { type: 'capture', approved: (_p, amount) => ({ status: to('pending', 'captured'), capturedAmount: amount }), declined: () => ({}) },
  refund: {
    type: 'refund',
    approved: (p) => ({ status: to('settled', p.refundedAmount >= p.capturedAmount ? 'refunded_fully' : 'refunded_partially') }),
    declined: (_p, amount) => ({ addRefunded: -amount }),
  },
  // A payment charged back meanwhile keeps its status (applyOutcome): no transition to look up from it.
  reversal: { type: 'reversal', approved: (p) => (p.status === 'chargeback' ? {} : { status: to(p.status, 'reversed') }), declined: () => ({}) },
  void: { type: 'void', approved: () => ({ status: to('settled', 'voided') }), declined: () => ({}) },
};

/**
 * Applies the acquirer's late word on the follow-up a payment has in flight (compare-and-set on that operation),
 * with its callback. Returns the updated payment, or undefined when nothing was in flight any more.
 */
export async function applyLateFollowUp(ctx: ServiceContext, merchant: Merchant, payment: Payment, outcome: FollowUpOutcome): Promise<Payment | undefined> {
  const operation = payment.pendingOperation ?? '';
  const effect = LATE_EFFECTS[operation];
  const transId = payment.details.lastTransId;
  if (!effect || !transId || outcome.kind === 'pending') return undefined;
  const transaction = (await listTransactions(ctx.db, payment.id)).find((t) => t.id === transId);
  if (!transaction) return undefined;
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const patch = outcome.kind === 'approved' ? withArn(effect.approved(payment, transaction.amount), outcome) : effect.declined(payment, transaction.amount);
    return settle(ctx, tx, merchant, payment, { operation, transId, type: effect.type, amount: transaction.amount, patch, outcome }, now);
  });
}

export const capture = (ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], payment: Payment, amount?: bigint, origin?: FollowUpOrigin) =>
  captureWith(ctx, merchant, cardPort(ctx, mids, payment), payment, amount, origin);
export const refund = (ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], payment: Payment, amount?: bigint, origin?: FollowUpOrigin) =>
  refundWith(ctx, merchant, cardPort(ctx, mids, payment), payment, amount, origin);
export const reverse = (ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], payment: Payment, amount?: bigint, origin?: FollowUpOrigin) =>
  reverseWith(ctx, merchant, cardPort(ctx, mids, payment), payment, amount, origin);
export const voidPayment = (ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], payment: Payment, origin?: FollowUpOrigin) =>
  voidWith(ctx, merchant, cardPort(ctx, mids, payment), payment, origin);
