/**
 * When a merchant's money is settled (issue 27): daily, or weekly up to a cut-off day, T+N days after. Pure.
 *
 * A period ends at a UTC midnight at least SETTLE_AFTER_MS in the past and `delayDays` back (T+N), so a payment
 * committing around midnight has long been written when its day is settled. Weekly: the period ends at the
 * midnight that starts the cut-off weekday (ISO: 1 Monday ... 7 Sunday), so a week runs from one cut-off day to
 * the day before the next (cut-off Monday: Monday to Sunday).
 */
export type SettlementFrequency = 'daily' | 'weekly';

export const SETTLEMENT_FREQUENCIES: readonly SettlementFrequency[] = ['daily', 'weekly'];

export const DAY_MS = 86_400_000;
export const SETTLE_AFTER_MS = 10 * 60_000;

export interface SettlementSchedule {
  frequency: SettlementFrequency;
  /** Weekly: the ISO weekday a period ends at the start of (1 Monday ... 7 Sunday). */
  cutoffWeekday: number;
  /** T+N: days after a period's end before it is settled. */
  delayDays: number;
}

/** ISO weekday (1 Monday ... 7 Sunday) of a UTC instant. */
export const isoWeekday = (at: Date): number => at.getUTCDay() || 7;

/** The end of the period a merchant can settle now: a UTC midnight (weekly: the cut-off day's), delayDays back. */
export function periodEndFor(now: Date, schedule: SettlementSchedule): Date {
  const midnight = Math.floor((now.getTime() - SETTLE_AFTER_MS) / DAY_MS) * DAY_MS - schedule.delayDays * DAY_MS;
  if (schedule.frequency === 'daily') return new Date(midnight);
  const back = (isoWeekday(new Date(midnight)) - schedule.cutoffWeekday + 7) % 7;
  return new Date(midnight - back * DAY_MS);
}

/**
 * What a statement pays out: its net, but never more than the merchant's available balance (a negative balance
 * carried over from an earlier period, a chargeback or an adjustment is taken from it first); nothing when the
 * balance is not positive. `available` is the balance after the statements listed before it were paid.
 */
export function payableOf(net: bigint, available: bigint): bigint {
  const payable = net < available ? net : available;
  return payable > 0n ? payable : 0n;
}

/** When the period ending at `periodEnd` is settled at the earliest: T+N days after its end, SETTLE_AFTER_MS later. */
export const settlesAt = (periodEnd: Date, schedule: SettlementSchedule): Date => new Date(periodEnd.getTime() + schedule.delayDays * DAY_MS + SETTLE_AFTER_MS);

/**
 * The next statement a merchant gets: the period after the one it can settle now (a day, or a week up to the
 * cut-off day), and the earliest instant the settlement worker settles it. Pure: the home's "next payout".
 */
export function nextSettlement(now: Date, schedule: SettlementSchedule): { periodEnd: Date; at: Date } {
  const periodEnd = new Date(periodEndFor(now, schedule).getTime() + (schedule.frequency === 'daily' ? 1 : 7) * DAY_MS);
  return { periodEnd, at: settlesAt(periodEnd, schedule) };
}
