/** Operator users and their API tokens (issue 11). Tokens are found by digest; a revoked token or a disabled user finds nothing. */
import type { Sql } from './database.ts';
import type { Role } from '../domain/admin-roles.ts';

export interface Operator {
  userId: string;
  name: string;
  email: string;
  role: Role;
  tokenId: string;
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
}

export async function findOperatorByTokenDigest(sql: Sql, digest: Buffer): Promise<Operator | undefined> {
  const [row] = await sql.query<{ user_id: string; name: string; email: string; role: Role; token_id: string }>(
    `SELECT u.id AS user_id, u.name, u.email, u.role, t.id AS token_id
       FROM operator_tokens t JOIN operator_users u ON u.id = t.user_id
      WHERE t.token_digest = $1 AND t.revoked_at IS NULL AND NOT u.disabled`,
    [digest],
  );
  return row && { userId: row.user_id, name: row.name, email: row.email, role: row.role, tokenId: row.token_id };
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
    'INSERT INTO operator_tokens (id, user_id, name, token_digest, prefix) VALUES ($1, $2, $3, $4, $5)',
    [token.id, token.userId, token.name, token.digest, token.prefix],
  );
}
