/**
 * The rule for people's sign-in passwords (operator console users and merchant portal users, issue 30): at least
 * 12 characters (operator-passwords.ts MIN_PASSWORD_LENGTH) and not a known or patterned password (the list and
 * the patterns merchant-passwords.ts checks hash passwords with). Stored as scrypt digests (operator-passwords.ts).
 */
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './operator-passwords.ts';
import { isKnownOrPatterned } from './merchant-passwords.ts';

export const TOO_COMMON_USER_PASSWORD = `This password is too common: choose another (at least ${MIN_PASSWORD_LENGTH} characters, not a known or patterned password).`;

/** Why a sign-in password is refused, or undefined when it is acceptable. */
export function userPasswordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `This value is too short. It should have ${MIN_PASSWORD_LENGTH} characters or more.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `This value is too long. It should have ${MAX_PASSWORD_LENGTH} characters or less.`;
  return isKnownOrPatterned(password) ? TOO_COMMON_USER_PASSWORD : undefined;
}
