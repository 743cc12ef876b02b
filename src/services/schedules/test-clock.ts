/**
 * Sandbox test clocks (as Stripe's): one merchant's schedule time runs ahead of the real clock by an offset
 * that only moves forward, so a merchant can watch a year of a schedule run in seconds. What reads it: when
 * schedule payments fall due, the dates they carry, and the day a new chain starts counting from.
 * Everything else (HTTP requests, leases, callback retries) keeps the real clock.
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import { advanceClock, clockOffset } from '../../store/schedules-repo.ts';
import { shiftedClock, type Clock } from '../../domain/clock.ts';
import { GatewayError } from '../../domain/errors.ts';

const DAY_MS = 86_400_000;
/** How far a test clock may run ahead in all: ten years is more than any schedule test needs. */
export const MAX_OFFSET_MS = 3660 * DAY_MS;

/** The merchant's clock: the real one, shifted by its test clock. */
export async function merchantClock(ctx: ServiceContext, merchantId: string): Promise<Clock> {
  return shiftedClock(ctx.clock, await clockOffset(ctx.db, merchantId));
}

export interface TestClockState {
  now: Date;
  offsetMs: number;
}

function sandboxOnly(merchant: Merchant): void {
  if (!merchant.sandbox) throw new GatewayError('testClockLiveMerchant');
}

export async function readTestClock(ctx: ServiceContext, merchant: Merchant): Promise<TestClockState> {
  sandboxOnly(merchant);
  const offsetMs = await clockOffset(ctx.db, merchant.id);
  return { now: shiftedClock(ctx.clock, offsetMs).now(), offsetMs };
}

/** Moves the merchant's clock forward by `byMs`; the schedule runner charges what fell due on its next pass. */
export async function advanceTestClock(ctx: ServiceContext, merchant: Merchant, byMs: number): Promise<TestClockState> {
  sandboxOnly(merchant);
  const current = await clockOffset(ctx.db, merchant.id);
  if (current + byMs > MAX_OFFSET_MS) throw GatewayError.field('days', `The test clock may run at most ${MAX_OFFSET_MS / DAY_MS} days ahead.`);
  const offsetMs = await advanceClock(ctx.db, merchant.id, byMs, ctx.clock.now());
  return { now: shiftedClock(ctx.clock, offsetMs).now(), offsetMs };
}
