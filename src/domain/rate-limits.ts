/**
 * Rate limits (issue 12, item 11) as data: which requests count against which limit, by which subject.
 * Fixed windows (RATE_LIMIT_WINDOW_SECONDS) counted in PostgreSQL so every node shares them. Pure.
 */
import { ERRORS, type ErrorSpec } from './errors.ts';

export type LimitName = 'authFailures' | 'hostedFields' | 'otpAttempts' | 'providerNotifications';

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
 * Answers that mean a failed authentication: counted per client IP and per merchant key, and once over the
 * limit every authenticated channel answers 429 to that IP or key until the window ends.
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

/** Whole seconds until the window ends, at least 1 (the Retry-After value). */
export function retryAfterSeconds(now: Date, end: Date): number {
  return Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000));
}

export const bucketName = (limit: LimitName, by: string, subject: string): string => `${limit}:${by}:${subject.slice(0, 255)}`;
