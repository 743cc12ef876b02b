/**
 * The rule for merchants' hash passwords (issue 25, item 8). Every return URL and callback carries a hash over
 * the password, an offline oracle for it, so it must resist guessing: one the gateway generates is 48 random
 * hex characters (192 bits); one an operator sets (a merchant moving from another platform, a rotation, the
 * demo merchant's DEMO_MERCHANT_PASSWORD) has at least 16 characters and is not a common password, a run of
 * one short unit (`abcabcabc...`) or a straight sequence (`1234567890123456`, `abcdefghijklmnop`). Pure.
 */
import { randomBytes } from 'node:crypto';
import { COMMON_PASSWORDS } from './common-passwords.ts';

export const MIN_MERCHANT_PASSWORD_LENGTH = 16;

/** 24 random bytes in hex: 48 characters, safe in every channel's encoding. */
export function generateMerchantPassword(): string {
  return randomBytes(24).toString('hex');
}

const COMMON = new Set(COMMON_PASSWORDS);
const fold = (password: string) => password.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The same unit of one to four characters over and over. */
function isRepeated(s: string): boolean {
  return [1, 2, 3, 4].some((n) => s.length > n && s === s.slice(0, n).repeat(Math.ceil(s.length / n)).slice(0, s.length));
}

/** Each character one up (or one down) from the one before, digits wrapping 9 -> 0. */
function isSequence(s: string): boolean {
  const step = (a: string, b: string) => (b.charCodeAt(0) - a.charCodeAt(0) + (/\d/.test(a) ? 10 : 26)) % (/\d/.test(a) ? 10 : 26);
  const steps = [...s].slice(1).map((c, i) => step(s[i]!, c));
  return steps.length > 0 && (steps.every((d) => d === 1) || steps.every((d, _, all) => d === all[0] && (d === 9 || d === 25)));
}

export const TOO_COMMON_MESSAGE = 'This password is too common: choose another (at least 16 characters, not a known or patterned password).';

/** A common password, one of fewer than 8 letters and digits, a run of one short unit or a straight sequence. */
export function isKnownOrPatterned(password: string): boolean {
  const folded = fold(password);
  return folded.length < 8 || COMMON.has(folded) || isRepeated(folded) || isSequence(folded);
}

/** Why an operator-set merchant password is refused, or undefined when it is acceptable. */
export function merchantPasswordProblem(password: string): string | undefined {
  if (password.length < MIN_MERCHANT_PASSWORD_LENGTH) return `This value is too short. It should have ${MIN_MERCHANT_PASSWORD_LENGTH} characters or more.`;
  return isKnownOrPatterned(password) ? TOO_COMMON_MESSAGE : undefined;
}
