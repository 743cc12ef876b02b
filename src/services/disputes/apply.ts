/**
 * The one place a dispute changes (issue 29): an event (an acquirer's notice or an operator's act) applied to a
 * dispute of a payment, in one transaction with everything it causes. The payment's row is locked first, so the
 * disputes of one payment change one at a time and the total rule (never more than captured less refunded held
 * at once) holds under concurrency. A debit posts the chargeback and the merchant's chargeback fee (the fee
 * schedule's `chargeback` row) to the ledger, turns the payment to `chargeback`, records a chargeback transaction
 * and queues the merchant's callback; a credit (won, reversed) posts the amount back (the fee stays charged) and
 * returns the payment to settled (or refund) once no dispute holds money. A notice seen before changes nothing.
 * A fraud chargeback's debit also lists the payment's card, e-mail and device (services/risk/dispute-feed.ts).
 */
import type { ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { GatewayError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import {
  categoryOf, fitsCaptured, holdsMoney, moneyMoveOf, nextState, remainingDisputable,
  type Dispute, type DisputeEvent, type DisputeSource, type DisputeState,
} from '../../domain/disputes.ts';
import { entriesOf, type MoneyEvent } from '../../domain/ledger/postings.ts';
import { quoteFee, scheduleInForce } from '../../domain/ledger/fees.ts';
import {
  disputesOfPayment, findDisputeByRef, getDispute, insertDispute, insertDisputeEvent, lockPaymentForDispute, noticeSeen, updateDispute,
} from '../../store/disputes-repo.ts';
import { getPayment, insertTransaction, updatePayment } from '../../store/payments-repo.ts';
import { findMerchantById } from '../../store/merchants-repo.ts';
import { insertEntries } from '../../store/ledger-repo.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { acquirerOf, bookOf, regionOf } from '../money/postings.ts';
import { notify } from '../callbacks/index.ts';
import { feedFraudDispute } from '../risk/dispute-feed.ts';
import { forgetLists } from '../risk/engine.ts';

export interface DisputeChange {
  paymentId: string;
  /** The dispute acted on; absent: the payment's one of (source, externalRef), or a new one. */
  disputeId?: string;
  source: DisputeSource;
  externalRef?: string | null;
  event: DisputeEvent;
  /** Minor units; absent: the dispute's own amount, or for a new one what remains captured. */
  amount?: bigint;
  reasonCode?: string | null;
  dueAt?: Date | null;
  bankDate?: string | null;
  /** A notice's own key: a second notice with it changes nothing. */
  noticeKey?: string | null;
  actor: string;
  /** An operator's act is also written to the audit log. */
  audit?: AuditActor;
  /** Also in the merchant's own audit log (a merchant user's act in the portal). */
  auditScope?: { merchantId?: string; merchantGroupId?: string };
  details?: Record<string, unknown>;
  /**
   * Runs first in the dispute's transaction, so that what opened the dispute and the dispute commit or roll back
   * together (a reconciliation row's compare-and-set: its loser throws and opens nothing).
   */
  within?: (tx: Sql) => Promise<void>;
}

export interface DisputeOutcome {
  dispute: Dispute;
  /** false: a duplicate notice, nothing changed. */
  applied: boolean;
}

/** Applies the change; refuses an event the table does not allow (409) or an amount above what remains (208010). */
export async function applyDisputeChange(ctx: ServiceContext, change: DisputeChange): Promise<DisputeOutcome> {
  let listed: string | undefined;
  const outcome = await ctx.db.transaction(async (tx) => {
    if (change.within) await change.within(tx);
    await lockPaymentForDispute(tx, change.paymentId);
    const payment = await getPayment(tx, change.paymentId);
    if (!payment) throw new GatewayError('paymentNotFound');
    const existing = await disputeOf(tx, change);
    if (change.noticeKey && (await noticeSeen(tx, change.noticeKey))) {
      if (existing) return { dispute: existing, applied: false };
    }
    const before: DisputeState | undefined = existing && { stage: existing.stage, status: existing.status };
    const after = nextState(before, change.event);
    if (!after) {
      // An acquirer's notice the dispute has moved past (late or out of order) is recorded nowhere and changes
      // nothing; an operator's act (audited) is refused whatever the dispute's source.
      if (existing && !change.audit) return { dispute: existing, applied: false };
      throw new GatewayError('disputeEventNotAllowed');
    }
    const others = (await disputesOfPayment(tx, payment.id)).filter((d) => d.id !== existing?.id && holdsMoney(d));
    const remaining = remainingDisputable(payment.capturedAmount, payment.refundedAmount, others.map((d) => d.amount));
    const amount = change.amount ?? existing?.amount ?? remaining;
    const move = moneyMoveOf(before, after);
    if (!fitsCaptured(move, amount, remaining) || (!existing && amount > remaining) || amount <= 0n) throw new GatewayError('chargebackTooLarge');
    const now = ctx.clock.now();
    const reasonCode = change.reasonCode ?? existing?.reasonCode ?? null;
    const dispute = existing
      ? await updateDispute(tx, existing.id, existing.version, {
        ...after, amount, dueAt: change.dueAt !== undefined ? change.dueAt : existing.dueAt, reasonCode, category: categoryOf(reasonCode),
      }, now)
      : await insertDispute(tx, {
        id: newId(), paymentId: payment.id, merchantId: payment.merchantId, source: change.source, externalRef: change.externalRef ?? null, amount,
        currency: payment.currency, reasonCode, category: categoryOf(reasonCode), ...after, dueAt: change.dueAt ?? null, bankDate: change.bankDate ?? null, createdAt: now,
      });
    if (!dispute) throw new GatewayError('operationInProgress'); // another writer changed it since it was read
    const eventId = newId();
    await insertDisputeEvent(tx, {
      id: eventId, disputeId: dispute.id, event: change.event, noticeKey: change.noticeKey ?? null, actor: change.actor,
      from: before ?? null, to: after, money: move, details: change.details ?? {}, createdAt: now,
    });
    if (change.audit) {
      await appendAudit(tx, { actor: change.audit, action: `dispute.${change.event}`, objectType: 'dispute', objectId: dispute.id, before, after, details: { payment_id: payment.id, amount: amount.toString(), ...change.details }, ...change.auditScope }, now);
    }
    if (move !== 'none') await moveMoney(ctx, tx, { payment, dispute, move, eventId, now, stillHeld: others.length > 0 });
    // A fraud chargeback taking the money back feeds the risk engine's block list (when the operator turned it on).
    if (move === 'debit') listed = await feedFraudDispute(ctx, tx, payment, dispute, now);
    return { dispute, applied: true };
  });
  if (listed) forgetLists(ctx, listed);
  return outcome;
}

async function disputeOf(tx: Sql, change: DisputeChange): Promise<Dispute | undefined> {
  if (change.disputeId) {
    const d = await getDispute(tx, change.disputeId);
    if (!d || d.paymentId !== change.paymentId) throw new GatewayError('notFound');
    return d;
  }
  return change.externalRef ? findDisputeByRef(tx, change.paymentId, change.source, change.externalRef) : undefined;
}

interface Move {
  payment: Payment;
  dispute: Dispute;
  move: 'debit' | 'credit';
  eventId: string;
  now: Date;
  /** Another dispute of the payment holds money (the payment stays in chargeback on a credit). */
  stillHeld: boolean;
}

/** The ledger entries, the payment's status, the chargeback transaction and the merchant's callback of a move. */
async function moveMoney(ctx: ServiceContext, tx: Sql, m: Move): Promise<void> {
  const { payment, dispute, now } = m;
  const events: MoneyEvent[] = m.move === 'debit'
    ? [{ kind: 'chargeback', amount: dispute.amount }, { kind: 'fee', amount: await chargebackFee(ctx, tx, payment, dispute.amount) }]
    : [{ kind: 'chargeback_reversal', amount: dispute.amount }];
  if (!ctx.ledgerOff) {
    await insertEntries(tx, entriesOf(events, {
      merchantId: payment.merchantId, acquirer: acquirerOf(payment), currency: payment.currency, ref: `dispute:${dispute.id}:${m.eventId}`, paymentId: payment.id,
    }), now);
  }
  if (m.move === 'credit') {
    if (!m.stillHeld) await updatePayment(tx, payment.id, { status: 'chargeback' }, { status: payment.refundedAmount >= payment.capturedAmount ? 'refund' : 'settled' }, now);
    return;
  }
  const updated = payment.status === 'chargeback' ? payment : await updatePayment(tx, payment.id, { status: ['settled', 'refund'] }, { status: 'chargeback' }, now);
  if (!updated) throw new GatewayError('chargebackTooLarge'); // not a captured payment
  const transId = newId();
  await insertTransaction(tx, { id: transId, paymentId: payment.id, type: 'chargeback', status: 'success', amount: dispute.amount, details: { dispute_id: dispute.id, reason_code: dispute.reasonCode }, now });
  const merchant = await findMerchantById(tx, ctx.keyring, payment.merchantId);
  if (merchant) {
    await notify(tx, merchant, updated, {
      transId, type: 'chargeback', status: 'success', amount: dispute.amount,
      chargeback: { date: now, bankDate: dispute.bankDate ?? now.toISOString().slice(0, 10), reasonCode: dispute.reasonCode ?? '' },
    }, now);
  }
}

/** The merchant's chargeback fee: the `chargeback` row of the fee schedule in force on the payment's date. */
async function chargebackFee(ctx: ServiceContext, tx: Sql, payment: Payment, amount: bigint): Promise<bigint> {
  const book = await bookOf(ctx, tx, payment.merchantId);
  const schedule = scheduleInForce(book.schedules, payment.merchantId, payment.createdAt);
  return quoteFee(schedule, { operation: 'chargeback', method: payment.details.brand, region: regionOf(ctx, payment, book.terms), currency: payment.currency, amount }).fee;
}
