/**
 * An acquirer's daily dispute file (issue 29), read with a mapping profile as reconciliation's settlement files are
 * (src/domain/reconciliation: its CSV line splitter, decimal and date formats and zones are reused here): which
 * column holds the payment, the dispute's reference, the event, the amount, currency, reason code and dates, and
 * which value of the event column is which event of the dispute table. Pure: the whole file is read first, every
 * problem named by its line; a file with any problem imports nothing.
 */
import { DISPUTE_EVENTS, type DisputeEvent } from './disputes.ts';
import {
  checkCsvReading, readDate, readDecimal, splitCsvLine, type DateFormat, type DecimalFormat, type LineProblem,
} from './reconciliation/report.ts';
import { isKnownCurrency } from './money.ts';
import type { FieldError } from './errors.ts';

export interface DisputeFileProfile {
  columns: {
    /** Our payment id (the reference the gateway sent the acquirer). */
    payment_reference: string;
    /** The acquirer's reference of the dispute (the same for each stage of one dispute). */
    dispute_reference: string;
    event: string;
    amount: string;
    currency: string;
    reason_code?: string;
    due_date?: string;
    bank_date?: string;
  };
  /** The file's value of the event column -> the dispute table's event (unlisted values are a problem of their line). */
  events: Record<string, DisputeEvent>;
  decimal: DecimalFormat;
  date_format: DateFormat;
  time_zone?: string;
  separator?: ',' | ';' | '\t' | '|';
}

export const DISPUTE_PROFILE_EXAMPLE: DisputeFileProfile = {
  columns: { payment_reference: 'Merchant Ref', dispute_reference: 'Case ID', event: 'Stage', amount: 'Amount', currency: 'Currency', reason_code: 'Reason', due_date: 'Respond By', bank_date: 'Raised' },
  events: { RFI: 'request_for_information', CB1: 'chargeback', CB2: 'second_chargeback', REV: 'chargeback_reversed', WON: 'won', LOST: 'lost' },
  decimal: 'point',
  date_format: 'YYYY-MM-DD',
  time_zone: 'UTC',
  separator: ',',
};

export interface DisputeFileRow {
  line: number;
  paymentRef: string;
  disputeRef: string;
  rawEvent: string;
  event: DisputeEvent;
  amount: bigint;
  currency: string;
  reasonCode: string | null;
  dueAt: Date | null;
  bankDate: string | null;
}

/** What is wrong with a profile, by field (empty: none). */
export function checkDisputeProfile(p: DisputeFileProfile, at = 'profile'): FieldError[] {
  const events = { field: 'events', column: 'event', entries: p.events, allowed: DISPUTE_EVENTS, meaning: 'an event' };
  return checkCsvReading(p, ['payment_reference', 'dispute_reference', 'event', 'amount', 'currency'], at, events);
}

/** Reads the whole file: its rows, or every problem by line (line 1 is the header). */
export function readDisputeFile(text: string, p: DisputeFileProfile): { rows: DisputeFileRow[]; problems: LineProblem[] } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  while (lines.length > 0 && lines.at(-1)!.trim() === '') lines.pop();
  const separator = p.separator ?? ',';
  const header = (splitCsvLine(lines[0] ?? '', separator) ?? []).map((h) => h.trim());
  const missing = Object.values(p.columns).filter((c): c is string => typeof c === 'string' && !header.includes(c));
  if (lines.length === 0 || missing.length > 0) return { rows: [], problems: [{ line: 1, message: `the header lacks the profile's columns: ${missing.join(', ') || 'all'}.` }] };
  const at = new Map(header.map((h, i) => [h, i] as const));
  const rows: DisputeFileRow[] = [];
  const problems: LineProblem[] = [];
  const seen = new Map<string, number>();
  const zone = p.time_zone ?? 'UTC';
  for (let i = 1; i < lines.length; i++) {
    const line = i + 1;
    if (lines[i]!.trim() === '') continue;
    const fields = splitCsvLine(lines[i]!, separator);
    if (!fields) { problems.push({ line, message: 'a quote is left open.' }); continue; }
    const col = (name: string | undefined) => (name === undefined ? '' : (fields[at.get(name) ?? -1] ?? '').trim());
    const bad = (message: string) => problems.push({ line, message });
    const before = problems.length;
    const c = p.columns;
    if (fields.length < header.length) bad(`has ${fields.length} columns, the header ${header.length}.`);
    const paymentRef = col(c.payment_reference), disputeRef = col(c.dispute_reference), rawEvent = col(c.event);
    if (!paymentRef) bad(`${c.payment_reference} is empty.`);
    if (!disputeRef) bad(`${c.dispute_reference} is empty.`);
    const event = p.events[rawEvent];
    if (!event) bad(`${c.event} "${rawEvent}" is not an event the profile maps.`);
    const currency = col(c.currency).toUpperCase();
    const currencyOk = isKnownCurrency(currency);
    if (!currencyOk) bad(`${c.currency} "${col(c.currency)}" is not an ISO 4217 code.`);
    const amount = currencyOk ? readDecimal(col(c.amount), currency, p.decimal) : undefined;
    if (currencyOk && (amount === undefined || amount <= 0n)) bad(`${c.amount} "${col(c.amount)}" is not a positive amount (${p.decimal}) in ${currency}.`);
    const dueText = col(c.due_date), bankText = col(c.bank_date);
    const dueAt = dueText ? readDate(dueText, p.date_format, zone) : null;
    if (dueText && !dueAt) bad(`${c.due_date} "${dueText}" is not a date (${p.date_format}).`);
    const bankAt = bankText ? readDate(bankText, p.date_format, zone) : null;
    if (bankText && !bankAt) bad(`${c.bank_date} "${bankText}" is not a date (${p.date_format}).`);
    const key = `${paymentRef}|${disputeRef}|${rawEvent}`;
    if (seen.has(key)) bad(`duplicates line ${seen.get(key)}.`);
    else seen.set(key, line);
    if (problems.length > before) continue;
    rows.push({
      line, paymentRef, disputeRef, rawEvent, event: event!, amount: amount!, currency, reasonCode: col(c.reason_code) || null,
      dueAt: dueAt ?? null, bankDate: bankAt ? bankAt.toISOString().slice(0, 10) : null,
    });
  }
  return { rows, problems };
}
