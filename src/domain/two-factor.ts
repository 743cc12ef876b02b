/**
 * Two-factor sign-in (issue 30), pure: TOTP codes of RFC 6238 (SHA-1, 6 digits, 30-second steps, as every
 * authenticator app reads them) through otplib, the otpauth:// URI the enrolment's QR code carries, and recovery
 * codes. A code is accepted one step either side of now (clock drift) and only for a step later than the last one
 * accepted (the caller stores it), so a code seen over a shoulder cannot be used again.
 */
import { createHash, randomInt } from 'node:crypto';
import { generateSecret, generateURI, verifySync } from 'otplib';

export const TOTP_PERIOD_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;
/** Issuer shown by authenticator apps beside the account. */
export const TOTP_ISSUER = 'Portcullis';

export type TwoFactorUserKind = 'operator' | 'merchant';

/** A new secret: 20 random bytes (RFC 4226's recommended length), base32 as apps take it. */
export const newTotpSecret = (): string => generateSecret({ length: 20 });

export function otpauthUri(account: string, secret: string, issuer = TOTP_ISSUER): string {
  return generateURI({ issuer, label: account, secret, period: TOTP_PERIOD_SECONDS });
}

/** The time step a code is valid for at `now` (one step of drift either way), later than `afterTimeStep`; else undefined. */
export function acceptedTimeStep(secret: string, code: string, now: Date, afterTimeStep?: number | null): number | undefined {
  if (!/^[0-9]{6}$/.test(code)) return undefined;
  try {
    const result = verifySync({
      secret, token: code, epoch: Math.floor(now.getTime() / 1000), period: TOTP_PERIOD_SECONDS, epochTolerance: TOTP_PERIOD_SECONDS,
      ...(afterTimeStep !== undefined && afterTimeStep !== null ? { afterTimeStep } : {}),
    });
    return result.valid ? (result as { timeStep: number }).timeStep : undefined;
  } catch {
    return undefined;
  }
}

const CODE_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Ten one-time recovery codes, `xxxxx-xxxxx` of 31 letters and digits that cannot be misread (about 50 bits each). */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    const chars = Array.from({ length: 10 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** A recovery code as typed (any case, spaces or dashes) -> its digest. */
export function recoveryCodeDigest(code: string): Buffer {
  return createHash('sha256').update(code.toLowerCase().replace(/[^a-z0-9]/g, '')).digest();
}

export const looksLikeRecoveryCode = (code: string): boolean => code.toLowerCase().replace(/[^a-z0-9]/g, '').length === 10;
