/**
 * Secrets of configuration (connector credentials, wallet keys, signing secrets) sealed with the card vault's
 * keyring: AES-256-GCM, the key id inside the envelope so keys rotate, and associated data binding the
 * envelope to its owner (copied to another row, it no longer opens). Opened values come back as Secret, so
 * they cannot be logged or serialised by accident.
 */
import { decryptPan, encryptPan, type Keyring } from './card-vault.ts';
import { Secret, type SealedSecret } from '../domain/secret.ts';

export type SecretFields = Record<string, string>;

/** `owner` names the row and field the secret belongs to, e.g. ['mid', midId, 'credentials']. */
export function sealSecret(keyring: Keyring, value: SecretFields, owner: readonly string[]): SealedSecret {
  return encryptPan(keyring, JSON.stringify(value), JSON.stringify(owner));
}

export function openSecret(keyring: Keyring, sealed: SealedSecret, owner: readonly string[]): Secret<SecretFields> {
  return new Secret(JSON.parse(decryptPan(keyring, sealed, JSON.stringify(owner))) as SecretFields);
}

export function isSealedSecret(value: unknown): value is SealedSecret {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return ['keyId', 'iv', 'ciphertext', 'authTag'].every((k) => typeof v[k] === 'string');
}

/**
 * How a secret value is shown: never in full. Short values show nothing; longer ones their last four
 * characters, so an operator can tell which key is set.
 */
export function maskSecretValue(value: string): string {
  return value.length < 12 ? '****' : `****${value.slice(-4)}`;
}

export function maskSecretFields(fields: SecretFields): SecretFields {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, maskSecretValue(v)]));
}
