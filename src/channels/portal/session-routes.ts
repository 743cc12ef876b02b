/**
 * The portal's sign-in (issue 30), as the console's: `POST /portal/v1/session` with a merchant user's e-mail and
 * password (and, with two-factor sign-in on, the app's code or a recovery code) sets the session cookie
 * (HttpOnly, SameSite=Strict, Path=/portal, Secure over TLS and always in production) and answers the CSRF token;
 * `GET` answers the session, `DELETE` signs out. Failed sign-ins slow further ones down per e-mail and per address
 * with growing delays (never a lock on the account). `POST /portal/v1/invitation` sets an invitee's password.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { MERCHANT_PERMISSIONS, MERCHANT_ROLES, merchantPermissionsOf } from '../../domain/merchant-roles.ts';
import { IDLE_TIMEOUT_MS, portalSessionCookie, signInFromOwnOrigin } from '../../domain/console-session.ts';
import { SIGN_IN_FREE_FAILURES, bucketName } from '../../domain/rate-limits.ts';
import { MAX_PASSWORD_LENGTH } from '../../domain/operator-passwords.ts';
import { ERRORS, GatewayError } from '../../domain/errors.ts';
import { livePortalSession, merchantsOfPortalUser, portalUserOf, signInPortal, signOutPortal, type PortalSession } from '../../services/portal/sessions.ts';
import { acceptMerchantInvitation } from '../../services/portal/team.ts';
import { portalCookieOf, requirePortalUser } from './auth.ts';
import { PORTAL_TAG, portalResponses } from './errors.ts';
import { Timestamp } from '../admin/schemas.ts';
import { SecondFactorFields } from '../two-factor-routes.ts';

const TAG = PORTAL_TAG.tags;

const SignInBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
  ...SecondFactorFields,
}, { additionalProperties: false, examples: [{ email: 'fin@shop.example', password: 'a long passphrase of mine', code: '492039' }] });
type SignInBody = Static<typeof SignInBody>;

const SESSION_EXAMPLE = {
  user: { id: '01937a10-1b2c-7d3e-8f40-5a6b7c8d9e0f', email: 'fin@shop.example', name: 'Fiona Finance', role: 'finance', merchant_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', group_id: null },
  merchants: [{ id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', name: 'ACME Shop', sandbox: true }],
  permissions: merchantPermissionsOf('finance'), csrf_token: 'k3W8x0mQd2Zr5yT1vB7nC4pL9sF6hJ0a', idle_timeout_seconds: 1800,
  expires_at: '2026-11-24T22:00:00.000Z', two_factor_enrolment_required: false,
};
const Session = Type.Object({
  user: Type.Object({
    id: Type.String(), email: Type.String(), name: Type.String(), role: Type.Union(MERCHANT_ROLES.map((r) => Type.Literal(r))),
    merchant_id: Type.Union([Type.String(), Type.Null()]), group_id: Type.Union([Type.String(), Type.Null()]),
  }),
  merchants: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), sandbox: Type.Boolean() }), { description: 'The merchants the user sees (its merchant, or its group\'s members).' }),
  permissions: Type.Array(Type.Union(MERCHANT_PERMISSIONS.map((p) => Type.Literal(p)))),
  csrf_token: Type.String({ description: 'Send it in `X-CSRF-Token` on every POST, PUT, PATCH and DELETE.' }),
  idle_timeout_seconds: Type.Integer(),
  expires_at: Timestamp,
  two_factor_enrolment_required: Type.Boolean({ description: 'Two-factor sign-in is mandatory and not set up: until it is, the session may only set it up or sign out.' }),
}, { description: 'The signed-in merchant user, their merchants, what their role permits, and the CSRF token.', examples: [SESSION_EXAMPLE] });

const AcceptBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 128, description: 'The token of the invitation\'s link (after `#token=`).' }),
  password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH, description: 'At least 12 characters, not a known or patterned password.' }),
}, { additionalProperties: false, examples: [{ token: 'Zt3kq0m1xV9w8c7b6n5m4l3k2j1h0g9f8d7s6a5p4o3', password: 'a long passphrase of mine' }] });
type AcceptBody = Static<typeof AcceptBody>;
const Accepted = Type.Object({ email: Type.String({ description: 'Sign in with this e-mail and the new password.' }) }, { examples: [{ email: 'fin@shop.example' }] });

const header = (req: FastifyRequest, name: string): string | undefined => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
};

async function present(ctx: ServiceContext, session: PortalSession) {
  const user = await portalUserOf(ctx, session);
  const merchants = await merchantsOfPortalUser(ctx, user);
  return {
    user: { id: user.userId, email: user.email, name: user.name, role: user.role, merchant_id: user.merchantId, group_id: user.groupId },
    merchants: merchants.map((m) => ({ id: m.id, name: m.name, sandbox: m.sandbox })),
    permissions: merchantPermissionsOf(user.role), csrf_token: session.csrfToken, idle_timeout_seconds: IDLE_TIMEOUT_MS / 1000,
    expires_at: session.expiresAt.toISOString(), two_factor_enrolment_required: session.needsEnrolment,
  };
}

function clearCookie(req: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', portalSessionCookie('', { secure: req.overTls, maxAgeSeconds: 0 }));
}

export function registerPortalSessionRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<{ Body: SignInBody }>('/session', {
    schema: { tags: TAG, summary: 'Sign in to the portal (sets the session cookie); with two-factor sign-in on, send `code` or `recovery_code` too', body: SignInBody, response: portalResponses({ 201: Session }, [400]) },
  }, async (req, reply) => {
    const ownOrigins = [new URL(ctx.baseUrl).origin, `${req.protocol}://${req.host}`.toLowerCase()];
    if (!signInFromOwnOrigin({ fetchSite: header(req, 'sec-fetch-site'), origin: header(req, 'origin'), ownOrigins })) throw new GatewayError('signInCrossSite');
    const byEmail = bucketName('authFailures', 'portal-email', req.body.email.toLowerCase());
    const byIp = bucketName('authFailures', 'sign-in-ip', req.ip);
    await ctx.rateLimiter?.slowDown([byEmail, byIp], SIGN_IN_FREE_FAILURES);
    try {
      const opened = await signInPortal(ctx, req.body.email, req.body.password, { code: req.body.code, recoveryCode: req.body.recovery_code });
      const now = ctx.clock.now();
      reply.header('set-cookie', portalSessionCookie(opened.secret, { secure: req.overTls, maxAgeSeconds: Math.floor((opened.expiresAt.getTime() - now.getTime()) / 1000) }));
      reply.header('cache-control', 'no-store');
      const session = (await livePortalSession(ctx, opened.secret))!;
      return reply.code(201).send(await present(ctx, session));
    } catch (err) {
      if (err instanceof GatewayError && err.spec !== ERRORS.twoFactorRequired) {
        await ctx.rateLimiter?.recordAndSlowDown(byEmail, Number.POSITIVE_INFINITY);
        await ctx.rateLimiter?.recordAndSlowDown(byIp, Number.POSITIVE_INFINITY);
      }
      throw err;
    }
  });

  app.get('/session', {
    schema: { tags: TAG, summary: 'The portal\'s current session (401 when signed out or timed out)', response: portalResponses({ 200: Session }, []) },
  }, async (req, reply) => {
    const secret = portalCookieOf(req);
    const session = secret ? await livePortalSession(ctx, secret) : undefined;
    if (!session) {
      clearCookie(req, reply);
      throw new GatewayError('portalUnauthorized');
    }
    reply.header('cache-control', 'no-store');
    return present(ctx, session);
  });

  app.delete('/session', {
    onRequest: requirePortalUser(ctx, { duringEnrolment: true }),
    schema: { tags: TAG, summary: 'Sign out of the portal (the CSRF header is required)', response: portalResponses({ 204: Type.Null() }, []) },
  }, async (req, reply) => {
    await signOutPortal(ctx, req.portalSession!);
    clearCookie(req, reply);
    return reply.code(204).send();
  });

  app.post<{ Body: AcceptBody }>('/invitation', {
    schema: { tags: TAG, summary: 'Accept an invitation: set the password with the token of the e-mailed link (once, within 7 days)', body: AcceptBody, response: portalResponses({ 200: Accepted }, [400]) },
  }, async (req) => {
    // Guessing tokens is slowed down as failed sign-ins are.
    const byIp = bucketName('authFailures', 'sign-in-ip', req.ip);
    await ctx.rateLimiter?.slowDown([byIp], SIGN_IN_FREE_FAILURES);
    try {
      const user = await acceptMerchantInvitation(ctx, req.body.token, req.body.password);
      return { email: user.email };
    } catch (err) {
      if (err instanceof GatewayError && err.spec === ERRORS.invitationInvalid) await ctx.rateLimiter?.recordAndSlowDown(byIp, Number.POSITIVE_INFINITY);
      throw err;
    }
  });
}
