/**
 * Idempotency keys kept by services that answer per item (the bulk refund of issue 31): the same table as the
 * request-level `Idempotency-Key` (channels/idempotency.ts), under a scope and key prefix of their own. A key is
 * taken before its work runs, its answer written after; a key whose answer was never written is in progress.
 */
import type { Sql } from './database.ts';

export interface KeptAnswer {
  requestHash: string;
  /** null while the work runs (or when it died before its answer was written). */
  statusCode: number | null;
  responseBody: string | null;
}

/** Takes the key; undefined when taken now, else what is kept under it. */
export async function takeKey(sql: Sql, scope: string, key: string, requestHash: string, now: Date): Promise<KeptAnswer | undefined> {
  const inserted = await sql.query(
    `INSERT INTO idempotency_keys (merchant_id, key, request_hash, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (merchant_id, key) DO NOTHING RETURNING key`,
    [scope, key, requestHash, now],
  );
  if (inserted.length === 1) return undefined;
  const [kept] = await sql.query<{ request_hash: string; status_code: number | null; response_body: string | null }>(
    'SELECT request_hash, status_code, response_body FROM idempotency_keys WHERE merchant_id = $1 AND key = $2',
    [scope, key],
  );
  // Deleted between the two statements (a refusal that frees its key): in progress as far as this caller knows.
  return kept ? { requestHash: kept.request_hash, statusCode: kept.status_code, responseBody: kept.response_body } : { requestHash: requestHash, statusCode: null, responseBody: null };
}

export async function keepAnswer(sql: Sql, scope: string, key: string, statusCode: number, responseBody: string): Promise<void> {
  await sql.query('UPDATE idempotency_keys SET status_code = $3, response_body = $4 WHERE merchant_id = $1 AND key = $2', [scope, key, statusCode, responseBody]);
}

/** Frees a key whose work was refused before it ran: the corrected item may use it again. */
export async function freeKey(sql: Sql, scope: string, key: string): Promise<void> {
  await sql.query('DELETE FROM idempotency_keys WHERE merchant_id = $1 AND key = $2', [scope, key]);
}
