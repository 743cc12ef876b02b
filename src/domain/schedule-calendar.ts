/**
 * The schedule calendar (interface spec "Schedule rules", wire-reference 2.2 and 7.3): on which day each
 * payment of a recurring schedule falls due. Pure: civil dates (`YYYY-MM-DD`, UTC) in, civil dates out.
 *
 * - The first payment follows `delayed_first_payment` (none, delay_by_interval, day_of_week, day_of_month),
 *   unless a `schedule_start_date` names it exactly.
 * - Every later payment is counted from the first one: payment k is the first date plus (k - 1) intervals.
 *   Months are counted on an anchor day (the schedule's day_of_month, else the day the chain intended),
 *   clamped to the last day of shorter months, so Jan 31 -> Feb 28 -> Mar 31 and never drifts to the 28th.
 * - `payments_count` payments in all.
 */

export const INTERVAL_UNITS = ['day', 'week', 'month', 'year'] as const;
export type IntervalUnit = (typeof INTERVAL_UNITS)[number];

export interface Interval {
  readonly length: number;
  readonly unit: IntervalUnit;
}

/** ISO weekday: 1 = Monday .. 7 = Sunday. */
export type FirstPaymentDelay =
  | { readonly kind: 'none' }
  | { readonly kind: 'delay_by_interval'; readonly interval: Interval }
  | { readonly kind: 'day_of_week'; readonly weekday: number }
  | { readonly kind: 'day_of_month'; readonly day: number };

export type DelayKind = FirstPaymentDelay['kind'];

export interface ScheduleRule {
  readonly interval: Interval;
  /** Pins every payment counted in months to this day (1..31; 29 to 31 fall back to a shorter month's last day). */
  readonly dayOfMonth?: number;
  readonly delay: FirstPaymentDelay;
  readonly paymentsCount: number;
}

/** `YYYY-MM-DD` in UTC. */
export type CivilDate = string;

/** Both spellings of delayed_first_payment (decisions D1) -> the interface spec's name, which is emitted. */
export const DELAY_SPELLINGS: Readonly<Record<string, DelayKind>> = {
  none: 'none',
  delay_by_interval: 'delay_by_interval',
  by_interval: 'delay_by_interval',
  day_of_week: 'day_of_week',
  to_day_of_week: 'day_of_week',
  day_of_month: 'day_of_month',
  to_day_of_month: 'day_of_month',
};

/** Weekday names accepted beside the ISO numbers 1..7. */
export const WEEKDAY_NAMES: Readonly<Record<string, number>> = {
  monday: 1, mon: 1, tuesday: 2, tue: 2, wednesday: 3, wed: 3, thursday: 4, thu: 4,
  friday: 5, fri: 5, saturday: 6, sat: 6, sunday: 7, sun: 7,
};

// --- civil dates -------------------------------------------------------------------------------------

const DAY_MS = 86_400_000;
const CIVIL = /^(\d{4})-(\d{2})-(\d{2})$/;

interface Ymd {
  readonly y: number;
  readonly m: number; // 1..12
  readonly d: number;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function ymd(date: CivilDate): Ymd {
  const match = CIVIL.exec(date);
  if (!match) throw new RangeError(`not a civil date: ${date}`);
  return { y: Number(match[1]), m: Number(match[2]), d: Number(match[3]) };
}

function civil({ y, m, d }: Ymd): CivilDate {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

export function isCivilDate(value: string): boolean {
  const match = CIVIL.exec(value);
  if (!match) return false;
  const month = Number(match[2]);
  return month >= 1 && month <= 12 && Number(match[3]) >= 1 && Number(match[3]) <= daysInMonth(Number(match[1]), month);
}

/** The UTC day an instant falls on. */
export function civilDateOf(instant: Date): CivilDate {
  return instant.toISOString().slice(0, 10);
}

/** Midnight UTC of a civil date: when a payment of that day falls due. */
export function startOfDay(date: CivilDate): Date {
  return new Date(`${date}T00:00:00.000Z`);
}

function dayNumber(date: CivilDate): number {
  const { y, m, d } = ymd(date);
  return Date.UTC(y, m - 1, d) / DAY_MS;
}

function fromDayNumber(n: number): CivilDate {
  return new Date(n * DAY_MS).toISOString().slice(0, 10);
}

export function addDays(date: CivilDate, days: number): CivilDate {
  return fromDayNumber(dayNumber(date) + days);
}

/** `months` later, on `anchorDay` or the month's last day when it is shorter. */
export function addMonths(date: CivilDate, months: number, anchorDay: number): CivilDate {
  const { y, m } = ymd(date);
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return civil({ y: year, m: month, d: Math.min(anchorDay, daysInMonth(year, month)) });
}

/** 1 = Monday .. 7 = Sunday. Day 0 of the epoch (1970-01-01) was a Thursday. */
export function isoWeekday(date: CivilDate): number {
  return ((((dayNumber(date) + 3) % 7) + 7) % 7) + 1;
}

export const dayOf = (date: CivilDate): number => ymd(date).d;

// --- the rules ---------------------------------------------------------------------------------------

/** One interval forward; months and years land on the anchor day. */
const STEP: Readonly<Record<IntervalUnit, (date: CivilDate, length: number, anchorDay: number) => CivilDate>> = {
  day: (date, length) => addDays(date, length),
  week: (date, length) => addDays(date, 7 * length),
  month: (date, length, anchor) => addMonths(date, length, anchor),
  year: (date, length, anchor) => addMonths(date, 12 * length, anchor),
};

export function step(date: CivilDate, interval: Interval, anchorDay: number): CivilDate {
  return STEP[interval.unit](date, interval.length, anchorDay);
}

const countsMonths = (interval: Interval): boolean => interval.unit === 'month' || interval.unit === 'year';

/** The first payment's date and the day of month later payments are counted on. */
export interface FirstPayment {
  readonly date: CivilDate;
  readonly anchorDay: number;
}

/** The first payment of a chain started on `startedOn`, by each kind of delay. */
const FIRST_PAYMENT: { readonly [K in DelayKind]: (rule: ScheduleRule, delay: Extract<FirstPaymentDelay, { kind: K }>, startedOn: CivilDate) => FirstPayment } = {
  // No delay: the cycle starts by the schedule interval.
  none: (rule, _delay, startedOn) => {
    const anchorDay = rule.dayOfMonth ?? dayOf(startedOn);
    return { date: step(startedOn, rule.interval, anchorDay), anchorDay };
  },
  // A delay of its own length and unit, independent of the schedule interval.
  delay_by_interval: (rule, delay, startedOn) => {
    const date = step(startedOn, delay.interval, dayOf(startedOn));
    return { date, anchorDay: rule.dayOfMonth ?? (countsMonths(delay.interval) ? dayOf(startedOn) : dayOf(date)) };
  },
  // The next occurrence of the weekday, strictly after the initiating payment (1 to 7 days later).
  day_of_week: (rule, delay, startedOn) => {
    const date = addDays(startedOn, ((delay.weekday - isoWeekday(startedOn) + 6) % 7) + 1);
    return { date, anchorDay: rule.dayOfMonth ?? dayOf(date) };
  },
  // That day of the current month if it is still ahead, else of the next month.
  day_of_month: (rule, delay, startedOn) => {
    const thisMonth = addMonths(startedOn, 0, delay.day);
    const date = thisMonth > startedOn ? thisMonth : addMonths(startedOn, 1, delay.day);
    return { date, anchorDay: rule.dayOfMonth ?? delay.day };
  },
};

/**
 * The first payment of a chain started on `startedOn` (the initiating payment's day). A schedule_start_date
 * overrides the delay; later payments are then counted from it.
 */
export function firstPayment(rule: ScheduleRule, startedOn: CivilDate, startDate?: CivilDate): FirstPayment {
  if (startDate !== undefined) return { date: startDate, anchorDay: rule.dayOfMonth ?? dayOf(startDate) };
  const compute = FIRST_PAYMENT[rule.delay.kind] as (r: ScheduleRule, d: FirstPaymentDelay, s: CivilDate) => FirstPayment;
  return compute(rule, rule.delay, startedOn);
}

/** The payment after one due on `previous`. */
export function followingPayment(previous: CivilDate, rule: ScheduleRule, anchorDay: number): CivilDate {
  return step(previous, rule.interval, rule.dayOfMonth ?? anchorDay);
}

/** Where a chain stands on its schedule: the number of the next payment and the date of the last one. */
export interface ChainPosition {
  readonly nextSeq: number;
  readonly lastDue?: CivilDate;
  readonly first: FirstPayment;
}

/** The date of the chain's next payment, or undefined when payments_count payments have fallen due. */
export function nextDueDate(rule: ScheduleRule, position: ChainPosition): CivilDate | undefined {
  if (position.nextSeq > rule.paymentsCount) return undefined;
  return position.lastDue === undefined ? position.first.date : followingPayment(position.lastDue, rule, position.first.anchorDay);
}

/** Every payment date of a chain, in order: payments_count of them. */
export function paymentDates(rule: ScheduleRule, startedOn: CivilDate, startDate?: CivilDate): CivilDate[] {
  const first = firstPayment(rule, startedOn, startDate);
  const dates: CivilDate[] = [];
  for (let due = nextDueDate(rule, { nextSeq: 1, first }); due !== undefined; due = nextDueDate(rule, { nextSeq: dates.length + 1, lastDue: dates.at(-1), first })) {
    dates.push(due);
  }
  return dates;
}

/** The amount of each scheduled payment: payment_schedule_amount after a trial, else the initiating amount. */
export function scheduledAmount(initiatingAmount: bigint, paymentScheduleAmount?: bigint): bigint {
  return paymentScheduleAmount ?? initiatingAmount;
}
