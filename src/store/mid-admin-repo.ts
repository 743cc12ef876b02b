/**
 * MIDs as the admin API changes them (issue 11). Reads go through merchants-repo's Mid shape; writes take the
 * row lock first (SELECT ... FOR UPDATE), so two operators' changes apply one after the other, never mixed.
 */
import type { Sql } from './database.ts';
import { listMids, midCast, midColumn, midParam } from './merchants-repo.ts';
import { MID_CHANGEABLE, type Mid, type MidChangeable } from '../domain/model/mid.ts';
import type { SealedSecret } from '../domain/secret.ts';

/** The MID of a merchant, its row locked for the transaction's change when `forUpdate`. */
export async function findMerchantMid(sql: Sql, merchantId: string, midId: string, forUpdate = false): Promise<Mid | undefined> {
  if (forUpdate) await sql.query('SELECT 1 FROM mids WHERE id = $1 AND merchant_id = $2 FOR UPDATE', [midId, merchantId]);
  return (await listMids(sql, merchantId)).find((m) => m.id === midId);
}

/** Every stored property of a MID that the admin API may change. */
export type MidChanges = MidChangeable & { sealedCredentials: SealedSecret | null };

export async function updateMid(sql: Sql, id: string, m: MidChanges, now: Date): Promise<void> {
  const sets = MID_CHANGEABLE.map((k, i) => `${midColumn(k)} = $${i + 2}${midCast(k)}`);
  const next = MID_CHANGEABLE.length + 2;
  await sql.query(
    `UPDATE mids SET ${sets.join(', ')}, credentials = $${next}::jsonb, updated_at = $${next + 1} WHERE id = $1`,
    [id, ...MID_CHANGEABLE.map((k) => midParam(k, m[k])), m.sealedCredentials ? JSON.stringify(m.sealedCredentials) : null, now.toISOString()],
  );
}

export async function setMidPriority(sql: Sql, id: string, priority: number, now: Date): Promise<void> {
  await sql.query('UPDATE mids SET priority = $2, updated_at = $3 WHERE id = $1', [id, priority, now.toISOString()]);
}

/** Locks every MID of a merchant (a reorder changes them together). */
export async function lockMerchantMids(sql: Sql, merchantId: string): Promise<void> {
  await sql.query('SELECT id FROM mids WHERE merchant_id = $1 ORDER BY id FOR UPDATE', [merchantId]);
}
