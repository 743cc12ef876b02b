/** Merchants' webhook signing secrets, sealed (sealed-secrets.ts); the plain secret never reaches the table. */
import type { Sql } from './database.ts';
import type { Keyring } from './card-vault.ts';
import { openSecret, sealSecret } from './sealed-secrets.ts';
import type { SealedSecret, Secret } from '../domain/secret.ts';

export const signingSecretOwner = (merchantId: string): readonly string[] => ['merchant', merchantId, 'signing_secret'];
const owner = signingSecretOwner;

export const sealSigningSecret = (keyring: Keyring, merchantId: string, secret: string): SealedSecret => sealSecret(keyring, { secret }, owner(merchantId));

function open(keyring: Keyring, merchantId: string, sealed: SealedSecret): Secret<string> {
  return openSecret(keyring, sealed, owner(merchantId)).map((f) => f.secret ?? '');
}

/** The secrets that sign now: the current one, and the previous one while its overlap lasts. */
export async function signingSecrets(sql: Sql, keyring: Keyring, merchantId: string, now: Date): Promise<Secret<string>[] | undefined> {
  const [row] = await sql.query<{ sealed: SealedSecret; previous_sealed: SealedSecret | null; previous_expires_at: Date | null }>(
    'SELECT sealed, previous_sealed, previous_expires_at FROM merchant_signing_secrets WHERE merchant_id = $1', [merchantId]);
  if (!row) return undefined;
  const secrets = [open(keyring, merchantId, row.sealed)];
  if (row.previous_sealed && row.previous_expires_at && new Date(row.previous_expires_at) > now) secrets.push(open(keyring, merchantId, row.previous_sealed));
  return secrets;
}

/** Stores a first secret for a merchant that has none; false when one exists (another node was first). */
export async function insertSigningSecret(sql: Sql, keyring: Keyring, merchantId: string, secret: string, now: Date): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO merchant_signing_secrets (merchant_id, sealed, created_at) VALUES ($1, $2::jsonb, $3)
     ON CONFLICT (merchant_id) DO NOTHING RETURNING merchant_id`,
    [merchantId, JSON.stringify(sealSigningSecret(keyring, merchantId, secret)), now]);
  return rows.length === 1;
}

/** Replaces the secret; the old one keeps signing beside it until `overlapUntil`. */
export async function replaceSigningSecret(sql: Sql, keyring: Keyring, merchantId: string, secret: string, now: Date, overlapUntil: Date): Promise<void> {
  await sql.query(
    `INSERT INTO merchant_signing_secrets (merchant_id, sealed, created_at) VALUES ($1, $2::jsonb, $3)
     ON CONFLICT (merchant_id) DO UPDATE SET previous_sealed = merchant_signing_secrets.sealed, previous_expires_at = $4,
       sealed = EXCLUDED.sealed, created_at = EXCLUDED.created_at`,
    [merchantId, JSON.stringify(sealSigningSecret(keyring, merchantId, secret)), now, overlapUntil]);
}

/** Merchants without a secret (created before migration 011, or by a path that does not issue one). */
export async function merchantsWithoutSigningSecret(sql: Sql, limit: number): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    'SELECT m.id FROM merchants m LEFT JOIN merchant_signing_secrets s ON s.merchant_id = m.id WHERE s.merchant_id IS NULL ORDER BY m.id LIMIT $1', [limit]);
  return rows.map((r) => r.id);
}
