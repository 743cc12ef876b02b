/**
 * What an operator does to a payment (issue 11): capture, void and refund through the same compare-and-set
 * follow-up engine the merchant channels use (so the merchant gets the same callbacks), and resolving an
 * operation the re-check worker handed over because its answer was lost. Every action is appended to the audit
 * log with the operator, in the same transaction as the change it records, and the transaction it creates
 * names the operator who started it.
 */
import type { ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import { findMerchantById, listMids } from '../../store/merchants-repo.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Payment, TransactionType } from '../../domain/model/payment.ts';
import { getPayment, listTransactions, needsOperatorOf, updatePayment, updateTransactionStatus, type PaymentPatch } from '../../store/payments-repo.ts';
import type { NeedsOperator } from '../../domain/model/payment.ts';
import { resolveHeldAuthorization } from '../attempt/index.ts';
import { resolveHeldInitiation } from '../apm/payments.ts';
import type { OperatorDecision, OperatorWrite } from '../operator-write.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { capturePayment, refundPayment, voidAnyPayment } from '../payment-follow-ups.ts';
import type { FollowUpOrigin, FollowUpResult } from '../follow-ups.ts';
import { notify } from '../callbacks/index.ts';
import { nextStatus, type PaymentEvent, type PaymentStatus } from '../../domain/payment-state.ts';
import { formatAmount, parseAmount } from '../../domain/money.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';

export type OperatorAction = 'capture' | 'void' | 'refund';

/** A payment's state as the audit log records it before and after an action. */
function auditState(p: Payment) {
  return {
    status: p.status,
    amount: formatAmount(p.amount, p.currency),
    captured_amount: formatAmount(p.capturedAmount, p.currency),
    refunded_amount: formatAmount(p.refundedAmount, p.currency),
    currency: p.currency,
    pending_operation: p.pendingOperation,
  };
}

/** Who acts on a payment besides operators (issue 30: a merchant's portal user): their kind, and the audit's merchant. */
export interface ActingAs {
  kind: 'merchant_user';
  /** The payment must be one of these merchants', else it is not found. */
  merchantIds: readonly string[];
}

const initiatedBy = (actor: AuditActor, as?: ActingAs, reason?: string) => ({ kind: as?.kind ?? 'operator', user_id: actor.userId, name: actor.name, ...(reason ? { reason } : {}) });

async function paymentWithMerchant(ctx: ServiceContext, paymentId: string): Promise<{ payment: Payment; merchant: Merchant; mids: Mid[] }> {
  const payment = await getPayment(ctx.db, paymentId);
  if (!payment) throw new GatewayError('notFound');
  const merchant = await findMerchantById(ctx.db, ctx.keyring, payment.merchantId);
  if (!merchant) throw new GatewayError('notFound');
  return { payment, merchant, mids: await listMids(ctx.db, merchant.id) };
}

/**
 * The audit entries of an operator's follow-up: one when it is claimed (written with the claim, so the record of
 * who asked for money to move survives a crash during the acquirer's call), one when its answer is applied. The
 * action names the operation the engine runs (a refund of a held authorization is a reversal).
 */
function operatorOrigin(ctx: ServiceContext, actor: AuditActor, before: Payment, as?: ActingAs, reason?: string): FollowUpOrigin {
  let operation = 'follow_up';
  const entry = (after: Payment, details: Record<string, unknown>) => ({
    actor, action: `payment.${operation}`, objectType: 'payment', objectId: before.id, before: auditState(before), after: auditState(after),
    details: reason ? { ...details, reason_given: reason } : details,
    ...(as ? { merchantId: before.merchantId } : {}),
  });
  return {
    initiatedBy: initiatedBy(actor, as, reason),
    async onClaimed(tx, claimed, transId) {
      operation = claimed.pendingOperation ?? operation;
      await appendAudit(tx, entry(claimed, { stage: 'requested', trans_id: transId }), ctx.clock.now());
    },
    async onApplied(tx, updated, transId, outcome) {
      await appendAudit(tx, entry(updated, { stage: outcome.kind, trans_id: transId, ...(outcome.kind === 'declined' ? { reason: outcome.reason } : {}) }), ctx.clock.now());
    },
  };
}

/** An amount as the operator typed it, a decimal in the payment's currency. */
function amountIn(payment: Payment, text: string | undefined): bigint | undefined {
  if (text === undefined) return undefined;
  const parsed = parseAmount(text, payment.currency);
  if (!parsed.ok) throw GatewayError.field('amount', MESSAGES.notValid);
  return parsed.money.minor;
}

/**
 * Capture, void or refund by an operator. The amount (a decimal in the payment's currency) applies to capture
 * and refund; without it the whole remaining amount is taken. A refund of a held authorization reverses it
 * (whole amount), as CREDITVOID does.
 */
export async function operatorFollowUp(ctx: ServiceContext, actor: AuditActor, paymentId: string, action: OperatorAction, amountText?: string, as?: ActingAs, reason?: string): Promise<FollowUpResult> {
  const { payment, merchant, mids } = await paymentWithMerchant(ctx, paymentId);
  if (as && !as.merchantIds.includes(payment.merchantId)) throw new GatewayError('notFound');
  const amount = amountIn(payment, amountText);
  const origin = operatorOrigin(ctx, actor, payment, as, reason);
  switch (action) {
    case 'capture':
      return capturePayment(ctx, merchant, mids, payment, amount, origin);
    case 'refund':
      return refundPayment(ctx, merchant, mids, payment, amount, origin);
    case 'void':
      return voidAnyPayment(ctx, merchant, mids, payment, origin);
  }
}

// --- resolving an operation left in flight ------------------------------------------------------------------

export type ResolveOutcome = 'settled' | 'declined';

/** The reason the merchant's callback gives for an operation an operator found declined at the acquirer. */
export const RESOLVED_DECLINE_REASON = 'Declined by the acquirer (confirmed by an operator)';

/** The status a transition of the state table leads to; a missing row is a programming error. */
function to(from: PaymentStatus, event: PaymentEvent): PaymentStatus {
  const status = nextStatus(from, event);
  if (!status) throw new Error(`transition ${from} -${event}-> is not in the state table`);
  return status;
}

interface Resolution {
  /** The transaction type the merchant's callback reports. */
  callbackType: TransactionType;
  /** The patch when the acquirer did carry the operation out, and when it did not; amount: the operation's own. */
  settled(p: Payment, amount: bigint): PaymentPatch;
  declined(p: Payment, amount: bigint): PaymentPatch;
}

/**
 * Per operation that can be handed to an operator, what each outcome does to the payment: the same patches as
 * the engine applies to a connector's answer (services/follow-ups.ts, recurring/retry.ts, apm/payouts.ts).
 */
const RESOLUTIONS: Readonly<Record<string, Resolution>> = {
  capture: { callbackType: 'capture', settled: (p, amount) => ({ status: to(p.status, 'captured'), capturedAmount: amount }), declined: () => ({}) },
  refund: {
    callbackType: 'refund',
    // The refund's amount is already reserved in refunded_amount; a decline gives it back.
    settled: (p) => ({ status: to(p.status, p.refundedAmount >= p.capturedAmount ? 'refunded_fully' : 'refunded_partially') }),
    declined: (_p, amount) => ({ addRefunded: -amount }),
  },
  reversal: { callbackType: 'reversal', settled: (p) => ({ status: to(p.status, 'reversed') }), declined: () => ({}) },
  void: { callbackType: 'void', settled: (p) => ({ status: to(p.status, 'voided') }), declined: () => ({}) },
  retry: {
    callbackType: 'recurring',
    settled: (p) => ({ status: to(p.status, p.auth ? 'retried_authorized' : 'retried_sold'), capturedAmount: p.auth ? 0n : p.amount, declineReason: null }),
    declined: () => ({}),
  },
  apm_payout: {
    callbackType: 'credit',
    settled: (p) => ({ status: to(p.status, 'sold'), capturedAmount: p.amount }),
    declined: (p) => ({ status: to(p.status, 'declined'), declineReason: RESOLVED_DECLINE_REASON }),
  },
};

type HeldResolver = (ctx: ServiceContext, merchant: Merchant, payment: Payment, decision: OperatorDecision, write: OperatorWrite) => Promise<Payment | undefined>;

/**
 * The payment-creating operations whose decided answer can be held for an operator (the integrity check): the
 * engine that would have applied the answer applies the operator's word instead, so the payment, its session,
 * recurring chain, daily-cap share and callback come out exactly as from the acquirer.
 */
const HELD_OUTCOMES: Readonly<Record<string, HeldResolver>> = {
  authorize: resolveHeldAuthorization,
  complete: resolveHeldAuthorization,
  apm_initiate: resolveHeldInitiation,
};

async function resolveHeld(
  ctx: ServiceContext, actor: AuditActor, merchant: Merchant, payment: Payment, input: ResolveInput, resolver: HeldResolver, flag: NeedsOperator & { reference?: string | null },
): Promise<{ payment: Payment; transId: string }> {
  const transId = payment.details.lastTransId!;
  const settled = input.outcome === 'settled';
  const decision: OperatorDecision = { settled, reason: RESOLVED_DECLINE_REASON, ...(flag.reference ? { reference: flag.reference } : {}) };
  const updated = await resolver(ctx, merchant, payment, decision, {
    version: payment.version,
    txDetails: { resolvedBy: initiatedBy(actor), resolution: input.outcome, note: input.note },
    within: (tx, after) => appendAudit(tx, {
      actor, action: 'payment.resolve', objectType: 'payment', objectId: payment.id,
      before: auditState(payment), after: auditState(after),
      details: { operation: flag.operation, outcome: input.outcome, note: input.note, trans_id: transId },
    }, ctx.clock.now()).then(() => undefined),
  });
  if (!updated) {
    const current = await getPayment(ctx.db, payment.id);
    throw new GatewayError(current && needsOperatorOf(current) ? 'operationInProgress' : 'nothingToResolve');
  }
  return { payment: updated, transId };
}

export interface ResolveInput {
  outcome: ResolveOutcome;
  /** What the operator checked, kept on the transaction and in the audit log (never sent to the merchant). */
  note: string;
}

/**
 * Marks the operation a payment was handed over with as carried out or not, after the operator checked with the
 * acquirer: a compare-and-set on the version read (nothing else may have touched the payment since), the
 * transaction's status, the callback the outcome implies, and the audit entry, in one transaction.
 */
export async function resolveInFlight(ctx: ServiceContext, actor: AuditActor, paymentId: string, input: ResolveInput): Promise<{ payment: Payment; transId: string }> {
  const { payment, merchant } = await paymentWithMerchant(ctx, paymentId);
  const flag = needsOperatorOf(payment);
  const transId = payment.details.lastTransId;
  const held = flag && HELD_OUTCOMES[flag.operation];
  if (flag && held && transId) return resolveHeld(ctx, actor, merchant, payment, input, held, flag as NeedsOperator & { reference?: string | null });
  const resolution = flag && RESOLUTIONS[flag.operation];
  if (!flag || !resolution || !transId) throw new GatewayError('nothingToResolve');
  const amount = (await listTransactions(ctx.db, payment.id)).find((t) => t.id === transId)?.amount ?? payment.amount;
  const settled = input.outcome === 'settled';
  const patch = settled ? resolution.settled(payment, amount) : resolution.declined(payment, amount);
  const now = ctx.clock.now();
  const updated = await ctx.db.transaction(async (tx: Sql) => {
    const updated = await updatePayment(tx, payment.id, { status: payment.status, pendingOperation: flag.operation, version: payment.version }, { ...patch, pendingOperation: null }, now);
    if (!updated) return undefined;
    await updateTransactionStatus(tx, transId, settled ? 'success' : 'fail', {
      resolvedBy: initiatedBy(actor), resolution: input.outcome, note: input.note, ...(settled ? {} : { reason: RESOLVED_DECLINE_REASON }),
    });
    await notify(tx, merchant, updated, {
      transId, type: resolution.callbackType, status: settled ? 'success' : 'fail', amount,
      ...(settled ? {} : { reason: RESOLVED_DECLINE_REASON }),
    }, now);
    await appendAudit(tx, {
      actor, action: 'payment.resolve', objectType: 'payment', objectId: payment.id,
      before: auditState(payment), after: auditState(updated),
      details: { operation: flag.operation, outcome: input.outcome, note: input.note, trans_id: transId },
    }, now);
    return updated;
  });
  if (!updated) {
    // Another operator (or a double click) resolved it first, or the payment moved: nothing is applied twice.
    const current = await getPayment(ctx.db, payment.id);
    throw new GatewayError(current && needsOperatorOf(current) ? 'operationInProgress' : 'nothingToResolve');
  }
  return { payment: updated, transId };
}
