/**
 * Signing in to the console (issue 14): an operator user's e-mail and password open a session stored in the
 * database (any node serves it); each sign-in deletes the sessions that can no longer be used. The answer gives the cookie's secret (set by the channel) and the CSRF token.
 */
import { GatewayError } from '../../domain/errors.ts';
import { signInPasswordMatches } from '../../domain/operator-passwords.ts';
import { IDLE_TIMEOUT_MS, openSession, sessionDigest, type OpenedSession } from '../../domain/console-session.ts';

export type { OpenedSession };
import { newId } from '../../domain/ids.ts';
import { endConsoleSession, findSignInUser, insertConsoleSession, purgeDeadConsoleSessions } from '../../store/console-sessions-repo.ts';
import { appendAudit } from '../../store/audit-repo.ts';
import type { Database } from '../../store/database.ts';

/** Stamps a session's last use (at most once per interval): the console's authentication calls it on each request. */
export { touchConsoleSession } from '../../store/console-sessions-repo.ts';

/** The sign-in's second step (services/two-factor.ts checkSecondFactor), once the password is right. */
export type SecondStep = (userId: string) => Promise<{ needsEnrolment: boolean; usedRecoveryCode: boolean }>;

export async function signIn(db: Database, email: string, password: string, now: Date, secondStep?: SecondStep): Promise<OpenedSession> {
  const user = await findSignInUser(db, email);
  if (!(await signInPasswordMatches(user?.passwordHash, password)) || !user) throw new GatewayError('consoleSignInFailed');
  const second = secondStep ? await secondStep(user.id) : { needsEnrolment: false, usedRecoveryCode: false };
  const session = openSession(newId(), user.id, now, second.needsEnrolment);
  await db.transaction(async (tx) => {
    // Sessions that ended, expired or idled out are worth nothing: each sign-in sweeps them away.
    await purgeDeadConsoleSessions(tx, now, IDLE_TIMEOUT_MS);
    await insertConsoleSession(tx, { id: session.id, digest: sessionDigest(session.secret), userId: user.id, csrfToken: session.csrfToken, now, expiresAt: session.expiresAt, needsEnrolment: session.needsEnrolment });
    await appendAudit(tx, {
      actor: { userId: user.id, name: email }, action: 'session.sign_in', objectType: 'operator_user', objectId: user.id,
      ...(second.usedRecoveryCode ? { details: { second_factor: 'recovery_code' } } : {}),
    }, now);
  });
  return session;
}

export async function signOut(db: Database, session: { id: string; userId: string; email: string }, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await endConsoleSession(tx, session.id, now);
    await appendAudit(tx, { actor: { userId: session.userId, name: session.email }, action: 'session.sign_out', objectType: 'operator_user', objectId: session.userId }, now);
  });
}
