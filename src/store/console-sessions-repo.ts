/** The console's sessions (migration 015): found by the digest of the cookie's secret, joined to an enabled user. */
import type { Sql } from './database.ts';
import type { Role } from '../domain/admin-roles.ts';

export interface ConsoleSession {
  id: string;
  userId: string;
  name: string;
  email: string;
  role: Role;
  csrfToken: string;
  lastSeenAt: Date;
  expiresAt: Date;
  /** Two-factor sign-in is mandatory and the operator has not set it up: the session may only do that. */
  needsEnrolment: boolean;
}

export interface NewConsoleSession {
  id: string;
  digest: Buffer;
  userId: string;
  csrfToken: string;
  now: Date;
  expiresAt: Date;
  needsEnrolment?: boolean;
}

export async function insertConsoleSession(sql: Sql, s: NewConsoleSession): Promise<void> {
  await sql.query(
    `INSERT INTO console_sessions (id, secret_digest, user_id, csrf_token, created_at, last_seen_at, expires_at, needs_enrolment)
     VALUES ($1, $2, $3, $4, $5, $5, $6, $7)`,
    [s.id, s.digest, s.userId, s.csrfToken, s.now, s.expiresAt, s.needsEnrolment ?? false],
  );
}

interface Row {
  id: string; user_id: string; name: string; email: string; role: Role; csrf_token: string; last_seen_at: Date; expires_at: Date; needs_enrolment: boolean;
}

export async function findConsoleSession(sql: Sql, digest: Buffer): Promise<ConsoleSession | undefined> {
  const [row] = await sql.query<Row>(
    `SELECT s.id, s.user_id, u.name, u.email, u.role, s.csrf_token, s.last_seen_at, s.expires_at, s.needs_enrolment
       FROM console_sessions s JOIN operator_users u ON u.id = s.user_id
      WHERE s.secret_digest = $1 AND s.ended_at IS NULL AND NOT u.disabled`,
    [digest],
  );
  return row && {
    id: row.id, userId: row.user_id, name: row.name, email: row.email, role: row.role, csrfToken: row.csrf_token,
    lastSeenAt: new Date(row.last_seen_at), expiresAt: new Date(row.expires_at), needsEnrolment: row.needs_enrolment === true,
  };
}

/**
 * Records activity, unless another request did within `minIntervalMs` (a compare-and-set on the time), and never
 * for a session already idle longer than `idleMs`: a request read just before the cutoff cannot revive it.
 */
export async function touchConsoleSession(sql: Sql, id: string, now: Date, minIntervalMs: number, idleMs: number): Promise<boolean> {
  const [row] = await sql.query<{ id: string }>(
    'UPDATE console_sessions SET last_seen_at = $2 WHERE id = $1 AND ended_at IS NULL AND last_seen_at <= $3 AND last_seen_at > $4 RETURNING id',
    [id, now, new Date(now.getTime() - minIntervalMs), new Date(now.getTime() - idleMs)],
  );
  return row !== undefined;
}

export async function endConsoleSession(sql: Sql, id: string, now: Date): Promise<void> {
  await sql.query('UPDATE console_sessions SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL', [id, now]);
}

/** Ends every session of a user (their password changed, or they were disabled). */
export async function endUserConsoleSessions(sql: Sql, userId: string, now: Date): Promise<void> {
  await sql.query('UPDATE console_sessions SET ended_at = $2 WHERE user_id = $1 AND ended_at IS NULL', [userId, now]);
}

/** The user an e-mail signs in as, with the password digest (never leaves the sign-in service). */
export async function findSignInUser(sql: Sql, email: string): Promise<{ id: string; passwordHash: string | null } | undefined> {
  const [row] = await sql.query<{ id: string; password_hash: string | null }>(
    'SELECT id, password_hash FROM operator_users WHERE lower(email) = lower($1) AND NOT disabled',
    [email],
  );
  return row && { id: row.id, passwordHash: row.password_hash };
}

/**
 * Deletes sessions that can never be used again: signed out, past their absolute end, or idle longer than
 * `idleMs` (the guard refuses those already). Run at each sign-in, so the table holds live sessions only.
 */
export async function purgeDeadConsoleSessions(sql: Sql, now: Date, idleMs: number): Promise<number> {
  const rows = await sql.query<{ id: string }>(
    'DELETE FROM console_sessions WHERE ended_at IS NOT NULL OR expires_at <= $1 OR last_seen_at <= $2 RETURNING id',
    [now, new Date(now.getTime() - idleMs)],
  );
  return rows.length;
}
