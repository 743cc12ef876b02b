/**
 * Disputes for operators (issue 29): enter one from a bank letter, move it (evidence submitted, won, lost,
 * accepted, ...), read it with its history, list them and the acquirer notices that matched no payment.
 * Amounts are decimal strings of the payment's currency.
 */
import type { ServiceContext } from '../context.ts';
import type { AuditActor, AuditEntry } from '../../store/audit-repo.ts';
import type { Sql } from '../../store/database.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isUuid } from '../../domain/ids.ts';
import { formatAmount, parseAmount } from '../../domain/money.ts';
import { DEFAULT_RATIO_THRESHOLD, DISPUTE_EVENTS, deadlineState, overThreshold, percentOf, ratioBp, type DeadlineState, type Dispute, type DisputeEvent, type DisputeHistoryEntry } from '../../domain/disputes.ts';
import {
  deleteMerchantThreshold, disputeRatioRows, getDispute, historyOf, listDisputes, listUnmatched, readMerchantThresholds, readThreshold, writeMerchantThreshold, writeThreshold, type DisputeFilter, type Threshold,
} from '../../store/disputes-repo.ts';
import { findMerchantById, findMidById } from '../../store/merchants-repo.ts';
import { appendAudit } from '../../store/audit-repo.ts';
import { getPayment } from '../../store/payments-repo.ts';
import type { KeyMode } from '../../store/key-mode.ts';
import { merchantClock } from '../schedules/test-clock.ts';
import { applyDisputeChange } from './apply.ts';

/** Where an entry also goes: the merchant's own audit log (a portal user's act). */
export type AuditScope = Pick<AuditEntry, 'merchantId' | 'merchantGroupId'>;

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
export async function openDispute(ctx: ServiceContext, actor: AuditActor, paymentId: string, input: DisputeInput, within?: (tx: Sql) => Promise<void>): Promise<DisputeView> {
  const payment = isUuid(paymentId) ? await getPayment(ctx.db, paymentId) : undefined;
  if (!payment) throw new GatewayError('notFound');
  const parsed = parseInput(input, payment.currency);
  const { dispute } = await applyDisputeChange(ctx, { paymentId, source: 'operator', actor: actor.name, audit: actor, ...parsed, ...(within ? { within } : {}) });
  return disputeView(dispute);
}

/** Moves a dispute by an event of the transition table. */
export async function actOnDispute(ctx: ServiceContext, actor: AuditActor, disputeId: string, input: DisputeInput, auditScope: AuditScope = {}): Promise<DisputeView> {
  const existing = isUuid(disputeId) ? await getDispute(ctx.db, disputeId) : undefined;
  if (!existing) throw new GatewayError('notFound');
  const parsed = parseInput(input, existing.currency);
  const { dispute } = await applyDisputeChange(ctx, { paymentId: existing.paymentId, disputeId, source: existing.source, actor: actor.name, audit: actor, auditScope, ...parsed });
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

/** A dispute with its history, and where it stands against its deadline on its merchant's clock (a sandbox test clock moves it). */
export async function readDispute(ctx: ServiceContext, id: string): Promise<DisputeView & { deadline: DeadlineState; history: DisputeHistoryView[] }> {
  const dispute = isUuid(id) ? await getDispute(ctx.db, id) : undefined;
  if (!dispute) throw new GatewayError('notFound');
  const now = (await merchantClock(ctx, dispute.merchantId)).now();
  return { ...disputeView(dispute), deadline: deadlineState(dispute, now), history: (await historyOf(ctx.db, id)).map(historyView) };
}

export async function findDisputes(ctx: ServiceContext, filter: Omit<DisputeFilter, 'limit'> & { limit?: number }): Promise<DisputeView[]> {
  return (await listDisputes(ctx.db, { ...filter, limit: filter.limit ?? 100 })).map(disputeView);
}

export interface UnmatchedView {
  id: string; source: string; event: string; payment_ref: string | null;
  /** The MID the notice came for, its name and mode (its merchant's: test for a sandbox merchant); null on rows kept before the MID was recorded. */
  mid_id: string | null; mid_name: string | null; mode: KeyMode | null;
  payload: Record<string, unknown>; received_at: string;
}

/** The notices that matched no payment, newest first; by MID (a MID's id, else 400 on mid_id) and by mode. */
export async function unmatchedNotices(ctx: ServiceContext, f: { midId?: string; mode?: KeyMode; limit?: number } = {}): Promise<UnmatchedView[]> {
  if (f.midId !== undefined && !(isUuid(f.midId) && (await findMidById(ctx.db, f.midId)))) throw GatewayError.field('mid_id', 'This value should be the id of a MID.');
  const rows = await listUnmatched(ctx.db, { ...(f.midId !== undefined ? { midId: f.midId } : {}), ...(f.mode ? { mode: f.mode } : {}), limit: f.limit ?? 100 });
  return rows.map((n) => ({
    id: n.id, source: n.source, event: n.event, payment_ref: n.paymentRef, mid_id: n.midId, mid_name: n.midName, mode: n.mode, payload: n.payload, received_at: n.receivedAt.toISOString(),
  }));
}

export interface RatioView {
  merchant_id: string; mid_id: string | null; currency: string; settled_count: number; settled_amount: string;
  dispute_count: number; dispute_amount: string; dispute_ratio: string; fraud_count: number; fraud_amount: string; fraud_ratio: string;
  /** The threshold the row is compared against: the merchant's own, or the platform's. */
  threshold_percent: string; threshold_min_count: number; over_threshold: boolean;
}

const thresholdFields = (t: Threshold) => ({ threshold_percent: percentOf(t.ratioBp), threshold_min_count: Number(t.minCount) });

/** A month's dispute and fraud-dispute ratios per merchant, MID and currency (count against settled count); `mode`: test or live keys' merchants only. */
export async function disputeRatios(ctx: ServiceContext, month: string, mode?: KeyMode): Promise<{ month: string; threshold_percent: string; threshold_min_count: number; rows: RatioView[] }> {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) throw GatewayError.field('month', 'should be a month, YYYY-MM.');
  const from = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
  const to = new Date(Date.UTC(Number(m[1]), Number(m[2]), 1));
  const threshold = await thresholdOf(ctx);
  const thresholdFor = await merchantThresholds(ctx);
  const rows = (await disputeRatioRows(ctx.db, from, to, mode)).map((r): RatioView => ({
    merchant_id: r.merchantId, mid_id: r.midId, currency: r.currency, settled_count: Number(r.settledCount), settled_amount: formatAmount(r.settledAmount, r.currency),
    dispute_count: Number(r.disputeCount), dispute_amount: formatAmount(r.disputeAmount, r.currency), dispute_ratio: percentOf(ratioBp(r.disputeCount, r.settledCount)),
    fraud_count: Number(r.fraudCount), fraud_amount: formatAmount(r.fraudAmount, r.currency), fraud_ratio: percentOf(ratioBp(r.fraudCount, r.settledCount)),
    ...thresholdFields(thresholdFor(r.merchantId)), over_threshold: overThreshold(r.disputeCount, r.settledCount, thresholdFor(r.merchantId)),
  }));
  return { month, threshold_percent: percentOf(threshold.ratioBp), threshold_min_count: Number(threshold.minCount), rows };
}

/** The monitoring threshold in force: the operator's, or the default (Visa VDMP's standard level). */
export async function thresholdOf(ctx: Pick<ServiceContext, 'db'>): Promise<{ ratioBp: bigint; minCount: bigint }> {
  return (await readThreshold(ctx.db)) ?? DEFAULT_RATIO_THRESHOLD;
}

/** Each merchant's threshold in force: its own, or the platform's. */
export async function merchantThresholds(ctx: Pick<ServiceContext, 'db'>): Promise<(merchantId: string) => Threshold> {
  const platform = await thresholdOf(ctx);
  const own = await readMerchantThresholds(ctx.db);
  return (merchantId) => own.get(merchantId) ?? platform;
}

export interface ThresholdView { ratio_percent: string; min_count: number; default: boolean }

export async function readThresholdView(ctx: ServiceContext): Promise<ThresholdView> {
  const set = await readThreshold(ctx.db);
  const t = set ?? DEFAULT_RATIO_THRESHOLD;
  return { ratio_percent: percentOf(t.ratioBp), min_count: Number(t.minCount), default: set === undefined };
}

/** Sets the threshold: a percentage with at most two decimals (above 0, at most 100) and a minimum count; audited. */
export async function setThreshold(ctx: ServiceContext, actor: AuditActor, input: ThresholdInput): Promise<ThresholdView> {
  const t = parseThreshold(input);
  const before = await readThresholdView(ctx);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await writeThreshold(tx, t, actor.name, now);
    await appendAudit(tx, { actor, action: 'dispute.threshold', objectType: 'dispute_threshold', objectId: 'platform', before, after: { ratio_percent: percentOf(t.ratioBp), min_count: input.min_count } }, now);
  });
  return readThresholdView(ctx);
}

export interface ThresholdInput { ratio_percent: string; min_count: number }

/** A percentage with at most two decimals (above 0, at most 100) and a minimum count. */
function parseThreshold(input: ThresholdInput): Threshold {
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(input.ratio_percent ?? '');
  const bp = m ? BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0')) : 0n;
  const problems = [];
  if (!m || bp <= 0n || bp > 10_000n) problems.push({ field: 'ratio_percent', message: 'should be a percentage above 0 and at most 100, two decimals at most ("0.90").' });
  if (!Number.isSafeInteger(input.min_count) || input.min_count < 0) problems.push({ field: 'min_count', message: 'should be a count, 0 or more.' });
  if (problems.length > 0) throw GatewayError.invalid(problems);
  return { ratioBp: bp, minCount: BigInt(input.min_count) };
}

// --- a merchant's own threshold -----------------------------------------------------------------------------

export interface MerchantThresholdView { merchant_id: string; ratio_percent: string; min_count: number; source: 'merchant' | 'platform' | 'default' }

export async function readMerchantThresholdView(ctx: ServiceContext, merchantId: string): Promise<MerchantThresholdView> {
  await merchantOrNotFound(ctx, merchantId);
  const own = (await readMerchantThresholds(ctx.db)).get(merchantId);
  if (own) return { merchant_id: merchantId, ratio_percent: percentOf(own.ratioBp), min_count: Number(own.minCount), source: 'merchant' };
  const platform = await readThresholdView(ctx);
  return { merchant_id: merchantId, ratio_percent: platform.ratio_percent, min_count: platform.min_count, source: platform.default ? 'default' : 'platform' };
}

/** Sets a merchant's own threshold (its ratios and gauges compare against it); audited. */
export async function setMerchantThreshold(ctx: ServiceContext, actor: AuditActor, merchantId: string, input: ThresholdInput): Promise<MerchantThresholdView> {
  const t = parseThreshold(input);
  const before = await readMerchantThresholdView(ctx, merchantId);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await writeMerchantThreshold(tx, merchantId, t, actor.name, now);
    await appendAudit(tx, { actor, action: 'dispute.threshold', objectType: 'dispute_threshold', objectId: merchantId, merchantId, before, after: { ratio_percent: percentOf(t.ratioBp), min_count: input.min_count } }, now);
  });
  return readMerchantThresholdView(ctx, merchantId);
}

/** Removes a merchant's own threshold: the platform's applies again; audited when there was one. */
export async function clearMerchantThreshold(ctx: ServiceContext, actor: AuditActor, merchantId: string): Promise<MerchantThresholdView> {
  const before = await readMerchantThresholdView(ctx, merchantId);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    if (await deleteMerchantThreshold(tx, merchantId)) {
      await appendAudit(tx, { actor, action: 'dispute.threshold', objectType: 'dispute_threshold', objectId: merchantId, merchantId, before, after: null }, now);
    }
  });
  return readMerchantThresholdView(ctx, merchantId);
}

async function merchantOrNotFound(ctx: ServiceContext, merchantId: string): Promise<void> {
  if (!(await findMerchantById(ctx.db, ctx.keyring, merchantId))) throw new GatewayError('notFound');
}
