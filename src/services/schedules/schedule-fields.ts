/**
 * The schedule parameters as the platform names them (CREATE_SCHEDULE, UPDATE_SCHEDULE; wire-reference 7.3),
 * read into a calendar rule. Schedule actions do not depend on a channel's protocol (Checkout-only merchants
 * call them too), so their parameter set lives with the schedules. Pure: fields in, a rule or field errors out.
 */
import { MESSAGES, type FieldError } from '../../domain/errors.ts';
import {
  DELAY_SPELLINGS, INTERVAL_UNITS, WEEKDAY_NAMES,
  type DelayKind, type FirstPaymentDelay, type IntervalUnit, type ScheduleRule,
} from '../../domain/schedule-calendar.ts';

export const LIMITS = {
  intervalLength: 999,
  paymentsCount: 9999,
  nameLength: 100,
} as const;

/** The schedule fields a request may carry, as sent (strings; absent when not sent). */
export interface ScheduleFields {
  name?: string;
  interval_length?: string;
  interval_unit?: string;
  day_of_month?: string;
  payments_count?: string;
  delayed_first_payment?: string;
  first_payment_interval_length?: string;
  first_payment_interval_unit?: string;
  first_payment_day_of_week?: string;
  first_payment_day_of_month?: string;
}

/** A schedule as stored: its name and rule. */
export interface ScheduleTerms {
  name: string;
  rule: ScheduleRule;
}

/** Every field read, each possibly absent; what is absent comes from the stored schedule on an update. */
interface Reading {
  name?: string;
  intervalLength?: number;
  intervalUnit?: IntervalUnit;
  dayOfMonth?: number;
  paymentsCount?: number;
  delayKind?: DelayKind;
  firstIntervalLength?: number;
  firstIntervalUnit?: IntervalUnit;
  firstWeekday?: number;
  firstDay?: number;
}

type Parsed<T> = { value: T } | { error: string };

function integer(text: string, min: number, max: number): Parsed<number> {
  if (!/^-?[0-9]{1,9}$/.test(text.trim())) return { error: MESSAGES.notInteger };
  const n = Number(text.trim());
  if (n < 1 && min === 1) return { error: MESSAGES.notPositive };
  return n < min || n > max ? { error: MESSAGES.notInRange(min, max) } : { value: n };
}

function choice<T>(table: Readonly<Record<string, T>>, text: string): Parsed<T> {
  const key = text.trim().toLowerCase();
  return Object.hasOwn(table, key) ? { value: table[key] as T } : { error: MESSAGES.notChoice };
}

const UNITS: Readonly<Record<string, IntervalUnit>> = Object.fromEntries(INTERVAL_UNITS.map((u) => [u, u]));
const WEEKDAYS: Readonly<Record<string, number>> = { ...WEEKDAY_NAMES, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7 };

/** How each field is read: the reading's key and the parser of its text. */
const READERS: { readonly [F in keyof ScheduleFields]-?: { key: keyof Reading; parse: (text: string) => Parsed<unknown> } } = {
  name: { key: 'name', parse: (t) => (t.trim() === '' ? { error: MESSAGES.blank } : { value: t }) },
  interval_length: { key: 'intervalLength', parse: (t) => integer(t, 1, LIMITS.intervalLength) },
  interval_unit: { key: 'intervalUnit', parse: (t) => choice(UNITS, t) },
  day_of_month: { key: 'dayOfMonth', parse: (t) => integer(t, 1, 31) },
  payments_count: { key: 'paymentsCount', parse: (t) => integer(t, 1, LIMITS.paymentsCount) },
  delayed_first_payment: { key: 'delayKind', parse: (t) => choice(DELAY_SPELLINGS, t) },
  first_payment_interval_length: { key: 'firstIntervalLength', parse: (t) => integer(t, 1, LIMITS.intervalLength) },
  first_payment_interval_unit: { key: 'firstIntervalUnit', parse: (t) => choice(UNITS, t) },
  first_payment_day_of_week: { key: 'firstWeekday', parse: (t) => choice(WEEKDAYS, t) },
  first_payment_day_of_month: { key: 'firstDay', parse: (t) => integer(t, 1, 31) },
};

function read(fields: ScheduleFields): { reading: Reading; errors: FieldError[] } {
  const reading: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const [field, reader] of Object.entries(READERS) as [keyof ScheduleFields, (typeof READERS)[keyof ScheduleFields]][]) {
    const text = fields[field];
    if (text === undefined) continue;
    const parsed = reader.parse(text);
    if ('error' in parsed) errors.push({ field, message: parsed.error });
    else reading[reader.key] = parsed.value;
  }
  return { reading: reading as Reading, errors };
}

/** The stored schedule as a reading, so that an update changes only what it sends. */
function readingOf(terms: ScheduleTerms): Reading {
  const { rule } = terms;
  const d = rule.delay;
  return {
    name: terms.name,
    intervalLength: rule.interval.length,
    intervalUnit: rule.interval.unit,
    dayOfMonth: rule.dayOfMonth,
    paymentsCount: rule.paymentsCount,
    delayKind: d.kind,
    ...(d.kind === 'delay_by_interval' ? { firstIntervalLength: d.interval.length, firstIntervalUnit: d.interval.unit } : {}),
    ...(d.kind === 'day_of_week' ? { firstWeekday: d.weekday } : {}),
    ...(d.kind === 'day_of_month' ? { firstDay: d.day } : {}),
  };
}

const blank = (field: string): FieldError => ({ field, message: MESSAGES.blank });

/** The delay a reading asks for, or the fields it lacks for it. */
const DELAY_OF: { readonly [K in DelayKind]: (r: Reading) => FirstPaymentDelay | FieldError[] } = {
  none: () => ({ kind: 'none' }),
  delay_by_interval: (r) => (r.firstIntervalLength !== undefined && r.firstIntervalUnit !== undefined
    ? { kind: 'delay_by_interval', interval: { length: r.firstIntervalLength, unit: r.firstIntervalUnit } }
    : [...(r.firstIntervalLength === undefined ? [blank('first_payment_interval_length')] : []), ...(r.firstIntervalUnit === undefined ? [blank('first_payment_interval_unit')] : [])]),
  day_of_week: (r) => (r.firstWeekday !== undefined ? { kind: 'day_of_week', weekday: r.firstWeekday } : [blank('first_payment_day_of_week')]),
  day_of_month: (r) => (r.firstDay !== undefined ? { kind: 'day_of_month', day: r.firstDay } : [blank('first_payment_day_of_month')]),
};

/** A complete reading -> terms, or what is missing or inconsistent. */
function termsOf(r: Reading): ScheduleTerms | FieldError[] {
  const errors: FieldError[] = [];
  if (r.name === undefined) errors.push(blank('name'));
  if (r.intervalLength === undefined) errors.push(blank('interval_length'));
  if (r.intervalUnit === undefined) errors.push(blank('interval_unit'));
  if (r.paymentsCount === undefined) errors.push(blank('payments_count'));
  // day_of_month pins payments counted in months; a schedule counted in days or weeks has no such day.
  if (r.dayOfMonth !== undefined && r.intervalUnit !== undefined && r.intervalUnit !== 'month' && r.intervalUnit !== 'year') {
    errors.push({ field: 'day_of_month', message: MESSAGES.notCorrect });
  }
  const delay = DELAY_OF[r.delayKind ?? 'none'](r);
  if (Array.isArray(delay)) errors.push(...delay);
  if (errors.length > 0 || Array.isArray(delay)) return errors;
  return {
    name: r.name as string,
    rule: {
      interval: { length: r.intervalLength as number, unit: r.intervalUnit as IntervalUnit },
      ...(r.dayOfMonth !== undefined ? { dayOfMonth: r.dayOfMonth } : {}),
      delay,
      paymentsCount: r.paymentsCount as number,
    },
  };
}

/**
 * The terms of a new schedule (`current` absent) or of an updated one (only the fields sent change), or the
 * field errors. Changing delayed_first_payment to another kind needs that kind's own fields.
 */
export function scheduleTerms(fields: ScheduleFields, current?: ScheduleTerms): ScheduleTerms | FieldError[] {
  const { reading, errors } = read(fields);
  if (errors.length > 0) return errors;
  const base = current ? readingOf(current) : {};
  const changesKind = reading.delayKind !== undefined && reading.delayKind !== base.delayKind;
  const kept = changesKind ? { ...base, firstIntervalLength: undefined, firstIntervalUnit: undefined, firstWeekday: undefined, firstDay: undefined } : base;
  return termsOf({ ...kept, ...reading });
}

/** The fields of ScheduleFields, for the channel to pick them out of a request. */
export const SCHEDULE_FIELD_NAMES = Object.keys(READERS) as (keyof ScheduleFields)[];
