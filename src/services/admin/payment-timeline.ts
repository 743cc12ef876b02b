/**
 * A payment's timeline for operators (issue 31 item 6): the rows paymentDetail reads (the console's payment page
 * shows the same payment), the payment's disputes and the other tries of its Checkout session (its order), told in
 * time order by domain/payment-timeline.ts. Notes: an operator's internal note on a payment is an audit entry
 * (payment.note): kept for good, with who and when, never sent to the merchant.
 */
import type { ServiceContext } from '../context.ts';
import { paymentDetail } from './payment-detail.ts';
import { disputesOfPayment } from '../../store/disputes-repo.ts';
import { getPayment, paymentsOfSession } from '../../store/payments-repo.ts';
import { getSession } from '../../store/sessions-repo.ts';
import { listMids } from '../../store/merchants-repo.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { paymentTimeline, statusInWords, threeDsInWords, type StatusInWords, type TimelineRisk, type TimelineStep } from '../../domain/payment-timeline.ts';
import type { RiskEvaluation } from '../../domain/risk/evaluate.ts';
import type { PaymentAttempt } from '../../domain/model/attempt.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isUuid } from '../../domain/ids.ts';

export interface OrderTry {
  paymentId: string;
  status: StatusInWords;
  amount: bigint;
  currency: string;
  createdAt: Date;
  /** The payment this timeline is of. */
  current: boolean;
}

export interface PaymentTimelineView {
  payment: Payment;
  status: StatusInWords;
  threeDs: string | null;
  /** The tries of the payment's Checkout session (its order), first first; empty for a payment without a session. */
  order: OrderTry[];
  attempts: (PaymentAttempt & { midName: string | null })[];
  steps: TimelineStep[];
}

export async function paymentTimelineOf(ctx: ServiceContext, id: string): Promise<PaymentTimelineView> {
  if (!isUuid(id)) throw new GatewayError('notFound');
  const d = await paymentDetail(ctx, id);
  const p = d.payment;
  const [disputes, tries, session, mids] = await Promise.all([
    disputesOfPayment(ctx.db, p.id),
    p.sessionId ? paymentsOfSession(ctx.db, p.sessionId) : Promise.resolve([]),
    p.sessionId ? getSession(ctx.db, p.sessionId) : Promise.resolve(undefined),
    d.attempts.some((a) => a.midId) ? listMids(ctx.db, p.merchantId) : Promise.resolve([]),
  ]);
  const now = ctx.clock.now();
  const sessionExpiresAt = session?.expiresAt;
  const midNames = new Map(mids.map((m) => [m.id, m.name]));
  const steps = paymentTimeline({
    payment: p, transactions: d.transactions, attempts: d.attempts, callbacks: d.callbacks, audit: d.audit,
    risk: d.risk ? timelineRisk(d.risk.createdAt, d.risk.evaluation) : undefined,
    disputes, midNames,
  });
  return {
    payment: p,
    status: statusInWords(p, now, { review: d.risk?.review === 'pending' ? { deadline: d.risk.reviewDeadline } : undefined, sessionExpiresAt }),
    threeDs: threeDsInWords(p.threeDs),
    order: tries.map((t) => ({
      paymentId: t.id, amount: t.amount, currency: t.currency, createdAt: t.createdAt, current: t.id === p.id,
      status: statusInWords({ ...t, capturedAmount: 0n, refundedAmount: 0n, updatedAt: t.createdAt, ...(t.id === p.id ? p : {}) }, now, { sessionExpiresAt }),
    })),
    attempts: d.attempts.map((a) => ({ ...a, midName: a.midId ? (midNames.get(a.midId) ?? null) : null })),
    steps,
  };
}

/** The risk screen's step: what decided, the score, every rule matched (active and shadow), the lists hit, rules that failed. */
const timelineRisk = (createdAt: Date, e: RiskEvaluation): TimelineRisk & { createdAt: Date } => ({
  createdAt, action: e.action, reason: e.reason, score: e.score,
  rules: e.matched.map((m) => ({ scope: m.scope, name: m.name, mode: m.mode, action: m.action })),
  lists: e.lists.map((l) => ({ scope: l.scope, list: l.list, kind: l.kind })),
  failed: e.failed.map((f) => ({ scope: f.scope, name: f.name })),
});

/** An operator's internal note on a payment (issue 31 item 10): an audit entry, in the payment's timeline. */
export async function addPaymentNote(ctx: ServiceContext, actor: AuditActor, id: string, note: string): Promise<{ at: Date }> {
  const payment = isUuid(id) ? await getPayment(ctx.db, id) : undefined;
  if (!payment) throw new GatewayError('notFound');
  const text = note.trim();
  if (!text) throw GatewayError.field('note', 'Write the note first.');
  const at = ctx.clock.now();
  await appendAudit(ctx.db, { actor, action: 'payment.note', objectType: 'payment', objectId: id, details: { note: text } }, at);
  return { at };
}
