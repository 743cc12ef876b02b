/**
 * MIDs as the admin API changes them (issue 11). Reads go through merchants-repo's Mid shape; writes take the
 * row lock first (SELECT ... FOR UPDATE), so two operators' changes apply one after the other, never mixed.
 */
import type { Sql } from './database.ts';
import { listMids } from './merchants-repo.ts';
import type { Mid, PaymentMode } from '../domain/model/mid.ts';
import type { SealedSecret } from '../domain/secret.ts';
import type { DailyCaps } from '../domain/volume-caps.ts';

/** The MID of a merchant, its row locked for the transaction's change when `forUpdate`. */
export async function findMerchantMid(sql: Sql, merchantId: string, midId: string, forUpdate = false): Promise<Mid | undefined> {
  if (forUpdate) await sql.query('SELECT 1 FROM mids WHERE id = $1 AND merchant_id = $2 FOR UPDATE', [midId, merchantId]);
  return (await listMids(sql, merchantId)).find((m) => m.id === midId);
}

/** Every stored property of a MID that the admin API may change. */
export interface MidChanges {
  name: string;
  paymentMode: PaymentMode;
  priority: number;
  enabled: boolean;
  currencies: string[] | null;
  minAmount: string | null;
  maxAmount: string | null;
  dailyCaps: DailyCaps | null;
  descriptor: string | null;
  cardOnFileSupport: boolean;
  settings: Record<string, unknown>;
  sealedCredentials: SealedSecret | null;
}

export async function updateMid(sql: Sql, id: string, m: MidChanges, now: Date): Promise<void> {
  await sql.query(
    `UPDATE mids SET name = $2, payment_mode = $3, priority = $4, enabled = $5, currencies = $6, min_amount = $7,
       max_amount = $8, descriptor = $9, card_on_file_support = $10, settings = $11::jsonb, credentials = $12::jsonb, updated_at = $13,
       daily_caps = $14::jsonb
     WHERE id = $1`,
    [id, m.name, m.paymentMode, m.priority, m.enabled, m.currencies, m.minAmount, m.maxAmount, m.descriptor, m.cardOnFileSupport,
      JSON.stringify(m.settings), m.sealedCredentials ? JSON.stringify(m.sealedCredentials) : null, now.toISOString(),
      m.dailyCaps ? JSON.stringify(m.dailyCaps) : null],
  );
}

export async function setMidPriority(sql: Sql, id: string, priority: number, now: Date): Promise<void> {
  await sql.query('UPDATE mids SET priority = $2, updated_at = $3 WHERE id = $1', [id, priority, now.toISOString()]);
}

/** Locks every MID of a merchant (a reorder changes them together). */
export async function lockMerchantMids(sql: Sql, merchantId: string): Promise<void> {
  await sql.query('SELECT id FROM mids WHERE merchant_id = $1 ORDER BY id FOR UPDATE', [merchantId]);
}
