/**
 * Reconciliation's rows (issue 28): each MID's profile, the imported files (one acquirer batch each), their rows
 * and outcomes, and the reads of our own records (the ledger's postings on a MID's receivable, with the payment
 * they belong to) by the report's references, by amount and date, and those past due that no report took.
 * Bulk writes carry their rows as one JSON parameter (jsonb_array_elements), a page at a time.
 */
import type { Sql } from './database.ts';
import { midOfMode, type KeyMode } from './key-mode.ts';
import { toPayment, type PaymentRow } from './payments-repo.ts';
import type { Payment } from '../domain/model/payment.ts';
import type { RecordKind, ReportRow } from '../domain/reconciliation/report.ts';
import type { OurRecord, Difference, MatchedBy } from '../domain/reconciliation/matcher.ts';
import type { CsvProfile } from '../domain/reconciliation/layouts.ts';
import type { FeeRow } from '../domain/ledger/fees.ts';
import type { BuyRateMode } from '../domain/reconciliation/buy-rates.ts';

// --- profiles -----------------------------------------------------------------------------------------------

export interface ReconProfile {
  midId: string;
  csvProfile: CsvProfile | null;
  buyRates: { mode: BuyRateMode; rows: FeeRow[] };
  settlementDays: number;
  windowDays: number;
  reconcileFrom: Date;
  updatedAt: Date;
}

interface FeeRowJson { operation: FeeRow['operation']; method: string; region: FeeRow['region']; currency: string; rate_ppm: string; fixed: string; min: string; max: string | null }
const rateToJson = (r: FeeRow): FeeRowJson => ({ operation: r.operation, method: r.method, region: r.region, currency: r.currency, rate_ppm: r.ratePpm.toString(), fixed: r.fixed.toString(), min: r.min.toString(), max: r.max === null ? null : r.max.toString() });
const rateFromJson = (r: FeeRowJson): FeeRow => ({ operation: r.operation, method: r.method, region: r.region, currency: r.currency, ratePpm: BigInt(r.rate_ppm), fixed: BigInt(r.fixed), min: BigInt(r.min), max: r.max === null ? null : BigInt(r.max) });

interface ProfileRow { mid_id: string; csv_profile: CsvProfile | null; buy_rates: { mode: BuyRateMode; rows: FeeRowJson[] }; settlement_days: number; window_days: number; reconcile_from: Date | string; updated_at: Date | string }

export async function profileOf(sql: Sql, midId: string): Promise<ReconProfile | undefined> {
  const [r] = await sql.query<ProfileRow>('SELECT * FROM recon_profiles WHERE mid_id = $1', [midId]);
  return r && {
    midId: r.mid_id, csvProfile: r.csv_profile, buyRates: { mode: r.buy_rates.mode, rows: r.buy_rates.rows.map(rateFromJson) },
    settlementDays: r.settlement_days, windowDays: r.window_days, reconcileFrom: new Date(r.reconcile_from), updatedAt: new Date(r.updated_at),
  };
}

export async function saveProfile(sql: Sql, p: ReconProfile): Promise<void> {
  await sql.query(
    `INSERT INTO recon_profiles (mid_id, csv_profile, buy_rates, settlement_days, window_days, reconcile_from, updated_at) VALUES ($1, $2::jsonb, $3::jsonb, $4, $5, $6, $7)
     ON CONFLICT (mid_id) DO UPDATE SET csv_profile = $2::jsonb, buy_rates = $3::jsonb, settlement_days = $4, window_days = $5, reconcile_from = $6, updated_at = $7`,
    [p.midId, p.csvProfile === null ? null : JSON.stringify(p.csvProfile), JSON.stringify({ mode: p.buyRates.mode, rows: p.buyRates.rows.map(rateToJson) }), p.settlementDays, p.windowDays, p.reconcileFrom, p.updatedAt],
  );
}

// --- imports ------------------------------------------------------------------------------------------------

export interface StoredImport {
  id: string;
  midId: string;
  digest: string;
  batchKey: string;
  layout: string;
  fileName: string | null;
  live: boolean;
  supersededBy: string | null;
  rows: number;
  /** Per net currency: net, fees, payout (minor units as strings). */
  totals: Record<string, { net: string; fees: string; payout: string | null; rows: number }>;
  bankCredits: Record<string, string>;
  flags: string[];
  counts: Record<string, number>;
  periodFrom: Date | null;
  periodTo: Date | null;
  createdBy: string | null;
  createdAt: Date;
}

interface ImportRow {
  id: string; mid_id: string; digest: string; batch_key: string; layout: string; file_name: string | null; live: boolean; superseded_by: string | null; rows: number;
  totals: StoredImport['totals']; bank_credits: Record<string, string>; flags: string[]; counts: Record<string, number>;
  period_from: Date | string | null; period_to: Date | string | null; created_by: string | null; created_at: Date | string;
}

const toImport = (r: ImportRow): StoredImport => ({
  id: r.id, midId: r.mid_id, digest: r.digest, batchKey: r.batch_key, layout: r.layout, fileName: r.file_name, live: r.live, supersededBy: r.superseded_by,
  rows: r.rows, totals: r.totals, bankCredits: r.bank_credits, flags: r.flags, counts: r.counts,
  periodFrom: r.period_from === null ? null : new Date(r.period_from), periodTo: r.period_to === null ? null : new Date(r.period_to),
  createdBy: r.created_by, createdAt: new Date(r.created_at),
});

export async function importByDigest(sql: Sql, midId: string, digest: string): Promise<StoredImport | undefined> {
  const [r] = await sql.query<ImportRow>('SELECT * FROM recon_imports WHERE mid_id = $1 AND digest = $2', [midId, digest]);
  return r && toImport(r);
}

export async function importById(sql: Sql, id: string): Promise<StoredImport | undefined> {
  const [r] = await sql.query<ImportRow>('SELECT * FROM recon_imports WHERE id = $1', [id]);
  return r && toImport(r);
}

export async function liveImportOfBatch(sql: Sql, midId: string, batchKey: string): Promise<StoredImport | undefined> {
  const [r] = await sql.query<ImportRow>('SELECT * FROM recon_imports WHERE mid_id = $1 AND batch_key = $2 AND live FOR UPDATE', [midId, batchKey]);
  return r && toImport(r);
}

/** Imports newest first; `mode`: of test or live keys' MIDs only (a MID's mode is its merchant's; issue 25 item 26). */
export async function listImports(sql: Sql, f: { midId?: string; mode?: KeyMode; limit: number }): Promise<StoredImport[]> {
  const rows = await sql.query<ImportRow>(`SELECT * FROM recon_imports WHERE ($1::text IS NULL OR mid_id = $1) AND ${midOfMode('mid_id', f.mode)} ORDER BY created_at DESC, id DESC LIMIT $2`, [f.midId ?? null, f.limit]);
  return rows.map(toImport);
}

/** A new import, its totals filled in by finishImport. */
export async function insertImport(sql: Sql, i: { id: string; midId: string; digest: string; layout: string; fileName: string | null; createdBy: string | null; createdAt: Date }): Promise<void> {
  await sql.query(
    `INSERT INTO recon_imports (id, mid_id, digest, batch_key, layout, file_name, live, rows, totals, created_by, created_at)
     VALUES ($1, $2, $3, $1, $4, $5, false, 0, '{}'::jsonb, $6, $7)`,
    [i.id, i.midId, i.digest, i.layout, i.fileName, i.createdBy, i.createdAt],
  );
}

export async function finishImport(sql: Sql, id: string, f: { batchKey: string; digest: string; rows: number; totals: StoredImport['totals']; periodFrom: Date | null; periodTo: Date | null }): Promise<void> {
  await sql.query(
    'UPDATE recon_imports SET batch_key = $2, digest = $3, rows = $4, totals = $5::jsonb, period_from = $6, period_to = $7, live = true WHERE id = $1',
    [id, f.batchKey, f.digest, f.rows, JSON.stringify(f.totals), f.periodFrom, f.periodTo],
  );
}

export async function setImportOutcome(sql: Sql, id: string, f: { flags: string[]; counts: Record<string, number>; bankCredits?: Record<string, string> }): Promise<void> {
  await sql.query('UPDATE recon_imports SET flags = $2::jsonb, counts = $3::jsonb, bank_credits = COALESCE($4::jsonb, bank_credits) WHERE id = $1',
    [id, JSON.stringify(f.flags), JSON.stringify(f.counts), f.bankCredits ? JSON.stringify(f.bankCredits) : null]);
}

/** The live import of a batch gives way to a corrected file: its rows stop counting. */
export async function supersede(sql: Sql, oldId: string, newId: string): Promise<void> {
  await sql.query('UPDATE recon_imports SET live = false, superseded_by = $2 WHERE id = $1', [oldId, newId]);
  await sql.query('UPDATE recon_rows SET live = false WHERE import_id = $1', [oldId]);
}

// --- rows ---------------------------------------------------------------------------------------------------

/** What matching decided for a row (none: a booking, or not matched yet). */
export interface RowOutcome {
  outcome: string;
  matchedBy: MatchedBy | null;
  paymentId: string | null;
  recordKey: string | null;
  differences: Difference[];
  expectedFee: bigint | null;
}

/**
 * Inserts a page of a file's rows with their outcomes (live: the transaction makes the file whole or nothing), as
 * one column array per field (unnest of typed arrays: no JSON to parse per field on the server).
 */
export async function insertRows(sql: Sql, importId: string, midId: string, rows: readonly (ReportRow & { dupKey: string | undefined; result?: RowOutcome })[]): Promise<void> {
  if (rows.length === 0) return;
  const n = rows.length;
  const cols = Array.from({ length: 21 }, () => new Array<string | number | null>(n));
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    const o = r.result;
    cols[0]![i] = r.line; cols[1]![i] = r.kind; cols[2]![i] = r.rawType; cols[3]![i] = r.acquirerRef; cols[4]![i] = r.merchantRef; cols[5]![i] = r.modificationRef;
    cols[6]![i] = r.currency; cols[7]![i] = r.amount.toString(); cols[8]![i] = r.netCurrency; cols[9]![i] = r.net.toString(); cols[10]![i] = r.fee.toString();
    cols[11]![i] = r.interchange.toString(); cols[12]![i] = r.schemeFee.toString(); cols[13]![i] = r.method; cols[14]![i] = r.bookedAt.toISOString(); cols[15]![i] = r.dupKey ?? null;
    cols[16]![i] = o?.outcome ?? (r.kind === 'fee' || r.kind === 'payout' || r.kind === 'adjustment' ? 'booking' : 'pending');
    cols[17]![i] = o?.matchedBy ?? null; cols[18]![i] = o?.paymentId ?? null; cols[19]![i] = o?.recordKey ?? null;
    cols[20]![i] = o && o.differences.length > 0 ? JSON.stringify(o.differences.map((d) => ({ ...d, ...(d.delta !== undefined ? { delta: d.delta.toString() } : {}) }))) : null;
  }
  const expected = rows.map((r) => (r.result?.expectedFee === null || r.result?.expectedFee === undefined ? null : r.result.expectedFee.toString()));
  await sql.query(
    `INSERT INTO recon_rows (import_id, mid_id, live, line, kind, raw_type, acquirer_ref, merchant_ref, modification_ref, currency, amount, net_currency, net, fee, interchange, scheme_fee, method, booked_at, dup_key,
                             outcome, matched_by, payment_id, record_key, differences, expected_fee)
     SELECT $1, $2, true, x.* FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::text[], $12::bigint[], $13::bigint[],
                                          $14::bigint[], $15::bigint[], $16::text[], $17::timestamptz[], $18::text[], $19::text[], $20::text[], $21::text[], $22::text[], $23::jsonb[], $24::bigint[]) AS x`,
    [importId, midId, ...cols, expected],
  );
}

/** Lines that repeat an earlier line of the same file (the first of each kept), at most `limit`. */
export async function duplicateLines(sql: Sql, importId: string, limit: number): Promise<{ line: number; first: number }[]> {
  return sql.query<{ line: number; first: number }>(
    `SELECT line, first FROM (SELECT line, min(line) OVER (PARTITION BY dup_key) AS first FROM recon_rows WHERE import_id = $1 AND dup_key IS NOT NULL) d
     WHERE line <> first ORDER BY line LIMIT $2`,
    [importId, limit],
  );
}

interface RowDb {
  id: string | number; import_id: string; mid_id: string; live: boolean; line: number | null; kind: RecordKind; raw_type: string; acquirer_ref: string | null; merchant_ref: string | null;
  modification_ref: string | null; currency: string; amount: string; net_currency: string; net: string; fee: string; interchange: string; scheme_fee: string; method: string | null;
  booked_at: Date | string; outcome: string; matched_by: MatchedBy | null; payment_id: string | null; record_key: string | null; differences: StoredDifference[] | null;
  expected_fee: string | null; resolution: string | null; resolution_note: string | null; resolved_by: string | null; resolved_at: Date | string | null;
}

export type StoredDifference = Omit<Difference, 'delta'> & { delta?: string };

export interface StoredRow extends ReportRow {
  id: string;
  importId: string;
  midId: string;
  live: boolean;
  outcome: string;
  matchedBy: MatchedBy | null;
  paymentId: string | null;
  recordKey: string | null;
  differences: StoredDifference[];
  expectedFee: bigint | null;
  resolution: string | null;
  resolutionNote: string | null;
  resolvedBy: string | null;
  resolvedAt: Date | null;
}

const toRow = (r: RowDb): StoredRow => ({
  id: String(r.id), importId: r.import_id, midId: r.mid_id, live: r.live, line: r.line ?? 0, kind: r.kind, rawType: r.raw_type, acquirerRef: r.acquirer_ref, merchantRef: r.merchant_ref,
  modificationRef: r.modification_ref, currency: r.currency, amount: BigInt(r.amount), netCurrency: r.net_currency, net: BigInt(r.net), fee: BigInt(r.fee),
  interchange: BigInt(r.interchange), schemeFee: BigInt(r.scheme_fee), method: r.method, bookedAt: new Date(r.booked_at), batch: null,
  outcome: r.outcome, matchedBy: r.matched_by, paymentId: r.payment_id, recordKey: r.record_key, differences: r.differences ?? [],
  expectedFee: r.expected_fee === null ? null : BigInt(r.expected_fee), resolution: r.resolution, resolutionNote: r.resolution_note, resolvedBy: r.resolved_by,
  resolvedAt: r.resolved_at === null ? null : new Date(r.resolved_at),
});

// --- our records --------------------------------------------------------------------------------------------

/** A card payout (CREDIT2CARD) leaves the receivable as a refund does: the acquirer reports it among the money paid out. */
const RECORD_KIND_SQL = `CASE e.event WHEN 'sale' THEN 'settled' WHEN 'refund' THEN 'refunded' WHEN 'void' THEN 'refunded' WHEN 'reversal' THEN 'refunded'
  WHEN 'payout' THEN 'refunded' WHEN 'chargeback' THEN 'chargeback' WHEN 'chargeback_reversal' THEN 'chargeback_reversed' END`;
const RECORD_EVENTS = `('sale', 'refund', 'void', 'reversal', 'payout', 'chargeback', 'chargeback_reversal')`;
/** A record no live row has taken (set-based: an anti-join, for the one statement over a whole period). */
const UNTAKEN = `NOT EXISTS (SELECT 1 FROM recon_rows t WHERE t.record_key = e.ref || '|' || e.event AND t.live AND t.outcome IN ('matched', 'mismatched'))`;
/**
 * The same, probed per record through recon_rows_record (a LATERAL with LIMIT is a nested loop by construction):
 * the reads of each page of a file use it, because an anti-join the planner would pick from the table's
 * statistics (stale in the middle of a file's transaction: they say a few rows where the file already wrote
 * hundreds of thousands) hashes every taken record on each page, and a 1,000,000-row file would read the table
 * once per page.
 */
const TAKEN_PROBE = `LEFT JOIN LATERAL (SELECT 1 AS taken FROM recon_rows t WHERE t.record_key = e.ref || '|' || e.event AND t.live AND t.outcome IN ('matched', 'mismatched') LIMIT 1) tk ON true`;

interface RecordDb { key: string; payment_id: string; kind: RecordKind; acquirer_ref: string | null; currency: string; amount: string; at: Date | string; brand: string | null; card: string | null; merchant_id: string }

export type StoredRecord = Omit<OurRecord, 'region'> & { card: string | null; merchantId: string };

const toRecord = (r: RecordDb): StoredRecord => ({
  key: r.key, paymentId: r.payment_id, kind: r.kind, acquirerRef: r.acquirer_ref, currency: r.currency, amount: BigInt(r.amount), at: new Date(r.at),
  method: r.brand, card: r.card, merchantId: r.merchant_id,
});

const RECORD_COLUMNS = `e.ref || '|' || e.event AS key, p.id AS payment_id, ${RECORD_KIND_SQL} AS kind, p.details->>'connectorRef' AS acquirer_ref,
  e.currency, abs(e.amount)::text AS amount, e.created_at AS at, p.details->>'brand' AS brand, coalesce(p.details->>'first6Last4', p.details->>'cardMask') AS card, p.merchant_id`;

/**
 * Our untaken records on the MID's receivable whose payment the acquirer or we know by one of the references:
 * the payments found by index (the acquirer's reference, payments_connector_ref, probed per reference (OFFSET 0
 * keeps each probe a nested loop's inner index scan: the partial expression index has no statistics, so `= ANY`
 * of a page's references is estimated as the whole table and read as such); our id, the primary key), their
 * postings by ledger_entries_payment, each record's taking probed by recon_rows_record: the work is the page's,
 * whatever the tables hold.
 */
export async function recordsByRefs(sql: Sql, midId: string, account: string, acquirerRefs: readonly string[], paymentIds: readonly string[]): Promise<StoredRecord[]> {
  if (acquirerRefs.length === 0 && paymentIds.length === 0) return [];
  const payment = `p.id, p.details->>'connectorRef' AS acquirer_ref, p.details->>'brand' AS brand, coalesce(p.details->>'first6Last4', p.details->>'cardMask') AS card, p.merchant_id`;
  const rows = await sql.query<RecordDb>(
    `WITH found AS MATERIALIZED (
       SELECT p.* FROM unnest($3::text[]) AS r(ref)
         JOIN LATERAL (SELECT ${payment} FROM payments p WHERE (p.details->>'connectorRef') = r.ref AND p.mid_id IS NOT NULL AND p.mid_id = $1 OFFSET 0) p ON true
       UNION
       SELECT p.* FROM unnest($4::text[]) AS r(id)
         JOIN LATERAL (SELECT ${payment} FROM payments p WHERE p.id = r.id AND p.mid_id = $1 OFFSET 0) p ON true)
     SELECT e.ref || '|' || e.event AS key, f.id AS payment_id, ${RECORD_KIND_SQL} AS kind, f.acquirer_ref, e.currency, abs(e.amount)::text AS amount,
            e.created_at AS at, f.brand, f.card, f.merchant_id
     FROM found f
       JOIN LATERAL (SELECT * FROM ledger_entries e WHERE e.payment_id = f.id AND e.account = $2 AND e.event IN ${RECORD_EVENTS} OFFSET 0) e ON true
       ${TAKEN_PROBE}
     WHERE tk.taken IS NULL`,
    [midId, account, acquirerRefs, paymentIds],
  );
  return rows.map(toRecord);
}

/** Our untaken records of these amounts and currencies between two instants. */
export async function recordsByAmounts(sql: Sql, midId: string, account: string, amounts: readonly { currency: string; amount: bigint }[], from: Date, to: Date): Promise<StoredRecord[]> {
  if (amounts.length === 0) return [];
  const rows = await sql.query<RecordDb>(
    `SELECT ${RECORD_COLUMNS} FROM ledger_entries e JOIN payments p ON p.id = e.payment_id
       ${TAKEN_PROBE}
     WHERE e.account = $2 AND e.created_at BETWEEN $4 AND $5 AND p.mid_id = $1 AND e.event IN ${RECORD_EVENTS}
       AND (e.currency, abs(e.amount)) IN (SELECT x->>0, (x->>1)::bigint FROM jsonb_array_elements($3::jsonb) AS x) AND tk.taken IS NULL`,
    [midId, account, JSON.stringify(amounts.map((a) => [a.currency, a.amount.toString()])), from, to],
  );
  return rows.map(toRecord);
}

/**
 * Records of ours on the MID's receivable, from `from`, recorded `dueMs` or more before `asOf`, that no live row
 * took and none flags missing yet: inserted as this import's missing rows. Their count.
 */
export async function insertMissing(sql: Sql, importId: string, midId: string, account: string, from: Date, dueBefore: Date): Promise<number> {
  const rows = await sql.query<{ n: number }>(
    `WITH ins AS (INSERT INTO recon_rows (import_id, mid_id, live, line, kind, raw_type, acquirer_ref, merchant_ref, currency, amount, net_currency, net, fee, method, booked_at, outcome, payment_id, record_key)
       SELECT $1, $2, true, NULL, ${RECORD_KIND_SQL}, e.event, p.details->>'connectorRef', p.id, e.currency, abs(e.amount), e.currency, 0, 0, p.details->>'brand', e.created_at, 'missing', p.id, e.ref || '|' || e.event
       FROM ledger_entries e JOIN payments p ON p.id = e.payment_id
       WHERE e.account = $3 AND e.created_at >= $4 AND e.created_at < $5 AND p.mid_id = $2 AND e.event IN ${RECORD_EVENTS} AND ${UNTAKEN}
         AND NOT EXISTS (SELECT 1 FROM recon_rows m WHERE m.record_key = e.ref || '|' || e.event AND m.live AND m.outcome = 'missing')
       RETURNING 1)
     SELECT count(*)::int AS n FROM ins`,
    [importId, midId, account, from, dueBefore],
  );
  return rows[0]?.n ?? 0;
}

/** Missing rows whose record a later report did settle: resolved as settled late. */
export async function resolveSettledLate(sql: Sql, midId: string, now: Date): Promise<number> {
  const rows = await sql.query<{ id: string }>(
    `UPDATE recon_rows m SET resolution = 'settled_later', resolved_at = $2, resolved_by = 'reconciliation'
     WHERE m.mid_id = $1 AND m.live AND m.outcome = 'missing' AND m.resolution IS NULL
       AND EXISTS (SELECT 1 FROM recon_rows t WHERE t.record_key = m.record_key AND t.live AND t.outcome IN ('matched', 'mismatched'))
     RETURNING m.id`,
    [midId, now],
  );
  return rows.length;
}

export async function outcomeCounts(sql: Sql, importId: string): Promise<Record<string, number>> {
  const rows = await sql.query<{ outcome: string; n: number }>('SELECT outcome, count(*)::int AS n FROM recon_rows WHERE import_id = $1 GROUP BY outcome', [importId]);
  return Object.fromEntries(rows.map((r) => [r.outcome, r.n]));
}

// --- reads and exception actions ----------------------------------------------------------------------------

export const EXCEPTIONS = ['mismatched', 'missing', 'unexpected'] as const;

export interface RowFilter {
  importId?: string;
  midId?: string;
  outcome?: string;
  /** Only open exceptions (mismatched, missing, unexpected, not resolved). */
  open?: boolean;
  from?: Date;
  to?: Date;
  /** Rows of test or live keys' MIDs only (a MID's mode is its merchant's). */
  mode?: KeyMode;
  afterId?: string;
  limit: number;
}

export async function listRows(sql: Sql, f: RowFilter): Promise<StoredRow[]> {
  const rows = await sql.query<RowDb>(
    `SELECT * FROM recon_rows WHERE live AND ($1::text IS NULL OR import_id = $1) AND ($2::text IS NULL OR mid_id = $2) AND ($3::text IS NULL OR outcome = $3)
       AND (NOT $4::boolean OR (outcome IN ('mismatched', 'missing', 'unexpected') AND resolution IS NULL))
       AND ($5::timestamptz IS NULL OR booked_at >= $5) AND ($6::timestamptz IS NULL OR booked_at < $6) AND ($7::bigint IS NULL OR id > $7) AND ${midOfMode('mid_id', f.mode)}
     ORDER BY id LIMIT $8`,
    [f.importId ?? null, f.midId ?? null, f.outcome ?? null, f.open ?? false, f.from ?? null, f.to ?? null, f.afterId ?? null, f.limit],
  );
  return rows.map(toRow);
}

export async function rowById(sql: Sql, id: string): Promise<StoredRow | undefined> {
  if (!/^\d{1,18}$/.test(id)) return undefined;
  const [r] = await sql.query<RowDb>('SELECT * FROM recon_rows WHERE id = $1', [id]);
  return r && toRow(r);
}

/** Resolves an open exception (compare-and-set: live, still open); undefined when it was not open. */
export async function resolveRow(sql: Sql, id: string, r: { resolution: string; note: string; by: string; at: Date; paymentId?: string; recordKey?: string }): Promise<StoredRow | undefined> {
  const [row] = await sql.query<RowDb>(
    `UPDATE recon_rows SET resolution = $2, resolution_note = $3, resolved_by = $4, resolved_at = $5, payment_id = COALESCE($6, payment_id), record_key = COALESCE($7, record_key)
     WHERE id = $1 AND live AND resolution IS NULL AND outcome IN ('mismatched', 'missing', 'unexpected') RETURNING *`,
    [id, r.resolution, r.note, r.by, r.at, r.paymentId ?? null, r.recordKey ?? null],
  );
  return row && toRow(row);
}

/** Open exceptions per MID, currency and day (the console's home), of test or live keys' MIDs with `mode`. */
export async function openSummary(sql: Sql, f: { from?: Date; mode?: KeyMode }): Promise<{ midId: string; day: string; currency: string; outcome: string; rows: number; amount: bigint }[]> {
  const rows = await sql.query<{ mid_id: string; day: string; currency: string; outcome: string; n: number; amount: string }>(
    `SELECT mid_id, to_char(date_trunc('day', booked_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, currency, outcome, count(*)::int AS n, sum(amount)::text AS amount
     FROM recon_rows WHERE live AND resolution IS NULL AND outcome IN ('mismatched', 'missing', 'unexpected') AND ($1::timestamptz IS NULL OR booked_at >= $1) AND ${midOfMode('mid_id', f.mode)}
     GROUP BY 1, 2, 3, 4 ORDER BY 2 DESC, 1, 3, 4`,
    [f.from ?? null],
  );
  return rows.map((r) => ({ midId: r.mid_id, day: r.day, currency: r.currency, outcome: r.outcome, rows: r.n, amount: BigInt(r.amount) }));
}

/** Open exceptions per MID and currency (for /metrics), each with its MID's mode (its merchant's: test for a sandbox one). */
export async function openPerMid(sql: Sql): Promise<{ midId: string; currency: string; mode: KeyMode; rows: number; amount: bigint }[]> {
  const rows = await sql.query<{ mid_id: string; currency: string; sandbox: boolean | null; n: number; amount: string }>(
    `SELECT o.mid_id, o.currency, m.sandbox, o.n, o.amount FROM
       (SELECT mid_id, currency, count(*)::int AS n, sum(amount)::text AS amount FROM recon_rows
         WHERE live AND resolution IS NULL AND outcome IN ('mismatched', 'missing', 'unexpected') GROUP BY 1, 2) o
     LEFT JOIN mids x ON x.id = o.mid_id LEFT JOIN merchants m ON m.id = x.merchant_id
     ORDER BY 1, 2`,
  );
  return rows.map((r) => ({ midId: r.mid_id, currency: r.currency, mode: r.sandbox === true ? 'test' : 'live', rows: r.n, amount: BigInt(r.amount) }));
}

/**
 * A page of the MID's payments created in [from, to) that the acquirer knows by a reference (the upstream
 * report's lookups), in id order after `afterId`.
 */
export async function paymentsOfMid(sql: Sql, midId: string, from: Date, to: Date, afterId: string, limit: number): Promise<Payment[]> {
  const rows = await sql.query<PaymentRow>(
    `SELECT * FROM payments WHERE mid_id = $1 AND created_at >= $2 AND created_at < $3 AND id > $4 AND details->>'connectorRef' IS NOT NULL ORDER BY id LIMIT $5`,
    [midId, from, to, afterId, limit],
  );
  return rows.map(toPayment);
}
