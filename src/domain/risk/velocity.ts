/**
 * Velocity windows over time buckets (issue 26): counters are kept per minute and per hour; a window of up to two
 * hours is summed over minute buckets (exact to the minute), a longer one over hour buckets (exact to the hour).
 * The window ends now and reaches back window_minutes, rounded out to whole buckets: the current bucket counts.
 */
import type { VelocityBy, VelocityCondition } from './rules.ts';

/** Shards per bucket: concurrent payments on one key land on different rows. */
export const SHARDS = 8;
export const GRAINS = [1, 60] as const;
export type Grain = (typeof GRAINS)[number];
const MINUTE = 60_000;

export const grainOf = (windowMinutes: number): Grain => (windowMinutes <= 120 ? 1 : 60);

export const bucketOf = (now: Date, grain: Grain): Date => new Date(Math.floor(now.getTime() / (grain * MINUTE)) * grain * MINUTE);

/** The first bucket a window reads: the current bucket and the ones before it that the window reaches. */
export function windowStart(now: Date, windowMinutes: number): { grain: Grain; since: Date } {
  const grain = grainOf(windowMinutes);
  const buckets = Math.ceil(windowMinutes / grain);
  return { grain, since: new Date(bucketOf(now, grain).getTime() - (buckets - 1) * grain * MINUTE) };
}

/** The keys a payment's counters are kept under (hashed identifiers; the merchant's id). */
export type VelocityKeys = Partial<Record<VelocityBy, string>>;

/** Dimensions whose distinct cards are counted (a card's own distinct cards is always one). */
export const MEMBER_DIMENSIONS: readonly VelocityBy[] = ['email', 'ip', 'device', 'session', 'merchant'];

/** One counter read: the condition's measure over its window for the payment's key of that dimension. */
export interface VelocityRead {
  key: string;
  measure: VelocityCondition['measure'];
  dimension: VelocityBy;
  value: string;
  grain: Grain;
  since: Date;
  currency: string;
}

/**
 * The payment being screened counts in attempts, amount and distinct cards (the stored counters do not hold it
 * yet): what it adds to a stored value.
 */
export function withCurrent(measure: VelocityCondition['measure'], stored: bigint, current: { amount: bigint; currency: string; cardSeen: boolean; hasCard: boolean }, currency: string): bigint {
  switch (measure) {
    case 'attempts': return stored + 1n;
    case 'amount': return currency === current.currency ? stored + current.amount : stored;
    case 'distinct_cards': return current.hasCard && !current.cardSeen ? stored + 1n : stored;
    default: return stored;
  }
}

/**
 * The counters some rule can read, per kind of row: attempt counters (attempts, amount: written by the screen),
 * outcome counters (approvals, declines: written with the outcome) and distinct-card members, each as the
 * dimensions a rule reads it by. A payment writes only these: a counter no rule reads is work on every payment
 * for nothing (issue 24). A rule saved later on a dimension or measure no rule read before counts from then on.
 */
export interface CountedMeasures {
  attempts: readonly VelocityBy[];
  outcomes: readonly VelocityBy[];
  members: readonly VelocityBy[];
}

/** Every counter kept (a screen record written without CountedMeasures: as before issue 24). */
export const ALL_COUNTED: CountedMeasures = {
  attempts: ['card', 'email', 'ip', 'device', 'session', 'merchant'],
  outcomes: ['card', 'email', 'ip', 'device', 'session', 'merchant'],
  members: MEMBER_DIMENSIONS,
};

/** The counters the velocity conditions of the rules that run (active or shadow, any scope) read. */
export function countedMeasures(conditions: Iterable<Pick<VelocityCondition, 'by' | 'measure'>>): CountedMeasures {
  const attempts = new Set<VelocityBy>();
  const outcomes = new Set<VelocityBy>();
  const members = new Set<VelocityBy>();
  for (const { by, measure } of conditions) {
    if (measure === 'attempts' || measure === 'amount') attempts.add(by);
    else if (measure === 'approvals' || measure === 'declines') outcomes.add(by);
    else if (measure === 'distinct_cards' && MEMBER_DIMENSIONS.includes(by)) members.add(by);
  }
  return { attempts: [...attempts].sort(), outcomes: [...outcomes].sort(), members: [...members].sort() };
}
