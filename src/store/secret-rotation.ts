/**
 * Key rotation for sealed configuration secrets (MID credentials, wallet keys, connector option secrets, webhook
 * signing secrets, merchants' hash passwords, two-factor secrets), as rewrapCards does for the card vault: when VAULT_KEYS gets a new first key, every envelope
 * still sealed with an older key is opened and sealed again with the new one; once this answers 0, the old key
 * can be retired.
 * Each update is a compare-and-set on the old ciphertext, so runs on several nodes may overlap.
 */
import type { Sql } from './database.ts';
import type { Keyring } from './card-vault.ts';
import { VaultError } from './card-vault.ts';
import { openSecret, sealSecret } from './sealed-secrets.ts';
import type { SealedSecret } from '../domain/secret.ts';
import { merchantPasswordOwner, midCredentialsOwner } from './merchants-repo.ts';
import { signingSecretOwner } from './signing-secrets-repo.ts';
import { twoFactorOwner } from './two-factor-repo.ts';

export const walletSecretsOwner = (merchantId: string): readonly string[] => ['merchant', merchantId, 'wallets'];
export const optionSecretsOwner = (merchantId: string): readonly string[] => ['merchant', merchantId, 'options'];

/** Every sealed column, with its row's key column and the owner its envelopes are bound to. */
const SEALED_COLUMNS: readonly { table: string; key: string; column: string; owner: (id: string) => readonly string[] }[] = [
  { table: 'mids', key: 'id', column: 'credentials', owner: midCredentialsOwner },
  { table: 'merchants', key: 'id', column: 'wallet_secrets', owner: walletSecretsOwner },
  { table: 'merchants', key: 'id', column: 'option_secrets', owner: optionSecretsOwner },
  { table: 'merchants', key: 'id', column: 'sealed_password', owner: (id) => merchantPasswordOwner(id, 'password') },
  { table: 'merchants', key: 'id', column: 'sealed_previous_password', owner: (id) => merchantPasswordOwner(id, 'previous_password') },
  { table: 'merchant_signing_secrets', key: 'merchant_id', column: 'sealed', owner: signingSecretOwner },
  { table: 'merchant_signing_secrets', key: 'merchant_id', column: 'previous_sealed', owner: signingSecretOwner },
  { table: 'two_factor', key: 'id', column: 'secret', owner: twoFactorOwner },
];

/** Re-seals up to `limit` envelopes per column still under an older key; returns how many it moved. */
export async function rewrapConfigSecrets(sql: Sql, keyring: Keyring, limit = 100): Promise<number> {
  let rewrapped = 0;
  for (const { table, key, column, owner } of SEALED_COLUMNS) {
    const rows = await sql.query<{ id: string; sealed: SealedSecret }>(
      `SELECT ${key} AS id, ${column} AS sealed FROM ${table} WHERE ${column} IS NOT NULL AND ${column}->>'keyId' <> $1 ORDER BY ${key} LIMIT $2`,
      [keyring.activeKeyId, limit],
    );
    for (const row of rows) {
      let fields;
      try {
        fields = openSecret(keyring, row.sealed, owner(row.id)).expose();
      } catch {
        throw new VaultError(`${table}.${column} of ${row.id} (key ${row.sealed.keyId}) could not be opened; rotation stopped`);
      }
      const resealed = sealSecret(keyring, fields, owner(row.id));
      const updated = await sql.query(
        `UPDATE ${table} SET ${column} = $3::jsonb WHERE ${key} = $1 AND ${column}->>'ciphertext' = $2 RETURNING ${key}`,
        [row.id, row.sealed.ciphertext, JSON.stringify(resealed)],
      );
      rewrapped += updated.length;
    }
  }
  return rewrapped;
}

/** Runs rewrapConfigSecrets until nothing is left under an older key; returns the total. */
export async function rewrapAllConfigSecrets(sql: Sql, keyring: Keyring): Promise<number> {
  let total = 0;
  for (let n = await rewrapConfigSecrets(sql, keyring); n > 0; n = await rewrapConfigSecrets(sql, keyring)) total += n;
  return total;
}
