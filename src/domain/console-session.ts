/**
 * The console's session rules (issue 14), pure: cookie names and attributes, idle and absolute lifetimes,
 * which requests need the CSRF header. The store keeps the sessions; the admin guard applies these rules.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'portcullis_session';
/** The merchant portal's cookie (issue 30): its own name and path, so neither session is sent to the other's API. */
export const PORTAL_SESSION_COOKIE = 'portcullis_portal';
export const CSRF_HEADER = 'x-csrf-token';
/** A session unused this long ends (the console signs the operator out). */
export const IDLE_TIMEOUT_MS = 30 * 60_000;
/** However active, a session ends after this long. */
export const ABSOLUTE_TIMEOUT_MS = 12 * 60 * 60_000;
/** Last activity is written at most this often, so reads do not each become a write. */
export const TOUCH_INTERVAL_MS = 60_000;

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

export const needsCsrf = (method: string): boolean => !SAFE_METHODS.has(method.toUpperCase());

export const newSessionSecret = (): string => randomBytes(32).toString('base64url');
export const newCsrfToken = (): string => randomBytes(24).toString('base64url');
export const sessionDigest = (secret: string): Buffer => createHash('sha256').update(secret).digest();

/** A session just opened by a sign-in (the console's or the portal's): the cookie's secret and the CSRF token. */
export interface OpenedSession {
  id: string;
  userId: string;
  secret: string;
  csrfToken: string;
  expiresAt: Date;
  /** Two-factor sign-in is mandatory and not set up yet: the session may only do that. */
  needsEnrolment: boolean;
}

/** A new session's secrets and lifetime (the caller stores its digest, never the secret). */
export const openSession = (id: string, userId: string, now: Date, needsEnrolment: boolean): OpenedSession => ({
  id, userId, secret: newSessionSecret(), csrfToken: newCsrfToken(), expiresAt: new Date(now.getTime() + ABSOLUTE_TIMEOUT_MS), needsEnrolment,
});

/** Equal strings in constant time (the CSRF header against the session's token). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** One cookie's value from a Cookie header; undefined when absent or malformed. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** The Set-Cookie value: HttpOnly, SameSite=Strict, scoped to /admin, Secure when the request came over TLS. */
export function sessionCookie(value: string, opts: { secure: boolean; maxAgeSeconds: number }, cookie: { name: string; path: string } = { name: SESSION_COOKIE, path: '/admin' }): string {
  return [
    `${cookie.name}=${value}`, `Path=${cookie.path}`, 'HttpOnly', 'SameSite=Strict', `Max-Age=${opts.maxAgeSeconds}`,
    ...(opts.secure ? ['Secure'] : []),
  ].join('; ');
}

/** The portal's Set-Cookie value: as the console's, scoped to /portal. */
export const portalSessionCookie = (value: string, opts: { secure: boolean; maxAgeSeconds: number }): string =>
  sessionCookie(value, opts, { name: PORTAL_SESSION_COOKIE, path: '/portal' });

/** What a sign-in request says of where it came from (browsers send these; scripts and the CLI need not). */
export interface SignInOrigin {
  /** Sec-Fetch-Site. */
  fetchSite?: string;
  /** Origin. */
  origin?: string;
  /** The origins this gateway answers on: BASE_URL's, and the one the request was addressed to. */
  ownOrigins: readonly string[];
}

/**
 * Login CSRF (issue 25, item 9): a page of another site must not sign a browser into the console (the
 * operator would then work, and type, in the attacker's account). A browser says where a request comes from:
 * Sec-Fetch-Site must be same-origin, else an Origin header must be one of ours. A request with neither comes
 * from no browser page (curl, scripts) and has no victim's browser to abuse.
 */
export function signInFromOwnOrigin(r: SignInOrigin): boolean {
  if (r.fetchSite !== undefined) return r.fetchSite === 'same-origin' || r.fetchSite === 'none';
  if (r.origin !== undefined) return r.ownOrigins.includes(r.origin.toLowerCase());
  return true;
}

export interface SessionTimes {
  lastSeenAt: Date;
  expiresAt: Date;
}

export function sessionAlive(s: SessionTimes, now: Date): boolean {
  return now.getTime() - s.lastSeenAt.getTime() < IDLE_TIMEOUT_MS && now < s.expiresAt;
}
