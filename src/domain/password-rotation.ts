/**
 * Merchant password rotation (issue 11). A rotation does not break a merchant whose servers still sign with
 * the old password: for a grace period the previous password verifies requests too. Outgoing signatures
 * (callbacks, return URLs) always use the current one, so the merchant switches its verification first.
 */

/** Default grace period: a day lets a merchant roll the new password out across its servers. */
export const DEFAULT_GRACE_HOURS = 24;
/** Longest grace period an operator may choose: a leaked password must not stay valid for long. */
export const MAX_GRACE_HOURS = 720;

export interface PasswordState {
  password: string;
  previousPassword: string | null;
  previousPasswordExpiresAt: Date | null;
}

/** The passwords a merchant request may be signed with at `now`: the current one first. */
export function acceptedPasswords(state: PasswordState, now: Date): string[] {
  const inGrace = state.previousPassword !== null && state.previousPasswordExpiresAt !== null &&
    now.getTime() < state.previousPasswordExpiresAt.getTime();
  return inGrace ? [state.password, state.previousPassword as string] : [state.password];
}

/** When the previous password stops working; null when the rotation has no grace period. */
export function graceEnd(now: Date, graceHours: number): Date | null {
  return graceHours > 0 ? new Date(now.getTime() + graceHours * 3_600_000) : null;
}
