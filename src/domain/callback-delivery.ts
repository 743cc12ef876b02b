/**
 * A callback's delivery as operators read it (issue 31 item 7): the event it reports, in words, and where its
 * delivery stands now, with the time of its next attempt, never in the past. Pure: the store hands in the row, the
 * earlier callback of the same payment still undelivered (callbacks of one payment go out in order) and the block
 * of its URL; the caller hands in now.
 */
import type { FormFields } from './form-encoding.ts';

export type DeliveryState = 'delivered' | 'failed' | 'sending' | 'waiting_behind' | 'blocked' | 'due' | 'retrying' | 'scheduled';

/** What each state means, as the console and the docs say it. */
export const DELIVERY_STATE_TEXT: Record<DeliveryState, string> = {
  delivered: 'Delivered: the receiver accepted it',
  failed: 'Failed: every attempt failed; resend it once the receiver is fixed',
  sending: 'Being sent at this moment',
  waiting_behind: 'Waiting behind an earlier callback of the same payment that is not delivered yet',
  blocked: 'Waiting for its URL\'s block to end (five timeouts within five minutes)',
  due: 'Due now: the next dispatcher round sends it',
  retrying: 'Retrying after a failed attempt',
  scheduled: 'Scheduled',
};

export interface DeliveryFacts {
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: Date;
  lockedUntil: Date | null;
  /** The earliest earlier callback of the same payment still pending, if any. */
  behind: { id: string; attempts: number; nextAttemptAt: Date; lastError: string | null } | null;
  /** Until when the callback's URL is blocked, if it is (or was). */
  blockedUntil: Date | null;
}

export interface Delivery {
  state: DeliveryState;
  /** When it is next tried at the earliest: never before now; null once delivered or failed. */
  dueAt: Date | null;
}

const latest = (...dates: (Date | null | undefined)[]): Date =>
  new Date(Math.max(...dates.filter((d): d is Date => d instanceof Date).map((d) => d.getTime())));

export function deliveryOf(f: DeliveryFacts, now: Date): Delivery {
  if (f.status !== 'pending') return { state: f.status, dueAt: null };
  if (f.lockedUntil && f.lockedUntil > now) return { state: 'sending', dueAt: now };
  const blocked = f.blockedUntil && f.blockedUntil > now ? f.blockedUntil : null;
  // Behind an earlier one: not before that one's next attempt (it goes first), nor before its own schedule.
  if (f.behind) return { state: 'waiting_behind', dueAt: latest(now, f.nextAttemptAt, f.behind.nextAttemptAt, blocked) };
  if (blocked) return { state: 'blocked', dueAt: latest(now, f.nextAttemptAt, blocked) };
  if (f.nextAttemptAt <= now) return { state: 'due', dueAt: now };
  return { state: f.attempts > 0 ? 'retrying' : 'scheduled', dueAt: f.nextAttemptAt };
}

/**
 * The event a callback reports: Checkout callbacks name it in `type` (sale, refund, 3ds, ...), S2S ones in
 * `action` (SALE, CREDITVOID, ...); a test send says `test`. Lower case; `unknown` when the body names none.
 */
export function callbackEventOf(fields: FormFields): { type: string; status: string | null } {
  const read = (key: string) => {
    const v = (fields as Record<string, unknown>)[key];
    return typeof v === 'string' && v !== '' ? v : null;
  };
  const type = read('type') ?? read('action');
  return { type: type ? type.toLowerCase() : 'unknown', status: read('status')?.toLowerCase() ?? null };
}
