/**
 * The fraud-dispute feed (issue 29 item 6, into issue 26's lists): when a chargeback with a fraud reason code takes
 * the money back, its payment's card fingerprint, payer e-mail and device id (the kinds the operator chose) are put
 * on a block list, in the same transaction as the dispute's change, with an audit entry. An option the operator
 * turns on (off until then), in the platform's lists (a stolen card is stolen everywhere) or the merchant's own; a
 * sandbox merchant's dispute always feeds its own lists (the sandbox's test cards are shared by every merchant).
 * An operator's entry for the same value (its reason, expiry, allow or block) is left as it is: the feed adds only
 * where no such entry is in force.
 */
import type { ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import type { Payment } from '../../domain/model/payment.ts';
import type { Dispute } from '../../domain/disputes.ts';
import { GatewayError, type FieldError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { isEmail } from '../../domain/methods/formats.ts';
import { deviceIdOf } from '../../domain/risk/device.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { findMerchantById } from '../../store/merchants-repo.ts';
import { addFeedListEntries, disputeFeed, evaluationKeysOf, saveDisputeFeed, type DisputeFeedRow, type ListEntry } from '../../store/risk-repo.ts';
import { PLATFORM_SCOPE } from './engine.ts';

export const FEED_KINDS = ['card', 'email', 'device'] as const;
export type FeedKind = (typeof FEED_KINDS)[number];

export interface DisputeFeedView {
  enabled: boolean;
  kinds: FeedKind[];
  scope: 'platform' | 'merchant';
  expires_days: number | null;
  /** 0: never saved (off). */
  version: number;
  updated_at: string | null;
  updated_by: string | null;
}

const OFF: DisputeFeedView = { enabled: false, kinds: ['card', 'email'], scope: 'platform', expires_days: null, version: 0, updated_at: null, updated_by: null };

const viewOf = (r: DisputeFeedRow): DisputeFeedView => ({
  enabled: r.enabled, kinds: r.kinds, scope: r.scope, expires_days: r.expiresDays, version: r.version, updated_at: r.updatedAt.toISOString(), updated_by: r.updatedBy,
});

export async function getDisputeFeed(ctx: ServiceContext): Promise<DisputeFeedView> {
  const row = await disputeFeed(ctx.db);
  return row ? viewOf(row) : OFF;
}

export interface DisputeFeedInput {
  version: number;
  enabled: boolean;
  kinds: FeedKind[];
  scope: 'platform' | 'merchant';
  expires_days?: number | null;
}

/** Saves the setting as its next version (compare-and-set on the version read); audited. */
export async function putDisputeFeed(ctx: ServiceContext, actor: AuditActor, input: DisputeFeedInput): Promise<DisputeFeedView> {
  const errors: FieldError[] = [];
  if (input.enabled && input.kinds.length === 0) errors.push({ field: 'kinds', message: 'Choose at least one of card, email, device to list.' });
  if (errors.length > 0) throw GatewayError.invalid(errors);
  const before = await getDisputeFeed(ctx);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await saveDisputeFeed(tx, { enabled: input.enabled, kinds: [...new Set(input.kinds)], scope: input.scope, expiresDays: input.expires_days ?? null }, input.version, actor.name, now);
    if (!row) throw new GatewayError('riskFeedChanged');
    const after = viewOf(row);
    await appendAudit(tx, { actor, action: 'risk.dispute_feed', objectType: 'risk_dispute_feed', objectId: 'platform', before, after }, now);
    return after;
  });
}

/** The actor of the feed's own list entries and audit entries. */
const FEED_ACTOR: AuditActor = { userId: null, name: 'fraud dispute feed' };

/**
 * Within the dispute's transaction: lists the payment's values when the feed is on and the dispute is a fraud one.
 * Answers the scope whose lists changed (its cache is dropped after the commit), or undefined when nothing was listed.
 */
export async function feedFraudDispute(ctx: ServiceContext, tx: Sql, payment: Payment, dispute: Dispute, now: Date): Promise<string | undefined> {
  if (dispute.category !== 'fraud') return undefined;
  const feed = await disputeFeed(tx);
  if (!feed?.enabled) return undefined;
  const merchant = await findMerchantById(tx, ctx.keyring, payment.merchantId);
  const scope = feed.scope === 'platform' && merchant && !merchant.sandbox ? PLATFORM_SCOPE : payment.merchantId;
  const keys = feed.kinds.includes('card') ? await evaluationKeysOf(tx, payment.id) : undefined;
  const email = payment.payer.email?.trim().toLowerCase();
  const values: Record<FeedKind, string | undefined> = {
    card: keys?.card && /^[0-9a-f]{32}$/.test(keys.card) ? keys.card : undefined,
    email: email && isEmail(email) ? email : undefined,
    device: deviceIdOf(payment.details.deviceId),
  };
  const reason = `fraud chargeback${dispute.reasonCode ? ` ${dispute.reasonCode}` : ''} (dispute ${dispute.id}, payment ${payment.id})`.slice(0, 255);
  const expiresAt = feed.expiresDays ? new Date(now.getTime() + feed.expiresDays * 86_400_000) : null;
  const entries: Omit<ListEntry, 'createdAt'>[] = feed.kinds.flatMap((kind) => {
    const value = values[kind];
    return value ? [{ id: newId(), scope, list: 'block' as const, kind, value, reason, expiresAt, createdBy: FEED_ACTOR.name }] : [];
  });
  // An entry of an operator's for the same value (block or allow, its reason and expiry) wins: the feed adds only
  // where none is in force, and refreshes only its own.
  const saved = await addFeedListEntries(tx, entries, FEED_ACTOR.name, now);
  if (saved.length === 0) return undefined;
  await appendAudit(tx, {
    actor: FEED_ACTOR, action: 'risk.list.add', objectType: 'risk_list', objectId: scope,
    after: saved.map((e) => ({ id: e.id, list: e.list, kind: e.kind, value: e.value, reason: e.reason, expires_at: e.expiresAt?.toISOString() ?? null })),
    details: { dispute_id: dispute.id, payment_id: payment.id, reason_code: dispute.reasonCode },
  }, now);
  return scope;
}
