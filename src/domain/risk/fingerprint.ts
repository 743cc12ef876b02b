/**
 * A card's fingerprint: a keyed hash (HMAC-SHA-256) of its PAN, so velocity counters and lists can recognise a card
 * without ever holding its number. The key is derived from the vault's key (services/risk derives it once per
 * process), so a fingerprint leaked without that key cannot be brute-forced back to a PAN over the ~10^9 PANs of a
 * BIN. Other identifiers the risk store keys by (e-mail, IP, device) are hashed the same way, each with its own
 * label, so the counters hold no personal data in clear either.
 */
import { createHmac, hkdfSync } from 'node:crypto';

/** 32 bytes for the risk engine's keyed hashes, derived from a vault key with HKDF (label: its purpose). */
export function deriveRiskKey(vaultKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', vaultKey, Buffer.alloc(0), 'portcullis risk fingerprint v1', 32));
}

/** The keyed hash of one identifier of a kind (card, email, ip, device, session): 32 hex digits. */
export function keyedHash(key: Buffer, kind: string, value: string): string {
  // One update of the same bytes (kind, NUL, value): each update is a call into the native hash, on every payment.
  return createHmac('sha256', key).update(`${kind}\0${value}`).digest('hex').slice(0, 32);
}

/** A card's fingerprint (digits only; spaces and dashes a payer typed do not change it). */
export const cardFingerprint = (key: Buffer, pan: string): string => keyedHash(key, 'card', pan.replace(/\D/g, ''));
