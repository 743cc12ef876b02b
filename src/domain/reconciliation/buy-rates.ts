/**
 * The fee check (issue 28), pure: what the acquirer withheld on a row against the MID's contracted buy rates. The
 * rates are rows of the ledger's fee schedule shape (domain/ledger/fees.ts: percent + fixed, min, max, per
 * operation, card brand, card region and currency; the most specific row applies; the one rounding rule), in one
 * of two modes: `blended` (the rate is the whole fee) or `interchange_plus_plus` (interchange and scheme fees as
 * the report states them, plus the rate as the acquirer's markup).
 */
import { feeOfRow, rowFor, type FeeOperation, type FeeRow } from '../ledger/fees.ts';
import type { CardRegion } from '../ledger/regions.ts';
import type { RecordKind, ReportRow } from './report.ts';
import type { Difference } from './matcher.ts';
import { formatAmount } from '../money.ts';

export const BUY_RATE_MODES = ['blended', 'interchange_plus_plus'] as const;
export type BuyRateMode = (typeof BUY_RATE_MODES)[number];

export interface BuyRates {
  mode: BuyRateMode;
  rows: readonly FeeRow[];
}

export const NO_BUY_RATES: BuyRates = { mode: 'blended', rows: [] };

/** Which fee operation prices a kind of record. */
const OPERATION_OF: Partial<Record<RecordKind, FeeOperation>> = { settled: 'sale', refunded: 'refund', chargeback: 'chargeback' };

/**
 * The fee the contract says the row should have cost; undefined when the rates do not price it (no rates, no
 * row for it, or the fee is in another currency than the amount: a converted fee is checked by the operator).
 */
export function expectedFee(rates: BuyRates, row: ReportRow, facts: { method: string | null; region: CardRegion }): bigint | undefined {
  const operation = OPERATION_OF[row.kind];
  if (!operation || rates.rows.length === 0 || row.netCurrency !== row.currency) return undefined;
  const rate = rowFor(rates.rows, { operation, method: facts.method ?? row.method ?? undefined, region: facts.region, currency: row.currency, amount: row.amount });
  if (!rate) return undefined;
  const own = feeOfRow(rate, row.amount);
  return rates.mode === 'interchange_plus_plus' ? own + row.interchange + row.schemeFee : own;
}

/** The fee's difference, when the reported fee is not the expected one. */
export function feeDifference(row: ReportRow, expected: bigint | undefined): Difference | undefined {
  if (expected === undefined || row.fee === expected) return undefined;
  return { field: 'fee', ours: formatAmount(expected, row.netCurrency), theirs: formatAmount(row.fee, row.netCurrency), delta: row.fee - expected };
}
