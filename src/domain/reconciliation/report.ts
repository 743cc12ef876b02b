/**
 * Reconciliation (issue 28), pure: the one shape every acquirer's settlement report is read into, the CSV line
 * splitter, and the decimal and date readers the layouts share. Money is bigint minor units, never a float.
 *
 * A report row is one record of what the acquirer says it settled: a capture settled (`settled`), a refund
 * (`refunded`), a chargeback and its reversal, a fee booked on the batch (`fee`), the batch's payout to us
 * (`payout`), or another booking (`adjustment`: deposit corrections, balance transfers...). Amounts are always
 * positive; the kind says which way the money went. `net` is signed: credit (to us) positive.
 */
import { exponentOf, isKnownCurrency } from '../money.ts';
import type { FieldError } from '../errors.ts';

export const RECORD_KINDS = ['settled', 'refunded', 'refund_reversed', 'chargeback', 'chargeback_reversed', 'fee', 'payout', 'adjustment'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/** Kinds matched against one of our transactions; the others are the batch's own bookings. */
export const MATCHED_KINDS: ReadonlySet<RecordKind> = new Set(['settled', 'refunded', 'refund_reversed', 'chargeback', 'chargeback_reversed']);

export interface ReportRow {
  /** 1-based line in the file (the header is line 1). */
  line: number;
  kind: RecordKind;
  /** The type as the file wrote it (Settled, Refunded, MerchantPayout...). */
  rawType: string;
  /** The acquirer's reference of the payment (Adyen: Psp Reference). */
  acquirerRef: string | null;
  /** Our reference, as we sent it (Adyen: Merchant Reference, which is our payment id). */
  merchantRef: string | null;
  /** The acquirer's reference of the modification (a capture's, a refund's). */
  modificationRef: string | null;
  /** The payment's (gross) currency. */
  currency: string;
  /** Gross amount, minor units, >= 0. */
  amount: bigint;
  /** The currency of net and fees (the settlement currency). */
  netCurrency: string;
  /** Net amount, signed: a credit to us positive. */
  net: bigint;
  /** Every fee the acquirer withheld on the row (commission + markup + scheme fees + interchange), >= 0 when charged. */
  fee: bigint;
  /** Interchange and scheme fees as reported (interchange++ checks them as they are). */
  interchange: bigint;
  schemeFee: bigint;
  /** Card brand or method (lower case), when the file names it. */
  method: string | null;
  bookedAt: Date;
  /** The acquirer's batch, when the file names it. */
  batch: string | null;
}

/** A problem of a file, by line: a file with any imports nothing. */
export interface LineProblem {
  line: number;
  message: string;
}

// --- CSV ----------------------------------------------------------------------------------------------------

export { splitCsvLine } from '../csv.ts';

export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

// --- decimals -----------------------------------------------------------------------------------------------

/** How a file writes its amounts: `1234.56`, `1,234.56`, `1.234,56`, `1234,56`, or integer minor units. */
export const DECIMAL_FORMATS = ['point', 'comma_thousands_point', 'point_thousands_comma', 'comma', 'minor_units'] as const;
export type DecimalFormat = (typeof DECIMAL_FORMATS)[number];

const DECIMAL_SHAPES: Readonly<Record<DecimalFormat, RegExp>> = {
  point: /^(\d+)(?:\.(\d+))?$/,
  comma_thousands_point: /^(\d{1,3}(?:,\d{3})*|\d+)(?:\.(\d+))?$/,
  point_thousands_comma: /^(\d{1,3}(?:\.\d{3})*|\d+)(?:,(\d+))?$/,
  comma: /^(\d+)(?:,(\d+))?$/,
  minor_units: /^(\d+)()$/,
};

/**
 * A decimal text in a currency as minor units (a leading minus allowed: `signed`); an empty text is zero.
 * undefined: not a number of that format, or more fraction digits than the currency has (unless zeros).
 */
export function readDecimal(text: string, currency: string, format: DecimalFormat = 'point', signed = false): bigint | undefined {
  let t = text.trim();
  if (t === '') return 0n;
  let negative = false;
  if (signed && (t.startsWith('-') || t.startsWith('+'))) { negative = t.startsWith('-'); t = t.slice(1); }
  const m = DECIMAL_SHAPES[format].exec(t);
  if (!m) return undefined;
  if (format === 'minor_units') return negative ? -BigInt(m[1]!) : BigInt(m[1]!);
  const whole = m[1]!.replace(/[.,]/g, '');
  const exponent = exponentOf(currency);
  let fraction = m[2] ?? '';
  if (fraction.length > exponent) {
    if (/[^0]/.test(fraction.slice(exponent))) return undefined;
    fraction = fraction.slice(0, exponent);
  }
  const minor = BigInt(whole + fraction.padEnd(exponent, '0'));
  return negative ? -minor : minor;
}

// --- dates --------------------------------------------------------------------------------------------------

/** How a file writes its dates (a time of day optional after a space or T). */
export const DATE_FORMATS = ['iso', 'YYYY-MM-DD', 'DD/MM/YYYY', 'MM/DD/YYYY', 'DD.MM.YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

const DATE_SHAPES: Readonly<Record<Exclude<DateFormat, 'iso'>, { re: RegExp; y: number; m: number; d: number }>> = {
  'YYYY-MM-DD': { re: /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/, y: 1, m: 2, d: 3 },
  'DD/MM/YYYY': { re: /^(\d{2})\/(\d{2})\/(\d{4})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/, y: 3, m: 2, d: 1 },
  'MM/DD/YYYY': { re: /^(\d{2})\/(\d{2})\/(\d{4})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/, y: 3, m: 1, d: 2 },
  'DD.MM.YYYY': { re: /^(\d{2})\.(\d{2})\.(\d{4})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/, y: 3, m: 2, d: 1 },
};

/** Time zones as reports name them (Adyen's TimeZone column): minutes east of UTC. */
export const ZONE_OFFSETS: Readonly<Record<string, number>> = {
  UTC: 0, GMT: 0, Z: 0, WET: 0, WEST: 60, BST: 60, CET: 60, CEST: 120, EET: 120, EEST: 180, MSK: 180,
  AST: -240, ADT: -180, EST: -300, EDT: -240, CST: -360, CDT: -300, MST: -420, MDT: -360, PST: -480, PDT: -420,
  SGT: 480, HKT: 480, JST: 540, AEST: 600, AEDT: 660, IST: 330, BRT: -180,
};

/** A wall-clock date (and time) of a zone as an instant; undefined when it is not a date of that format. */
export function readDate(text: string, format: DateFormat, zone = 'UTC'): Date | undefined {
  const t = text.trim();
  if (format === 'iso') {
    if (!/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(t)) return undefined;
    const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/.test(t) && t.length > 10;
    const d = new Date(hasZone ? t.replace(' ', 'T') : `${t.replace(' ', 'T')}${t.length === 10 ? 'T00:00:00' : ''}Z`);
    if (Number.isNaN(d.getTime())) return undefined;
    return hasZone ? d : shift(d, zone);
  }
  const shape = DATE_SHAPES[format];
  const m = shape.re.exec(t);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[shape.y]), Number(m[shape.m]), Number(m[shape.d])];
  const [h, mi, s] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  return shift(back, zone);
}

function shift(wall: Date, zone: string): Date | undefined {
  const offset = ZONE_OFFSETS[zone.trim().toUpperCase() || 'UTC'];
  return offset === undefined ? undefined : new Date(wall.getTime() - offset * 60_000);
}

/** A currency code a report may carry. */
export const isCurrency = (code: string): boolean => /^[A-Z]{3}$/.test(code) && isKnownCurrency(code);

/** The duplicate key of a row: one record of one kind of one modification may appear once in a file. */
export function duplicateKey(r: ReportRow): string | undefined {
  if (!MATCHED_KINDS.has(r.kind)) return undefined;
  const ref = r.modificationRef ?? r.acquirerRef ?? r.merchantRef;
  return ref ? `${r.kind}|${r.acquirerRef ?? ''}|${ref}|${r.currency}|${r.amount}` : undefined;
}

/** What a CSV mapping profile (reconciliation's per-MID profile, the dispute file's) shares: named columns and how to read values. */
export interface CsvReading {
  columns?: Readonly<Record<string, unknown>>;
  decimal: DecimalFormat;
  date_format: DateFormat;
  time_zone?: string;
}

/** A profile's map from a column's values to what they mean (record types, dispute events): at least one, each known. */
export interface CsvValueMap {
  field: string;
  /** The column whose values it maps. */
  column: string;
  entries: Readonly<Record<string, string>> | undefined;
  allowed: readonly string[];
  /** What a value maps to, for the message ("a kind of record"). */
  meaning: string;
}

/**
 * The problems of a profile's shared part: each required column named, the decimal and date formats and zone
 * known, and its value map.
 */
export function checkCsvReading(p: CsvReading, required: readonly string[], at: string, map: CsvValueMap): FieldError[] {
  const problems: FieldError[] = [];
  for (const f of required) {
    const value = p.columns?.[f];
    if (typeof value !== 'string' || value.trim() === '') problems.push({ field: `${at}.columns.${f}`, message: 'should name a column of the header.' });
  }
  if (!DECIMAL_FORMATS.includes(p.decimal)) problems.push({ field: `${at}.decimal`, message: `should be one of ${DECIMAL_FORMATS.join(', ')}.` });
  if (!DATE_FORMATS.includes(p.date_format)) problems.push({ field: `${at}.date_format`, message: `should be one of ${DATE_FORMATS.join(', ')}.` });
  if (p.time_zone !== undefined && ZONE_OFFSETS[p.time_zone.toUpperCase()] === undefined) problems.push({ field: `${at}.time_zone`, message: `should be one of ${Object.keys(ZONE_OFFSETS).join(', ')}.` });
  const entries = Object.entries(map.entries ?? {});
  if (entries.length === 0) problems.push({ field: `${at}.${map.field}`, message: `should map at least one value of the ${map.column} column to ${map.meaning}.` });
  for (const [value, meant] of entries) if (!map.allowed.includes(meant)) problems.push({ field: `${at}.${map.field}.${value}`, message: `should be one of ${map.allowed.join(', ')}.` });
  return problems;
}
