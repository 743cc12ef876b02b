/**
 * Putting a recurring chain on a schedule: its first payment date (from the merchant's today, or the
 * schedule_start_date), the day later payments count on, and the amount each payment charges.
 */
import type { ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import { getSchedule, insertSubscription, useSchedule, type Schedule, type Subscription } from '../../store/schedules-repo.ts';
import { civilDateOf, firstPayment, nextDueDate, type CivilDate } from '../../domain/schedule-calendar.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { merchantClock } from './test-clock.ts';

/** The chain's terms on its schedule, decided before the write that approves the chain's payment. */
export interface ChainTerms {
  scheduleId: string;
  startedOn: CivilDate;
  firstDate: CivilDate;
  anchorDay: number;
  nextDueDate: CivilDate | null;
  amount: bigint;
}

/**
 * The schedule a payment request names, or "Schedule not found"; a schedule_start_date must not lie before the
 * merchant's today. Read only: the payment's own write marks the schedule used (markScheduleUsed), so a request
 * refused after this check (an unknown card token, no eligible MID) leaves the schedule deletable.
 */
export async function scheduleForRequest(ctx: ServiceContext, merchantId: string, scheduleId: string, startDate?: string, startField = 'schedule_start_date'): Promise<Schedule> {
  if (startDate !== undefined) {
    const today = civilDateOf((await merchantClock(ctx, merchantId)).now());
    if (startDate < today) throw GatewayError.field(startField, MESSAGES.notOnOrAfter(today));
  }
  const schedule = await getSchedule(ctx.db, merchantId, scheduleId);
  if (!schedule) throw new GatewayError('scheduleNotFound');
  return schedule;
}

/**
 * Marks the schedule used (it can no longer be deleted) in the transaction that writes what uses it: a payment put
 * on it, a Checkout session opened for it. Deleted since the request's check: "Schedule not found", nothing written.
 */
export async function markScheduleUsed(sql: Sql, merchantId: string, scheduleId: string): Promise<void> {
  if (!(await useSchedule(sql, merchantId, scheduleId))) throw new GatewayError('scheduleNotFound');
}

/** The chain's terms, counted from the merchant's today; undefined when the schedule is gone. */
export async function chainTerms(ctx: ServiceContext, merchantId: string, scheduleId: string, amount: bigint, startDate?: CivilDate): Promise<ChainTerms | undefined> {
  const schedule = await getSchedule(ctx.db, merchantId, scheduleId);
  if (!schedule) return undefined;
  const startedOn = civilDateOf((await merchantClock(ctx, merchantId)).now());
  const first = firstPayment(schedule.rule, startedOn, startDate);
  const next = nextDueDate(schedule.rule, { nextSeq: 1, first });
  return { scheduleId, startedOn, firstDate: first.date, anchorDay: first.anchorDay, nextDueDate: next ?? null, amount };
}

/** Writes the chain's subscription, in the transaction that approves the payment putting it on the schedule. */
export async function subscribe(
  sql: Sql,
  terms: ChainTerms,
  chain: { merchantId: string; initPaymentId: string; originPaymentId: string; recurringToken: string; operation: Subscription['operation']; currency: string },
  now: Date,
): Promise<Subscription> {
  return insertSubscription(sql, {
    id: newId(),
    scheduleId: terms.scheduleId,
    ...chain,
    amount: terms.amount,
    startedOn: terms.startedOn,
    firstDate: terms.firstDate,
    anchorDay: terms.anchorDay,
    nextDueDate: terms.nextDueDate,
    now,
  });
}
