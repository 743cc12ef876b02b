/** Operator identity (issue 11): the first admin of an empty store, and tokens for users. */
import { randomBytes } from 'node:crypto';
import type { Database, Sql } from '../store/database.ts';
import { countOperatorUsers, insertOperatorToken, insertOperatorUser } from '../store/operators-repo.ts';
import { appendAudit, type AuditActor } from '../store/audit-repo.ts';
import { newOperatorToken, operatorTokenDigest, operatorTokenPrefix } from '../domain/operator-tokens.ts';
import { newId } from '../domain/ids.ts';
import { hashOperatorPassword, verifyOperatorPassword } from '../domain/operator-passwords.ts';
import { userPasswordProblem } from '../domain/user-passwords.ts';
import { operatorPasswordHash, updateOperatorUser } from '../store/operators-repo.ts';
import type { Role } from '../domain/admin-roles.ts';

/** Stamps a token's last use (at most once per interval): the admin API's authentication calls it on each request. */
export { touchOperatorToken } from '../store/operators-repo.ts';

export const SYSTEM_ACTOR: AuditActor = { userId: null, name: 'system' };

export interface IssuedToken {
  id: string;
  /** The token itself: shown once, never stored. */
  token: string;
  prefix: string;
}

/** Creates a token for a user; `token` lets the bootstrap take ADMIN_TOKEN instead of a generated one. */
export async function issueOperatorToken(sql: Sql, userId: string, name: string, token = newOperatorToken(), expiresAt?: Date): Promise<IssuedToken> {
  const id = newId();
  const prefix = operatorTokenPrefix(token);
  await insertOperatorToken(sql, { id, userId, name, digest: operatorTokenDigest(token), prefix, ...(expiresAt ? { expiresAt } : {}) });
  return { id, token, prefix };
}

export interface Bootstrap {
  email: string;
  /** The token to print: set only when it was generated now (an ADMIN_TOKEN given is never echoed). */
  generatedToken?: string;
}

/**
 * On the first start of an empty store: one admin user and a token for it, taken from ADMIN_TOKEN when given
 * (a bootstrap only: once users exist, ADMIN_TOKEN is ignored) or generated and returned to be printed once.
 */
export async function bootstrapFirstAdmin(db: Database, opts: { token?: string; now: Date; role?: Role }): Promise<Bootstrap | undefined> {
  return db.transaction(async (tx) => {
    // Two nodes starting at once on an empty store must not both create an admin.
    await tx.query('SELECT pg_advisory_xact_lock(715518)');
    if ((await countOperatorUsers(tx)) > 0) return undefined;
    const userId = newId();
    const email = 'admin@localhost';
    await insertOperatorUser(tx, { id: userId, email, name: 'admin', role: opts.role ?? 'admin' });
    const issued = await issueOperatorToken(tx, userId, 'bootstrap', opts.token);
    await appendAudit(tx, {
      actor: SYSTEM_ACTOR, action: 'user.bootstrap', objectType: 'user', objectId: userId,
      after: { email, name: 'admin', role: 'admin', token: { id: issued.id, prefix: issued.prefix, from: opts.token ? 'ADMIN_TOKEN' : 'generated' } },
    }, opts.now);
    return { email, generatedToken: opts.token ? undefined : issued.token };
  });
}

/**
 * A console password for the admin the first start just created, so that whoever ran `npm start` can sign in to
 * /admin at once (printed once, like the token; stored as its scrypt digest). Outside production only.
 */
export async function giveBootstrapAdminPassword(db: Database, email: string, now: Date): Promise<string | undefined> {
  let password = randomBytes(15).toString('base64url'); // 20 characters, 120 bits
  // The rule an admin's choice meets too (user-passwords.ts); a random one fails it only by a freak draw.
  while (userPasswordProblem(password)) password = randomBytes(15).toString('base64url');
  const passwordHash = await hashOperatorPassword(password);
  return db.transaction(async (tx) => {
    const [user] = await tx.query<{ id: string }>('SELECT id FROM operator_users WHERE email = $1 AND password_hash IS NULL FOR UPDATE', [email]);
    if (!user) return undefined;
    await updateOperatorUser(tx, user.id, { passwordHash }, now);
    await appendAudit(tx, { actor: SYSTEM_ACTOR, action: 'user.update', objectType: 'user', objectId: user.id, details: { password: 'generated at first start' } }, now);
    return password;
  });
}

/**
 * Whether the user `email` still signs in with `password` (the first start's console password): false once an
 * operator changed it, or the user is gone. The first-start credentials file is deleted then.
 */
export async function consolePasswordUnchanged(db: Database, email: string, password: string): Promise<boolean> {
  const stored = await operatorPasswordHash(db, email);
  return stored !== undefined && verifyOperatorPassword(password, stored);
}

/** The stored digest of the user's console password (compared, not verified: a cheap check to poll). */
export async function consolePasswordDigest(db: Database, email: string): Promise<string | undefined> {
  return operatorPasswordHash(db, email);
}
