/**
 * The admin API's queries on merchants (issue 11): pages, search, the admin-editable columns, disable and
 * password rotation. The merchant channels read merchants through MerchantDirectory (merchants-repo.ts).
 */
import type { Sql } from './database.ts';
import { sealMerchantPassword, toMerchant, type MerchantRow } from './merchants-repo.ts';
import type { Keyring } from './card-vault.ts';
import type { Merchant } from '../domain/model/merchant.ts';
import type { Digest } from '../domain/signatures.ts';

export interface MerchantRecord extends Merchant {
  createdAt: Date;
  updatedAt: Date;
  /** On a test-key merchant: the live merchant whose test key it is (issue 25, item 26). */
  liveMerchantId: string | null;
  /** On a live merchant: its test-key merchant, if it was given one. */
  testMerchantId: string | null;
}

/** Object.assign keeps toMerchant's lazy password getters (a spread would open the passwords at once). */
const toRecord = (r: MerchantRow & { test_merchant_id?: string | null }, keyring: Keyring): MerchantRecord => Object.assign(toMerchant(r, keyring), {
  createdAt: new Date(r.created_at), updatedAt: new Date(r.updated_at), liveMerchantId: r.live_merchant_id ?? null, testMerchantId: r.test_merchant_id ?? null,
});

/** A merchant's columns and the id of its test-key merchant (issue 25, item 26). */
const RECORD_COLUMNS = 'merchants.*, (SELECT t.id FROM merchants t WHERE t.live_merchant_id = merchants.id) AS test_merchant_id';

export async function findMerchantRecord(sql: Sql, keyring: Keyring, id: string, forUpdate = false): Promise<MerchantRecord | undefined> {
  const [row] = await sql.query<MerchantRow>(`SELECT ${RECORD_COLUMNS} FROM merchants WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return row && toRecord(row, keyring);
}

/** Marks a (sandbox) merchant as the test key of a live one. */
export async function linkTestKey(sql: Sql, testId: string, liveId: string): Promise<void> {
  await sql.query('UPDATE merchants SET live_merchant_id = $2 WHERE id = $1', [testId, liveId]);
}

export interface MerchantQuery {
  /** Part of the name (case-insensitive) or the exact merchant key. */
  search?: string;
  disabled?: boolean;
  /** Issue 25, item 26: test keys (sandbox merchants) only, or live keys only. */
  mode?: 'test' | 'live';
  /** Id of the last merchant of the previous page: ids are UUIDv7, so id order is creation order. */
  beforeId?: string;
  limit: number;
}

const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listMerchantRecords(sql: Sql, keyring: Keyring, q: MerchantQuery): Promise<MerchantRecord[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.search !== undefined) {
    params.push(likePattern(q.search), q.search);
    where.push(`(name ILIKE $${params.length - 1} OR merchant_key = $${params.length})`);
  }
  if (q.disabled !== undefined) {
    params.push(q.disabled);
    where.push(`disabled = $${params.length}`);
  }
  if (q.mode !== undefined) where.push(q.mode === 'test' ? 'sandbox' : 'NOT sandbox');
  if (q.beforeId !== undefined) {
    params.push(q.beforeId);
    where.push(`id < $${params.length}`);
  }
  params.push(q.limit);
  const rows = await sql.query<MerchantRow>(
    `SELECT ${RECORD_COLUMNS} FROM merchants ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${params.length}`,
    params,
  );
  return rows.map((r) => toRecord(r, keyring));
}

export interface MerchantPatch {
  name?: string;
  /** null clears it. */
  notificationUrl?: string | null;
  sandbox?: boolean;
  digest?: Digest;
  disabled?: boolean;
}

export async function updateMerchantRecord(sql: Sql, keyring: Keyring, id: string, patch: MerchantPatch, now: Date): Promise<MerchantRecord | undefined> {
  const [row] = await sql.query<MerchantRow>(
    `UPDATE merchants SET name = COALESCE($2, name),
       notification_url = CASE WHEN $3::boolean THEN $4 ELSE notification_url END,
       sandbox = COALESCE($5, sandbox), hash_algorithm = COALESCE($6, hash_algorithm), disabled = COALESCE($7, disabled),
       updated_at = $8
     WHERE id = $1 RETURNING ${RECORD_COLUMNS}`,
    [id, patch.name ?? null, patch.notificationUrl !== undefined, patch.notificationUrl ?? null, patch.sandbox ?? null,
      patch.digest ?? null, patch.disabled ?? null, now.toISOString()],
  );
  return row && toRecord(row, keyring);
}

/**
 * The new password becomes current; `previous` (the one it replaces, read by the caller under the row lock) is
 * accepted until `previousUntil` (null: not at all). Both sealed; each envelope is bound to its own field.
 */
export async function rotateMerchantPassword(sql: Sql, keyring: Keyring, id: string, password: string, previous: string, previousUntil: Date | null, now: Date): Promise<MerchantRecord | undefined> {
  const sealedPrevious = previousUntil === null ? null : JSON.stringify(sealMerchantPassword(keyring, id, 'previous_password', previous));
  const [row] = await sql.query<MerchantRow>(
    `UPDATE merchants SET sealed_previous_password = $3::jsonb, previous_password = NULL, password = NULL,
       previous_password_expires_at = $4, sealed_password = $2::jsonb, updated_at = $5
     WHERE id = $1 RETURNING ${RECORD_COLUMNS}`,
    [id, JSON.stringify(sealMerchantPassword(keyring, id, 'password', password)), sealedPrevious, previousUntil?.toISOString() ?? null, now.toISOString()],
  );
  return row && toRecord(row, keyring);
}
