/**
 * Property tests of the schedule calendar against an oracle written independently: the oracle works on JS
 * Date objects (month overflow normalised by Date.UTC, weekdays by getUTCDay, days walked one at a time),
 * never on the calendar's own month-index arithmetic or weekday formula.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  DELAY_SPELLINGS, firstPayment, nextDueDate, paymentDates, scheduledAmount,
  type FirstPaymentDelay, type Interval, type ScheduleRule,
} from '../../src/domain/schedule-calendar.ts';

// --- the oracle --------------------------------------------------------------------------------------

const DAY = 86_400_000;
const toDate = (s: string) => new Date(`${s}T00:00:00Z`);
const toText = (d: Date) => d.toISOString().slice(0, 10);
const nextDay = (d: Date) => new Date(d.getTime() + DAY);
const lastDayOf = (year: number, month0: number) => new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();
/** JS getUTCDay: 0 = Sunday; the calendar speaks ISO (7 = Sunday). */
const iso = (d: Date) => (d.getUTCDay() === 0 ? 7 : d.getUTCDay());

function oracleMonths(from: string, months: number, anchor: number): string {
  const d = toDate(from);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const day = Math.min(anchor, lastDayOf(target.getUTCFullYear(), target.getUTCMonth()));
  return toText(new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth(), day)));
}

function oracleDays(from: string, days: number): string {
  const d = toDate(from);
  d.setUTCDate(d.getUTCDate() + days);
  return toText(d);
}

function oracleStep(from: string, interval: Interval, times: number, anchor: number): string {
  const n = interval.length * times;
  if (interval.unit === 'day') return oracleDays(from, n);
  if (interval.unit === 'week') return oracleDays(from, 7 * n);
  return oracleMonths(from, interval.unit === 'year' ? 12 * n : n, anchor);
}

/** Walks forward from the day after `from` until `found` holds. */
function walk(from: string, found: (d: Date) => boolean): string {
  let d = nextDay(toDate(from));
  while (!found(d)) d = nextDay(d);
  return toText(d);
}

const isLastOfMonth = (d: Date) => nextDay(d).getUTCMonth() !== d.getUTCMonth();

const isMonthly = (i: Interval) => i.unit === 'month' || i.unit === 'year';

/** The oracle's first payment and the day months are counted on. */
function oracleFirst(rule: ScheduleRule, started: string, startDate?: string): { date: string; anchor: number } {
  const pin = (intended: number) => rule.dayOfMonth ?? intended;
  if (startDate) return { date: startDate, anchor: pin(toDate(startDate).getUTCDate()) };
  const startDay = toDate(started).getUTCDate();
  const delay = rule.delay;
  switch (delay.kind) {
    case 'none':
      return { date: oracleStep(started, rule.interval, 1, pin(startDay)), anchor: pin(startDay) };
    case 'delay_by_interval': {
      const date = oracleStep(started, delay.interval, 1, startDay);
      return { date, anchor: pin(isMonthly(delay.interval) ? startDay : toDate(date).getUTCDate()) };
    }
    case 'day_of_week': {
      const date = walk(started, (d) => iso(d) === delay.weekday);
      return { date, anchor: pin(toDate(date).getUTCDate()) };
    }
    case 'day_of_month':
      return { date: walk(started, (d) => d.getUTCDate() === delay.day || (isLastOfMonth(d) && d.getUTCDate() < delay.day)), anchor: pin(delay.day) };
  }
}

/** Payment k (1-based) counted from the first one, without iterating over the ones between. */
function oraclePayment(rule: ScheduleRule, first: { date: string; anchor: number }, k: number): string {
  return k === 1 ? first.date : oracleStep(first.date, rule.interval, k - 1, rule.dayOfMonth ?? first.anchor);
}

// --- generators --------------------------------------------------------------------------------------

const FROM = Date.UTC(2020, 0, 1) / DAY;
const TO = Date.UTC(2040, 11, 31) / DAY;
const civilDate = fc.integer({ min: FROM, max: TO }).map((n) => toText(new Date(n * DAY)));
const unit = fc.constantFrom('day', 'week', 'month', 'year') as fc.Arbitrary<Interval['unit']>;
const interval = fc.record({ length: fc.integer({ min: 1, max: 45 }), unit }).map((i) => (i.unit === 'year' ? { ...i, length: 1 + (i.length % 3) } : i));
const delay: fc.Arbitrary<FirstPaymentDelay> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  interval.map((i) => ({ kind: 'delay_by_interval' as const, interval: i })),
  fc.integer({ min: 1, max: 7 }).map((weekday) => ({ kind: 'day_of_week' as const, weekday })),
  fc.integer({ min: 1, max: 31 }).map((day) => ({ kind: 'day_of_month' as const, day })),
);
const rule: fc.Arbitrary<ScheduleRule> = fc
  .record({ interval, delay, paymentsCount: fc.integer({ min: 1, max: 18 }), dayOfMonth: fc.option(fc.integer({ min: 1, max: 31 }), { nil: undefined }) })
  .map((r) => (isMonthly(r.interval) ? r : { ...r, dayOfMonth: undefined }));
/** Month-end days, where clamping matters most. */
const lateDay = fc.integer({ min: 28, max: 31 });

const runs = { numRuns: 400 };

describe('schedule calendar (properties against an independent oracle)', () => {
  it('counts every payment from the first one, payments_count of them', () => {
    fc.assert(fc.property(rule, civilDate, (r, started) => {
      const first = oracleFirst(r, started);
      const expected = Array.from({ length: r.paymentsCount }, (_, i) => oraclePayment(r, first, i + 1));
      assert.deepEqual(paymentDates(r, started), expected);
    }), runs);
  });

  it('with none, the first payment is one schedule interval after the initiating payment', () => {
    fc.assert(fc.property(rule, civilDate, (r, started) => {
      const none = { ...r, delay: { kind: 'none' as const } };
      const anchor = r.dayOfMonth ?? toDate(started).getUTCDate();
      assert.equal(firstPayment(none, started).date, oracleStep(started, r.interval, 1, anchor));
    }), runs);
  });

  it('with delay_by_interval, the delay has its own length and unit, independent of the schedule interval', () => {
    fc.assert(fc.property(rule, interval, civilDate, (r, own, started) => {
      const delayed = { ...r, delay: { kind: 'delay_by_interval' as const, interval: own } };
      assert.equal(firstPayment(delayed, started).date, oracleStep(started, own, 1, toDate(started).getUTCDate()));
    }), runs);
  });

  it('with day_of_week, the first payment is the next occurrence of that weekday (1 to 7 days later)', () => {
    fc.assert(fc.property(rule, fc.integer({ min: 1, max: 7 }), civilDate, (r, weekday, started) => {
      const date = firstPayment({ ...r, delay: { kind: 'day_of_week', weekday } }, started).date;
      assert.equal(date, walk(started, (d) => iso(d) === weekday));
      const gap = (toDate(date).getTime() - toDate(started).getTime()) / DAY;
      assert.ok(gap >= 1 && gap <= 7);
    }), runs);
  });

  it('with day_of_month, the first payment is that day of the current month, or of the next one', () => {
    fc.assert(fc.property(rule, fc.integer({ min: 1, max: 31 }), civilDate, (r, day, started) => {
      const date = firstPayment({ ...r, delay: { kind: 'day_of_month', day } }, started).date;
      const s = toDate(started);
      const d = toDate(date);
      const monthsLater = (d.getUTCFullYear() - s.getUTCFullYear()) * 12 + d.getUTCMonth() - s.getUTCMonth();
      assert.ok(date > started && (monthsLater === 0 || monthsLater === 1), `${started} -> ${date}`);
      assert.equal(d.getUTCDate(), Math.min(day, lastDayOf(d.getUTCFullYear(), d.getUTCMonth())));
    }), runs);
  });

  it('schedule_start_date overrides every delay, and later payments count from it', () => {
    fc.assert(fc.property(rule, civilDate, civilDate, (r, started, start) => {
      const dates = paymentDates(r, started, start);
      assert.equal(dates[0], start);
      const first = { date: start, anchor: r.dayOfMonth ?? toDate(start).getUTCDate() };
      dates.forEach((date, i) => assert.equal(date, oraclePayment(r, first, i + 1)));
    }), runs);
  });

  it('day_of_month 29 to 31 lands on the last day of shorter months, and on the day itself otherwise', () => {
    fc.assert(fc.property(lateDay, fc.integer({ min: 1, max: 3 }), civilDate, fc.integer({ min: 2, max: 30 }), (day, length, started, count) => {
      const r: ScheduleRule = { interval: { length, unit: 'month' }, dayOfMonth: day, delay: { kind: 'none' }, paymentsCount: count };
      for (const date of paymentDates(r, started)) {
        const d = toDate(date);
        assert.equal(d.getUTCDate(), Math.min(day, lastDayOf(d.getUTCFullYear(), d.getUTCMonth())), date);
      }
    }), runs);
  });

  it('a chain started on a month end keeps to month ends (no drift to the 28th)', () => {
    fc.assert(fc.property(fc.integer({ min: 2020, max: 2040 }), fc.integer({ min: 2, max: 40 }), (year, count) => {
      const r: ScheduleRule = { interval: { length: 1, unit: 'month' }, delay: { kind: 'none' }, paymentsCount: count };
      for (const date of paymentDates(r, `${year}-01-31`)) assert.ok(isLastOfMonth(toDate(date)), date);
    }), runs);
  });

  it('ends after payments_count payments, each later than the one before', () => {
    fc.assert(fc.property(rule, civilDate, (r, started) => {
      const dates = paymentDates(r, started);
      assert.equal(dates.length, r.paymentsCount);
      for (let i = 1; i < dates.length; i++) assert.ok((dates[i] as string) > (dates[i - 1] as string));
      const first = firstPayment(r, started);
      assert.equal(nextDueDate(r, { nextSeq: r.paymentsCount + 1, lastDue: dates.at(-1), first }), undefined);
    }), runs);
  });

  it('reads both spellings of delayed_first_payment as the same rule (D1)', () => {
    const pairs = [['delay_by_interval', 'by_interval'], ['day_of_week', 'to_day_of_week'], ['day_of_month', 'to_day_of_month']];
    for (const [spec, vendor] of pairs) assert.equal(DELAY_SPELLINGS[spec as string], DELAY_SPELLINGS[vendor as string]);
    assert.equal(DELAY_SPELLINGS.none, 'none');
  });

  it('charges payment_schedule_amount after a trial, else the initiating amount', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.option(fc.bigInt({ min: 1n, max: 10n ** 12n }), { nil: undefined }), (init, later) => {
      assert.equal(scheduledAmount(init, later), later ?? init);
    }), runs);
  });

  it('matches worked examples', () => {
    const monthly: ScheduleRule = { interval: { length: 1, unit: 'month' }, delay: { kind: 'none' }, paymentsCount: 4 };
    assert.deepEqual(paymentDates(monthly, '2030-01-31'), ['2030-02-28', '2030-03-31', '2030-04-30', '2030-05-31']);
    assert.deepEqual(paymentDates({ ...monthly, dayOfMonth: 30 }, '2032-01-10'), ['2032-02-29', '2032-03-30', '2032-04-30', '2032-05-30']);
    // 2030-01-15 is a Tuesday: the next Monday is the 21st, then every 14 days.
    assert.deepEqual(paymentDates({ interval: { length: 14, unit: 'day' }, delay: { kind: 'day_of_week', weekday: 1 }, paymentsCount: 3 }, '2030-01-15'), ['2030-01-21', '2030-02-04', '2030-02-18']);
    assert.deepEqual(paymentDates({ ...monthly, delay: { kind: 'delay_by_interval', interval: { length: 10, unit: 'day' } }, paymentsCount: 2 }, '2030-01-31'), ['2030-02-10', '2030-03-10']);
    assert.deepEqual(paymentDates({ ...monthly, delay: { kind: 'day_of_month', day: 31 }, paymentsCount: 3 }, '2030-02-28'), ['2030-03-31', '2030-04-30', '2030-05-31']);
    assert.deepEqual(paymentDates({ ...monthly, paymentsCount: 3 }, '2030-01-15', '2030-02-01'), ['2030-02-01', '2030-03-01', '2030-04-01']);
  });
});
