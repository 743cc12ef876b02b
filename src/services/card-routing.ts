/**
 * Which MIDs a card payment goes to (issue 15): eligibility (enabled, payment mode, limits, a connector this
 * merchant may use), then the merchant's routing rules (domain/routing-rules.ts); and whether a declined attempt
 * cascades to the next candidate, decided by the connector's error table (connectors/error-codes.ts).
 */
import type { ServiceContext } from './context.ts';
import type { Merchant, Mid } from '../store/merchants-repo.ts';
import { eligibleMids, explainRouting, type Intent, type RoutingAttempt, type RoutingDecision } from '../domain/routing.ts';
import { limitRules } from '../domain/mid-limits.ts';
import { chooseCandidates, DEFAULT_ROUTING, type PaymentFacts, type RoutingConfig } from '../domain/routing-rules.ts';
import { cardBrandByPrefix } from '../domain/card.ts';
import { GatewayError } from '../domain/errors.ts';
import { UNIFIED_CODES } from '../connectors/error-codes.ts';
import type { ConnectorOutcome } from '../connectors/types.ts';
import { usableConnectors } from './connector-access.ts';

export interface CardRoute {
  /** Eligible MIDs in attempt order; never empty. */
  candidates: Mid[];
  decision: RoutingDecision;
  /** The rules and cascading limit this payment was routed by. */
  config: RoutingConfig;
}

/**
 * A merchant-initiated charge of a stored card stays with its chain's MID (the acquirer's card-on-file reference
 * belongs to it; recurring-charges puts it first): no rules, no cascading to an acquirer that never saw the card.
 */
export const CHAIN_ROUTING: RoutingConfig = { rules: [], max_extra_attempts: 0 };

/** The facts of a card payment the rules look at. */
export function cardFacts(p: { intent: Intent; amount: bigint; currency: string; pan?: string; country?: string; recurring: boolean; customData?: Readonly<Record<string, unknown>> | null }): PaymentFacts {
  const facts: PaymentFacts = { intent: p.intent, money: { minor: p.amount, currency: p.currency }, method: 'card', recurring: p.recurring };
  if (p.pan) {
    facts.bin = p.pan.slice(0, 8);
    const brand = cardBrandByPrefix(p.pan.slice(0, 6));
    if (brand) facts.brand = brand;
  }
  if (p.country) facts.billingCountry = p.country;
  if (p.customData) facts.customData = p.customData;
  return facts;
}

/** Routes a card payment; no eligible MID: the routing error, before anything is written. */
export function routeCard(
  ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], facts: PaymentFacts,
  config: RoutingConfig = merchant.routing ?? DEFAULT_ROUTING, draw: () => number = Math.random,
): CardRoute {
  const rules = limitRules(facts.money);
  const connectors = usableConnectors(ctx, merchant);
  const eligible = eligibleMids(mids.filter((m) => rules.every((rule) => rule.allows(m))), facts.intent, connectors);
  if (eligible.length === 0 || !ctx.connectors.get(eligible[0]!.connector)) throw new GatewayError('noEligibleMid');
  const choice = chooseCandidates(config, eligible.map((m) => m.id), facts, draw);
  const byId = new Map(eligible.map((m) => [m.id, m]));
  const candidates = choice.candidates.map((id) => byId.get(id)!);
  const decision = explainRouting(mids, facts.intent, candidates[0]!, connectors, rules);
  decision.rule = choice.rule ? 'routing_rule' : 'highest_priority';
  if (choice.rule) decision.matchedRule = choice.rule;
  if (choice.share !== undefined) decision.share = choice.share;
  if (choice.skipped.length > 0) decision.skippedRules = choice.skipped;
  decision.candidates = choice.candidates;
  return { candidates, decision, config };
}

/**
 * Whether a declined attempt goes on to the next candidate, and if not why. Only a decline the error table marks
 * `other_mid` cascades; a hard decline (`no`) or one to retry later never does; nor does a decline that carries a
 * 3-D Secure result (the payer authenticated on this MID; that result cannot be reused on another).
 */
export function cascadeStop(outcome: ConnectorOutcome, attemptsMade: number, maxExtra: number, nextExists: boolean): RoutingAttempt['stop'] | undefined {
  if (outcome.kind !== 'declined') return undefined;
  const retry = outcome.error ? UNIFIED_CODES[outcome.error.code].retry : 'no';
  if (retry === 'no') return 'hard_decline';
  // A 3-D Secure result belongs to the MID's 3DS server: it cannot be carried to another acquirer.
  if (outcome.threeDs) return 'authenticated';
  if (retry !== 'other_mid') return 'not_retryable';
  if (attemptsMade > maxExtra) return 'max_attempts';
  if (!nextExists) return 'no_more_candidates';
  return undefined;
}

export function attemptRecord(midId: string, transId: string, why: RoutingAttempt['why'], outcome: ConnectorOutcome, stop?: RoutingAttempt['stop']): RoutingAttempt {
  const a: RoutingAttempt = { midId, transId, why, outcome: outcome.kind };
  if (outcome.kind === 'declined' && outcome.error) {
    a.code = outcome.error.code;
    a.retry = UNIFIED_CODES[outcome.error.code].retry;
  }
  if (stop) a.stop = stop;
  return a;
}
