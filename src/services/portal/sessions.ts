/**
 * Signing in to the merchant portal (issue 30), as the console does (services/admin/console-sessions.ts): a
 * portal user's e-mail and password open a session stored in the database (any node serves it); the channel sets
 * the cookie and answers the CSRF token. Two-factor sign-in is checked here too (services/two-factor.ts).
 */
import type { ServiceContext } from '../context.ts';
import { GatewayError } from '../../domain/errors.ts';
import { signInPasswordMatches } from '../../domain/operator-passwords.ts';
import { IDLE_TIMEOUT_MS, TOUCH_INTERVAL_MS, openSession, sessionAlive, sessionDigest, type OpenedSession } from '../../domain/console-session.ts';
import { newId } from '../../domain/ids.ts';
import { findMerchantSignInUser, merchantsOfUser } from '../../store/merchant-users-repo.ts';
import {
  endPortalSession, findPortalSession, insertPortalSession, purgeDeadPortalSessions, touchPortalSession, type PortalSession,
} from '../../store/portal-sessions-repo.ts';
import { appendAudit } from '../../store/audit-repo.ts';
import { auditScope, type PortalUser } from './scope.ts';
import { checkSecondFactor, type SecondFactor } from '../two-factor.ts';

export type { PortalSession };

export type OpenedPortalSession = OpenedSession;

export async function signInPortal(ctx: ServiceContext, email: string, password: string, second: SecondFactor): Promise<OpenedPortalSession> {
  const user = await findMerchantSignInUser(ctx.db, email);
  if (!(await signInPasswordMatches(user?.passwordHash, password)) || !user) throw new GatewayError('consoleSignInFailed');
  const now = ctx.clock.now();
  const { needsEnrolment, usedRecoveryCode } = await checkSecondFactor(ctx, 'merchant', user.id, second);
  const session = openSession(newId(), user.id, now, needsEnrolment);
  await ctx.db.transaction(async (tx) => {
    await purgeDeadPortalSessions(tx, now, IDLE_TIMEOUT_MS);
    await insertPortalSession(tx, { id: session.id, digest: sessionDigest(session.secret), userId: user.id, csrfToken: session.csrfToken, now, expiresAt: session.expiresAt, needsEnrolment });
    const [row] = await tx.query<{ merchant_id: string | null; group_id: string | null }>('SELECT merchant_id, group_id FROM merchant_users WHERE id = $1', [user.id]);
    await appendAudit(tx, {
      actor: { userId: user.id, name: `merchant:${email}` }, action: 'session.sign_in', objectType: 'merchant_user', objectId: user.id,
      ...(usedRecoveryCode ? { details: { second_factor: 'recovery_code' } } : {}),
      ...auditScope({ merchantId: row?.merchant_id ?? null, groupId: row?.group_id ?? null }),
    }, now);
  });
  return session;
}

/** The live session of a cookie's secret (unknown, ended, idle or expired: undefined), touched at most once a minute. */
export async function livePortalSession(ctx: ServiceContext, secret: string): Promise<PortalSession | undefined> {
  const session = await findPortalSession(ctx.db, sessionDigest(secret));
  const now = ctx.clock.now();
  if (!session || !sessionAlive(session, now)) return undefined;
  if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) await touchPortalSession(ctx.db, session.id, now, TOUCH_INTERVAL_MS, IDLE_TIMEOUT_MS);
  return session;
}

/** Who a session acts as: its user and the merchants the user sees now (a group's members are read each time). */
export async function portalUserOf(ctx: ServiceContext, s: PortalSession): Promise<PortalUser> {
  return {
    userId: s.userId, email: s.email, name: s.name, role: s.role, merchantId: s.merchantId, groupId: s.groupId,
    merchantIds: await merchantsOfUser(ctx.db, s),
  };
}

export async function signOutPortal(ctx: ServiceContext, session: PortalSession): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await endPortalSession(tx, session.id, now);
    await appendAudit(tx, { actor: { userId: session.userId, name: `merchant:${session.email}` }, action: 'session.sign_out', objectType: 'merchant_user', objectId: session.userId, ...auditScope(session) }, now);
  });
}

/** The user's merchants by name, for the session's answer (the portal's merchant switcher). */
export async function merchantsOfPortalUser(ctx: ServiceContext, user: PortalUser): Promise<{ id: string; name: string; sandbox: boolean }[]> {
  if (user.merchantIds.length === 0) return [];
  return ctx.db.query<{ id: string; name: string; sandbox: boolean }>('SELECT id, name, sandbox FROM merchants WHERE id = ANY($1::text[]) ORDER BY name, id', [[...user.merchantIds]]);
}
