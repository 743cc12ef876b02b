/**
 * The console's session cookie as an admin credential (issue 14): the cookie's secret finds a live session of an
 * enabled user; a state-changing request must also carry the session's CSRF token in `X-CSRF-Token` (a page of
 * another site can make the browser send the cookie, never read the token). Idle sessions end.
 */
import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../../domain/errors.ts';
import {
  CSRF_HEADER, IDLE_TIMEOUT_MS, SESSION_COOKIE, TOUCH_INTERVAL_MS, cookieValue, needsCsrf, sameSecret, sessionAlive, sessionDigest,
} from '../../domain/console-session.ts';
import { findConsoleSession, type ConsoleSession } from '../../services/queries/operators.ts';
import { touchConsoleSession } from '../../services/admin/console-sessions.ts';
import type { Operator } from '../../services/queries/operators.ts';
import type { ServiceContext } from '../../services/context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the request was authenticated by the console's session cookie. */
    consoleSession?: ConsoleSession;
  }
}

export const sessionCookieOf = (req: FastifyRequest): string | undefined => cookieValue(req.headers.cookie, SESSION_COOKIE);

/** The live session the request's cookie names, or undefined (no cookie, unknown, ended, idle or expired). */
export async function liveSession(ctx: Pick<ServiceContext, 'db' | 'clock'>, req: FastifyRequest): Promise<ConsoleSession | undefined> {
  const secret = sessionCookieOf(req);
  if (!secret) return undefined;
  const session = await findConsoleSession(ctx.db, sessionDigest(secret));
  const now = ctx.clock.now();
  if (!session || !sessionAlive(session, now)) return undefined;
  if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) await touchConsoleSession(ctx.db, session.id, now, TOUCH_INTERVAL_MS, IDLE_TIMEOUT_MS);
  return session;
}

export async function sessionOperator(ctx: Pick<ServiceContext, 'db' | 'clock'>, req: FastifyRequest, opts: { duringEnrolment?: boolean } = {}): Promise<Operator> {
  const session = await liveSession(ctx, req);
  if (!session) throw new GatewayError('adminUnauthorized');
  // Issue 30: while two-factor sign-in is mandatory and not set up, the session may only set it up (or sign out).
  if (session.needsEnrolment && !opts.duringEnrolment) throw new GatewayError('twoFactorEnrolmentRequired');
  if (needsCsrf(req.method)) {
    const header = req.headers[CSRF_HEADER];
    if (typeof header !== 'string' || !sameSecret(header, session.csrfToken)) throw new GatewayError('csrfTokenInvalid');
  }
  req.consoleSession = session;
  return {
    userId: session.userId, name: session.name, email: session.email, role: session.role,
    tokenId: `session:${session.id}`, tokenLastUsedAt: session.lastSeenAt,
  };
}
