/**
 * A merchant's routing rules for operators (issue 15): read, replace (validated, audited, every node routes by
 * them at its next request) and a dry run that answers which MID a described payment would go to and why.
 */
import type { ServiceContext } from '../context.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';
import { parseAmount } from '../../domain/money.ts';
import { DEFAULT_ROUTING, validateRouting, type RoutingConfig } from '../../domain/routing/rules.ts';
import type { RoutingDecision } from '../../domain/routing/route.ts';
import { cardFacts } from '../../domain/routing/facts.ts';
import type { Intent } from '../../domain/operations.ts';
import { findMerchantById, listMids, lockMerchantRouting, setMerchantRouting } from '../../store/merchants-repo.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { isUuid } from '../../domain/ids.ts';
import { entityTag, ifMatchHolds } from '../../domain/entity-tags.ts';
import { routeCard } from '../attempt/route.ts';
import type { MidScore } from '../../domain/routing/success-rate.ts';

async function merchantOrNotFound(ctx: Pick<ServiceContext, 'db' | 'keyring'>, merchantId: string) {
  const merchant = isUuid(merchantId) ? await findMerchantById(ctx.db, ctx.keyring, merchantId) : undefined;
  if (!merchant) throw new GatewayError('notFound');
  return merchant;
}

export async function getRouting(ctx: ServiceContext, merchantId: string): Promise<RoutingConfig> {
  return (await merchantOrNotFound(ctx, merchantId)).routing ?? DEFAULT_ROUTING;
}

/**
 * Replaces the rules as a whole: the order is the meaning, so there is no partial change. With `ifMatch` (the
 * request's If-Match), only while the stored rules still have the tag it names (domain/entity-tags.ts).
 */
export async function putRouting(ctx: ServiceContext, actor: AuditActor, merchantId: string, config: RoutingConfig, ifMatch?: string): Promise<RoutingConfig> {
  if (!isUuid(merchantId)) throw new GatewayError('notFound');
  await ctx.db.transaction(async (tx) => {
    const locked = await lockMerchantRouting(tx, merchantId);
    if (!locked) throw new GatewayError('notFound');
    if (ifMatch !== undefined && !ifMatchHolds(ifMatch, entityTag(locked.routing ?? DEFAULT_ROUTING))) throw new GatewayError('configurationChanged');
    const mids = await listMids(tx, merchantId);
    const errors = validateRouting(config, new Set(mids.map((m) => m.id)));
    if (errors.length > 0) throw GatewayError.invalid(errors);
    await setMerchantRouting(tx, merchantId, config);
    await appendAudit(tx, { actor, action: 'merchant.routing', objectType: 'merchant', objectId: merchantId, before: locked.routing ?? DEFAULT_ROUTING, after: config }, ctx.clock.now());
  });
  ctx.merchants.invalidate();
  return config;
}

export interface DryRunInput {
  operation: Intent;
  amount: string;
  currency: string;
  /** The card's first digits (6 to 8; a full number is cut to 8 and never kept). */
  bin?: string;
  billing_country?: string;
  recurring?: boolean;
  custom_data?: Record<string, unknown>;
}

export interface DryRunView {
  mid_id: string;
  rule: RoutingDecision['rule'];
  matched_rule: { index: number; name: string } | null;
  share: number | null;
  candidates: string[];
  skipped_rules: { index: number; name: string }[];
  considered: { mid_id: string; priority: number; eligible: boolean; candidate: boolean; reason: string | null }[];
  card_country: string | null;
  brand: string | null;
  scores: MidScore[];
  explored: boolean | null;
}

/** Routes a described payment as a real one would be, writing nothing; a split draws as a payment would. */
export async function dryRunRouting(ctx: ServiceContext, merchantId: string, input: DryRunInput): Promise<DryRunView> {
  const merchant = await merchantOrNotFound(ctx, merchantId);
  const parsed = parseAmount(input.amount, input.currency);
  if (!parsed.ok) throw GatewayError.field(parsed.reason === 'currency' ? 'currency' : 'amount', parsed.reason === 'currency' ? MESSAGES.notCurrency : MESSAGES.notValid);
  const facts = cardFacts({
    intent: input.operation, amount: parsed.money.minor, currency: parsed.money.currency, pan: input.bin?.slice(0, 8),
    country: input.billing_country, recurring: input.recurring ?? false, customData: input.custom_data ?? null,
  }, ctx.binTable);
  const mids = await listMids(ctx.db, merchantId);
  const config = merchant.routing ?? DEFAULT_ROUTING;
  const { decision } = await routeCard(ctx, merchant, mids, facts, config);
  return {
    mid_id: decision.midId, rule: decision.rule, matched_rule: decision.matchedRule ?? null, share: decision.share ?? null,
    candidates: decision.candidates ?? [decision.midId], skipped_rules: decision.skippedRules ?? [],
    considered: decision.considered.map((c) => ({
      mid_id: c.midId, priority: c.priority, eligible: c.eligible, candidate: (decision.candidates ?? []).includes(c.midId), reason: c.reason ?? null,
    })),
    card_country: facts.cardCountry ?? null, brand: facts.brand ?? null, scores: decision.scores ?? [], explored: decision.explored ?? null,
  };
}
