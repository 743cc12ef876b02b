/**
 * Schedule use cases (the S2S schedule actions): create, update (only what is sent), delete (only an unused
 * schedule), pause, run, read, and deschedule one chain. Changes that move payment dates move every active
 * chain of the schedule in the same transaction, with its rows locked, so the runner never claims a payment
 * on a date that is about to change.
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Sql } from '../../store/database.ts';
import {
  deleteUnusedSchedule, deschedule, getSchedule, insertSchedule, insertSkippedCharges, lockActiveSubscriptions, saveSchedule,
  savePositions, setSchedulePaused, type Position, type Schedule, type Subscription,
} from '../../store/schedules-repo.ts';
import { civilDateOf, nextDueDate, type CivilDate, type ScheduleRule } from '../../domain/schedule-calendar.ts';
import { GatewayError, type FieldError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { scheduleTerms, type ScheduleFields } from './schedule-fields.ts';
import { merchantClock } from './test-clock.ts';

export type { Schedule };

function orInvalid<T>(result: T | FieldError[]): T {
  if (Array.isArray(result)) throw GatewayError.invalid(result);
  return result;
}

export async function createSchedule(ctx: ServiceContext, merchant: Merchant, fields: ScheduleFields): Promise<Schedule> {
  const terms = orInvalid(scheduleTerms(fields));
  return insertSchedule(ctx.db, { id: newId(), merchantId: merchant.id, ...terms, now: ctx.clock.now() });
}

/** The merchant's schedule, or "Schedule not found" (no final period, as the spec writes it). */
export async function scheduleOf(sql: Sql, merchant: Merchant, id: string, lock = false): Promise<Schedule> {
  const schedule = await getSchedule(sql, merchant.id, id, lock);
  if (!schedule) throw new GatewayError('scheduleNotFound');
  return schedule;
}

/** Where a chain stands after a change of its schedule's rule. */
function repositioned(rule: ScheduleRule, s: Subscription): Position {
  const next = nextDueDate(rule, { nextSeq: s.nextSeq, lastDue: s.lastDueDate ?? undefined, first: { date: s.firstDate, anchorDay: s.anchorDay } });
  return { id: s.id, nextSeq: s.nextSeq, lastDueDate: s.lastDueDate, nextDueDate: next ?? null };
}

/**
 * UPDATE_SCHEDULE: the fields sent replace the stored ones. A new interval or day of month applies from each
 * chain's next payment on (counted from its last one); a new payments_count ends or extends chains; a new
 * delayed_first_payment applies to chains that start later (a chain's first date was promised already).
 */
export async function updateSchedule(ctx: ServiceContext, merchant: Merchant, id: string, fields: ScheduleFields): Promise<Schedule> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const schedule = await scheduleOf(tx, merchant, id, true);
    const terms = orInvalid(scheduleTerms(fields, schedule));
    await saveSchedule(tx, { id, ...terms }, now);
    const chains = await lockActiveSubscriptions(tx, id);
    await savePositions(tx, chains.map((s) => repositioned(terms.rule, s)), now);
    return { ...schedule, ...terms, updatedAt: now };
  });
}

export async function deleteSchedule(ctx: ServiceContext, merchant: Merchant, id: string): Promise<void> {
  const result = await deleteUnusedSchedule(ctx.db, merchant.id, id);
  if (result === 'missing') throw new GatewayError('scheduleNotFound');
  if (result === 'used') throw new GatewayError('scheduleInUse');
}

/** PAUSE_SCHEDULE: nothing more is charged; claims in progress finish (the runner share-locks the schedule). */
export async function pauseSchedule(ctx: ServiceContext, merchant: Merchant, id: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await scheduleOf(tx, merchant, id, true);
    await setSchedulePaused(tx, id, true, ctx.clock.now());
  });
}

/** Payments that fell due before `today` while the schedule was paused: skipped, and the chain's next position. */
function skipPast(rule: ScheduleRule, s: Subscription, today: CivilDate): { position: Position; skipped: { subscriptionId: string; seq: number; dueDate: string }[] } {
  const skipped: { subscriptionId: string; seq: number; dueDate: string }[] = [];
  let position = repositioned(rule, s);
  while (position.nextDueDate !== null && position.nextDueDate < today) {
    skipped.push({ subscriptionId: s.id, seq: position.nextSeq, dueDate: position.nextDueDate });
    position = repositioned(rule, { ...s, nextSeq: position.nextSeq + 1, lastDueDate: position.nextDueDate });
  }
  return { position, skipped };
}

/**
 * RUN_SCHEDULE: charging resumes. Payments that fell due on earlier days while the schedule was paused are
 * skipped (recorded, not charged: a payer is not charged a pile of back payments at once); one due today is
 * charged.
 */
export async function runSchedule(ctx: ServiceContext, merchant: Merchant, id: string): Promise<void> {
  const today = civilDateOf((await merchantClock(ctx, merchant.id)).now());
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const schedule = await scheduleOf(tx, merchant, id, true);
    if (!schedule.paused) return;
    const moves = (await lockActiveSubscriptions(tx, id)).map((s) => skipPast(schedule.rule, s, today));
    await insertSkippedCharges(tx, moves.flatMap((m) => m.skipped), now);
    await savePositions(tx, moves.filter((m) => m.skipped.length > 0).map((m) => m.position), now);
    await setSchedulePaused(tx, id, false, now);
  });
}

/** DESCHEDULE: one chain stops following the schedule; descheduling it again answers the same. */
export async function descheduleChain(ctx: ServiceContext, merchant: Merchant, id: string, recurringToken: string): Promise<void> {
  await scheduleOf(ctx.db, merchant, id);
  const result = await deschedule(ctx.db, id, recurringToken, ctx.clock.now());
  if (result === 'missing') throw new GatewayError('incorrectTransaction');
}
