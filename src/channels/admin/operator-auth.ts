/**
 * The admin API's authentication and authorization, in one place: a Bearer token of an operator user,
 * looked up by digest, and the role table (domain/admin-roles.ts) deciding what the route needs.
 * 401 without a token or with one that is unknown, revoked or of a disabled user; 403 for a role that may not.
 * The console's session cookie is accepted in place of the token, with the CSRF header on every write.
 */
import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../../domain/errors.ts';
import { mayDo, type Permission } from '../../domain/admin-roles.ts';
import { operatorTokenDigest } from '../../domain/operator-tokens.ts';
import { findOperatorByTokenDigest, type Operator } from '../../services/queries/operators.ts';
import { touchOperatorToken } from '../../services/operators.ts';
import type { ServiceContext } from '../../services/context.ts';
import type { AuditActor } from '../../services/queries/audit.ts';
import { sessionCookieOf, sessionOperator } from './console-session-auth.ts';

export const ADMIN_TAG = { tags: ['Admin'], security: [{ bearer: [] }] };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by requireOperator on admin routes. */
    operator?: Operator;
  }
}

function bearerToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || !header.startsWith('Bearer ')) return undefined;
  const token = header.slice(7).trim();
  return token.length > 0 && token.length <= 256 ? token : undefined;
}

/** Last use is recorded at most this often per token, so reads do not each become a write. */
const LAST_USED_INTERVAL_MS = 60_000;

async function signedIn(ctx: Pick<ServiceContext, 'db' | 'clock'>, req: FastifyRequest, opts: { duringEnrolment?: boolean }): Promise<Operator> {
  const token = bearerToken(req);
  // The console signs in with a session cookie; an API client with a Bearer token (which wins when both come).
  if (!token && sessionCookieOf(req)) return sessionOperator(ctx, req, opts);
  const now = ctx.clock.now();
  const operator = token ? await findOperatorByTokenDigest(ctx.db, operatorTokenDigest(token), now) : undefined;
  if (!operator) throw new GatewayError('adminUnauthorized');
  if (!operator.tokenLastUsedAt || now.getTime() - operator.tokenLastUsedAt.getTime() >= LAST_USED_INTERVAL_MS) {
    await touchOperatorToken(ctx.db, operator.tokenId, now, LAST_USED_INTERVAL_MS);
  }
  return operator;
}

/**
 * The admin API's onRequest hook (channels/admin/index.ts adds it once, for every route but the console's session
 * routes, which add it themselves where they need it): a valid token or session of any role, else 401.
 */
export function requireOperator(ctx: Pick<ServiceContext, 'db' | 'clock'>, opts: { duringEnrolment?: boolean } = {}) {
  return async (req: FastifyRequest) => {
    req.operator = await signedIn(ctx, req, opts);
  };
}

/** A route's onRequest hook, after requireOperator's: the operator's role must grant `permission`, else 403. */
export function requirePermission(permission: Permission) {
  return async (req: FastifyRequest) => {
    if (!req.operator) throw new GatewayError('adminUnauthorized');
    if (!mayDo(req.operator.role, permission)) throw new GatewayError('adminForbidden');
  };
}

/** The operator of a request that passed requirePermission, as the audit log names them. */
export function actorOf(req: FastifyRequest): AuditActor {
  const op = req.operator;
  if (!op) throw new GatewayError('adminUnauthorized');
  return { userId: op.userId, name: op.email };
}
