/**
 * Fee schedules and the fee of a money event (issue 27), pure. A schedule is a versioned list of rows, per
 * merchant or the platform's default; the version in force on a payment's date prices it, so a change applies to
 * payments from its effective date and older ones keep their fee.
 *
 * THE ROUNDING RULE (one place, here): fee = fixed + round_half_up(amount × percent / 100), in the currency's minor
 * units, then clamped to [min, max]. Amounts are never negative, so half up is "halves away from zero": 0.5 of a
 * minor unit and above rounds up, below rounds down. Percentages carry at most 4 decimals (1.2345 %), held as
 * parts per million of the amount, so the computation is exact integer arithmetic on bigint.
 */
import type { FieldError } from '../errors.ts';
import { exponentOf, formatAmount, isKnownCurrency, parseAmount } from '../money.ts';
import { CARD_REGIONS, type CardRegion } from './regions.ts';

export const FEE_OPERATIONS = ['sale', 'refund', 'payout', 'chargeback'] as const;
export type FeeOperation = (typeof FEE_OPERATIONS)[number];
export const ANY = '*';

export interface FeeRow {
  operation: FeeOperation;
  /** A card brand (visa, ...) or an APM method key; '*' any. */
  method: string;
  region: CardRegion | typeof ANY;
  currency: string;
  /** The percentage as parts per million of the amount (2.9 % = 29000). */
  ratePpm: bigint;
  /** Minor units of the row's currency (0 when the row is for any currency). */
  fixed: bigint;
  min: bigint;
  /** null: no maximum. */
  max: bigint | null;
}

export interface FeeSchedule {
  id: string;
  /** null: the platform's default, for merchants without a schedule of their own in force. */
  merchantId: string | null;
  effectiveFrom: Date;
  rows: readonly FeeRow[];
}

/** What prices a money event. */
export interface FeeFacts {
  operation: FeeOperation;
  method: string | undefined;
  region: CardRegion;
  currency: string;
  amount: bigint;
}

export interface FeeQuote {
  fee: bigint;
  /** The schedule and row that priced it; absent: no row matched (fee 0). */
  scheduleId?: string;
  row?: FeeRow;
}

const PPM = 1_000_000n;

/** round_half_up(amount × ppm / 10^6) for amount, ppm >= 0: the one rounding of the ledger. */
export function percentOf(amount: bigint, ratePpm: bigint): bigint {
  return (amount * ratePpm + PPM / 2n) / PPM;
}

export function feeOfRow(row: FeeRow, amount: bigint): bigint {
  const raw = row.fixed + percentOf(amount, row.ratePpm);
  const floored = raw < row.min ? row.min : raw;
  return row.max !== null && floored > row.max ? row.max : floored;
}

/** The schedule in force at `at`: the merchant's latest version effective by then, else the platform's. */
export function scheduleInForce(schedules: readonly FeeSchedule[], merchantId: string, at: Date): FeeSchedule | undefined {
  let own: FeeSchedule | undefined;
  let platform: FeeSchedule | undefined;
  for (const s of schedules) {
    if (s.effectiveFrom.getTime() > at.getTime()) continue;
    if (s.merchantId === merchantId) { if (!own || s.effectiveFrom > own.effectiveFrom) own = s; }
    else if (s.merchantId === null && (!platform || s.effectiveFrom > platform.effectiveFrom)) platform = s;
  }
  return own ?? platform;
}

/** How specific a row is: an exact method outranks an exact region, which outranks an exact currency. */
const specificity = (r: FeeRow): number => (r.method !== ANY ? 4 : 0) + (r.region !== ANY ? 2 : 0) + (r.currency !== ANY ? 1 : 0);

/** A row's key field fits a fact when equal, or when it is the wildcard where one is allowed (not the operation). */
const fits = (key: string, fact: string | undefined, wildcard: boolean): boolean => key === fact || (wildcard && key === ANY);

const matches = (r: FeeRow, f: FeeFacts): boolean =>
  fits(r.operation, f.operation, false) && fits(r.method, f.method, true) && fits(r.region, f.region, true) && fits(r.currency, f.currency, true);

/**
 * The row of a schedule that prices the facts: the most specific that matches. Two matching rows of one
 * specificity would have one key, which validation refuses, so the choice is never ambiguous.
 */
export function rowFor(rows: readonly FeeRow[], facts: FeeFacts): FeeRow | undefined {
  let best: FeeRow | undefined;
  for (const r of rows) if (matches(r, facts) && (!best || specificity(r) > specificity(best))) best = r;
  return best;
}

export function quoteFee(schedule: FeeSchedule | undefined, facts: FeeFacts): FeeQuote {
  const row = schedule && rowFor(schedule.rows, facts);
  if (!schedule || !row) return { fee: 0n };
  return { fee: feeOfRow(row, facts.amount), scheduleId: schedule.id, row };
}

export const rowKey = (r: Pick<FeeRow, 'operation' | 'method' | 'region' | 'currency'>): string => `${r.operation}|${r.method}|${r.region}|${r.currency}`;

// --- the wire form and its validation ----------------------------------------------------------------------

/** A row as the admin API takes and shows it: amounts as decimal strings of the row's currency. */
export interface FeeRowInput {
  operation: string;
  method?: string;
  region?: string;
  currency?: string;
  /** Decimal, at most 4 fraction digits, 0 to 100. */
  percent?: string;
  fixed?: string;
  min?: string;
  max?: string | null;
}

const PERCENT = /^(0|[1-9][0-9]{0,2})(?:\.([0-9]{1,4}))?$/;

function parsePercent(text: string): bigint | undefined {
  const m = PERCENT.exec(text);
  if (!m) return undefined;
  const ppm = BigInt(m[1]!) * 10_000n + BigInt((m[2] ?? '').padEnd(4, '0'));
  return ppm <= PPM ? ppm : undefined;
}

/**
 * Checks a schedule's rows: each problem named by its field (rows[i].field), all of them at once; none: the
 * rows. `currencies`: the currencies the merchant can take (absent: any known currency, the platform default).
 */
export function parseFeeRows(input: readonly FeeRowInput[], currencies?: ReadonlySet<string>): { rows: FeeRow[] } | { problems: FieldError[] } {
  const problems: FieldError[] = [];
  const rows: FeeRow[] = [];
  const seen = new Map<string, number>();
  input.forEach((r, i) => {
    const at = (field: string, message: string) => problems.push({ field: `rows[${i}].${field}`, message });
    const before = problems.length;
    const operation = r.operation as FeeOperation;
    if (!FEE_OPERATIONS.includes(operation)) at('operation', `should be one of ${FEE_OPERATIONS.join(', ')}.`);
    const method = r.method ?? ANY;
    if (method !== ANY && !/^[a-z0-9_-]{2,40}$/.test(method)) at('method', 'should be * or a card brand or method key (lower case; the catalog\'s keys have hyphens: bank-code).');
    const region = (r.region ?? ANY) as FeeRow['region'];
    if (region !== ANY && !CARD_REGIONS.includes(region)) at('region', `should be * or one of ${CARD_REGIONS.join(', ')}.`);
    const currency = r.currency ?? ANY;
    if (currency !== ANY && !isKnownCurrency(currency)) at('currency', 'should be * or an ISO 4217 currency code.');
    else if (currency !== ANY && currencies && !currencies.has(currency)) at('currency', `the merchant cannot take ${currency}.`);
    const ratePpm = parsePercent(r.percent ?? '0');
    if (ratePpm === undefined) at('percent', 'should be a decimal from 0 to 100 with at most 4 fraction digits (not negative).');
    const amount = (field: 'fixed' | 'min' | 'max', text: string | null | undefined): bigint | null => {
      if (text === undefined || text === null) return null;
      if (currency === ANY) {
        if (!/^0(\.0+)?$/.test(text)) at(field, 'a row for any currency (*) takes a percentage only: name its currency to set an amount.');
        return 0n;
      }
      if (!isKnownCurrency(currency)) return null;
      const parsed = parseAmount(text, currency);
      if (!parsed.ok) { at(field, `should be a non-negative amount in ${currency} (at most ${exponentOf(currency)} decimals).`); return null; }
      return parsed.money.minor;
    };
    const fixed = amount('fixed', r.fixed) ?? 0n;
    const min = amount('min', r.min) ?? 0n;
    const max = amount('max', r.max);
    if (max !== null && min > max) at('min', `the minimum ${r.min} is above the maximum ${r.max}.`);
    const key = rowKey({ operation, method, region, currency });
    const other = seen.get(key);
    if (other !== undefined) at('operation', `overlaps rows[${other}]: both price ${operation} for method ${method}, region ${region}, currency ${currency}.`);
    else seen.set(key, i);
    if (problems.length === before) rows.push({ operation, method, region, currency, ratePpm: ratePpm!, fixed, min, max });
  });
  if (input.length === 0) problems.push({ field: 'rows', message: 'should list at least one row.' });
  return problems.length > 0 ? { problems } : { rows };
}

/** A row as the admin API shows it. */
export function feeRowView(r: FeeRow): Required<FeeRowInput> {
  const money = (v: bigint) => (r.currency === ANY ? '0' : formatAmount(v, r.currency));
  const whole = r.ratePpm / 10_000n;
  const frac = (r.ratePpm % 10_000n).toString().padStart(4, '0').replace(/0+$/, '');
  return {
    operation: r.operation, method: r.method, region: r.region, currency: r.currency,
    percent: frac ? `${whole}.${frac}` : `${whole}`, fixed: money(r.fixed), min: money(r.min), max: r.max === null ? null : money(r.max),
  };
}
