/**
 * A batch's totals (issue 28), pure: per settlement currency, the net of every booking (transactions, fees,
 * corrections), the payout the acquirer announces (its payout rows) and, when an operator entered it, the bank
 * credit that arrived. The three must agree, else the batch is flagged, each disagreement named.
 */
import { formatAmount } from '../money.ts';
import type { ReportRow } from './report.ts';

export interface CurrencyTotals {
  /** Net of the batch's bookings, credit positive. */
  net: bigint;
  /** Fees withheld on the transactions and booked as fee rows. */
  fees: bigint;
  /** What the acquirer announces it paid out (its payout rows); null: the file announces none. */
  payout: bigint | null;
  rows: number;
}

export type BatchTotals = Map<string, CurrencyTotals>;

/** Adds a row to the totals (the file is read once, row by row: constant memory). */
export function addToTotals(totals: BatchTotals, row: Pick<ReportRow, 'kind' | 'netCurrency' | 'net' | 'fee' | 'amount'>): void {
  let t = totals.get(row.netCurrency);
  if (!t) totals.set(row.netCurrency, (t = { net: 0n, fees: 0n, payout: null, rows: 0 }));
  t.rows++;
  if (row.kind === 'payout') { t.payout = (t.payout ?? 0n) + row.amount; return; }
  t.net += row.net;
  t.fees += row.fee;
}

/** Why the batch does not add up (empty: it does). `bankCredits`: per currency, what the bank received. */
export function batchFlags(totals: BatchTotals, bankCredits: ReadonlyMap<string, bigint>): string[] {
  const flags: string[] = [];
  for (const [currency, t] of [...totals].sort(([a], [b]) => a.localeCompare(b))) {
    const f = (v: bigint) => formatAmount(v, currency);
    if (t.payout === null) flags.push(`${currency}: the report announces no payout (net ${f(t.net)}).`);
    else if (t.payout !== t.net) flags.push(`${currency}: the batch nets ${f(t.net)}, the announced payout is ${f(t.payout)} (difference ${f(t.payout - t.net)}).`);
    const bank = bankCredits.get(currency);
    if (bank !== undefined && t.payout !== null && bank !== t.payout) flags.push(`${currency}: the bank credited ${f(bank)}, the announced payout is ${f(t.payout)} (difference ${f(bank - t.payout)}).`);
  }
  for (const currency of bankCredits.keys()) if (!totals.has(currency)) flags.push(`${currency}: a bank credit in a currency the batch does not settle.`);
  return flags;
}
