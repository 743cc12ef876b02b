/** Operator users and their API tokens (issue 11). Tokens are found by digest; a revoked token or a disabled user finds nothing. */
import type { Sql } from './database.ts';
import type { Role } from '../domain/admin-roles.ts';

export interface Operator {
  userId: string;
  name: string;
  email: string;
  role: Role;
  tokenId: string;
  /** When the token was last seen (updated at most once a minute); null: never. */
  tokenLastUsedAt: Date | null;
}

export interface NewOperatorUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  passwordHash?: string;
}

export interface NewOperatorToken {
  id: string;
  userId: string;
  name: string;
  digest: Buffer;
  prefix: string;
  /** Past this the token authenticates nothing; absent: it never expires. */
  expiresAt?: Date;
}

/** The operator of a live token: not revoked, not expired at `now`, of an enabled user. */
export async function findOperatorByTokenDigest(sql: Sql, digest: Buffer, now: Date): Promise<Operator | undefined> {
  const [row] = await sql.query<{ user_id: string; name: string; email: string; role: Role; token_id: string; last_used_at: Date | null }>(
    `SELECT u.id AS user_id, u.name, u.email, u.role, t.id AS token_id, t.last_used_at
       FROM operator_tokens t JOIN operator_users u ON u.id = t.user_id
      WHERE t.token_digest = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2) AND NOT u.disabled`,
    [digest, now],
  );
  return row && {
    userId: row.user_id, name: row.name, email: row.email, role: row.role, tokenId: row.token_id,
    tokenLastUsedAt: row.last_used_at ? new Date(row.last_used_at) : null,
  };
}

export async function countOperatorUsers(sql: Sql): Promise<number> {
  const [row] = await sql.query<{ n: bigint | number }>('SELECT count(*) AS n FROM operator_users');
  return Number(row?.n ?? 0);
}

export async function insertOperatorUser(sql: Sql, user: NewOperatorUser): Promise<void> {
  await sql.query(
    'INSERT INTO operator_users (id, email, name, role, password_hash) VALUES ($1, $2, $3, $4, $5)',
    [user.id, user.email, user.name, user.role, user.passwordHash ?? null],
  );
}

export async function insertOperatorToken(sql: Sql, token: NewOperatorToken): Promise<void> {
  await sql.query(
    'INSERT INTO operator_tokens (id, user_id, name, token_digest, prefix, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [token.id, token.userId, token.name, token.digest, token.prefix, token.expiresAt ?? null],
  );
}

export interface OperatorUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  hasPassword: boolean;
  createdAt: Date;
  updatedAt: Date;
}

interface UserRow {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  has_password: boolean;
  created_at: Date;
  updated_at: Date;
}

const USER_COLUMNS = 'id, email, name, role, disabled, password_hash IS NOT NULL AS has_password, created_at, updated_at';

const toUser = (r: UserRow): OperatorUser => ({
  id: r.id, email: r.email, name: r.name, role: r.role, disabled: r.disabled, hasPassword: r.has_password,
  createdAt: new Date(r.created_at), updatedAt: new Date(r.updated_at),
});

export async function listOperatorUsers(sql: Sql): Promise<OperatorUser[]> {
  return (await sql.query<UserRow>(`SELECT ${USER_COLUMNS} FROM operator_users ORDER BY created_at, id`)).map(toUser);
}

/** `forUpdate` locks the row for the rest of the transaction (changes are compare-and-set on what was read). */
export async function findOperatorUser(sql: Sql, id: string, forUpdate = false): Promise<OperatorUser | undefined> {
  const [row] = await sql.query<UserRow>(`SELECT ${USER_COLUMNS} FROM operator_users WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return row && toUser(row);
}

export async function findOperatorUserByEmail(sql: Sql, email: string): Promise<OperatorUser | undefined> {
  const [row] = await sql.query<UserRow>(`SELECT ${USER_COLUMNS} FROM operator_users WHERE lower(email) = lower($1)`, [email]);
  return row && toUser(row);
}

/** The stored digest of a user's console password; undefined when the user has none or does not exist. */
export async function operatorPasswordHash(sql: Sql, email: string): Promise<string | undefined> {
  const [row] = await sql.query<{ password_hash: string | null }>('SELECT password_hash FROM operator_users WHERE lower(email) = lower($1)', [email]);
  return row?.password_hash ?? undefined;
}

/** Ids of the enabled admins, locked: two requests demoting the last two admins cannot both pass the check. */
export async function lockEnabledAdmins(sql: Sql): Promise<string[]> {
  const rows = await sql.query<{ id: string }>("SELECT id FROM operator_users WHERE role = 'admin' AND NOT disabled ORDER BY id FOR UPDATE");
  return rows.map((r) => r.id);
}

export interface OperatorUserPatch {
  name?: string;
  role?: Role;
  disabled?: boolean;
  /** A new scrypt digest; null removes the password (token sign-in only). */
  passwordHash?: string | null;
}

export async function updateOperatorUser(sql: Sql, id: string, patch: OperatorUserPatch, now: Date): Promise<OperatorUser | undefined> {
  const [row] = await sql.query<UserRow>(
    `UPDATE operator_users SET name = COALESCE($2, name), role = COALESCE($3, role), disabled = COALESCE($4, disabled),
       password_hash = CASE WHEN $5::boolean THEN $6 ELSE password_hash END, updated_at = $7
     WHERE id = $1 RETURNING ${USER_COLUMNS}`,
    [id, patch.name ?? null, patch.role ?? null, patch.disabled ?? null, patch.passwordHash !== undefined, patch.passwordHash ?? null, now.toISOString()],
  );
  return row && toUser(row);
}

export interface OperatorToken {
  id: string;
  userId: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date | null;
}

interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  expires_at: Date | null;
}

const TOKEN_COLUMNS = 'id, user_id, name, prefix, created_at, last_used_at, revoked_at, expires_at';
const dateOrNull = (d: Date | string | null) => (d ? new Date(d) : null);
const toToken = (r: TokenRow): OperatorToken => ({
  id: r.id, userId: r.user_id, name: r.name, prefix: r.prefix, createdAt: new Date(r.created_at),
  lastUsedAt: dateOrNull(r.last_used_at), revokedAt: dateOrNull(r.revoked_at), expiresAt: dateOrNull(r.expires_at),
});

export async function listOperatorTokens(sql: Sql, userId: string): Promise<OperatorToken[]> {
  return (await sql.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM operator_tokens WHERE user_id = $1 ORDER BY created_at, id`, [userId])).map(toToken);
}

export async function findOperatorToken(sql: Sql, userId: string, tokenId: string): Promise<OperatorToken | undefined> {
  const [row] = await sql.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM operator_tokens WHERE user_id = $1 AND id = $2`, [userId, tokenId]);
  return row && toToken(row);
}

/** Revokes a token once; undefined when it was revoked already (the first revocation's time is kept). */
export async function revokeOperatorToken(sql: Sql, userId: string, tokenId: string, now: Date): Promise<OperatorToken | undefined> {
  const [row] = await sql.query<TokenRow>(
    `UPDATE operator_tokens SET revoked_at = $3 WHERE user_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING ${TOKEN_COLUMNS}`,
    [userId, tokenId, now.toISOString()],
  );
  return row && toToken(row);
}

/** Records a token's use; a no-op when another request recorded one less than `minIntervalMs` ago. */
export async function touchOperatorToken(sql: Sql, tokenId: string, now: Date, minIntervalMs: number): Promise<void> {
  await sql.query(
    'UPDATE operator_tokens SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $3)',
    [tokenId, now.toISOString(), new Date(now.getTime() - minIntervalMs).toISOString()],
  );
}
