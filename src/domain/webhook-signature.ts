/**
 * Standard Webhooks signatures (standardwebhooks.com) on every callback, beside the platform's own `hash`
 * (which covers no status and also appears in the payer's return URL, so it proves nothing on its own):
 *
 *   webhook-id:        the callback's event id (stable across retries)
 *   webhook-timestamp: seconds since the epoch when this attempt was sent
 *   webhook-signature: "v1,<base64 HMAC-SHA256(secret, id + "." + timestamp + "." + raw body)>", one per
 *                      secret in force, space-separated (two during a rotation's overlap)
 *
 * The secret is `whsec_` + base64 of 32 random bytes; the HMAC key is the decoded bytes. Pure.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** Receivers should refuse a timestamp further than this from their clock (docs/merchants/webhook-signatures.md). */
export const REPLAY_WINDOW_SECONDS = 300;

export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('not a webhook signing secret');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

export function webhookSignature(key: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export function webhookHeaders(keys: readonly Buffer[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': keys.map((k) => webhookSignature(k, id, timestamp, body)).join(' '),
  };
}

/** The receiver's check: a signature made with `secret` and a timestamp within the replay window of `now`. */
export function verifyWebhook(secret: string, headers: Record<string, string | undefined>, body: string, nowSeconds: number): boolean {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const given = headers['webhook-signature'];
  if (!id || !given || !Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > REPLAY_WINDOW_SECONDS) return false;
  const expected = Buffer.from(webhookSignature(secretKey(secret), id, timestamp, body));
  return given.split(' ').some((sig) => {
    const candidate = Buffer.from(sig);
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
}
