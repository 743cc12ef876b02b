/**
 * Rate limits (issue 12, item 11) as data: which requests count against which limit, by which subject.
 * A sliding window (RATE_LIMIT_WINDOW_SECONDS), counted in PostgreSQL so every node shares it. Pure.
 */
import { ERRORS, type ErrorSpec } from './errors.ts';

export type LimitName = 'authFailures' | 'keyFailures' | 'hostedFields' | 'otpAttempts' | 'providerNotifications';

/** What a counted request is counted by: the client IP, or the payment its path names. */
export type Subject = 'ip' | 'payment';

/** Routes whose every request counts, by route pattern. */
export const LIMITED_ROUTES: Readonly<Record<string, readonly { limit: LimitName; by: Subject }[]>> = {
  'POST /hosted-fields/collect': [{ limit: 'hostedFields', by: 'ip' }],
  'PUT /api/v1/session/update': [{ limit: 'hostedFields', by: 'ip' }],
  'POST /api/v1/processing/purchase/card': [{ limit: 'hostedFields', by: 'ip' }],
  'POST /api/v1/processing/debit/card': [{ limit: 'hostedFields', by: 'ip' }],
  'POST /pay/:id/code': [{ limit: 'otpAttempts', by: 'payment' }, { limit: 'otpAttempts', by: 'ip' }],
  // Unsigned by design (it only makes the gateway ask the provider): bounded per payment so that nobody who
  // knows a payment id can make the gateway call the provider without end.
  'POST /apm/provider/notify/:id': [{ limit: 'providerNotifications', by: 'payment' }],
};

/**
 * Routes a blocked address still reaches: the load balancer's and the scraper's. A balancer whose address got
 * blocked (many clients behind one address, no TRUST_PROXY) must not take every node out of service.
 */
export const NEVER_BLOCKED_ROUTES: ReadonlySet<string> = new Set(['/health', '/ready', '/metrics']);

/**
 * Answers that mean a failed authentication (issue 25, item 3). Counted per client IP and per (IP, merchant key)
 * pair: once over RATE_LIMIT_AUTH_FAILURES every authenticated channel answers 429 to that IP, or to that IP for
 * that key, until the window ends. Per key alone they are counted too, but a key is never blocked (anyone can
 * name it, so blocking it would lock its merchant out): past RATE_LIMIT_KEY_FAILURES its failed answers are
 * only slowed down (slowDownMs), and a correctly signed request goes through as ever.
 */
export const AUTH_FAILURES: ReadonlySet<ErrorSpec> = new Set<ErrorSpec>([
  ERRORS.hashInvalid, ERRORS.merchantNotFound, ERRORS.sessionTokenInvalid, ERRORS.sessionTokenForbidden, ERRORS.adminUnauthorized,
  ERRORS.consoleSignInFailed, ERRORS.metricsUnauthorized,
]);

export interface Window {
  start: Date;
  end: Date;
}

export function windowAt(now: Date, windowSeconds: number): Window {
  const size = windowSeconds * 1000;
  const start = Math.floor(now.getTime() / size) * size;
  return { start: new Date(start), end: new Date(start + size) };
}

/** A bucket's counts in the fixed window `now` falls in and in the one before it. */
export interface WindowCounts {
  current: number;
  previous: number;
}

/**
 * The requests of the last window's length before `now`, estimated from two fixed windows: all of the current one
 * and the part of the previous one still inside the sliding window (its count spread evenly over it). Fixed windows
 * alone let a guesser spend a whole limit just before a window ends and another just after.
 */
export function slidingCount(now: Date, windowSeconds: number, counts: WindowCounts): number {
  const size = windowSeconds * 1000;
  const elapsed = now.getTime() - windowAt(now, windowSeconds).start.getTime();
  return counts.current + counts.previous * ((size - elapsed) / size);
}

/**
 * The first instant at which one more request would be counted within `max` again, when no other arrives before
 * (the block's end, hence Retry-After): later in this window as the previous one's share fades, or in the next.
 */
export function unblockedAt(now: Date, windowSeconds: number, counts: WindowCounts, max: number): Date {
  const size = windowSeconds * 1000;
  const { start, end } = windowAt(now, windowSeconds);
  const fadesBy = (windowStart: number, current: number, previous: number): number | undefined => {
    const room = max - current - 1;
    if (room < 0) return undefined;
    return windowStart + (previous === 0 ? 0 : Math.max(0, size * (1 - room / previous)));
  };
  const instant = fadesBy(start.getTime(), counts.current, counts.previous) ?? fadesBy(end.getTime(), 0, counts.current) ?? end.getTime() + size;
  return new Date(Math.max(Math.ceil(instant), now.getTime()));
}

/** Whole seconds until the window ends, at least 1 (the Retry-After value). */
export function retryAfterSeconds(now: Date, end: Date): number {
  return Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000));
}

/** Failures that cost nothing yet: a mistyped password or two must not slow anyone down. */
export const SIGN_IN_FREE_FAILURES = 5;
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 8_000;

/**
 * Growing delays instead of a lock (issue 25, items 3 and 12): none up to `free` failures in the window, then
 * 250 ms doubling with each further failure, at most 8 s. The right password or hash still goes through.
 */
export function slowDownMs(failures: number, free: number): number {
  const over = failures - free;
  return over <= 0 ? 0 : Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.min(over - 1, 16));
}

export const bucketName = (limit: LimitName, by: string, subject: string): string => `${limit}:${by}:${subject.slice(0, 255)}`;
