/**
 * Reconciliation for operators (issue 28): a MID's profile (CSV mapping, buy rates, settlement days), the imports
 * (batches) with their totals and flags, an operator's bank credit, rows with filters, the exception actions
 * (accept the difference with a note, link to a payment, open a dispute, write off: each a compare-and-set on the
 * open row, audited), the exceptions as CSV (page by page), and the open exceptions per acquirer and day.
 */
import type { ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import { GatewayError, type FieldError } from '../../domain/errors.ts';
import { isUuid } from '../../domain/ids.ts';
import { formatAmount, isKnownCurrency, parseAmount } from '../../domain/money.ts';
import { checkProfile, type CsvProfile } from '../../domain/reconciliation/layouts.ts';
import { batchFlags } from '../../domain/reconciliation/batch.ts';
import { BUY_RATE_MODES, type BuyRateMode } from '../../domain/reconciliation/buy-rates.ts';
import { csvField, MATCHED_KINDS, type RecordKind } from '../../domain/reconciliation/report.ts';
import { feeRowView, parseFeeRows, type FeeRowInput } from '../../domain/ledger/fees.ts';
import { insertEntries } from '../../store/ledger-repo.ts';
import { findMidById } from '../../store/merchants-repo.ts';
import { getPayment } from '../../store/payments-repo.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import {
  importById, listImports, listRows, openSummary, profileOf, resolveRow, rowById, saveProfile, setImportOutcome,
  type ReconProfile, type RowFilter, type StoredImport, type StoredRow,
} from '../../store/reconciliation-repo.ts';
import { defaultProfile, settlementEntries } from './import.ts';
import { openDispute } from '../disputes/admin.ts';

async function midOrNotFound(ctx: ServiceContext, midId: string) {
  const mid = isUuid(midId) ? await findMidById(ctx.db, midId) : undefined;
  if (!mid) throw new GatewayError('notFound');
  return mid;
}

// --- profiles -----------------------------------------------------------------------------------------------

export interface ProfileView {
  mid_id: string;
  csv: CsvProfile | null;
  buy_rates: { mode: BuyRateMode; rows: Required<FeeRowInput>[] };
  settlement_days: number;
  window_days: number;
  reconcile_from: string;
  updated_at: string;
}

const profileView = (p: ReconProfile): ProfileView => ({
  mid_id: p.midId, csv: p.csvProfile, buy_rates: { mode: p.buyRates.mode, rows: p.buyRates.rows.map(feeRowView) },
  settlement_days: p.settlementDays, window_days: p.windowDays, reconcile_from: p.reconcileFrom.toISOString(), updated_at: p.updatedAt.toISOString(),
});

export async function getProfile(ctx: ServiceContext, midId: string): Promise<ProfileView> {
  await midOrNotFound(ctx, midId);
  return profileView((await profileOf(ctx.db, midId)) ?? defaultProfile(midId, ctx.clock.now()));
}

export interface ProfileInput {
  csv?: CsvProfile | null;
  buy_rates?: { mode?: string; rows?: FeeRowInput[] };
  settlement_days?: number;
  window_days?: number;
  reconcile_from?: string;
}

export async function putProfile(ctx: ServiceContext, actor: AuditActor, midId: string, input: ProfileInput): Promise<ProfileView> {
  const mid = await midOrNotFound(ctx, midId);
  const now = ctx.clock.now();
  const problems: FieldError[] = [];
  if (input.csv) problems.push(...checkProfile(input.csv));
  const mode = (input.buy_rates?.mode ?? 'blended') as BuyRateMode;
  if (!BUY_RATE_MODES.includes(mode)) problems.push({ field: 'buy_rates.mode', message: `should be one of ${BUY_RATE_MODES.join(', ')}.` });
  const rateRows = input.buy_rates?.rows ?? [];
  const rates = rateRows.length === 0 ? { rows: [] } : parseFeeRows(rateRows, mid.currencies === null ? undefined : new Set(mid.currencies));
  if ('problems' in rates) problems.push(...rates.problems.map((p) => ({ ...p, field: `buy_rates.${p.field}` })));
  const from = input.reconcile_from === undefined ? undefined : new Date(input.reconcile_from);
  if (from && Number.isNaN(from.getTime())) problems.push({ field: 'reconcile_from', message: 'should be an ISO 8601 instant.' });
  if (problems.length > 0 || 'problems' in rates) throw GatewayError.invalid(problems);
  return ctx.db.transaction(async (tx) => {
    const before = await profileOf(tx, midId);
    const profile: ReconProfile = {
      midId, csvProfile: input.csv ?? null, buyRates: { mode, rows: rates.rows }, settlementDays: input.settlement_days ?? 3, windowDays: input.window_days ?? 3,
      reconcileFrom: from ?? before?.reconcileFrom ?? now, updatedAt: now,
    };
    await saveProfile(tx, profile);
    await appendAudit(tx, { actor, action: 'reconciliation.profile', objectType: 'mid', objectId: midId, before: before ? profileView(before) : null, after: profileView(profile) }, now);
    return profileView(profile);
  });
}

// --- imports (batches) --------------------------------------------------------------------------------------

export interface BatchView {
  id: string;
  mid_id: string;
  batch: string;
  layout: string;
  file_name: string | null;
  digest: string;
  live: boolean;
  superseded_by: string | null;
  rows: number;
  period_from: string | null;
  period_to: string | null;
  totals: { currency: string; net: string; fees: string; payout: string | null; bank_credit: string | null; rows: number }[];
  flagged: boolean;
  flags: string[];
  counts: Record<string, number>;
  created_by: string | null;
  created_at: string;
}

export function batchView(i: StoredImport): BatchView {
  return {
    id: i.id, mid_id: i.midId, batch: i.batchKey, layout: i.layout, file_name: i.fileName, digest: i.digest, live: i.live, superseded_by: i.supersededBy, rows: i.rows,
    period_from: i.periodFrom?.toISOString() ?? null, period_to: i.periodTo?.toISOString() ?? null,
    totals: Object.entries(i.totals).map(([c, t]) => ({
      currency: c, net: formatAmount(BigInt(t.net), c), fees: formatAmount(BigInt(t.fees), c), payout: t.payout === null ? null : formatAmount(BigInt(t.payout), c),
      bank_credit: i.bankCredits[c] === undefined ? null : formatAmount(BigInt(i.bankCredits[c]!), c), rows: t.rows,
    })),
    flagged: i.flags.length > 0, flags: i.flags, counts: i.counts, created_by: i.createdBy, created_at: i.createdAt.toISOString(),
  };
}

/** Batches newest first; `mode`: of test or live keys' MIDs only (a MID's mode is its merchant's; issue 25 item 26). */
export async function listBatches(ctx: ServiceContext, f: { midId?: string; mode?: 'test' | 'live'; limit?: number }): Promise<BatchView[]> {
  return (await listImports(ctx.db, { ...(f.midId ? { midId: f.midId } : {}), ...(f.mode ? { mode: f.mode } : {}), limit: f.limit ?? 100 })).map(batchView);
}

export async function readBatch(ctx: ServiceContext, id: string): Promise<BatchView> {
  const i = await importById(ctx.db, id);
  if (!i) throw new GatewayError('notFound');
  return batchView(i);
}

/** The bank credit an operator saw for the batch: checked against the announced payout (the batch is flagged when it differs). */
export async function enterBankCredit(ctx: ServiceContext, actor: AuditActor, id: string, input: { currency: string; amount: string }): Promise<BatchView> {
  if (!isKnownCurrency(input.currency)) throw GatewayError.field('currency', 'should be an ISO 4217 currency code.');
  const parsed = parseAmount(input.amount, input.currency);
  if (!parsed.ok) throw GatewayError.field('amount', `should be a non-negative amount in ${input.currency}.`);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const [locked] = await tx.query<{ id: string }>('SELECT id FROM recon_imports WHERE id = $1 FOR UPDATE', [id]);
    const i = locked && (await importById(tx, id));
    if (!i) throw new GatewayError('notFound');
    if (!i.totals[input.currency]) throw GatewayError.field('currency', `the batch settles no ${input.currency}.`);
    const bankCredits = { ...i.bankCredits, [input.currency]: parsed.money.minor.toString() };
    const totals = new Map(Object.entries(i.totals).map(([c, t]) => [c, { net: BigInt(t.net), fees: BigInt(t.fees), payout: t.payout === null ? null : BigInt(t.payout), rows: t.rows }]));
    const flags = batchFlags(totals, new Map(Object.entries(bankCredits).map(([c, v]) => [c, BigInt(v)])));
    await setImportOutcome(tx, id, { flags, counts: i.counts, bankCredits });
    await appendAudit(tx, { actor, action: 'reconciliation.bank_credit', objectType: 'reconciliation_batch', objectId: id, before: { bank_credits: i.bankCredits }, after: { bank_credits: bankCredits, flags } }, now);
    return batchView((await importById(tx, id))!);
  });
}

// --- rows ---------------------------------------------------------------------------------------------------

export interface RowView {
  id: string;
  batch_id: string;
  mid_id: string;
  line: number | null;
  outcome: string;
  kind: string;
  type: string;
  acquirer_ref: string | null;
  merchant_ref: string | null;
  modification_ref: string | null;
  currency: string;
  amount: string;
  net_currency: string;
  net: string;
  fee: string;
  expected_fee: string | null;
  method: string | null;
  booked_at: string;
  matched_by: string | null;
  payment_id: string | null;
  differences: { field: string; ours: string; theirs: string }[];
  resolution: string | null;
  resolution_note: string | null;
  resolved_by: string | null;
  resolved_at: string | null;
}

export function rowView(r: StoredRow): RowView {
  return {
    id: r.id, batch_id: r.importId, mid_id: r.midId, line: r.line === 0 ? null : r.line, outcome: r.outcome, kind: r.kind, type: r.rawType,
    acquirer_ref: r.acquirerRef, merchant_ref: r.merchantRef, modification_ref: r.modificationRef, currency: r.currency, amount: formatAmount(r.amount, r.currency),
    net_currency: r.netCurrency, net: formatAmount(r.net, r.netCurrency), fee: formatAmount(r.fee, r.netCurrency),
    expected_fee: r.expectedFee === null ? null : formatAmount(r.expectedFee, r.netCurrency), method: r.method, booked_at: r.bookedAt.toISOString(),
    matched_by: r.matchedBy, payment_id: r.paymentId, differences: r.differences.map((d) => ({ field: d.field, ours: d.ours, theirs: d.theirs })),
    resolution: r.resolution, resolution_note: r.resolutionNote, resolved_by: r.resolvedBy, resolved_at: r.resolvedAt?.toISOString() ?? null,
  };
}

export interface RowQuery {
  batch_id?: string;
  mid_id?: string;
  outcome?: string;
  open?: 'true' | 'false';
  from?: string;
  to?: string;
  /** Rows of test or live keys' MIDs only (issue 25 item 26). */
  mode?: 'test' | 'live';
  after?: string;
  limit?: number;
}

function filterOf(q: RowQuery, limit: number): RowFilter {
  const problems: FieldError[] = [];
  const date = (field: 'from' | 'to') => {
    const v = q[field];
    if (v === undefined) return undefined;
    const d = new Date(v);
    if (Number.isNaN(d.getTime())) problems.push({ field, message: 'should be an ISO 8601 date or instant.' });
    return d;
  };
  const from = date('from');
  const to = date('to');
  if (q.after !== undefined && !/^\d{1,18}$/.test(q.after)) problems.push({ field: 'after', message: 'should be a row id.' });
  if (problems.length > 0) throw GatewayError.invalid(problems);
  return {
    ...(q.batch_id ? { importId: q.batch_id } : {}), ...(q.mid_id ? { midId: q.mid_id } : {}), ...(q.outcome ? { outcome: q.outcome } : {}),
    ...(q.open === 'true' ? { open: true } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}), ...(q.mode ? { mode: q.mode } : {}), ...(q.after ? { afterId: q.after } : {}), limit,
  };
}

export async function findRows(ctx: ServiceContext, q: RowQuery): Promise<{ rows: RowView[]; next: string | null }> {
  const limit = q.limit ?? 100;
  const rows = await listRows(ctx.db, filterOf(q, limit + 1));
  const page = rows.slice(0, limit);
  return { rows: page.map(rowView), next: rows.length > limit ? page[page.length - 1]!.id : null };
}

export async function readRow(ctx: ServiceContext, id: string): Promise<RowView> {
  const r = await rowById(ctx.db, id);
  if (!r) throw new GatewayError('notFound');
  return rowView(r);
}

const CSV_COLUMNS = ['id', 'batch_id', 'mid_id', 'line', 'outcome', 'type', 'acquirer_ref', 'merchant_ref', 'currency', 'amount', 'fee', 'expected_fee', 'booked_at', 'payment_id', 'differences', 'resolution', 'resolution_note'] as const;

/** The exceptions (open by default) as CSV lines, read a page at a time (constant memory). */
export async function* exceptionsCsv(ctx: ServiceContext, q: RowQuery): AsyncGenerator<string> {
  const base = filterOf({ ...q, open: q.open ?? 'true' }, 1000);
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  let after = base.afterId;
  for (;;) {
    const rows = await listRows(ctx.db, { ...base, ...(after ? { afterId: after } : {}) });
    const exceptions = rows.filter((r) => r.outcome === 'mismatched' || r.outcome === 'missing' || r.outcome === 'unexpected');
    if (exceptions.length > 0) {
      yield exceptions.map((r) => {
        const v = rowView(r);
        const cells: Record<(typeof CSV_COLUMNS)[number], string> = {
          id: v.id, batch_id: v.batch_id, mid_id: v.mid_id, line: v.line === null ? '' : String(v.line), outcome: v.outcome, type: v.type, acquirer_ref: v.acquirer_ref ?? '',
          merchant_ref: v.merchant_ref ?? '', currency: v.currency, amount: v.amount, fee: v.fee, expected_fee: v.expected_fee ?? '', booked_at: v.booked_at, payment_id: v.payment_id ?? '',
          differences: v.differences.map((d) => `${d.field}: ours ${d.ours}, theirs ${d.theirs}`).join('; '), resolution: v.resolution ?? '', resolution_note: v.resolution_note ?? '',
        };
        return `${CSV_COLUMNS.map((c) => csvField(cells[c])).join(',')}\r\n`;
      }).join('');
    }
    if (rows.length < base.limit) return;
    after = rows[rows.length - 1]!.id;
  }
}

// --- exception actions --------------------------------------------------------------------------------------

export const ACTIONS = ['accept', 'link', 'dispute', 'write_off'] as const;
export type Action = (typeof ACTIONS)[number];

const RESOLUTION_OF: Readonly<Record<Action, string>> = { accept: 'accepted', link: 'linked', dispute: 'disputed', write_off: 'written_off' };

export interface ActionInput {
  action: Action;
  note: string;
  /** link: the payment the row is; dispute: defaults to the row's payment. */
  payment_id?: string;
}

/**
 * Resolves an open exception. accept: the difference is accepted and a row with our record is posted as the
 * report states it (its settlement and fee); link: an unexpected row is our payment after all (named); dispute:
 * opens a chargeback dispute on the row's payment through the disputes service; write_off: closed, nothing posted.
 */
export async function actOnRow(ctx: ServiceContext, actor: AuditActor, id: string, input: ActionInput): Promise<RowView> {
  if (!ACTIONS.includes(input.action)) throw GatewayError.field('action', `should be one of ${ACTIONS.join(', ')}.`);
  if (!input.note || input.note.trim() === '') throw GatewayError.field('note', 'should say why (it is kept in the audit log).');
  const row = await rowById(ctx.db, id);
  if (!row || !row.live) throw new GatewayError('notFound');
  if (row.resolution !== null) throw new GatewayError('reconRowResolved');
  if (!['mismatched', 'missing', 'unexpected'].includes(row.outcome)) throw GatewayError.field('id', `the row is not an open exception (${row.outcome}).`);
  let paymentId = row.paymentId ?? undefined;
  if (input.action === 'link') {
    const target = input.payment_id && isUuid(input.payment_id) ? await getPayment(ctx.db, input.payment_id) : undefined;
    if (!target) throw GatewayError.field('payment_id', 'should name a payment.');
    if (target.midId !== row.midId) throw GatewayError.field('payment_id', 'the payment went through another MID.');
    paymentId = target.id;
  }
  const now = ctx.clock.now();
  // The row's compare-and-set (open -> resolved) and what the action does commit together: of two operators acting
  // on one row at once, the loser's compare-and-set finds it resolved, throws, and posts or opens nothing.
  const resolve = async (tx: Sql): Promise<RowView> => {
    const done = await resolveRow(tx, id, { resolution: RESOLUTION_OF[input.action], note: input.note, by: actor.name, at: now, ...(paymentId ? { paymentId } : {}) });
    if (!done) throw new GatewayError('reconRowResolved');
    if (input.action === 'accept' && done.line !== 0 && done.recordKey && done.paymentId && MATCHED_KINDS.has(done.kind as RecordKind)) {
      const payment = await getPayment(tx, done.paymentId);
      if (payment) await insertEntries(tx, settlementEntries(done, { key: done.recordKey, paymentId: done.paymentId, merchantId: payment.merchantId }, done.midId), now);
    }
    await appendAudit(tx, { actor, action: `reconciliation.${input.action}`, objectType: 'reconciliation_row', objectId: id, before: rowView(row), after: rowView(done), details: { note: input.note } }, now);
    return rowView(done);
  };
  if (input.action === 'dispute') {
    paymentId = input.payment_id ?? paymentId;
    if (!paymentId) throw GatewayError.field('payment_id', 'the row names no payment: say which payment the dispute is on.');
    let view: RowView | undefined;
    // The dispute opens in the same transaction as the row's compare-and-set (run first in it).
    await openDispute(ctx, actor, paymentId, { event: 'chargeback', ...(row.outcome !== 'missing' ? { amount: formatAmount(row.amount, row.currency) } : {}), note: input.note }, async (tx) => {
      view = await resolve(tx);
    });
    return view!;
  }
  return ctx.db.transaction(resolve);
}

// --- the open exceptions per acquirer and day ---------------------------------------------------------------

export interface SummaryView {
  mid_id: string;
  day: string;
  currency: string;
  outcome: string;
  rows: number;
  amount: string;
}

export async function unreconciledSummary(ctx: ServiceContext, q: { from?: string; mode?: 'test' | 'live' }): Promise<SummaryView[]> {
  const from = q.from === undefined ? undefined : new Date(q.from);
  if (from && Number.isNaN(from.getTime())) throw GatewayError.field('from', 'should be an ISO 8601 date or instant.');
  return (await openSummary(ctx.db, { ...(from ? { from } : {}), ...(q.mode ? { mode: q.mode } : {}) })).map((s) => ({ mid_id: s.midId, day: s.day, currency: s.currency, outcome: s.outcome, rows: s.rows, amount: formatAmount(s.amount, s.currency) }));
}
