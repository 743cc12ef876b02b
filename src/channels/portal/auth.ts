/**
 * The portal API's sign-in (issue 30): the portal's session cookie finds a live session of an enabled merchant
 * user; a write must carry the session's CSRF token in `X-CSRF-Token`; a session that must set up two-factor
 * sign-in reaches only the routes that do that. The request then carries the PortalUser every portal service
 * scopes its reads and writes by.
 */
import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../../domain/errors.ts';
import { CSRF_HEADER, PORTAL_SESSION_COOKIE, cookieValue, needsCsrf, sameSecret } from '../../domain/console-session.ts';
import { livePortalSession, portalUserOf, type PortalSession } from '../../services/portal/sessions.ts';
import type { PortalUser } from '../../services/portal/scope.ts';
import type { ServiceContext } from '../../services/context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    portalSession?: PortalSession;
    portalUser?: PortalUser;
  }
}

export const portalCookieOf = (req: FastifyRequest): string | undefined => cookieValue(req.headers.cookie, PORTAL_SESSION_COOKIE);

export async function portalSessionOf(ctx: ServiceContext, req: FastifyRequest): Promise<PortalSession | undefined> {
  const secret = portalCookieOf(req);
  return secret ? livePortalSession(ctx, secret) : undefined;
}

export function requirePortalUser(ctx: ServiceContext, opts: { duringEnrolment?: boolean } = {}) {
  return async (req: FastifyRequest) => {
    const session = await portalSessionOf(ctx, req);
    if (!session) throw new GatewayError('portalUnauthorized');
    if (needsCsrf(req.method)) {
      const header = req.headers[CSRF_HEADER];
      if (typeof header !== 'string' || !sameSecret(header, session.csrfToken)) throw new GatewayError('csrfTokenInvalid');
    }
    if (session.needsEnrolment && !opts.duringEnrolment) throw new GatewayError('twoFactorEnrolmentRequired');
    req.portalSession = session;
    req.portalUser = await portalUserOf(ctx, session);
  };
}

export function userOf(req: FastifyRequest): PortalUser {
  if (!req.portalUser) throw new GatewayError('portalUnauthorized');
  return req.portalUser;
}
