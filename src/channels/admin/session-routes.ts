/**
 * The console's sign-in (issue 14): `POST /admin/v1/session` with an operator user's e-mail and password sets
 * the session cookie (HttpOnly, SameSite=Strict, Secure over TLS and always in production) and answers the CSRF token the console sends
 * in `X-CSRF-Token` on every write; `GET` answers the current session (the console reloading), `DELETE` signs
 * out. Failed sign-ins count against the authentication-failure limit per client IP, and slow down further
 * sign-ins per e-mail and per IP with growing delays (never a lock on the account).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { PERMISSIONS, permissionsOf } from '../../domain/admin-roles.ts';
import { IDLE_TIMEOUT_MS, sessionCookie, signInFromOwnOrigin } from '../../domain/console-session.ts';
import { SIGN_IN_FREE_FAILURES, bucketName } from '../../domain/rate-limits.ts';
import { ERRORS, GatewayError } from '../../domain/errors.ts';
import { signIn, signOut } from '../../services/admin/console-sessions.ts';
import { checkSecondFactor } from '../../services/two-factor.ts';
import { SecondFactorFields, registerTwoFactorRoutes } from '../two-factor-routes.ts';
import { findOperatorUser } from '../../services/queries/operators.ts';
import { liveSession } from './console-session-auth.ts';
import { requireOperator } from './operator-auth.ts';
import { presentUser } from './user-routes.ts';
import { Timestamp } from './schemas.ts';
import { responses } from './errors.ts';

const TAG = ['Admin'];

const SignInBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 256 }),
  ...SecondFactorFields,
}, { additionalProperties: false, examples: [{ email: 'ops@shop.example', password: 'a sturdy console phrase 2026' }, { email: 'ops@shop.example', password: 'a sturdy console phrase 2026', code: '492039' }] });
type SignInBody = Static<typeof SignInBody>;

const Session = Type.Object({
  user: Type.Object({
    id: Type.String(), email: Type.String(), name: Type.String(),
    role: Type.Union(['admin', 'operator', 'support', 'viewer'].map((r) => Type.Literal(r))),
  }),
  permissions: Type.Array(Type.Union(PERMISSIONS.map((p) => Type.Literal(p)))),
  csrf_token: Type.String({ description: 'Send it in `X-CSRF-Token` on every POST, PUT, PATCH and DELETE the session cookie authenticates.' }),
  idle_timeout_seconds: Type.Integer({ description: 'A session unused this long ends.' }),
  expires_at: Timestamp,
  two_factor_enrolment_required: Type.Boolean({ description: 'Two-factor sign-in is mandatory and not set up: until it is (POST /admin/v1/two-factor/enrolment), the session may do nothing else.' }),
}, {
  description: 'The signed-in operator, what their role permits, and the CSRF token.',
  examples: [{
    user: { id: '01936f5e-8a4b-7c3d-9e2f-0a1b2c3d4e5f', email: 'ops@shop.example', name: 'Olga Ops', role: 'operator' },
    permissions: permissionsOf('operator'), csrf_token: 'k3W8x0mQd2Zr5yT1vB7nC4pL9sF6hJ0a', idle_timeout_seconds: 1800, expires_at: '2026-11-24T17:00:00.000Z',
    two_factor_enrolment_required: false,
  }],
});

const secureRequest = (req: FastifyRequest) => req.overTls;

async function present(ctx: ServiceContext, userId: string, csrfToken: string, expiresAt: Date, needsEnrolment: boolean) {
  const user = await findOperatorUser(ctx.db, userId);
  if (!user) throw new GatewayError('adminUnauthorized');
  const { id, email, name, role } = presentUser(user);
  return {
    user: { id, email, name, role }, permissions: permissionsOf(role), csrf_token: csrfToken, idle_timeout_seconds: IDLE_TIMEOUT_MS / 1000,
    expires_at: expiresAt.toISOString(), two_factor_enrolment_required: needsEnrolment,
  };
}

const header = (req: FastifyRequest, name: string): string | undefined => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** Where the sign-in says it comes from, and the origins that are ours (BASE_URL's; the one it was sent to). */
function originOf(ctx: ServiceContext, req: FastifyRequest) {
  const ownOrigins = [new URL(ctx.baseUrl).origin, `${req.protocol}://${req.host}`.toLowerCase()];
  return { fetchSite: header(req, 'sec-fetch-site'), origin: header(req, 'origin'), ownOrigins };
}

function clearCookie(req: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', sessionCookie('', { secure: secureRequest(req), maxAgeSeconds: 0 }));
}

export function registerAdminSessionRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<{ Body: SignInBody }>('/session', {
    schema: {
      tags: TAG, summary: 'Sign in to the console with an operator user\'s e-mail and password (sets the session cookie)',
      body: SignInBody, response: responses({ 201: Session }, [400]),
    },
  }, async (req, reply) => {
    if (!signInFromOwnOrigin(originOf(ctx, req))) throw new GatewayError('signInCrossSite');
    // Issue 25, item 12: no lock on an account (anyone could lock admin@localhost out): every sign-in waits as
    // its account's and address's failures this window call for, the right password then goes through.
    const byEmail = bucketName('authFailures', 'email', req.body.email.toLowerCase());
    await ctx.rateLimiter?.slowDown([byEmail, bucketName('authFailures', 'sign-in-ip', req.ip)], SIGN_IN_FREE_FAILURES);
    const now = ctx.clock.now();
    try {
      const second = { code: req.body.code, recoveryCode: req.body.recovery_code };
      const session = await signIn(ctx.db, req.body.email, req.body.password, now, (userId) => checkSecondFactor(ctx, 'operator', userId, second));
      reply.header('set-cookie', sessionCookie(session.secret, { secure: secureRequest(req), maxAgeSeconds: Math.floor((session.expiresAt.getTime() - now.getTime()) / 1000) }));
      reply.header('cache-control', 'no-store');
      return reply.code(201).send(await present(ctx, session.userId, session.csrfToken, session.expiresAt, session.needsEnrolment));
    } catch (err) {
      // The right password without its code is no failure: the console asks for the code next.
      if (err instanceof GatewayError && err.spec !== ERRORS.twoFactorRequired) {
        await ctx.rateLimiter?.recordAndSlowDown(byEmail, Number.POSITIVE_INFINITY);
        await ctx.rateLimiter?.recordAndSlowDown(bucketName('authFailures', 'sign-in-ip', req.ip), Number.POSITIVE_INFINITY);
      }
      throw err;
    }
  });

  app.get('/session', {
    schema: { tags: TAG, summary: 'The console\'s current session (401 when signed out or timed out)', response: responses({ 200: Session }, []) },
  }, async (req, reply) => {
    const session = await liveSession(ctx, req);
    if (!session) {
      clearCookie(req, reply);
      throw new GatewayError('adminUnauthorized');
    }
    reply.header('cache-control', 'no-store');
    return present(ctx, session.userId, session.csrfToken, session.expiresAt, session.needsEnrolment);
  });

  app.delete('/session', {
    onRequest: requireOperator(ctx, { duringEnrolment: true }),
    schema: { tags: TAG, summary: 'Sign out of the console (the CSRF header is required)', response: responses({ 204: Type.Null() }, []) },
  }, async (req, reply) => {
    const session = req.consoleSession;
    if (session) await signOut(ctx.db, session, ctx.clock.now());
    clearCookie(req, reply);
    return reply.code(204).send();
  });

  // Two-factor sign-in (issue 30): a session that must set it up reaches these (and sign-out) only.
  registerTwoFactorRoutes(app, ctx, {
    kind: 'operator', tags: TAG, security: [{ bearer: [] }], onRequest: requireOperator(ctx, { duringEnrolment: true }), responses,
    who: (req) => {
      const op = req.operator!;
      return { userId: op.userId, account: op.email, sessionId: req.consoleSession?.id, audit: { actor: { userId: op.userId, name: op.email } } };
    },
  });
}
