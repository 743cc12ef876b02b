/**
 * Merchants' webhook signing secrets (Standard Webhooks): issued for every merchant, sealed at rest with the
 * vault keyring, rotated through the admin API (the new secret is shown once; the old one keeps signing for
 * a day beside it so receivers switch without losing callbacks). The dispatcher asks `SigningKeys` for the
 * HMAC keys of a merchant; it issues a first secret to a merchant that has none.
 */
import type { ServiceContext, SigningKeysPort } from './context.ts';
import type { Database, Sql } from '../store/database.ts';
import type { Keyring } from '../store/card-vault.ts';
import type { Clock } from '../domain/clock.ts';
import { Secret } from '../domain/secret.ts';
import { newSigningSecret, secretKey } from '../domain/webhook-signature.ts';
import { insertSigningSecret, merchantsWithoutSigningSecret, replaceSigningSecret, signingSecrets } from '../store/signing-secrets-repo.ts';
import { appendAudit, type AuditActor } from '../store/audit-repo.ts';

/** How long a replaced secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;
/** A node's cache of keys: a rotation made on another node reaches it within this (the overlap covers it). */
const CACHE_MS = 30_000;

type SecretsContext = Pick<ServiceContext, 'db' | 'keyring' | 'clock'>;

/** Issues a merchant's first secret; the plain secret when this call created it, else undefined. */
export async function issueSigningSecret(ctx: SecretsContext, merchantId: string): Promise<Secret<string> | undefined> {
  const secret = newSigningSecret();
  return (await insertSigningSecret(ctx.db, ctx.keyring, merchantId, secret, ctx.clock.now())) ? new Secret(secret) : undefined;
}

/** A new merchant's first secret, written in the transaction that creates the merchant (so the answer that shows it once is never lost to a second write). */
export async function issueSigningSecretIn(sql: Sql, keyring: Keyring, merchantId: string, now: Date): Promise<Secret<string>> {
  const secret = newSigningSecret();
  await insertSigningSecret(sql, keyring, merchantId, secret, now);
  return new Secret(secret);
}

/** Issues secrets to every merchant that has none (merchants created before this feature). */
export async function issueMissingSigningSecrets(ctx: SecretsContext): Promise<number> {
  let issued = 0;
  for (;;) {
    const ids = await merchantsWithoutSigningSecret(ctx.db, 500);
    for (const id of ids) if (await issueSigningSecret(ctx, id)) issued++;
    if (ids.length < 500) return issued;
  }
}

export interface RotatedSecret {
  secret: Secret<string>;
  previousValidUntil: Date;
}

/** A new secret for the merchant, audited; the previous one signs beside it for ROTATION_OVERLAP_MS. */
export async function rotateSigningSecret(ctx: SecretsContext, merchantId: string, actor: AuditActor, auditScope: { merchantId?: string } = {}): Promise<RotatedSecret> {
  const secret = newSigningSecret();
  const now = ctx.clock.now();
  const previousValidUntil = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  await ctx.db.transaction(async (tx) => {
    await replaceSigningSecret(tx, ctx.keyring, merchantId, secret, now, previousValidUntil);
    await appendAudit(tx, { actor, action: 'merchant.rotate_signing_secret', objectType: 'merchant', objectId: merchantId, details: { previous_valid_until: previousValidUntil.toISOString() }, ...auditScope }, now);
  });
  return { secret: new Secret(secret), previousValidUntil };
}

/**
 * The merchant's current signing secret, for an operator (console) or the merchant's developer (portal); every
 * reveal is in the audit log. A merchant created since this node started may have none yet: it gets one now, as
 * its first callback would. Undefined for an unknown merchant.
 */
export async function currentSigningSecret(ctx: SecretsContext, merchantId: string, actor: AuditActor, auditScope: { merchantId?: string } = {}): Promise<string | undefined> {
  const now = ctx.clock.now();
  let secrets = await signingSecrets(ctx.db, ctx.keyring, merchantId, now);
  if (!secrets?.length) {
    await issueSigningSecret(ctx, merchantId);
    secrets = await signingSecrets(ctx.db, ctx.keyring, merchantId, now);
  }
  const current = secrets?.[0];
  if (!current) return undefined;
  await appendAudit(ctx.db, { actor, action: 'merchant.reveal_signing_secret', objectType: 'merchant', objectId: merchantId, ...auditScope }, now);
  return current.expose();
}

/** The HMAC keys that sign a merchant's callbacks now, cached briefly per node. */
export class SigningKeys implements SigningKeysPort {
  private readonly cache = new Map<string, { keys: Secret<Buffer[]>; until: number }>();

  constructor(private readonly deps: { db: Database; keyring: Keyring; clock: Clock }) {}

  async keysFor(merchantId: string): Promise<Secret<Buffer[]>> {
    const cached = this.cache.get(merchantId);
    if (cached && cached.until > Date.now()) return cached.keys;
    let secrets = await signingSecrets(this.deps.db, this.deps.keyring, merchantId, this.deps.clock.now());
    if (!secrets) {
      await issueSigningSecret(this.deps, merchantId);
      secrets = (await signingSecrets(this.deps.db, this.deps.keyring, merchantId, this.deps.clock.now())) ?? [];
    }
    const keys = new Secret(secrets.map((s) => secretKey(s.expose())));
    this.cache.set(merchantId, { keys, until: Date.now() + CACHE_MS });
    return keys;
  }

  /** Forgets a merchant's keys (after a rotation on this node). */
  forget(merchantId: string): void {
    this.cache.delete(merchantId);
  }
}
