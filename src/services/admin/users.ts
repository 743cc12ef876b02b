/**
 * Operator users and their tokens (issue 11), for the admin API and the command-line tool. Every change is
 * written with its audit entry in one transaction; passwords and tokens never reach the audit log.
 */
import type { Database } from '../../store/database.ts';
import {
  findOperatorUser, findOperatorUserByEmail, findOperatorToken, insertOperatorUser, listOperatorTokens, lockEnabledAdmins,
  revokeOperatorToken, updateOperatorUser, type OperatorToken, type OperatorUser, type OperatorUserPatch,
} from '../../store/operators-repo.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { endUserConsoleSessions } from '../../store/console-sessions-repo.ts';
import { isUniqueViolation } from '../../store/unique-violation.ts';
import { auditDiff } from './audit-diff.ts';
import { issueOperatorToken, type IssuedToken } from '../operators.ts';
import { hashOperatorPassword } from '../../domain/operator-passwords.ts';
import { userPasswordProblem } from '../../domain/user-passwords.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';
import type { Role } from '../../domain/admin-roles.ts';
import { newId } from '../../domain/ids.ts';

export interface NewUserInput {
  email: string;
  name?: string;
  role: Role;
  password?: string;
}

export interface UserPatchInput {
  name?: string;
  role?: Role;
  disabled?: boolean;
  /** A new password; null removes it. */
  password?: string | null;
}

/** What the audit log keeps of a user: never the password digest, only whether one is set. */
const audited = (u: OperatorUser) => ({ email: u.email, name: u.name, role: u.role, disabled: u.disabled, has_password: u.hasPassword });

/** A console password an admin sets (or the CLI): the portal users' rule, at least 12 characters and not a known or patterned one. */
function checkPassword(password: string | null | undefined): void {
  const problem = typeof password === 'string' ? userPasswordProblem(password) : undefined;
  if (problem) throw GatewayError.field('password', problem);
}

export async function createOperatorUser(db: Database, actor: AuditActor, input: NewUserInput, now: Date): Promise<OperatorUser> {
  checkPassword(input.password);
  const passwordHash = input.password === undefined ? undefined : await hashOperatorPassword(input.password);
  try {
    return await db.transaction(async (tx) => {
      if (await findOperatorUserByEmail(tx, input.email)) throw GatewayError.field('email', MESSAGES.alreadyUsed);
      const id = newId();
      await insertOperatorUser(tx, { id, email: input.email, name: input.name ?? input.email, role: input.role, passwordHash });
      const user = (await findOperatorUser(tx, id)) as OperatorUser;
      await appendAudit(tx, { actor, action: 'user.create', objectType: 'user', objectId: id, after: audited(user) }, now);
      return user;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw GatewayError.field('email', MESSAGES.alreadyUsed);
    throw err;
  }
}

/** Whether the change takes admin rights from an enabled admin (demoted or disabled). */
function takesAdminAway(user: OperatorUser, patch: UserPatchInput): boolean {
  return user.role === 'admin' && !user.disabled && ((patch.role !== undefined && patch.role !== 'admin') || patch.disabled === true);
}

export async function updateOperatorUserById(db: Database, actor: AuditActor, id: string, input: UserPatchInput, now: Date): Promise<OperatorUser | undefined> {
  checkPassword(input.password);
  const patch: OperatorUserPatch = { name: input.name, role: input.role, disabled: input.disabled };
  if (input.password !== undefined) patch.passwordHash = input.password === null ? null : await hashOperatorPassword(input.password);
  return db.transaction(async (tx) => {
    // The enabled admins are locked first (always in id order), so two requests demoting the last two admins
    // serialise and the second sees the first's change.
    const admins = input.role !== undefined || input.disabled !== undefined ? await lockEnabledAdmins(tx) : [];
    const before = await findOperatorUser(tx, id, true);
    if (!before) return undefined;
    if (takesAdminAway(before, input) && admins.filter((a) => a !== id).length === 0) {
      throw GatewayError.field(input.disabled === true ? 'disabled' : 'role', MESSAGES.lastAdmin);
    }
    const after = (await updateOperatorUser(tx, id, patch, now)) as OperatorUser;
    // A new or removed password ends the user's console sessions: whoever signed in with the old one is out.
    // Disabling ends them too (issue 25, item 10), so enabling the user again revives no old cookie.
    if (input.password !== undefined || input.disabled === true) await endUserConsoleSessions(tx, id, now);
    const diff = auditDiff(audited(before), audited(after));
    if (diff.changed || input.password !== undefined) {
      await appendAudit(tx, {
        actor, action: 'user.update', objectType: 'user', objectId: id, before: diff.before, after: diff.after,
        details: input.password === undefined ? undefined : { password: input.password === null ? 'removed' : 'changed' },
      }, now);
    }
    return after;
  });
}

const DATE_TIME_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** A token's expiry (issue 25, item 15): a date-time with its zone, after the token is issued. */
function expiryOf(text: string | undefined, now: Date): Date | undefined {
  if (text === undefined) return undefined;
  const at = DATE_TIME_WITH_ZONE.test(text) ? new Date(text) : undefined;
  if (!at || Number.isNaN(at.getTime())) throw GatewayError.field('expires_at', MESSAGES.notValid);
  if (at.getTime() <= now.getTime()) throw GatewayError.field('expires_at', 'The expiry must be in the future.');
  return at;
}

export async function createOperatorToken(db: Database, actor: AuditActor, userId: string, name: string, now: Date, expiresAtText?: string): Promise<(IssuedToken & { row: OperatorToken }) | undefined> {
  const expiresAt = expiryOf(expiresAtText, now);
  return db.transaction(async (tx) => {
    if (!(await findOperatorUser(tx, userId))) return undefined;
    const issued = await issueOperatorToken(tx, userId, name, undefined, expiresAt);
    const row = (await findOperatorToken(tx, userId, issued.id)) as OperatorToken;
    const after = { user_id: userId, name, prefix: issued.prefix, ...(expiresAt ? { expires_at: expiresAt.toISOString() } : {}) };
    await appendAudit(tx, { actor, action: 'token.create', objectType: 'token', objectId: issued.id, after }, now);
    return { ...issued, row };
  });
}

export type RevokeOutcome = { revoked: OperatorToken } | { already: OperatorToken } | undefined;

export async function revokeOperatorTokenById(db: Database, actor: AuditActor, userId: string, tokenId: string, now: Date): Promise<RevokeOutcome> {
  return db.transaction(async (tx) => {
    const revoked = await revokeOperatorToken(tx, userId, tokenId, now);
    if (!revoked) {
      const existing = await findOperatorToken(tx, userId, tokenId);
      return existing && { already: existing };
    }
    await appendAudit(tx, {
      actor, action: 'token.revoke', objectType: 'token', objectId: tokenId,
      before: { user_id: userId, name: revoked.name, prefix: revoked.prefix, revoked_at: null },
      after: { user_id: userId, name: revoked.name, prefix: revoked.prefix, revoked_at: now.toISOString() },
    }, now);
    return { revoked };
  });
}

export { listOperatorTokens };
