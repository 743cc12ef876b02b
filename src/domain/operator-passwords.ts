/**
 * Operator users' passwords, for the console's sign-in: scrypt (node:crypto) with a random salt and the cost
 * parameters stored beside the digest, so they can be raised later without breaking existing passwords.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const COST: Required<Pick<ScryptOptions, 'N' | 'r' | 'p'>> = { N: 16_384, r: 8, p: 1 };
const KEY_LENGTH = 32;
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

function derive(password: string, salt: Buffer, cost: typeof COST): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...cost, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))));
}

/** `scrypt$N$r$p$salt$digest`, salt and digest in base64url. */
export async function hashOperatorPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyOperatorPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, digest] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !digest) return false;
  const expected = Buffer.from(digest, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Compared against when the e-mail is unknown, so a sign-in's timing does not tell which e-mails exist. */
let decoy: Promise<string> | undefined;

/** A sign-in's password check: true only for a user with a password that matches; as slow for an unknown user. */
export async function signInPasswordMatches(passwordHash: string | null | undefined, password: string): Promise<boolean> {
  const digest = passwordHash ?? (await (decoy ??= hashOperatorPassword('decoy password, never valid')));
  const valid = await verifyOperatorPassword(password, digest);
  return Boolean(passwordHash) && valid;
}
