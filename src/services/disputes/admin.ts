/**
 * Disputes for operators (issue 29): enter one from a bank letter, move it (evidence submitted, won, lost,
 * accepted, ...), read it with its history, list them and the acquirer notices that matched no payment.
 * Amounts are decimal strings of the payment's currency.
 */
import type { ServiceContext } from '../context.ts';
import type { AuditActor } from '../../store/audit-repo.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isUuid } from '../../domain/ids.ts';
import { formatAmount, parseAmount } from '../../domain/money.ts';
import { DEFAULT_RATIO_THRESHOLD, DISPUTE_EVENTS, overThreshold, percentOf, ratioBp, type Dispute, type DisputeEvent, type DisputeHistoryEntry, type UnmatchedNotice } from '../../domain/disputes.ts';
import { disputeRatioRows, getDispute, historyOf, listDisputes, listUnmatched, readThreshold, writeThreshold } from '../../store/disputes-repo.ts';
import { appendAudit } from '../../store/audit-repo.ts';
import { getPayment } from '../../store/payments-repo.ts';
import { applyDisputeChange } from './apply.ts';

export interface DisputeView {
  id: string; payment_id: string; merchant_id: string; source: string; external_ref: string | null; amount: string; currency: string;
  reason_code: string | null; category: string; stage: string; status: string; due_at: string | null; bank_date: string | null; created_at: string; updated_at: string;
}

export interface DisputeHistoryView {
  event: string; actor: string; from_stage: string | null; from_status: string | null; to_stage: string; to_status: string; money: string; details: Record<string, unknown>; created_at: string;
}

export const disputeView = (d: Dispute): DisputeView => ({
  id: d.id, payment_id: d.paymentId, merchant_id: d.merchantId, source: d.source, external_ref: d.externalRef, amount: formatAmount(d.amount, d.currency), currency: d.currency,
  reason_code: d.reasonCode, category: d.category, stage: d.stage, status: d.status, due_at: d.dueAt?.toISOString() ?? null, bank_date: d.bankDate,
  created_at: d.createdAt.toISOString(), updated_at: d.updatedAt.toISOString(),
});

const historyView = (e: DisputeHistoryEntry): DisputeHistoryView => ({
  event: e.event, actor: e.actor, from_stage: e.from?.stage ?? null, from_status: e.from?.status ?? null, to_stage: e.to.stage, to_status: e.to.status,
  money: e.money, details: e.details, created_at: e.createdAt.toISOString(),
});

export interface DisputeInput {
  event: string;
  amount?: string;
  reason_code?: string;
  due_at?: string;
  bank_date?: string;
  note?: string;
}

/** Opens a dispute on a payment (the event that starts it: an inquiry, a notice of chargeback or a chargeback). */
export async function openDispute(ctx: ServiceContext, actor: AuditActor, paymentId: string, input: DisputeInput): Promise<DisputeView> {
  const payment = isUuid(paymentId) ? await getPayment(ctx.db, paymentId) : undefined;
  if (!payment) throw new GatewayError('notFound');
  const parsed = parseInput(input, payment.currency);
  const { dispute } = await applyDisputeChange(ctx, { paymentId, source: 'operator', actor: actor.name, audit: actor, ...parsed });
  return disputeView(dispute);
}

/** Moves a dispute by an event of the transition table. */
export async function actOnDispute(ctx: ServiceContext, actor: AuditActor, disputeId: string, input: DisputeInput): Promise<DisputeView> {
  const existing = isUuid(disputeId) ? await getDispute(ctx.db, disputeId) : undefined;
  if (!existing) throw new GatewayError('notFound');
  const parsed = parseInput(input, existing.currency);
  const { dispute } = await applyDisputeChange(ctx, { paymentId: existing.paymentId, disputeId, source: existing.source, actor: actor.name, audit: actor, ...parsed });
  return disputeView(dispute);
}

function parseInput(input: DisputeInput, currency: string) {
  const problems = [];
  if (!(DISPUTE_EVENTS as readonly string[]).includes(input.event)) problems.push({ field: 'event', message: `should be one of ${DISPUTE_EVENTS.join(', ')}.` });
  const amount = input.amount === undefined ? undefined : parseAmount(input.amount, currency);
  if (amount && (!amount.ok || amount.money.minor <= 0n)) problems.push({ field: 'amount', message: `should be a positive amount in ${currency}.` });
  const dueAt = input.due_at === undefined ? undefined : new Date(input.due_at);
  if (dueAt && Number.isNaN(dueAt.getTime())) problems.push({ field: 'due_at', message: 'should be an ISO 8601 instant.' });
  if (input.bank_date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(input.bank_date)) problems.push({ field: 'bank_date', message: 'should be a date, YYYY-MM-DD.' });
  if (problems.length > 0) throw GatewayError.invalid(problems);
  return {
    event: input.event as DisputeEvent,
    ...(amount?.ok ? { amount: amount.money.minor } : {}),
    ...(input.reason_code !== undefined ? { reasonCode: input.reason_code } : {}),
    ...(dueAt ? { dueAt } : {}),
    ...(input.bank_date !== undefined ? { bankDate: input.bank_date } : {}),
    ...(input.note ? { details: { note: input.note } } : {}),
  };
}

export async function readDispute(ctx: ServiceContext, id: string): Promise<DisputeView & { history: DisputeHistoryView[] }> {
  const dispute = isUuid(id) ? await getDispute(ctx.db, id) : undefined;
  if (!dispute) throw new GatewayError('notFound');
  return { ...disputeView(dispute), history: (await historyOf(ctx.db, id)).map(historyView) };
}

export async function findDisputes(ctx: ServiceContext, filter: { merchantId?: string; status?: string; limit?: number }): Promise<DisputeView[]> {
  return (await listDisputes(ctx.db, { ...filter, limit: filter.limit ?? 100 })).map(disputeView);
}

export interface UnmatchedView { id: string; source: string; event: string; payment_ref: string | null; payload: Record<string, unknown>; received_at: string }

export async function unmatchedNotices(ctx: ServiceContext, limit = 100): Promise<UnmatchedView[]> {
  return (await listUnmatched(ctx.db, limit)).map((n: UnmatchedNotice) => ({ id: n.id, source: n.source, event: n.event, payment_ref: n.paymentRef, payload: n.payload, received_at: n.receivedAt.toISOString() }));
}

export interface RatioView {
  merchant_id: string; mid_id: string | null; currency: string; settled_count: number; settled_amount: string;
  dispute_count: number; dispute_amount: string; dispute_ratio: string; fraud_count: number; fraud_amount: string; fraud_ratio: string; over_threshold: boolean;
}

/** A month's dispute and fraud-dispute ratios per merchant, MID and currency (count against settled count). */
export async function disputeRatios(ctx: ServiceContext, month: string): Promise<{ month: string; threshold_percent: string; threshold_min_count: number; rows: RatioView[] }> {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) throw GatewayError.field('month', 'should be a month, YYYY-MM.');
  const from = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
  const to = new Date(Date.UTC(Number(m[1]), Number(m[2]), 1));
  const threshold = await thresholdOf(ctx);
  const rows = (await disputeRatioRows(ctx.db, from, to)).map((r): RatioView => ({
    merchant_id: r.merchantId, mid_id: r.midId, currency: r.currency, settled_count: Number(r.settledCount), settled_amount: formatAmount(r.settledAmount, r.currency),
    dispute_count: Number(r.disputeCount), dispute_amount: formatAmount(r.disputeAmount, r.currency), dispute_ratio: percentOf(ratioBp(r.disputeCount, r.settledCount)),
    fraud_count: Number(r.fraudCount), fraud_amount: formatAmount(r.fraudAmount, r.currency), fraud_ratio: percentOf(ratioBp(r.fraudCount, r.settledCount)),
    over_threshold: overThreshold(r.disputeCount, r.settledCount, threshold),
  }));
  return { month, threshold_percent: percentOf(threshold.ratioBp), threshold_min_count: Number(threshold.minCount), rows };
}

/** The monitoring threshold in force: the operator's, or the default (Visa VDMP's standard level). */
export async function thresholdOf(ctx: Pick<ServiceContext, 'db'>): Promise<{ ratioBp: bigint; minCount: bigint }> {
  return (await readThreshold(ctx.db)) ?? DEFAULT_RATIO_THRESHOLD;
}

export interface ThresholdView { ratio_percent: string; min_count: number; default: boolean }

export async function readThresholdView(ctx: ServiceContext): Promise<ThresholdView> {
  const set = await readThreshold(ctx.db);
  const t = set ?? DEFAULT_RATIO_THRESHOLD;
  return { ratio_percent: percentOf(t.ratioBp), min_count: Number(t.minCount), default: set === undefined };
}

/** Sets the threshold: a percentage with at most two decimals (above 0, at most 100) and a minimum count; audited. */
export async function setThreshold(ctx: ServiceContext, actor: AuditActor, input: { ratio_percent: string; min_count: number }): Promise<ThresholdView> {
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(input.ratio_percent ?? '');
  const bp = m ? BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0')) : 0n;
  const problems = [];
  if (!m || bp <= 0n || bp > 10_000n) problems.push({ field: 'ratio_percent', message: 'should be a percentage above 0 and at most 100, two decimals at most ("0.90").' });
  if (!Number.isSafeInteger(input.min_count) || input.min_count < 0) problems.push({ field: 'min_count', message: 'should be a count, 0 or more.' });
  if (problems.length > 0) throw GatewayError.invalid(problems);
  const before = await readThresholdView(ctx);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await writeThreshold(tx, { ratioBp: bp, minCount: BigInt(input.min_count) }, actor.name, now);
    await appendAudit(tx, { actor, action: 'dispute.threshold', objectType: 'dispute_threshold', objectId: 'platform', before, after: { ratio_percent: percentOf(bp), min_count: input.min_count } }, now);
  });
  return readThresholdView(ctx);
}
