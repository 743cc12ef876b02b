/**
 * THE MID picker: a payment's facts, the merchant's MIDs and its routing config in, the MIDs that may carry it in
 * attempt order and the reasons out. Pure (no I/O): the success-rate scores and the random draw come in as values,
 * the daily caps' running counts are reserved afterwards by the service (services/attempt/route.ts). Every path
 * that picks a MID calls it once per payment: card (S2S, Checkout, wallets, hosted fields), Checkout session
 * opening, the schedule runner, APM pay-ins and payouts, the provider MIDs. Where a path differs, the difference
 * is input: which eligibility checks it applies (PATHS below), its MIDs, its routing config.
 */
import type { MidScore } from './success-rate.ts';
import type { PaymentFacts } from './facts.ts';
import type { Intent } from '../operations.ts';
import { explain, type Considered, type ConnectorNames, type EligibilityChecks, type EligibilityRule, type RoutingMid } from './eligibility.ts';
import { chooseCandidates, type RoutingConfig, type Scorer } from './rules.ts';

/**
 * The routing decision of a payment, recorded with it so an operator can see which MID carried it and why
 * (issue 11; routing rules beyond payment mode and priority add their own reasons here).
 */
export interface RoutingDecision {
  intent: Intent;
  midId: string;
  /** What picked the MID among the eligible ones: the default order, or one of the merchant's routing rules. */
  rule: 'highest_priority' | 'routing_rule';
  /** The routing rule that matched (issue 15), its position in the merchant's list. */
  matchedRule?: { index: number; name: string };
  /** The share of a volume split the payment was drawn into. */
  share?: number;
  /** Rules that matched but named no eligible MID, passed over. */
  skippedRules?: { index: number; name: string }[];
  /** The eligible MIDs in the order attempts may go to them (the first carries the payment). */
  candidates?: string[];
  /** A success-rate rule: the score of each eligible MID it named, and whether this payment explored. */
  scores?: MidScore[];
  explored?: boolean;
  /** Every MID of the merchant: eligible ones by priority, then the others with why not. */
  considered: Considered[];
}

/**
 * What each path checks of a MID (besides enabled and a connector it may use): one table of the paths' differences.
 * - card: everything (S2S, Checkout payments, wallets, hosted fields, scheduled charges, the admin dry run);
 * - session: opening a Checkout session answers only "could any MID take this": no daily caps (they are reserved
 *   when the payer pays), no routing rules;
 * - apm: an alternative method has no SMS/DMS and no daily caps;
 * - survey: which connectors a wallet payment could reach, and whose settings a payout reads: no limits, no caps.
 */
export const PATHS = {
  card: { limits: true, caps: true, paymentMode: true },
  session: { limits: true, caps: false, paymentMode: true },
  apm: { limits: true, caps: false, paymentMode: false },
  survey: { limits: false, caps: false, paymentMode: true },
} as const satisfies Record<string, EligibilityChecks>;

/** Routing by priority alone: no rules, no cascading (a session's check, APM, a chain's merchant-initiated charge). */
export const NO_RULES: RoutingConfig = { rules: [], max_extra_attempts: 0 };

/**
 * A merchant-initiated charge of a stored card stays with its chain's MID (the acquirer's card-on-file reference
 * belongs to it; recurring-charges puts it first): no rules, no cascading to an acquirer that never saw the card.
 */
export const CHAIN_ROUTING: RoutingConfig = NO_RULES;

/**
 * The chain's own MID goes first (a card-on-file token belongs to its connector); routing picks another only when
 * it cannot serve (disabled, limits, daily cap).
 */
export function chainMidFirst<T extends { id: string; priority: number }>(mids: readonly T[], midId: string | null): T[] {
  return mids.map((m) => (m.id === midId ? { ...m, priority: Number.MAX_SAFE_INTEGER } : m));
}

export interface RouteOptions<T> {
  /** The connectors this node may use for the merchant (a live merchant: never the sandbox). */
  connectors: ConnectorNames;
  /** Success-rate scores, read by the service once per payment when a rule routes by success rate. */
  scores?: Scorer;
  /** A draw in [0, 1) for volume splits and exploration. */
  draw?: () => number;
  /** The path's eligibility checks (default: card). */
  checks?: EligibilityChecks;
  /** Further conditions a MID must meet on this path, each with its reason (an APM provider serving the method). */
  also?: readonly EligibilityRule<T>[];
}

/** No MID can carry the payment: none at all, or only the daily caps stand in the way (the platform's own error). */
export type Refusal = 'noEligibleMid' | 'dayMidLimit';

export interface Route<T> {
  /** Eligible MIDs in attempt order; empty exactly when refused. */
  candidates: T[];
  decision: RoutingDecision;
  refusal?: Refusal;
}

/** Routes one payment: eligibility once (every MID with a reason), then the merchant's rules among the eligible. */
export function route<T extends RoutingMid>(facts: PaymentFacts, mids: readonly T[], config: RoutingConfig, opts: RouteOptions<T>): Route<T> {
  const { eligible, considered, cappedOnly } = explain(mids, facts, opts.connectors, opts.checks ?? PATHS.card, opts.also);
  if (eligible.length === 0) {
    return { candidates: [], refusal: cappedOnly ? 'dayMidLimit' : 'noEligibleMid', decision: { intent: facts.intent, midId: '', rule: 'highest_priority', considered } };
  }
  const choice = chooseCandidates(config, eligible.map((m) => m.id), facts, opts.draw ?? Math.random, opts.scores);
  const byId = new Map(eligible.map((m) => [m.id, m]));
  const candidates = choice.candidates.map((id) => byId.get(id)!);
  const decision: RoutingDecision = { intent: facts.intent, midId: candidates[0]!.id, rule: choice.rule ? 'routing_rule' : 'highest_priority', considered };
  if (choice.rule) decision.matchedRule = choice.rule;
  if (choice.share !== undefined) decision.share = choice.share;
  if (choice.skipped.length > 0) decision.skippedRules = choice.skipped;
  decision.candidates = choice.candidates;
  if (choice.scores) decision.scores = choice.scores;
  if (choice.explored !== undefined) decision.explored = choice.explored;
  return { candidates, decision };
}

/**
 * Not a pick but a survey: the MIDs a payment of this intent could reach at all (enabled, payment mode, a usable
 * connector), best priority first. A wallet payment chooses its flow from what their connectors take, before it
 * is routed.
 */
export function reachable<T extends RoutingMid>(mids: readonly T[], intent: Intent, connectors: ConnectorNames): T[] {
  return explain(mids, { intent }, connectors, PATHS.survey).eligible;
}

/** A candidate whose daily cap turned out full when its share was reserved: out of the candidates, shown why. */
export function dropCapped(decision: RoutingDecision, midId: string): void {
  decision.candidates = (decision.candidates ?? []).filter((id) => id !== midId);
  const entry = decision.considered.find((c) => c.midId === midId);
  if (entry) Object.assign(entry, { eligible: false, reason: 'daily_cap' });
}

/** The refusal when no candidate could take the payment: the day limit when the daily caps dropped any. */
export const refusalAfterCaps = (decision: RoutingDecision): Refusal =>
  (decision.considered.some((c) => c.reason === 'daily_cap') ? 'dayMidLimit' : 'noEligibleMid');
