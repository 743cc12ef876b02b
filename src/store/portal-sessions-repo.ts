/** The merchant portal's sessions (migration 120): found by the digest of the cookie's secret, joined to an enabled user. */
import type { Sql } from './database.ts';
import type { MerchantRole } from '../domain/merchant-roles.ts';
import type { MerchantUserFields } from './merchant-users-repo.ts';

export interface PortalSession extends MerchantUserFields {
  id: string;
  userId: string;
  csrfToken: string;
  lastSeenAt: Date;
  expiresAt: Date;
  /** Two-factor sign-in is mandatory and the user has not set it up: the session may only do that. */
  needsEnrolment: boolean;
}

export async function insertPortalSession(sql: Sql, s: { id: string; digest: Buffer; userId: string; csrfToken: string; now: Date; expiresAt: Date; needsEnrolment: boolean }): Promise<void> {
  await sql.query(
    `INSERT INTO portal_sessions (id, secret_digest, user_id, csrf_token, created_at, last_seen_at, expires_at, needs_enrolment)
     VALUES ($1, $2, $3, $4, $5, $5, $6, $7)`,
    [s.id, s.digest, s.userId, s.csrfToken, s.now, s.expiresAt, s.needsEnrolment],
  );
}

interface Row {
  id: string; user_id: string; email: string; name: string; role: MerchantRole; merchant_id: string | null; group_id: string | null;
  csrf_token: string; last_seen_at: Date; expires_at: Date; needs_enrolment: boolean;
}

export async function findPortalSession(sql: Sql, digest: Buffer): Promise<PortalSession | undefined> {
  const [row] = await sql.query<Row>(
    `SELECT s.id, s.user_id, u.email, u.name, u.role, u.merchant_id, u.group_id, s.csrf_token, s.last_seen_at, s.expires_at, s.needs_enrolment
       FROM portal_sessions s JOIN merchant_users u ON u.id = s.user_id
      WHERE s.secret_digest = $1 AND s.ended_at IS NULL AND NOT u.disabled`,
    [digest],
  );
  return row && {
    id: row.id, userId: row.user_id, email: row.email, name: row.name, role: row.role, merchantId: row.merchant_id, groupId: row.group_id,
    csrfToken: row.csrf_token, lastSeenAt: new Date(row.last_seen_at), expiresAt: new Date(row.expires_at), needsEnrolment: row.needs_enrolment,
  };
}

/** Records activity as touchConsoleSession does: at most once per `minIntervalMs`, never reviving an idle session. */
export async function touchPortalSession(sql: Sql, id: string, now: Date, minIntervalMs: number, idleMs: number): Promise<boolean> {
  const [row] = await sql.query<{ id: string }>(
    'UPDATE portal_sessions SET last_seen_at = $2 WHERE id = $1 AND ended_at IS NULL AND last_seen_at <= $3 AND last_seen_at > $4 RETURNING id',
    [id, now, new Date(now.getTime() - minIntervalMs), new Date(now.getTime() - idleMs)],
  );
  return row !== undefined;
}


export async function endPortalSession(sql: Sql, id: string, now: Date): Promise<void> {
  await sql.query('UPDATE portal_sessions SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL', [id, now]);
}

/** Ends every session of a user (disabled, or the password or second factor changed). */
export async function endUserPortalSessions(sql: Sql, userId: string, now: Date, except?: string): Promise<void> {
  await sql.query('UPDATE portal_sessions SET ended_at = $2 WHERE user_id = $1 AND ended_at IS NULL AND id IS DISTINCT FROM $3', [userId, now, except ?? null]);
}

/** Deletes sessions that can never be used again (signed out, expired, idle), at each sign-in. */
export async function purgeDeadPortalSessions(sql: Sql, now: Date, idleMs: number): Promise<void> {
  await sql.query('DELETE FROM portal_sessions WHERE ended_at IS NOT NULL OR expires_at <= $1 OR last_seen_at <= $2', [now, new Date(now.getTime() - idleMs)]);
}
