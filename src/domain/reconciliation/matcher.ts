/**
 * The matcher (issue 28), pure: each report row against what the gateway recorded, by the acquirer's reference,
 * then our reference (the merchant reference we sent: the payment's id), then amount, currency and a date window.
 * A row ends `matched`, `mismatched` (each difference named: amount, currency, type, fee), or `unexpected` (no
 * record of ours fits); a record of ours no row took, past its expected settlement date, is `missing`. Each
 * record is taken by at most one row, each row takes at most one record.
 */
import type { RecordKind, ReportRow } from './report.ts';
import { MATCHED_KINDS } from './report.ts';
import { formatAmount } from '../money.ts';

/** One money movement the gateway recorded with the acquirer (a ledger posting on the MID's receivable). */
export interface OurRecord {
  /** The cause's key (transaction id and event): what a row takes. */
  key: string;
  paymentId: string;
  kind: RecordKind;
  /** The acquirer's reference of the payment (what the acquirer reports it by). */
  acquirerRef: string | null;
  currency: string;
  amount: bigint;
  at: Date;
  /** Card brand or method, and card region, for the fee check. */
  method: string | null;
  region: 'domestic' | 'intra_region' | 'international';
}

export type Outcome = 'matched' | 'mismatched' | 'unexpected';
export type MatchedBy = 'acquirer_ref' | 'merchant_ref' | 'amount_date';

export interface Difference {
  field: 'amount' | 'currency' | 'type' | 'fee';
  /** What we recorded (or expected, for a fee), as text. */
  ours: string;
  /** What the report says. */
  theirs: string;
  /** theirs - ours in minor units, for amounts and fees. */
  delta?: bigint;
}

export interface RowResult {
  line: number;
  outcome: Outcome;
  by?: MatchedBy;
  record?: OurRecord;
  differences: Difference[];
}

export interface MatchOptions {
  /** How far apart (ms) a row's date and a record's may be for a match by amount alone. */
  windowMs: number;
}

const amountText = (v: bigint, currency: string) => (/^[A-Z]{3}$/.test(currency) ? formatAmount(v, currency) : v.toString());

/** The differences between a row and the record it took (fees are checked apart: fees.ts). */
export function differencesOf(row: ReportRow, rec: OurRecord): Difference[] {
  const out: Difference[] = [];
  if (row.kind !== rec.kind) out.push({ field: 'type', ours: rec.kind, theirs: row.kind });
  if (row.currency !== rec.currency) out.push({ field: 'currency', ours: rec.currency, theirs: row.currency });
  else if (row.amount !== rec.amount) out.push({ field: 'amount', ours: amountText(rec.amount, rec.currency), theirs: amountText(row.amount, row.currency), delta: row.amount - rec.amount });
  return out;
}

const exact = (row: ReportRow, rec: OurRecord) => rec.kind === row.kind && rec.currency === row.currency && rec.amount === row.amount;

/**
 * Matches the rows (those of a kind matched against a transaction) with the records. Deterministic: rows are
 * taken in line order; within a tier a record that agrees exactly is preferred to one of the same kind, which is
 * preferred to any; the amount-and-date tier takes the nearest in time (then the smallest key).
 */
export function matchRows(rows: readonly ReportRow[], records: readonly OurRecord[], opts: MatchOptions): RowResult[] {
  const taken = new Set<string>();
  const byAcq = new Map<string, OurRecord[]>();
  const byPayment = new Map<string, OurRecord[]>();
  const byAmount = new Map<string, OurRecord[]>();
  const push = (m: Map<string, OurRecord[]>, k: string, r: OurRecord) => { const l = m.get(k); if (l) l.push(r); else m.set(k, [r]); };
  for (const r of records) {
    if (r.acquirerRef) push(byAcq, r.acquirerRef, r);
    push(byPayment, r.paymentId, r);
    push(byAmount, `${r.kind}|${r.currency}|${r.amount}`, r);
  }
  const results = new Map<number, RowResult>();
  const ordered = rows.filter((r) => MATCHED_KINDS.has(r.kind)).sort((a, b) => a.line - b.line);
  const take = (row: ReportRow, rec: OurRecord, by: MatchedBy) => {
    taken.add(rec.key);
    const differences = differencesOf(row, rec);
    results.set(row.line, { line: row.line, outcome: differences.length === 0 ? 'matched' : 'mismatched', by, record: rec, differences });
  };
  const pick = (row: ReportRow, list: readonly OurRecord[] | undefined, loose: boolean): OurRecord | undefined => {
    if (!list) return undefined;
    const free = list.filter((r) => !taken.has(r.key));
    // Among records of one reference (an acquirer that reuses one, a payment refunded twice), the one our own
    // reference names comes first.
    const own = (r: OurRecord) => row.merchantRef !== null && r.paymentId === row.merchantRef;
    return free.find((r) => exact(row, r) && own(r)) ?? free.find((r) => exact(row, r))
      ?? (loose ? free.find((r) => r.kind === row.kind && own(r)) ?? free.find((r) => r.kind === row.kind) ?? free[0] : undefined);
  };
  // Tier 1 and 2: by reference, exact agreements first so that a wrong row never steals a right row's record.
  for (const [tier, refOf, index] of [
    ['acquirer_ref', (r: ReportRow) => r.acquirerRef, byAcq],
    ['merchant_ref', (r: ReportRow) => r.merchantRef, byPayment],
  ] as const) {
    for (const loose of [false, true]) {
      for (const row of ordered) {
        if (results.has(row.line)) continue;
        const ref = refOf(row);
        const rec = ref ? pick(row, index.get(ref), loose) : undefined;
        if (rec) take(row, rec, tier);
      }
    }
  }
  // Tier 3: same kind, currency and amount, within the window; the nearest in time.
  for (const row of ordered) {
    if (results.has(row.line)) continue;
    let best: OurRecord | undefined;
    let bestGap = Infinity;
    for (const rec of byAmount.get(`${row.kind}|${row.currency}|${row.amount}`) ?? []) {
      if (taken.has(rec.key)) continue;
      // A record the acquirer names by another reference is not this row's.
      if (rec.acquirerRef && row.acquirerRef && rec.acquirerRef !== row.acquirerRef) continue;
      const gap = Math.abs(rec.at.getTime() - row.bookedAt.getTime());
      if (gap <= opts.windowMs && (gap < bestGap || (gap === bestGap && best && rec.key < best.key))) { best = rec; bestGap = gap; }
    }
    if (best) take(row, best, 'amount_date');
    else results.set(row.line, { line: row.line, outcome: 'unexpected', differences: [] });
  }
  return ordered.map((r) => results.get(r.line)!);
}

/** Records no row took whose expected settlement date (recorded + due) has passed by `asOf`: missing. */
export function missingOf(records: readonly OurRecord[], took: ReadonlySet<string>, asOf: Date, dueMs: number): OurRecord[] {
  return records.filter((r) => !took.has(r.key) && r.at.getTime() + dueMs <= asOf.getTime());
}
