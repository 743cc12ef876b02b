/**
 * Merchants for operators (issue 11): create (the password shown once), change, disable and enable (nothing
 * is deleted), rotate the password with a grace period. Each change and its audit entry are one transaction;
 * the audit log never holds a password. Callers invalidate the merchant directory afterwards.
 */
import type { Keyring } from '../../store/card-vault.ts';
import { randomBytes } from 'node:crypto';
import type { Database, Sql } from '../../store/database.ts';
import { insertMerchant, insertMid } from '../../store/merchants-repo.ts';
import { SANDBOX_CONNECTOR } from '../../connectors/registry.ts';
import {
  findMerchantRecord, linkTestKey, rotateMerchantPassword, updateMerchantRecord, type MerchantPatch, type MerchantRecord,
} from '../../store/merchant-admin-repo.ts';
import { appendAudit, type AuditActor, type AuditEntry } from '../../store/audit-repo.ts';
import { isUniqueViolation } from '../../store/unique-violation.ts';
import { auditDiff } from './audit-diff.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';
import { graceEnd } from '../../domain/password-rotation.ts';
import { entityTag, ifMatchHolds } from '../../domain/entity-tags.ts';
import { generateMerchantPassword, merchantPasswordProblem } from '../../domain/merchant-passwords.ts';
import { isHttpUrl } from '../../domain/methods/formats.ts';
import type { CallbackTargetPolicy } from '../../domain/callback-targets.ts';
import { checkCallbackUrl } from '../callback-targets.ts';
import type { Digest } from '../../domain/signatures.ts';
import { newId } from '../../domain/ids.ts';
import type { Secret } from '../../domain/secret.ts';
import { issueSigningSecretIn } from '../signing-secrets.ts';

export interface NewMerchantInput {
  name: string;
  notificationUrl?: string;
  sandbox?: boolean;
  digest?: Digest;
  /** Given when a merchant moves from another platform with its key and password. */
  key?: string;
  password?: string;
}

/** Keys the gateway makes: 128 random bits, hex (safe in every channel's encoding); passwords: merchant-passwords.ts. */
const generated = () => randomBytes(16).toString('hex');

/** A password the operator gives must pass the merchant password rule; absent, one is generated. */
function chosenOrGenerated(password: string | undefined): string {
  if (password === undefined) return generateMerchantPassword();
  const problem = merchantPasswordProblem(password);
  if (problem) throw GatewayError.field('password', problem);
  return password;
}

/** What the audit log keeps of a merchant: the settings an operator sees, never the password. */
export const auditedMerchant = (m: MerchantRecord) => ({
  name: m.name, merchant_key: m.key, sandbox: m.sandbox, notification_url: m.notificationUrl, hash_algorithm: m.digest, disabled: m.disabled,
});

/**
 * A notification URL must be an absolute http(s) URL of a public host (issue 12's callback target rule: no
 * loopback, private, link-local or metadata address unless CALLBACK_ALLOWED_PRIVATE_HOSTS names it).
 */
export function checkNotificationUrl(url: string | null | undefined, targets: CallbackTargetPolicy | undefined): void {
  if (url === null || url === undefined) return;
  if (!isHttpUrl(url)) throw GatewayError.field('notification_url', MESSAGES.notUrl);
  checkCallbackUrl({ callbackTargets: targets }, 'notification_url', url);
}

/** A merchant just created: its password and webhook signing secret are shown in the creating answer only. */
export interface CreatedMerchant { merchant: MerchantRecord; password: string; signingSecret: Secret<string> }

export async function createMerchant(db: Database, keyring: Keyring, actor: AuditActor, input: NewMerchantInput, now: Date, targets: CallbackTargetPolicy | undefined): Promise<CreatedMerchant> {
  checkNotificationUrl(input.notificationUrl, targets);
  const id = newId();
  const key = input.key ?? generated();
  const password = chosenOrGenerated(input.password);
  try {
    const created = await db.transaction(async (tx) => {
      const [taken] = await tx.query('SELECT 1 FROM merchants WHERE merchant_key = $1', [key]);
      if (taken) throw GatewayError.field('merchant_key', MESSAGES.alreadyUsed);
      await insertMerchant(tx, keyring, { id, name: input.name, key, password, sandbox: input.sandbox ?? true, notificationUrl: input.notificationUrl, digest: input.digest });
      const record = (await findMerchantRecord(tx, keyring, id)) as MerchantRecord;
      await appendAudit(tx, {
        actor, action: 'merchant.create', objectType: 'merchant', objectId: id, after: auditedMerchant(record),
        details: { key: input.key ? 'given' : 'generated', password: input.password ? 'given' : 'generated' },
      }, now);
      return { merchant: record, signingSecret: await issueSigningSecretIn(tx, keyring, id, now) };
    });
    return { ...created, password };
  } catch (err) {
    if (isUniqueViolation(err)) throw GatewayError.field('merchant_key', MESSAGES.alreadyUsed);
    throw err;
  }
}

/** Where an audit entry also shows: the merchant's own audit log (the portal's, issue 30) when a merchant user acted. */
export type AuditScope = Pick<AuditEntry, 'merchantId' | 'merchantGroupId'>;

/**
 * The tag of what an operator edits on a merchant (domain/entity-tags.ts): the fields its PATCH changes. Enabling,
 * disabling and password rotations leave it as it is: a form built on an earlier read does not overwrite them.
 */
export const merchantTag = (m: MerchantRecord): string =>
  entityTag({ name: m.name, notification_url: m.notificationUrl, sandbox: m.sandbox, hash_algorithm: m.digest });

async function changeMerchant(tx: Sql, keyring: Keyring, actor: AuditActor, id: string, patch: MerchantPatch, action: string, now: Date, scope: AuditScope = {}, ifMatch?: string): Promise<MerchantRecord | undefined> {
  const before = await findMerchantRecord(tx, keyring, id, true);
  if (!before) return undefined;
  if (ifMatch !== undefined && !ifMatchHolds(ifMatch, merchantTag(before))) throw new GatewayError('configurationChanged');
  // A test key's merchant and the live merchant it belongs to keep their modes (issue 25, item 26).
  if (patch.sandbox !== undefined && patch.sandbox !== before.sandbox && (before.liveMerchantId || before.testMerchantId)) {
    throw GatewayError.field('sandbox', 'This value can not be changed: the merchant is one of a test key and live key pair.');
  }
  const after = (await updateMerchantRecord(tx, keyring, id, patch, now)) as MerchantRecord;
  const diff = auditDiff(auditedMerchant(before), auditedMerchant(after));
  if (diff.changed) await appendAudit(tx, { actor, action, objectType: 'merchant', objectId: id, before: diff.before, after: diff.after, ...scope }, now);
  return after;
}

/** Changes a merchant. With `ifMatch` (the request's If-Match), only while its editable fields still have the tag it names (merchantTag). */
export async function updateMerchant(
  db: Database, keyring: Keyring, actor: AuditActor, id: string, patch: MerchantPatch, now: Date, targets: CallbackTargetPolicy | undefined, scope: AuditScope = {}, ifMatch?: string,
): Promise<MerchantRecord | undefined> {
  return db.transaction((tx) => updateMerchantIn(tx, keyring, actor, id, patch, now, targets, scope, ifMatch));
}

/** updateMerchant inside the caller's transaction (a change made with others, all or nothing). */
export async function updateMerchantIn(
  tx: Sql, keyring: Keyring, actor: AuditActor, id: string, patch: MerchantPatch, now: Date, targets: CallbackTargetPolicy | undefined, scope: AuditScope = {}, ifMatch?: string,
): Promise<MerchantRecord | undefined> {
  checkNotificationUrl(patch.notificationUrl, targets);
  return changeMerchant(tx, keyring, actor, id, patch, 'merchant.update', now, scope, ifMatch);
}

/** A disabled merchant is refused as unknown on every merchant channel; its payments and settings are kept. */
export async function setMerchantDisabled(db: Database, keyring: Keyring, actor: AuditActor, id: string, disabled: boolean, now: Date): Promise<MerchantRecord | undefined> {
  return db.transaction((tx) => changeMerchant(tx, keyring, actor, id, { disabled }, disabled ? 'merchant.disable' : 'merchant.enable', now));
}

export interface RotationInput {
  /** How long the previous password keeps verifying requests; 0 ends it at once. */
  graceHours: number;
  /** Given when the merchant chose it (e.g. a migration); generated otherwise. */
  password?: string;
}

export async function rotatePassword(db: Database, keyring: Keyring, actor: AuditActor, id: string, input: RotationInput, now: Date, scope: AuditScope = {}): Promise<{ merchant: MerchantRecord; password: string } | undefined> {
  const password = chosenOrGenerated(input.password);
  const until = graceEnd(now, input.graceHours);
  return db.transaction(async (tx) => {
    const before = await findMerchantRecord(tx, keyring, id, true);
    if (!before) return undefined;
    if (password === before.password) throw GatewayError.field('password', 'This value should be different from the current password.');
    const merchant = (await rotateMerchantPassword(tx, keyring, id, password, before.password, until, now)) as MerchantRecord;
    await appendAudit(tx, {
      actor, action: 'merchant.password.rotate', objectType: 'merchant', objectId: id,
      // The passwords themselves are never written here: only that it changed and until when the old one works.
      before: { password: '********' }, after: { password: '********' },
      details: { grace_hours: input.graceHours, previous_password_valid_until: until?.toISOString() ?? null, password: input.password ? 'given' : 'generated' },
      ...scope,
    }, now);
    return { merchant, password };
  });
}

/**
 * Issue 25, item 26: gives a live merchant its test key. The test key is a merchant of its own in sandbox mode
 * (its key, password and signing secret; a sandbox MID; the live merchant's notification URL, hash algorithm and
 * settings copied), linked to the live one: its payments go to the sandbox only (never to a live MID, see
 * connector-access.ts modeMids), and lists, exports and figures keep them apart (`mode=test`). The password is in
 * the answer only. A sandbox merchant's own key is a test key already; a live merchant has at most one test key.
 */
export async function issueTestKey(db: Database, keyring: Keyring, actor: AuditActor, liveId: string, now: Date): Promise<CreatedMerchant | undefined> {
  return db.transaction(async (tx) => {
    const live = await findMerchantRecord(tx, keyring, liveId, true);
    if (!live) return undefined;
    if (live.sandbox) throw GatewayError.field('sandbox', 'This merchant is in sandbox mode: its key is a test key already.');
    if (live.testMerchantId) throw GatewayError.field('merchant', `This merchant has a test key already (merchant ${live.testMerchantId}); rotate its password there.`);
    const id = newId();
    const password = generateMerchantPassword();
    await insertMerchant(tx, keyring, {
      id, name: `${live.name} (test)`, key: generated(), password, sandbox: true, notificationUrl: live.notificationUrl ?? undefined, digest: live.digest, settings: live.settings,
    });
    await linkTestKey(tx, id, live.id);
    await insertMid(tx, { id: newId(), merchantId: id, name: 'Sandbox', connector: SANDBOX_CONNECTOR, paymentMode: 'SMS/DMS' });
    const merchant = (await findMerchantRecord(tx, keyring, id)) as MerchantRecord;
    await appendAudit(tx, { actor, action: 'merchant.test_key.create', objectType: 'merchant', objectId: live.id, after: { ...auditedMerchant(merchant), id } }, now);
    return { merchant, password, signingSecret: await issueSigningSecretIn(tx, keyring, id, now) };
  });
}
