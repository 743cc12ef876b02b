import { randomBytes, randomUUID } from 'node:crypto';

/** Public payment and transaction ids: UUIDs, as the platform uses. */
export const newId = (): string => randomUUID();

/** Opaque url-safe token (sessions, card tokens, recurring tokens). */
export function newToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** A 64-character card token, as the platform's card_token fields are. */
export function newCardToken(): string {
  return randomBytes(32).toString('hex');
}
