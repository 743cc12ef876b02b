import { randomBytes, randomFillSync } from 'node:crypto';

const entropy = Buffer.alloc(16 * 512);
let used = entropy.length;

/**
 * Public payment and transaction ids: UUIDs, as the platform uses, of version 7 (RFC 9562): the first 48 bits
 * are the Unix time in milliseconds, the other 74 free bits random. Ids made one after the other sort together,
 * so a new row's index entry lands on the index's last page instead of a random one: fewer pages touched per
 * write and far fewer full-page images in the write-ahead log after each checkpoint.
 */
export function newId(now = Date.now()): string {
  if (used === entropy.length) {
    randomFillSync(entropy);
    used = 0;
  }
  const bytes = entropy.subarray(used, (used += 16));
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | ((bytes[6] as number) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The shape of our ids (any UUID version): anything else names no object, and is never sent to the database. */
export const isUuid = (s: string): boolean => UUID.test(s);

/** Opaque url-safe token (sessions, card tokens, recurring tokens). */
export function newToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** A 64-character card token, as the platform's card_token fields are. */
export function newCardToken(): string {
  return randomBytes(32).toString('hex');
}

/**
 * A payment's reference as a payer reads it (issue 31 item 14): the last 8 hex digits of its id, upper case, in
 * two groups ("3F2A-91BC"). The tail, not the head: a version 7 id starts with its time, the same for every payment
 * of the same minute. It is the end of the full id the console shows and copies, so support finds the payment by it.
 */
export function shortReference(id: string): string {
  const hex = id.replace(/-/g, '').slice(-8).toUpperCase();
  return `${hex.slice(0, 4)}-${hex.slice(4)}`;
}
