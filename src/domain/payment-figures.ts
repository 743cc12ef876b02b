/**
 * The console's home figures (issue 31 item 5), pure: the periods a date range compares, and the store's grouped
 * counts folded into totals per day, per group (merchant, MID or connector) and per decline reason. A payment is
 * counted once however many tries it took (store/payment-figures-repo.ts picks the try that stands for it), so
 * the approval rate is approved payments among those approved or declined.
 */
import { formatAmount } from './money.ts';

export type FigureOutcome = 'approved' | 'declined' | 'other';
export const FIGURE_GROUPINGS = ['merchant', 'mid', 'connector'] as const;
export type FigureGrouping = (typeof FIGURE_GROUPINGS)[number];

/** Longest range one request may ask for (the previous period doubles what is read). */
export const MAX_FIGURE_DAYS = 366;

/** A UTC day as YYYY-MM-DD. */
export type Day = string;

export interface FigurePeriods {
  /** First day of the range and the day after its last (exclusive). */
  current: { from: Day; until: Day };
  /** The same number of days just before. */
  previous: { from: Day; until: Day };
  days: number;
}

const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function dayOf(at: Date): Day {
  return at.toISOString().slice(0, 10);
}

export function addDays(day: Day, n: number): Day {
  return dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));
}

function isDay(s: string): boolean {
  const at = new Date(`${s}T00:00:00Z`);
  return DAY.test(s) && !Number.isNaN(at.getTime()) && dayOf(at) === s;
}

/** Days a range spans when the caller names only its last. */
export const DEFAULT_FIGURE_DAYS = 30;

/** `from`..`to` (both included; `from` by default 30 days) and the period before it, or the problem, in words. */
export function figurePeriods(fromOrDefault: string | undefined, to: string): FigurePeriods | { field: 'from' | 'to'; problem: string } {
  if (!isDay(to)) return { field: 'to', problem: 'This value is not a valid date (YYYY-MM-DD).' };
  const from = fromOrDefault ?? addDays(to, 1 - DEFAULT_FIGURE_DAYS);
  if (!isDay(from)) return { field: 'from', problem: 'This value is not a valid date (YYYY-MM-DD).' };
  const days = Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS) + 1;
  if (days < 1) return { field: 'to', problem: 'The last day comes before the first.' };
  if (days > MAX_FIGURE_DAYS) return { field: 'to', problem: `A range may span at most ${MAX_FIGURE_DAYS} days.` };
  return { current: { from, until: addDays(to, 1) }, previous: { from: addDays(from, -days), until: from }, days };
}

/** One grouped count from the store. Exactly one of day, key and reason is set (the grouping it belongs to). */
export interface FigureRow {
  period: 'current' | 'previous';
  day?: Day;
  key?: string;
  reason?: string;
  currency?: string;
  outcome: FigureOutcome;
  payments: number;
  amountMinor: bigint;
}

export interface Totals {
  payments: number;
  approved: number;
  declined: number;
  /** approved / (approved + declined), 0 to 1 rounded to 4 places; null when none was decided. */
  approval_rate: number | null;
  /** Approved amount per currency, decimal strings, largest count first. */
  volume: { currency: string; amount: string; payments: number }[];
}

interface Tally { payments: number; approved: number; declined: number; volume: Map<string, { minor: bigint; payments: number }> }

const emptyTally = (): Tally => ({ payments: 0, approved: 0, declined: 0, volume: new Map() });

function add(t: Tally, r: FigureRow): void {
  t.payments += r.payments;
  if (r.outcome === 'declined') t.declined += r.payments;
  if (r.outcome !== 'approved' || !r.currency) return;
  t.approved += r.payments;
  const v = t.volume.get(r.currency) ?? { minor: 0n, payments: 0 };
  t.volume.set(r.currency, { minor: v.minor + r.amountMinor, payments: v.payments + r.payments });
}

export function approvalRate(approved: number, declined: number): number | null {
  return approved + declined === 0 ? null : Math.round((approved / (approved + declined)) * 10_000) / 10_000;
}

function totalsOf(t: Tally): Totals {
  return {
    payments: t.payments, approved: t.approved, declined: t.declined, approval_rate: approvalRate(t.approved, t.declined),
    volume: [...t.volume.entries()].sort((a, b) => b[1].payments - a[1].payments || a[0].localeCompare(b[0]))
      .map(([currency, v]) => ({ currency, amount: formatAmount(v.minor, currency), payments: v.payments })),
  };
}

interface Pair { current: Tally; previous: Tally }
const pairOf = (): Pair => ({ current: emptyTally(), previous: emptyTally() });
const totalsPair = (p: Pair) => ({ current: totalsOf(p.current), previous: totalsOf(p.previous) });

function tallyInto(map: Map<string, Pair>, key: string, r: FigureRow): void {
  const pair = map.get(key) ?? pairOf();
  map.set(key, pair);
  add(pair[r.period], r);
}

export interface FoldedFigures {
  totals: { current: Totals; previous: Totals };
  /** Day i of the range beside day i of the previous period, every day present (zeros where nothing happened). */
  daily: { day: Day; previous_day: Day; current: Totals; previous: Totals }[];
  groups: { key: string; current: Totals; previous: Totals }[];
  declines: { reason: string; current: number; previous: number }[];
}

/** Folds the store's grouped counts (see FigureRow) into the figures the home shows. */
export function foldFigures(periods: FigurePeriods, rows: readonly FigureRow[]): FoldedFigures {
  const total = pairOf();
  const days = new Map<string, Pair>();
  const groups = new Map<string, Pair>();
  const reasons = new Map<string, { current: number; previous: number }>();
  for (const r of rows) {
    if (r.day !== undefined) {
      add(total[r.period], r);
      const offset = Math.round((Date.parse(r.day) - Date.parse(periods[r.period].from)) / DAY_MS);
      tallyInto(days, String(offset), r);
    } else if (r.key !== undefined) {
      tallyInto(groups, r.key, r);
    } else if (r.reason !== undefined && r.outcome === 'declined') {
      const n = reasons.get(r.reason) ?? { current: 0, previous: 0 };
      n[r.period] += r.payments;
      reasons.set(r.reason, n);
    }
  }
  return {
    totals: totalsPair(total),
    daily: Array.from({ length: periods.days }, (_, i) => ({
      day: addDays(periods.current.from, i), previous_day: addDays(periods.previous.from, i), ...totalsPair(days.get(String(i)) ?? pairOf()),
    })),
    groups: [...groups.entries()].map(([key, p]) => ({ key, ...totalsPair(p) }))
      .sort((a, b) => b.current.payments - a.current.payments || b.previous.payments - a.previous.payments || a.key.localeCompare(b.key)),
    declines: [...reasons.entries()].map(([reason, n]) => ({ reason, ...n }))
      .sort((a, b) => b.current - a.current || b.previous - a.previous || a.reason.localeCompare(b.reason)),
  };
}
