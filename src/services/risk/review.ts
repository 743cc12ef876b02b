/**
 * The risk review (issue 26): card payments the screen held for an operator before any acquirer call
 * (services/attempt/hold.ts), and the operator's decision on each. Approve: the attempt goes on through the
 * payment pipeline (routing's MID, request, call, cascade, outcome, one callback). Decline: the risk engine's
 * decline (`risk_blocked`), one callback, no acquirer asked. Undecided by its deadline: declined by the review
 * worker (workers/risk-reviews.ts). Each decision is a compare-and-set on the payment (`risk_review` in flight):
 * of two operators, or an operator and the worker on two nodes, exactly one decides; the review's record and the
 * audit entry are written in the same transaction as the payment's change.
 */
import type { ServiceContext } from '../context.ts';
import type { Payment } from '../../domain/model/payment.ts';
import type { PaymentStep } from '../attempt/types.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isUuid } from '../../domain/ids.ts';
import { intentOf, REVIEW_OPERATION } from '../../domain/operations.ts';
import { formatAmount } from '../../domain/money.ts';
import { getPayment } from '../../store/payments-repo.ts';
import { findMerchantById, listMids } from '../../store/merchants-repo.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { closeReview, pendingReviews, ruleCounts, screenCounts, type PendingReview } from '../../store/risk-repo.ts';
import { continueReviewed } from '../attempt/index.ts';
import { applyOutcome } from '../attempt/outcome.ts';
import { riskDecline } from '../attempt/screen.ts';
import type { Sql } from '../../store/database.ts';

export type ReviewDecision = 'approve' | 'decline';

export interface ReviewView {
  payment_id: string;
  merchant_id: string;
  order_id: string;
  amount: string;
  currency: string;
  intent: 'sale' | 'auth';
  channel: string;
  payer_email: string | null;
  score: number;
  reason: string;
  screened_at: string;
  deadline: string;
}

export interface ReviewResult {
  payment_id: string;
  decision: ReviewDecision;
  /** The payment's status after the decision (an approval: as the acquirer answered; processing: still in flight). */
  status: string;
  result: 'approved' | 'declined' | 'processing' | 'challenge' | 'redirect';
}

export const MAX_REVIEW_PAGE = 200;

const reviewView = (r: PendingReview): ReviewView => ({
  payment_id: r.paymentId, merchant_id: r.merchantId, order_id: r.orderId, amount: formatAmount(r.amount, r.currency), currency: r.currency,
  intent: r.auth ? 'auth' : 'sale', channel: r.channel, payer_email: r.payerEmail, score: r.score, reason: r.reason,
  screened_at: r.screenedAt.toISOString(), deadline: r.deadline.toISOString(),
});

/** The queue: payments waiting for a decision, soonest deadline first; `after` is the last payment id of the page before. */
export async function listReviews(ctx: ServiceContext, q: { merchant_id?: string; limit?: number; after?: string }): Promise<{ reviews: ReviewView[] }> {
  if (q.merchant_id !== undefined && !isUuid(q.merchant_id)) throw GatewayError.field('merchant_id', 'Not a merchant id (a UUID).');
  let after: { deadline: Date; paymentId: string } | undefined;
  if (q.after !== undefined) {
    const [last] = isUuid(q.after) ? await ctx.db.query<{ review_deadline: Date }>('SELECT review_deadline FROM risk_evaluations WHERE payment_id = $1 AND review_deadline IS NOT NULL', [q.after]) : [];
    if (!last) throw GatewayError.field('after', 'Not a payment of the queue.');
    after = { deadline: new Date(last.review_deadline), paymentId: q.after };
  }
  const rows = await pendingReviews(ctx.db, { merchantId: q.merchant_id, limit: q.limit ?? 50, after });
  return { reviews: rows.map(reviewView) };
}

/** Who decided, as the review's record and the payment's transaction name them. */
const decider = (actor: AuditActor) => ({ kind: 'operator', user_id: actor.userId, name: actor.name });

/**
 * One operator's decision on one held payment. 409 reviewNotPending when it is not held (decided meanwhile, by
 * another operator or the deadline).
 */
export async function decideReview(ctx: ServiceContext, actor: AuditActor, paymentId: string, decision: ReviewDecision, note: string): Promise<ReviewResult> {
  const payment = isUuid(paymentId) ? await getPayment(ctx.db, paymentId) : undefined;
  if (!payment) throw new GatewayError('notFound');
  if (payment.pendingOperation !== REVIEW_OPERATION) throw new GatewayError('reviewNotPending');
  const step = decision === 'approve' ? await approve(ctx, actor, payment, note) : await decline(ctx, payment, 'declined', { actor, note });
  if (!step) throw new GatewayError('reviewNotPending');
  return { payment_id: payment.id, decision, status: step.payment.status, result: resultOf(step) };
}

/** Several decisions with one note (the console's bulk action): each on its own; a failure is reported, not thrown. */
export async function decideReviews(ctx: ServiceContext, actor: AuditActor, paymentIds: readonly string[], decision: ReviewDecision, note: string): Promise<{ results: (ReviewResult | { payment_id: string; error: string })[] }> {
  const results: (ReviewResult | { payment_id: string; error: string })[] = [];
  for (const id of paymentIds) {
    try {
      results.push(await decideReview(ctx, actor, id, decision, note));
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      results.push({ payment_id: id, error: err.message });
    }
  }
  return { results };
}

function resultOf(step: PaymentStep): ReviewResult['result'] {
  if (step.kind !== 'final') return step.kind;
  return step.payment.status === 'decline' ? 'declined' : 'approved';
}

/** The review's record and its audit entry, in the transaction that moves the payment on. */
function recordDecision(ctx: ServiceContext, payment: Payment, review: 'approved' | 'declined' | 'expired', who: { actor: AuditActor; note: string }) {
  return async (tx: Sql, after: Payment): Promise<void> => {
    const now = ctx.clock.now();
    if (!(await closeReview(tx, payment.id, review, { by: who.actor.name, note: who.note, at: now }))) throw new GatewayError('reviewNotPending');
    await appendAudit(tx, {
      actor: who.actor, action: `risk.review.${review === 'approved' ? 'approve' : review === 'declined' ? 'decline' : 'expire'}`, objectType: 'payment', objectId: payment.id,
      before: { status: payment.status, pending_operation: payment.pendingOperation }, after: { status: after.status, pending_operation: after.pendingOperation },
      details: { note: who.note, trans_id: payment.details.lastTransId ?? null },
      merchantId: payment.merchantId,
    }, now);
  };
}

async function approve(ctx: ServiceContext, actor: AuditActor, payment: Payment, note: string): Promise<PaymentStep | undefined> {
  const merchant = await findMerchantById(ctx.db, ctx.keyring, payment.merchantId);
  if (!merchant) throw new GatewayError('notFound');
  const mids = await listMids(ctx.db, merchant.id);
  return continueReviewed(ctx, merchant, mids, payment, recordDecision(ctx, payment, 'approved', { actor, note }));
}

/**
 * Ends a held payment with the risk engine's decline, as a block would have: its transaction failed, one callback,
 * its daily-cap share given back, the outcome counted. Undefined when it was no longer held.
 */
export async function decline(ctx: ServiceContext, payment: Payment, review: 'declined' | 'expired', who: { actor: AuditActor; note: string }): Promise<PaymentStep | undefined> {
  const merchant = await findMerchantById(ctx.db, ctx.keyring, payment.merchantId);
  if (!merchant) throw new GatewayError('notFound');
  const transId = payment.details.lastTransId ?? payment.id;
  const why = review === 'expired' ? 'risk review: not decided by its deadline' : `risk review declined by ${who.actor.name}`;
  let applied = false;
  const step = await applyOutcome(ctx, { merchant, payment, transId, operation: REVIEW_OPERATION, intent: intentOf(payment) }, riskDecline(why), {
    version: payment.version,
    txDetails: { resolvedBy: decider(who.actor), resolution: review, note: who.note },
    within: async (tx, after) => {
      applied = true;
      await recordDecision(ctx, payment, review, who)(tx, after);
    },
  });
  return applied ? step : undefined;
}

/** Who declines a review at its deadline, in the review's record and the audit log. */
export const REVIEW_DEADLINE_ACTOR: AuditActor = { userId: null, name: 'risk review deadline' };

/**
 * Declines the reviews whose deadline has passed, a batch at a time: the review worker's pass. Any number of nodes
 * may run it at once: each payment's decline is a compare-and-set, so exactly one applies it (one callback).
 * Returns how many this call declined.
 */
export async function expireReviews(ctx: ServiceContext, limit = 100): Promise<number> {
  const due = await pendingReviews(ctx.db, { limit, dueBy: ctx.clock.now() });
  let declined = 0;
  for (const r of due) {
    const payment = await getPayment(ctx.db, r.paymentId);
    if (!payment || payment.pendingOperation !== REVIEW_OPERATION) continue;
    const step = await decline(ctx, payment, 'expired', { actor: REVIEW_DEADLINE_ACTOR, note: `not decided by ${r.deadline.toISOString()}` }).catch((err: unknown) => {
      // Another node (or an operator) decided it first: its compare-and-set won.
      if (err instanceof GatewayError) return undefined;
      throw err;
    });
    if (step) declined += 1;
  }
  return declined;
}

/** The console home's risk figures: payments screened in the last `hours`, by outcome, shadow matches, reviews waiting. */
export interface RiskRuleFigures {
  scope: 'platform' | 'merchant';
  merchant_id: string | null;
  rule: string;
  blocked: number;
  reviewed: number;
  challenged: number;
  shadow: number;
  failed: number;
}

/** The rules the home shows by name: the ones that did the most. */
export const SUMMARY_RULES = 10;

export async function riskSummary(ctx: ServiceContext, hoursText = '24'): Promise<{ since: string; screened: number; blocked: number; reviewed: number; challenged: number; shadow_matched: number; reviews_pending: number; rules: RiskRuleFigures[] }> {
  const hours = /^[0-9]{1,3}$/.test(hoursText) ? Number(hoursText) : 0;
  if (hours < 1 || hours > 24 * 31) throw GatewayError.field('hours', 'A whole number of hours from 1 to 744.');
  const since = new Date(ctx.clock.now().getTime() - hours * 3_600_000);
  const [c, rules] = await Promise.all([screenCounts(ctx.db, since), ruleCounts(ctx.db, since, SUMMARY_RULES)]);
  const of = (action: string) => c.byAction[action] ?? 0;
  return {
    since: since.toISOString(), screened: Object.values(c.byAction).reduce((a, b) => a + b, 0),
    blocked: of('block'), reviewed: of('review'), challenged: of('require_3ds'), shadow_matched: c.shadowMatched, reviews_pending: c.pendingReviews,
    rules: rules.map((r) => ({ scope: r.scope, merchant_id: r.merchantId, rule: r.name, blocked: r.blocked, reviewed: r.reviewed, challenged: r.challenged, shadow: r.shadow, failed: r.failed })),
  };
}
