/**
 * The wallet roots from configuration files: Google's published signing keys (the JSON of
 * https://payments.developers.google.com/paymentmethodtoken/keys.json, test and production apart) and Apple's
 * root CA certificate(s) (PEM). A file that cannot be read or parsed stops start-up: a gateway trusting nothing by
 * accident would refuse every wallet payment without saying why.
 */
import { readFile } from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import type { GoogleRootKey } from '../../domain/wallets/google-pay-token.ts';
import type { WalletTrust } from './wallet-tokens.ts';

async function googleKeys(file: string | undefined): Promise<GoogleRootKey[]> {
  if (!file) return [];
  const parsed = JSON.parse(await readFile(file, 'utf8')) as { keys?: GoogleRootKey[] };
  if (!Array.isArray(parsed.keys)) throw new Error(`${file}: not Google's root key JSON ({"keys": [...]})`);
  return parsed.keys;
}

async function appleRoots(file: string | undefined): Promise<X509Certificate[]> {
  if (!file) return [];
  const text = await readFile(file, 'utf8');
  const pems = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (pems.length === 0) throw new Error(`${file}: no PEM certificate`);
  return pems.map((pem) => new X509Certificate(pem));
}

export async function loadWalletTrust(files: { googleTest?: string; googleProduction?: string; appleRoot?: string }): Promise<WalletTrust> {
  return {
    googleRootKeys: { TEST: await googleKeys(files.googleTest), PRODUCTION: await googleKeys(files.googleProduction) },
    appleRootCertificates: await appleRoots(files.appleRoot),
  };
}
