/** Two-factor sign-in's rows (migration 121): a sealed TOTP secret per user, and recovery code digests. */
import type { Sql } from './database.ts';
import type { SealedSecret } from '../domain/secret.ts';

/** The envelope of a user's TOTP secret is bound to its row: copied to another, it no longer opens. */
export const twoFactorOwner = (id: string): readonly string[] => ['two_factor', id, 'secret'];

export interface TwoFactorRow {
  id: string;
  secret: SealedSecret;
  enabledAt: Date | null;
  lastTimeStep: number | null;
}

export async function findTwoFactor(sql: Sql, id: string): Promise<TwoFactorRow | undefined> {
  const [row] = await sql.query<{ id: string; secret: SealedSecret; enabled_at: Date | null; last_time_step: string | number | null }>(
    'SELECT id, secret, enabled_at, last_time_step FROM two_factor WHERE id = $1', [id]);
  return row && { id: row.id, secret: row.secret, enabledAt: row.enabled_at && new Date(row.enabled_at), lastTimeStep: row.last_time_step === null ? null : Number(row.last_time_step) };
}

/** Starts (or restarts) a set-up with a new secret; refused (false) once two-factor sign-in is on. */
export async function startTwoFactor(sql: Sql, id: string, secret: SealedSecret, now: Date): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO two_factor (id, secret, created_at) VALUES ($1, $2::jsonb, $3)
     ON CONFLICT (id) DO UPDATE SET secret = EXCLUDED.secret, created_at = EXCLUDED.created_at, last_time_step = NULL
       WHERE two_factor.enabled_at IS NULL
     RETURNING id`,
    [id, JSON.stringify(secret), now],
  );
  return rows.length === 1;
}

/** Switches it on with the first accepted code's step (compare-and-set: a set-up is confirmed once). */
export async function enableTwoFactor(sql: Sql, id: string, timeStep: number, now: Date): Promise<boolean> {
  const rows = await sql.query('UPDATE two_factor SET enabled_at = $2, last_time_step = $3 WHERE id = $1 AND enabled_at IS NULL RETURNING id', [id, now, timeStep]);
  return rows.length === 1;
}

/** Records a code's step as used, if no later or equal step was (compare-and-set: each code works once). */
export async function useTimeStep(sql: Sql, id: string, timeStep: number): Promise<boolean> {
  const rows = await sql.query(
    'UPDATE two_factor SET last_time_step = $2 WHERE id = $1 AND enabled_at IS NOT NULL AND (last_time_step IS NULL OR last_time_step < $2) RETURNING id',
    [id, timeStep],
  );
  return rows.length === 1;
}

export async function replaceRecoveryCodes(sql: Sql, id: string, digests: readonly Buffer[]): Promise<void> {
  await sql.query('DELETE FROM two_factor_recovery_codes WHERE two_factor_id = $1', [id]);
  for (const digest of digests) await sql.query('INSERT INTO two_factor_recovery_codes (two_factor_id, code_digest) VALUES ($1, $2)', [id, digest]);
}

/** Uses a recovery code once (compare-and-set on used_at). */
export async function useRecoveryCode(sql: Sql, id: string, digest: Buffer, now: Date): Promise<boolean> {
  const rows = await sql.query(
    'UPDATE two_factor_recovery_codes SET used_at = $3 WHERE two_factor_id = $1 AND code_digest = $2 AND used_at IS NULL RETURNING code_digest',
    [id, digest, now],
  );
  return rows.length === 1;
}

export async function recoveryCodesLeft(sql: Sql, id: string): Promise<number> {
  const [row] = await sql.query<{ n: string | number }>('SELECT count(*) AS n FROM two_factor_recovery_codes WHERE two_factor_id = $1 AND used_at IS NULL', [id]);
  return Number(row?.n ?? 0);
}

export async function deleteTwoFactor(sql: Sql, id: string): Promise<void> {
  await sql.query('DELETE FROM two_factor WHERE id = $1', [id]);
}

/** The sessions table of each kind of user, for the session's enrolment flag (fixed names, never input). */
const SESSIONS_TABLE = { operator: 'console_sessions', merchant: 'portal_sessions' } as const;

/** The session may do everything now: its user just set up two-factor sign-in in it. */
export async function clearSessionEnrolment(sql: Sql, kind: keyof typeof SESSIONS_TABLE, sessionId: string): Promise<void> {
  await sql.query(`UPDATE ${SESSIONS_TABLE[kind]} SET needs_enrolment = false WHERE id = $1`, [sessionId]);
}
