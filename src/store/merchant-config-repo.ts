/**
 * A merchant's admin-panel configuration (issue 11): its settings (what the callback, status and page builders
 * read), its wallets and the sealed secrets of both. Writers lock the merchant row first, so concurrent
 * changes apply one after the other; the directory triggers (migration 010) tell every node at commit.
 */
import type { Sql } from './database.ts';
import type { Keyring } from './card-vault.ts';
import { findMerchantById } from './merchants-repo.ts';
import type { Merchant, MerchantSettings } from '../domain/model/merchant.ts';
import { openSecret, type SecretFields } from './sealed-secrets.ts';
import { optionSecretsOwner, walletSecretsOwner } from './secret-rotation.ts';
import { Secret, type SealedSecret } from '../domain/secret.ts';

export interface MerchantConfig {
  merchant: Merchant;
  wallets: Record<string, unknown>;
  walletSecrets: SealedSecret | null;
  optionSecrets: SealedSecret | null;
}

export async function loadMerchantConfig(sql: Sql, keyring: Keyring, merchantId: string, forUpdate = false): Promise<MerchantConfig | undefined> {
  if (forUpdate) await sql.query('SELECT 1 FROM merchants WHERE id = $1 FOR UPDATE', [merchantId]);
  const merchant = await findMerchantById(sql, keyring, merchantId);
  if (!merchant) return undefined;
  const [row] = await sql.query<{ wallets: Record<string, unknown> | null; wallet_secrets: SealedSecret | null; option_secrets: SealedSecret | null }>(
    'SELECT wallets, wallet_secrets, option_secrets FROM merchants WHERE id = $1',
    [merchantId],
  );
  return { merchant, wallets: row?.wallets ?? {}, walletSecrets: row?.wallet_secrets ?? null, optionSecrets: row?.option_secrets ?? null };
}

export async function writeMerchantSettings(sql: Sql, merchantId: string, settings: MerchantSettings, optionSecrets: SealedSecret | null, now: Date): Promise<void> {
  await sql.query(
    'UPDATE merchants SET settings = $2::jsonb, option_secrets = $3::jsonb, updated_at = $4 WHERE id = $1',
    [merchantId, JSON.stringify(settings), optionSecrets ? JSON.stringify(optionSecrets) : null, now.toISOString()],
  );
}

export async function writeMerchantWallets(sql: Sql, merchantId: string, wallets: Record<string, unknown>, walletSecrets: SealedSecret | null, now: Date): Promise<void> {
  await sql.query(
    'UPDATE merchants SET wallets = $2::jsonb, wallet_secrets = $3::jsonb, updated_at = $4 WHERE id = $1',
    [merchantId, JSON.stringify(wallets), walletSecrets ? JSON.stringify(walletSecrets) : null, now.toISOString()],
  );
}

/** The sealed secrets of a merchant's connector options (token_call_private_key), opened where a connector needs them. */
export function openOptionSecrets(keyring: Keyring, config: Pick<MerchantConfig, 'merchant' | 'optionSecrets'>): Secret<SecretFields> {
  return config.optionSecrets ? openSecret(keyring, config.optionSecrets, optionSecretsOwner(config.merchant.id)) : new Secret({});
}

/** The sealed wallet keys (apple_pay_private_key, apple_pay_processing_private_key, google_pay_private_key). */
export function openWalletSecrets(keyring: Keyring, config: Pick<MerchantConfig, 'merchant' | 'walletSecrets'>): Secret<SecretFields> {
  return config.walletSecrets ? openSecret(keyring, config.walletSecrets, walletSecretsOwner(config.merchant.id)) : new Secret({});
}

/**
 * The Apple Pay domain-association file uploaded last, of all enabled merchants (the Wallets tab keeps one per
 * merchant; Apple reads the gateway's one path when the operator verifies a merchant identifier's domain).
 */
export async function latestAppleDomainAssociation(sql: Sql): Promise<string | undefined> {
  const [row] = await sql.query<{ content: string }>(
    `SELECT wallets->'applePay'->'domainAssociation'->>'content' AS content FROM merchants
      WHERE NOT disabled AND wallets->'applePay'->'domainAssociation' IS NOT NULL
      ORDER BY wallets->'applePay'->'domainAssociation'->>'uploadedAt' DESC, id LIMIT 1`,
  );
  return row?.content ?? undefined;
}
