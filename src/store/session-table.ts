/**
 * The cookie sessions of the console (console_sessions, migration 015) and of the merchant portal (portal_sessions,
 * migration 120): one kind of row in two tables, each joined to its own users. This is their one implementation,
 * parameterised by the table and by what a session reads of its user; console-sessions-repo.ts and
 * portal-sessions-repo.ts name their table's functions.
 */
import type { Sql } from './database.ts';

/** What every session holds, beside what it reads of its user. */
export interface SessionFields {
  id: string;
  userId: string;
  csrfToken: string;
  lastSeenAt: Date;
  expiresAt: Date;
  /** Two-factor sign-in is mandatory and the user has not set it up: the session may only do that. */
  needsEnrolment: boolean;
}

export interface NewSession {
  id: string;
  digest: Buffer;
  userId: string;
  csrfToken: string;
  now: Date;
  expiresAt: Date;
  needsEnrolment?: boolean;
}

interface SessionRow {
  id: string; user_id: string; csrf_token: string; last_seen_at: Date; expires_at: Date; needs_enrolment: boolean;
}

/** A sessions table and its users: the users' table, the columns a session reads of its user, and their mapping. */
export interface SessionTableSpec<U, R> {
  table: 'console_sessions' | 'portal_sessions';
  users: 'operator_users' | 'merchant_users';
  userColumns: readonly (keyof R & string)[];
  user(row: R): U;
}

export function sessionTable<U, R>(spec: SessionTableSpec<U, R>) {
  const { table } = spec;
  const userColumns = spec.userColumns.map((c) => `u.${c}`).join(', ');
  return {
    async insert(sql: Sql, s: NewSession): Promise<void> {
      await sql.query(
        `INSERT INTO ${table} (id, secret_digest, user_id, csrf_token, created_at, last_seen_at, expires_at, needs_enrolment)
         VALUES ($1, $2, $3, $4, $5, $5, $6, $7)`,
        [s.id, s.digest, s.userId, s.csrfToken, s.now, s.expiresAt, s.needsEnrolment ?? false],
      );
    },

    /** The live session of a secret's digest (not ended), joined to its enabled user. */
    async find(sql: Sql, digest: Buffer): Promise<(SessionFields & U) | undefined> {
      const [row] = await sql.query<SessionRow & R>(
        `SELECT s.id, s.user_id, ${userColumns}, s.csrf_token, s.last_seen_at, s.expires_at, s.needs_enrolment
           FROM ${table} s JOIN ${spec.users} u ON u.id = s.user_id
          WHERE s.secret_digest = $1 AND s.ended_at IS NULL AND NOT u.disabled`,
        [digest],
      );
      return row && {
        id: row.id, userId: row.user_id, ...spec.user(row), csrfToken: row.csrf_token,
        lastSeenAt: new Date(row.last_seen_at), expiresAt: new Date(row.expires_at), needsEnrolment: row.needs_enrolment === true,
      };
    },

    /**
     * Records activity, unless another request did within `minIntervalMs` (a compare-and-set on the time), and never
     * for a session already idle longer than `idleMs`: a request read just before the cutoff cannot revive it.
     */
    async touch(sql: Sql, id: string, now: Date, minIntervalMs: number, idleMs: number): Promise<boolean> {
      const [row] = await sql.query<{ id: string }>(
        `UPDATE ${table} SET last_seen_at = $2 WHERE id = $1 AND ended_at IS NULL AND last_seen_at <= $3 AND last_seen_at > $4 RETURNING id`,
        [id, now, new Date(now.getTime() - minIntervalMs), new Date(now.getTime() - idleMs)],
      );
      return row !== undefined;
    },

    async end(sql: Sql, id: string, now: Date): Promise<void> {
      await sql.query(`UPDATE ${table} SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL`, [id, now]);
    },

    /** Ends every session of a user (disabled, or the password or second factor changed), but `except`. */
    async endUser(sql: Sql, userId: string, now: Date, except?: string): Promise<void> {
      await sql.query(`UPDATE ${table} SET ended_at = $2 WHERE user_id = $1 AND ended_at IS NULL AND id IS DISTINCT FROM $3`, [userId, now, except ?? null]);
    },

    /**
     * Deletes sessions that can never be used again: signed out, past their absolute end, or idle longer than
     * `idleMs` (the guard refuses those already). Run at each sign-in, so the table holds live sessions only.
     */
    async purgeDead(sql: Sql, now: Date, idleMs: number): Promise<number> {
      const rows = await sql.query<{ id: string }>(
        `DELETE FROM ${table} WHERE ended_at IS NOT NULL OR expires_at <= $1 OR last_seen_at <= $2 RETURNING id`,
        [now, new Date(now.getTime() - idleMs)],
      );
      return rows.length;
    },
  };
}
