/**
 * Admin API tokens: 32 random bytes behind a recognisable prefix (so a leaked token is easy to find in a
 * repository scan). Only the SHA-256 digest is stored; the token is shown once, when created.
 */
import { createHash, randomBytes } from 'node:crypto';

const PREFIX = 'pcop_';

export function newOperatorToken(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

export function operatorTokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** The part of a token shown in lists: enough to tell tokens apart, far too little to use. */
export function operatorTokenPrefix(token: string): string {
  return token.slice(0, PREFIX.length + 6);
}
