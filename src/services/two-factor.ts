/**
 * Two-factor sign-in (issue 30) for operator console users and merchant portal users: enrolment with a QR code
 * (qrcode, an SVG the screen shows as an image), confirmation with the first code, ten one-time recovery codes
 * shown once, the check at sign-in, and switching it off (refused while REQUIRE_TWO_FACTOR is on). The secret is
 * sealed with the vault keyring; codes are compared by domain/two-factor.ts, each accepted once.
 */
import QRCode from 'qrcode';
import type { ServiceContext } from './context.ts';
import { GatewayError } from '../domain/errors.ts';
import {
  acceptedTimeStep, looksLikeRecoveryCode, newRecoveryCodes, newTotpSecret, otpauthUri, recoveryCodeDigest, type TwoFactorUserKind,
} from '../domain/two-factor.ts';
import {
  clearSessionEnrolment, deleteTwoFactor, enableTwoFactor, findTwoFactor, recoveryCodesLeft, replaceRecoveryCodes, startTwoFactor,
  twoFactorOwner, useRecoveryCode, useTimeStep,
} from '../store/two-factor-repo.ts';
import { openSecret, sealSecret } from '../store/sealed-secrets.ts';
import { appendAudit, type AuditEntry } from '../store/audit-repo.ts';

export type { TwoFactorUserKind };

/** What a sign-in brings besides the password: a code of the app, or a recovery code. */
export interface SecondFactor {
  code?: string;
  recoveryCode?: string;
}

/** Who is acting, as the audit log writes it (with the merchant's scope for portal users). */
export type TwoFactorAudit = Pick<AuditEntry, 'actor' | 'merchantId' | 'merchantGroupId'>;

const rowId = (kind: TwoFactorUserKind, userId: string) => `${kind}:${userId}`;

function secretOf(ctx: ServiceContext, row: { id: string; secret: Parameters<typeof openSecret>[1] }): string {
  return openSecret(ctx.keyring, row.secret, twoFactorOwner(row.id)).expose().totp!;
}

/**
 * The sign-in's second step. With two-factor sign-in on, a valid code or unused recovery code is required (none:
 * twoFactorRequired; a wrong one: the sign-in fails as a wrong password does). Without it, the session must set it
 * up first when it is mandatory.
 */
export async function checkSecondFactor(ctx: ServiceContext, kind: TwoFactorUserKind, userId: string, second: SecondFactor): Promise<{ needsEnrolment: boolean; usedRecoveryCode: boolean }> {
  const row = await findTwoFactor(ctx.db, rowId(kind, userId));
  if (!row?.enabledAt) return { needsEnrolment: ctx.twoFactorRequired === true, usedRecoveryCode: false };
  const now = ctx.clock.now();
  if (second.code) {
    const step = acceptedTimeStep(secretOf(ctx, row), second.code.trim(), now, row.lastTimeStep);
    if (step !== undefined && (await useTimeStep(ctx.db, row.id, step))) return { needsEnrolment: false, usedRecoveryCode: false };
    throw new GatewayError('consoleSignInFailed');
  }
  if (second.recoveryCode) {
    if (looksLikeRecoveryCode(second.recoveryCode) && (await useRecoveryCode(ctx.db, row.id, recoveryCodeDigest(second.recoveryCode), now))) {
      return { needsEnrolment: false, usedRecoveryCode: true };
    }
    throw new GatewayError('consoleSignInFailed');
  }
  throw new GatewayError('twoFactorRequired');
}

export interface TwoFactorStatus {
  enabled: boolean;
  mandatory: boolean;
  recoveryCodesLeft: number;
}

export async function twoFactorStatus(ctx: ServiceContext, kind: TwoFactorUserKind, userId: string): Promise<TwoFactorStatus> {
  const id = rowId(kind, userId);
  const row = await findTwoFactor(ctx.db, id);
  return { enabled: Boolean(row?.enabledAt), mandatory: ctx.twoFactorRequired === true, recoveryCodesLeft: row?.enabledAt ? await recoveryCodesLeft(ctx.db, id) : 0 };
}

export interface Enrolment {
  /** Base32, for typing into an app that cannot scan. */
  secret: string;
  otpauthUri: string;
  /** The QR code of otpauthUri, an SVG document. */
  qrSvg: string;
}

/** Starts (or restarts) the set-up: a new secret, sealed, waiting for its first code. 409 once it is on. */
export async function startEnrolment(ctx: ServiceContext, kind: TwoFactorUserKind, userId: string, account: string): Promise<Enrolment> {
  const id = rowId(kind, userId);
  const secret = newTotpSecret();
  const started = await startTwoFactor(ctx.db, id, sealSecret(ctx.keyring, { totp: secret }, twoFactorOwner(id)), ctx.clock.now());
  if (!started) throw GatewayError.field('two_factor', 'Two-factor sign-in is on already: switch it off first to set up another app.');
  const uri = otpauthUri(account, secret);
  return { secret, otpauthUri: uri, qrSvg: await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }) };
}

/**
 * Confirms the set-up with the app's first code: two-factor sign-in is on, the session that did it may do
 * everything, and the ten recovery codes are answered (this once: only their digests are kept).
 */
export async function confirmEnrolment(ctx: ServiceContext, kind: TwoFactorUserKind, userId: string, code: string, sessionId: string | undefined, audit: TwoFactorAudit): Promise<string[]> {
  const id = rowId(kind, userId);
  const row = await findTwoFactor(ctx.db, id);
  if (!row || row.enabledAt) throw new GatewayError('twoFactorNotPending');
  const now = ctx.clock.now();
  const step = acceptedTimeStep(secretOf(ctx, row), code.trim(), now);
  if (step === undefined) throw new GatewayError('twoFactorCodeInvalid');
  const codes = newRecoveryCodes();
  await ctx.db.transaction(async (tx) => {
    if (!(await enableTwoFactor(tx, id, step, now))) throw new GatewayError('twoFactorNotPending');
    await replaceRecoveryCodes(tx, id, codes.map(recoveryCodeDigest));
    if (sessionId) await clearSessionEnrolment(tx, kind, sessionId);
    await appendAudit(tx, { ...audit, action: 'two_factor.enable', objectType: kind === 'operator' ? 'operator_user' : 'merchant_user', objectId: userId }, now);
  });
  return codes;
}

/** Switches it off with a current code (not while it is mandatory). */
export async function disableTwoFactor(ctx: ServiceContext, kind: TwoFactorUserKind, userId: string, code: string, audit: TwoFactorAudit): Promise<void> {
  if (ctx.twoFactorRequired) throw new GatewayError('twoFactorMandatory');
  const id = rowId(kind, userId);
  const row = await findTwoFactor(ctx.db, id);
  if (!row?.enabledAt) throw new GatewayError('twoFactorNotPending');
  const now = ctx.clock.now();
  const step = acceptedTimeStep(secretOf(ctx, row), code.trim(), now, row.lastTimeStep);
  if (step === undefined) throw new GatewayError('twoFactorCodeInvalid');
  await ctx.db.transaction(async (tx) => {
    if (!(await useTimeStep(tx, id, step))) throw new GatewayError('twoFactorCodeInvalid');
    await deleteTwoFactor(tx, id);
    await appendAudit(tx, { ...audit, action: 'two_factor.disable', objectType: kind === 'operator' ? 'operator_user' : 'merchant_user', objectId: userId }, now);
  });
}

/** An operator resets a user's second factor (a lost phone): the user signs in with the password and sets it up again. */
export async function resetTwoFactor(ctx: ServiceContext, kind: TwoFactorUserKind, userId: string, audit: TwoFactorAudit): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await deleteTwoFactor(tx, rowId(kind, userId));
    await appendAudit(tx, { ...audit, action: 'two_factor.reset', objectType: kind === 'operator' ? 'operator_user' : 'merchant_user', objectId: userId }, now);
  });
}
