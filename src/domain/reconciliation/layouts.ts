/**
 * The layouts a settlement report is read in (issue 28), pure: Adyen's Settlement details report by its published
 * columns and record types, and any other acquirer's CSV by a mapping profile an operator defines once per MID.
 * A layout is chosen by the file's header line; each further line becomes a ReportRow or the problems that line
 * has, named by its line number.
 */
import { isCurrency, readDate, readDecimal, type DateFormat, type DecimalFormat, type LineProblem, type RecordKind, type ReportRow } from './report.ts';
import { RECORD_KINDS, ZONE_OFFSETS, checkCsvReading } from './report.ts';
import type { FieldError } from '../errors.ts';

export interface Layout {
  name: LayoutName;
  /** A data line's fields as a row, or what is wrong with them (each problem once, with its line). */
  read(fields: readonly string[], line: number): ReportRow | LineProblem[];
}

export const LAYOUT_NAMES = ['adyen_settlement_details', 'upstream_transactions', 'csv_profile'] as const;
export type LayoutName = (typeof LAYOUT_NAMES)[number];

// --- Adyen's Settlement details report ----------------------------------------------------------------------

/**
 * The report's published standard columns, in their default order (Adyen's "Settlement details report"
 * reference; the file may add columns or reorder them: they are found by name).
 */
export const ADYEN_COLUMNS = [
  'Company Account', 'Merchant Account', 'Psp Reference', 'Merchant Reference', 'Payment Method', 'Creation Date',
  'TimeZone', 'Type', 'Modification Reference', 'Gross Currency', 'Gross Debit (GC)', 'Gross Credit (GC)',
  'Exchange Rate', 'Net Currency', 'Net Debit (NC)', 'Net Credit (NC)', 'Commission (NC)', 'Markup (NC)',
  'Scheme Fees (NC)', 'Interchange (NC)', 'Payment Method Variant', 'Modification Merchant Reference', 'Batch Number',
  'Reserved4', 'Reserved5', 'Reserved6', 'Reserved7', 'Reserved8', 'Reserved9', 'Reserved10',
] as const;

/** The columns without which a line cannot be read. */
const ADYEN_REQUIRED = ['Psp Reference', 'Merchant Reference', 'Creation Date', 'TimeZone', 'Type', 'Gross Currency', 'Gross Debit (GC)', 'Gross Credit (GC)', 'Net Currency', 'Net Debit (NC)', 'Net Credit (NC)'] as const;

/**
 * Adyen's record types (the Type column, "journal types") -> what they mean here. A type not in this table is a
 * problem of its line: the operator learns of it instead of the batch silently not adding up.
 */
export const ADYEN_TYPES: Readonly<Record<string, RecordKind>> = {
  Settled: 'settled', SettledBulk: 'settled', SettledExternally: 'settled', SettledInstallment: 'settled', SettledExternallyWithInfo: 'settled',
  Refunded: 'refunded', RefundedBulk: 'refunded', RefundedExternally: 'refunded', RefundedInstallment: 'refunded', RefundedExternallyWithInfo: 'refunded',
  RefundedReversed: 'refund_reversed',
  Chargeback: 'chargeback', SecondChargeback: 'chargeback', ChargebackExternally: 'chargeback', ChargebackExternallyWithInfo: 'chargeback',
  ChargebackReversed: 'chargeback_reversed', ChargebackReversedExternally: 'chargeback_reversed', ChargebackReversedExternallyWithInfo: 'chargeback_reversed',
  Fee: 'fee', PaymentCost: 'fee', InvoiceDeduction: 'fee', AuthorisationSchemeFee: 'fee',
  MerchantPayout: 'payout',
  DepositCorrection: 'adjustment', Balancetransfer: 'adjustment', ReserveAdjustment: 'adjustment', ManualCorrected: 'adjustment',
  MatchedStatement: 'adjustment', BankInstructionReturned: 'adjustment', PaidOut: 'adjustment', PaidOutReversed: 'adjustment',
};

/** Is this header Adyen's? Every required column present. */
export function isAdyenHeader(header: readonly string[]): boolean {
  const names = new Set(header.map((h) => h.trim()));
  return ADYEN_REQUIRED.every((c) => names.has(c));
}

export function adyenLayout(header: readonly string[]): Layout {
  const at = new Map(header.map((h, i) => [h.trim(), i] as const));
  const col = (fields: readonly string[], name: string): string => {
    const i = at.get(name);
    return i === undefined ? '' : (fields[i] ?? '').trim();
  };
  return {
    name: 'adyen_settlement_details',
    read(fields, line) {
      const problems: LineProblem[] = [];
      const bad = (message: string) => problems.push({ line, message });
      if (fields.length < header.length) bad(`has ${fields.length} columns, the header ${header.length}.`);
      const rawType = col(fields, 'Type');
      const kind = ADYEN_TYPES[rawType];
      if (!kind) bad(`Type "${rawType}" is not a record type of the Settlement details report.`);
      const grossCurrency = col(fields, 'Gross Currency');
      const netCurrency = col(fields, 'Net Currency');
      // Batch bookings (fees, payouts, corrections) name a net currency only.
      const currency = grossCurrency || netCurrency;
      if (!isCurrency(currency)) bad(`Gross Currency "${grossCurrency}" is not an ISO 4217 code.`);
      if (!isCurrency(netCurrency)) bad(`Net Currency "${netCurrency}" is not an ISO 4217 code.`);
      const zone = col(fields, 'TimeZone');
      if (ZONE_OFFSETS[zone.toUpperCase()] === undefined) bad(`TimeZone "${zone}" is not a time zone this reader knows.`);
      const bookedAt = readDate(col(fields, 'Creation Date'), 'YYYY-MM-DD', zone || 'UTC');
      if (!bookedAt && ZONE_OFFSETS[zone.toUpperCase()] !== undefined) bad(`Creation Date "${col(fields, 'Creation Date')}" is not a date (YYYY-MM-DD hh:mm:ss).`);
      if (problems.length > 0) return problems;
      const money = (name: string, cur: string): bigint => {
        const v = readDecimal(col(fields, name), cur);
        if (v === undefined) { bad(`${name} "${col(fields, name)}" is not an amount in ${cur}.`); return 0n; }
        return v;
      };
      const grossDebit = money('Gross Debit (GC)', currency);
      const grossCredit = money('Gross Credit (GC)', currency);
      const netDebit = money('Net Debit (NC)', netCurrency);
      const netCredit = money('Net Credit (NC)', netCurrency);
      const commission = money('Commission (NC)', netCurrency);
      const markup = money('Markup (NC)', netCurrency);
      const scheme = money('Scheme Fees (NC)', netCurrency);
      const interchange = money('Interchange (NC)', netCurrency);
      if (problems.length > 0) return problems;
      const net = netCredit - netDebit;
      // A batch booking's amount is its net; a transaction's is its gross, credit or debit as its kind goes.
      const gross = grossCurrency ? (grossCredit > 0n ? grossCredit : grossDebit) : (net < 0n ? -net : net);
      const fee = commission + markup + scheme + interchange;
      const text = (name: string) => col(fields, name) || null;
      const method = text('Payment Method')?.toLowerCase() ?? null;
      return {
        line, kind: kind!, rawType, acquirerRef: text('Psp Reference'), merchantRef: text('Merchant Reference'),
        modificationRef: text('Modification Reference'), currency, amount: gross, netCurrency, net,
        fee: kind === 'fee' ? (net < 0n ? -net : net) : fee, interchange, schemeFee: scheme, method,
        bookedAt: bookedAt!, batch: text('Batch Number'),
      };
    },
  };
}

// --- the platform-family upstream's transactions -------------------------------------------------------------

/**
 * The platform-family upstream (`akurateco`) publishes no settlement file: its record of each payment is what its
 * GET_TRANS_DETAILS answers (transactions[{date, type, status, amount}], the payment's currency). The gateway
 * asks it for every payment of a MID in a date range and writes the answers in this layout, one line per booked
 * transaction, so that they are read, matched and posted like any report (services/reconciliation/upstream.ts).
 * A lookup that failed is a line with its Error: a problem of that line, so nothing of an incomplete report is kept.
 * Fee: what the upstream charged on the line (its answer's fee; empty: none said, 0), in the line's currency. A
 * report written before the Fee column (eight columns) is still read.
 */
export const UPSTREAM_COLUMNS = ['Order ID', 'Trans ID', 'Type', 'Status', 'Date', 'Amount', 'Currency', 'Error', 'Fee'] as const;

/**
 * The upstream's transaction types that moved money -> what they mean here; the others (auth, 3ds...) are not
 * written. A credit (CREDIT2CARD: money paid out to a card) goes out like a refund and is matched against our payout.
 */
export const UPSTREAM_TYPES: Readonly<Record<string, RecordKind>> = {
  sale: 'settled', capture: 'settled', recurring: 'settled', debit: 'settled',
  refund: 'refunded', reversal: 'refunded', void: 'refunded', credit: 'refunded',
  chargeback: 'chargeback',
};

export const isUpstreamHeader = (header: readonly string[]): boolean =>
  (header.length === UPSTREAM_COLUMNS.length || header.length === UPSTREAM_COLUMNS.length - 1) && header.every((h, i) => h.trim() === UPSTREAM_COLUMNS[i]);

export function upstreamLayout(): Layout {
  return {
    name: 'upstream_transactions',
    read(fields, line) {
      const [orderId = '', transId = '', type = '', status = '', date = '', amountText = '', currencyText = '', error = '', feeText = ''] = fields.map((f) => f.trim());
      const problems: LineProblem[] = [];
      const bad = (message: string) => problems.push({ line, message });
      if (error) return [{ line, message: `the upstream's record of payment ${orderId || transId} could not be read: ${error}` }];
      const kind = UPSTREAM_TYPES[type];
      if (!kind) bad(`Type "${type}" is not a transaction type that moves money.`);
      if (status !== 'success') bad(`Status "${status}": only booked (success) transactions are reported.`);
      const currency = currencyText.toUpperCase();
      if (!isCurrency(currency)) { bad(`Currency "${currencyText}" is not an ISO 4217 code.`); return problems; }
      const amount = readDecimal(amountText, currency);
      if (amount === undefined) bad(`Amount "${amountText}" is not an amount in ${currency}.`);
      const fee = readDecimal(feeText, currency);
      if (fee === undefined) bad(`Fee "${feeText}" is not an amount in ${currency}.`);
      const bookedAt = readDate(date, 'YYYY-MM-DD', 'UTC');
      if (!bookedAt) bad(`Date "${date}" is not a date (YYYY-MM-DD hh:mm:ss).`);
      if (problems.length > 0) return problems;
      const credit = kind === 'settled';
      return {
        line, kind: kind!, rawType: type, acquirerRef: transId || null, merchantRef: orderId || null, modificationRef: null,
        currency, amount: amount!, netCurrency: currency, net: credit ? amount! - fee! : -(amount! + fee!), fee: fee!, interchange: 0n, schemeFee: 0n,
        method: null, bookedAt: bookedAt!, batch: null,
      };
    },
  };
}

// --- a CSV mapping profile ----------------------------------------------------------------------------------

/** Which column holds what, and how amounts and dates are written: defined once per MID by an operator. */
export interface CsvProfile {
  /** Column names (as the header writes them). */
  columns: {
    reference: string;
    merchant_reference?: string;
    amount: string;
    currency: string;
    type: string;
    fee?: string;
    date: string;
    batch?: string;
    method?: string;
  };
  decimal: DecimalFormat;
  date_format: DateFormat;
  /** The zone of dates without one (UTC, CET...). */
  time_zone?: string;
  /** The file's value of the type column -> the kind of record (unlisted values are a problem of their line). */
  types: Record<string, RecordKind>;
  separator?: ',' | ';' | '\t' | '|';
}

export const PROFILE_EXAMPLE: CsvProfile = {
  columns: { reference: 'Transaction ID', merchant_reference: 'Order Ref', amount: 'Amount', currency: 'Currency', type: 'Type', fee: 'Fee', date: 'Value Date', batch: 'Batch' },
  decimal: 'point_thousands_comma',
  date_format: 'DD.MM.YYYY',
  time_zone: 'CET',
  types: { SALE: 'settled', REFUND: 'refunded', CB: 'chargeback', FEE: 'fee', PAYOUT: 'payout' },
  separator: ';',
};

/** What is wrong with a profile, by field (empty: none). */
export function checkProfile(p: CsvProfile, at = 'csv'): FieldError[] {
  const types = { field: 'types', column: 'type', entries: p.types, allowed: RECORD_KINDS, meaning: 'a kind of record' };
  return checkCsvReading(p, ['reference', 'amount', 'currency', 'type', 'date'], at, types);
}

/** Does the header carry the profile's columns? The missing ones, named. */
export function profileColumnsMissing(p: CsvProfile, header: readonly string[]): string[] {
  const names = new Set(header.map((h) => h.trim()));
  return Object.values(p.columns).filter((c): c is string => typeof c === 'string' && !names.has(c));
}

export function profileLayout(p: CsvProfile, header: readonly string[]): Layout {
  const at = new Map(header.map((h, i) => [h.trim(), i] as const));
  const col = (fields: readonly string[], name: string | undefined): string => {
    const i = name === undefined ? undefined : at.get(name);
    return i === undefined ? '' : (fields[i] ?? '').trim();
  };
  const zone = p.time_zone ?? 'UTC';
  return {
    name: 'csv_profile',
    read(fields, line) {
      const problems: LineProblem[] = [];
      const bad = (message: string) => problems.push({ line, message });
      const { columns: c } = p;
      if (fields.length < header.length) bad(`has ${fields.length} columns, the header ${header.length}.`);
      const rawType = col(fields, c.type);
      const kind = p.types[rawType];
      if (!kind) bad(`${c.type} "${rawType}" is not a type the MID's profile maps.`);
      const currency = col(fields, c.currency).toUpperCase();
      if (!isCurrency(currency)) { bad(`${c.currency} "${col(fields, c.currency)}" is not an ISO 4217 code.`); return problems; }
      const signedAmount = readDecimal(col(fields, c.amount), currency, p.decimal, true);
      if (signedAmount === undefined) bad(`${c.amount} "${col(fields, c.amount)}" is not an amount (${p.decimal}) in ${currency}.`);
      const fee = c.fee ? readDecimal(col(fields, c.fee), currency, p.decimal, true) : 0n;
      if (fee === undefined) bad(`${c.fee} "${col(fields, c.fee)}" is not an amount (${p.decimal}) in ${currency}.`);
      const bookedAt = readDate(col(fields, c.date), p.date_format, zone);
      if (!bookedAt) bad(`${c.date} "${col(fields, c.date)}" is not a date (${p.date_format}).`);
      if (problems.length > 0) return problems;
      const amount = signedAmount! < 0n ? -signedAmount! : signedAmount!;
      const feeAbs = fee! < 0n ? -fee! : fee!;
      const credit = kind === 'settled' || kind === 'refund_reversed' || kind === 'chargeback_reversed';
      const net = kind === 'fee' ? -amount : kind === 'payout' ? -amount : kind === 'adjustment' ? signedAmount! : credit ? amount - feeAbs : -(amount + feeAbs);
      const text = (name: string | undefined) => col(fields, name) || null;
      return {
        line, kind: kind!, rawType, acquirerRef: text(c.reference), merchantRef: text(c.merchant_reference), modificationRef: null,
        currency, amount, netCurrency: currency, net, fee: kind === 'fee' ? amount : feeAbs, interchange: 0n, schemeFee: 0n,
        method: text(c.method)?.toLowerCase() ?? null, bookedAt: bookedAt!, batch: text(c.batch),
      };
    },
  };
}

/**
 * The layout of a file by its header: Adyen's when the header is the Settlement details report's, else the MID's
 * profile when the header carries its columns; undefined: a layout this MID cannot read.
 */
export function layoutOf(header: readonly string[], profile: CsvProfile | null): Layout | undefined {
  if (isAdyenHeader(header)) return adyenLayout(header);
  if (isUpstreamHeader(header)) return upstreamLayout();
  if (profile && profileColumnsMissing(profile, header).length === 0) return profileLayout(profile, header);
  return undefined;
}
