/** The console's sessions (migration 015): found by the digest of the cookie's secret, joined to an enabled user. */
import type { Sql } from './database.ts';
import type { Role } from '../domain/admin-roles.ts';
import { sessionTable, type SessionFields } from './session-table.ts';

export interface ConsoleSession extends SessionFields {
  name: string;
  email: string;
  role: Role;
}

const SESSIONS = sessionTable({
  table: 'console_sessions',
  users: 'operator_users',
  userColumns: ['name', 'email', 'role'],
  user: (row: { name: string; email: string; role: Role }) => ({ name: row.name, email: row.email, role: row.role }),
});

export const insertConsoleSession = SESSIONS.insert;
export const findConsoleSession: (sql: Sql, digest: Buffer) => Promise<ConsoleSession | undefined> = SESSIONS.find;
/** Records activity at most once per `minIntervalMs`, never reviving a session idle longer than `idleMs`. */
export const touchConsoleSession = SESSIONS.touch;
export const endConsoleSession = SESSIONS.end;

/** Ends every session of a user (their password changed, or they were disabled). */
export async function endUserConsoleSessions(sql: Sql, userId: string, now: Date): Promise<void> {
  await SESSIONS.endUser(sql, userId, now);
}

/** The user an e-mail signs in as, with the password digest (never leaves the sign-in service). */
export async function findSignInUser(sql: Sql, email: string): Promise<{ id: string; passwordHash: string | null } | undefined> {
  const [row] = await sql.query<{ id: string; password_hash: string | null }>(
    'SELECT id, password_hash FROM operator_users WHERE lower(email) = lower($1) AND NOT disabled',
    [email],
  );
  return row && { id: row.id, passwordHash: row.password_hash };
}

/** Deletes sessions that can never be used again (signed out, expired, idle), at each sign-in; answers how many. */
export const purgeDeadConsoleSessions = SESSIONS.purgeDead;
