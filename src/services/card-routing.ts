/**
 * Which MIDs a card payment goes to (issue 15): eligibility (enabled, payment mode, limits, a connector this
 * merchant may use), then the merchant's routing rules (domain/routing-rules.ts); and whether a declined attempt
 * cascades to the next candidate, decided by the connector's error table (connectors/error-codes.ts).
 */
import type { ServiceContext } from './context.ts';
import type { Merchant } from '../domain/model/merchant.ts';
import type { Mid } from '../domain/model/mid.ts';
import { eligibleMids, explainRouting, type Intent, type RoutingAttempt, type RoutingDecision, type RoutingRule } from '../domain/routing.ts';
import { limitRules } from '../domain/mid-limits.ts';
import { chooseCandidates, DEFAULT_ROUTING, usesSuccessRate, type PaymentFacts, type RoutingConfig, type Scorer } from '../domain/routing-rules.ts';
import { capFor, fitsEmptyDay, utcDay, type VolumeHold } from '../domain/volume-caps.ts';
import { DEFAULT_HALF_LIFE_MINUTES, scoreOf } from '../domain/success-rate.ts';
import { SAMPLE_BIN_TABLE, type BinTable } from '../domain/bin-table.ts';
import type { Money } from '../domain/money.ts';
import type { Sql } from '../store/database.ts';
import { releaseVolume, reserveVolume } from '../store/volume-caps-repo.ts';
import { readOutcomeCounts, recordOutcome } from '../store/outcome-stats-repo.ts';
import { cardBrandByPrefix } from '../domain/card.ts';
import { GatewayError } from '../domain/errors.ts';
import { DECLINES } from '../domain/declines.ts';
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

/**
 * The chain's own MID goes first (a card-on-file token belongs to its connector); routing picks another only when
 * it cannot serve (disabled, limits, daily cap).
 */
export function chainMidFirst(mids: readonly Mid[], midId: string | null): Mid[] {
  return mids.map((m) => (m.id === midId ? { ...m, priority: Number.MAX_SAFE_INTEGER } : m));
}

/**
 * The facts of a card payment the rules look at. The card's country comes from the BIN table; its brand from the
 * brand prefixes (domain/card.ts), the table's brand filling in only where those know none.
 */
export function cardFacts(p: { intent: Intent; amount: bigint; currency: string; pan?: string; country?: string; recurring: boolean; customData?: Readonly<Record<string, unknown>> | null }, bins: BinTable = SAMPLE_BIN_TABLE): PaymentFacts {
  const facts: PaymentFacts = { intent: p.intent, money: { minor: p.amount, currency: p.currency }, method: 'card', recurring: p.recurring };
  if (p.pan) {
    facts.bin = p.pan.slice(0, 8);
    const issuer = bins.size > 0 ? bins.lookup(facts.bin) : undefined;
    const brand = cardBrandByPrefix(p.pan.slice(0, 6)) ?? issuer?.brand;
    if (brand) facts.brand = brand;
    if (issuer) facts.cardCountry = issuer.country;
  }
  if (p.country) facts.billingCountry = p.country;
  if (p.customData) facts.customData = p.customData;
  return facts;
}

/** A MID whose daily cap could not take this payment even on an empty day (a cap of 0, a smaller amount cap). */
const capRule = (money: Money): RoutingRule<Mid> => ({ reason: 'daily_cap', allows: (mid) => fitsEmptyDay(capFor(mid.dailyCaps, money.currency), money) });

/** The brand the success-rate counters are kept under. */
export const statsBrand = (brand: string | undefined): string => brand ?? 'card';

/**
 * Routes a card payment; no eligible MID: the routing error, before anything is written. Pure: the counts of the
 * daily caps are reserved afterwards (takeCandidate), the success-rate scores come in through `scorer`.
 */
export function routeCard(
  ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], facts: PaymentFacts,
  config: RoutingConfig = merchant.routing ?? DEFAULT_ROUTING, draw: () => number = Math.random, scorer?: Scorer,
): CardRoute {
  const limits = limitRules(facts.money);
  const rules: RoutingRule<Mid>[] = [...limits, capRule(facts.money)];
  const connectors = usableConnectors(ctx, merchant);
  const eligible = eligibleMids(mids.filter((m) => rules.every((rule) => rule.allows(m))), facts.intent, connectors);
  if (eligible.length === 0 || !ctx.connectors.get(eligible[0]!.connector)) {
    // Only the daily caps stand in the way: the platform's own error for it.
    const withoutCaps = eligibleMids(mids.filter((m) => limits.every((rule) => rule.allows(m))), facts.intent, connectors);
    throw new GatewayError(withoutCaps.length > 0 ? 'dayMidLimit' : 'noEligibleMid');
  }
  const choice = chooseCandidates(config, eligible.map((m) => m.id), facts, draw, scorer);
  const byId = new Map(eligible.map((m) => [m.id, m]));
  const candidates = choice.candidates.map((id) => byId.get(id)!);
  const decision = explainRouting(mids, facts.intent, candidates[0]!, connectors, rules);
  decision.rule = choice.rule ? 'routing_rule' : 'highest_priority';
  if (choice.rule) decision.matchedRule = choice.rule;
  if (choice.share !== undefined) decision.share = choice.share;
  if (choice.skipped.length > 0) decision.skippedRules = choice.skipped;
  decision.candidates = choice.candidates;
  if (choice.scores) decision.scores = choice.scores;
  if (choice.explored !== undefined) decision.explored = choice.explored;
  return { candidates, decision, config };
}

/** The success-rate scores of a payment's MIDs, read once, when the merchant's rules route by success rate. */
export async function scorerFor(ctx: ServiceContext, config: RoutingConfig, mids: readonly Mid[], facts: PaymentFacts): Promise<Scorer | undefined> {
  if (!usesSuccessRate(config)) return undefined;
  const counts = await readOutcomeCounts(ctx.db, mids.map((m) => m.id), facts.money.currency, statsBrand(facts.brand));
  const now = ctx.clock.now();
  const halfLife = config.success_half_life_minutes ?? DEFAULT_HALF_LIFE_MINUTES;
  return (midId, params) => scoreOf(midId, counts.get(midId), now, halfLife, params);
}

/** A candidate that will carry an attempt, with what it reserved of its daily cap. */
export interface TakenCandidate {
  index: number;
  mid: Mid;
  hold?: VolumeHold;
}

/**
 * The first candidate from `from` on whose daily cap this payment still fits, its share reserved (one guarded
 * upsert: never past the cap under any concurrency). A candidate whose cap is reached is dropped from the
 * decision's candidates and shown in `considered` with the reason daily_cap. `usable` may refuse a candidate for
 * other reasons (then nothing is reserved on it).
 */
export async function takeCandidate(
  ctx: ServiceContext, sql: Sql, route: CardRoute, from: number, money: Money, usable: (mid: Mid) => boolean = () => true,
): Promise<TakenCandidate | undefined> {
  for (let index = from; index < route.candidates.length; index += 1) {
    const mid = route.candidates[index]!;
    if (!usable(mid)) continue;
    const cap = capFor(mid.dailyCaps, money.currency);
    if (!cap) return { index, mid };
    const hold: VolumeHold = { midId: mid.id, day: utcDay(ctx.clock.now()), currency: money.currency, amount: money.minor.toString() };
    if (await reserveVolume(sql, hold, cap)) return { index, mid, hold };
    dropCapped(route.decision, mid.id);
  }
  return undefined;
}

/** The routing error when no candidate could take the payment: the day limit when the daily caps dropped any. */
export function noCandidateError(route: CardRoute): GatewayError {
  return new GatewayError(route.decision.considered.some((c) => c.reason === 'daily_cap') ? 'dayMidLimit' : 'noEligibleMid');
}

function dropCapped(decision: RoutingDecision, midId: string): void {
  decision.candidates = (decision.candidates ?? []).filter((id) => id !== midId);
  const entry = decision.considered.find((c) => c.midId === midId);
  if (entry) Object.assign(entry, { eligible: false, reason: 'daily_cap' });
}

/** Gives a reservation back, when there was one (a declined or failed attempt). */
export async function releaseHold(sql: Sql, hold: unknown): Promise<void> {
  if (isHold(hold)) await releaseVolume(sql, hold);
}

const isHold = (v: unknown): v is VolumeHold =>
  typeof v === 'object' && v !== null && typeof (v as VolumeHold).midId === 'string' && typeof (v as VolumeHold).amount === 'string';

/**
 * Counts an attempt's final outcome towards its MID's success rate, when the merchant routes by success rate.
 * A failure to count is logged, never the payment's failure.
 */
export async function noteOutcome(ctx: ServiceContext, merchant: Merchant, o: { midId: string | null; currency: string; brand: unknown; approved: boolean }): Promise<void> {
  const config = merchant.routing ?? DEFAULT_ROUTING;
  if (!o.midId || !usesSuccessRate(config)) return;
  try {
    await recordOutcome(ctx.db, {
      midId: o.midId, currency: o.currency, brand: statsBrand(typeof o.brand === 'string' && o.brand !== 'card' ? o.brand : undefined),
      approved: o.approved, at: ctx.clock.now(), halfLifeMinutes: config.success_half_life_minutes ?? DEFAULT_HALF_LIFE_MINUTES,
    });
  } catch (err) {
    ctx.logger.warn({ midId: o.midId, err: (err as Error).message }, 'success-rate counter not updated');
  }
}

/**
 * Whether a declined attempt goes on to the next candidate, and if not why. Only a decline the error table marks
 * `other_mid` cascades; a hard decline (`no`) or one to retry later never does; nor does a decline that carries a
 * 3-D Secure result (the payer authenticated on this MID; that result cannot be reused on another).
 */
export function cascadeStop(outcome: ConnectorOutcome, attemptsMade: number, maxExtra: number, nextExists: boolean): RoutingAttempt['stop'] | undefined {
  if (outcome.kind !== 'declined') return undefined;
  const retry = outcome.error ? DECLINES[outcome.error.code].retry : 'no';
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
    a.retry = DECLINES[outcome.error.code].retry;
  }
  if (stop) a.stop = stop;
  return a;
}
