/**
 * MID choice by payment mode (interface spec, Endpoints rule 7): a sale goes to an SMS-capable MID,
 * an authorization to a DMS-capable one. SMS/DMS serves both.
 */
import type { MidScore } from './success-rate.ts';
import type { Intent } from './operations.ts';

export type { Intent };
export type PaymentMode = 'SMS' | 'DMS' | 'SMS/DMS';

const MODES_FOR: Readonly<Record<Intent, readonly PaymentMode[]>> = {
  sale: ['SMS', 'SMS/DMS'],
  auth: ['DMS', 'SMS/DMS'],
  payout: ['SMS', 'DMS', 'SMS/DMS'],
};

export interface RoutableMid {
  id: string;
  paymentMode: PaymentMode;
  enabled: boolean;
  priority: number;
  connector: string;
}

/** The connectors a node can call, by name (a Set of names, or the registry itself). */
export interface ConnectorNames {
  has(name: string): boolean;
}

/** Eligible MIDs for an intent, best first. */
export function eligibleMids<T extends RoutableMid>(mids: readonly T[], intent: Intent, connectors?: ConnectorNames): T[] {
  return mids
    .filter((m) => m.enabled && MODES_FOR[intent].includes(m.paymentMode) && (!connectors || connectors.has(m.connector)))
    .sort((a, b) => b.priority - a.priority);
}

/** Why a MID could not carry a payment: disabled, payment_mode, connector_unavailable, or a RoutingRule's reason. */
export type Ineligibility = 'disabled' | 'payment_mode' | 'connector_unavailable' | (string & {});

/** A further condition a MID must meet to carry a payment (its limits, ...), with the reason it gives when not. */
export interface RoutingRule<T extends RoutableMid = RoutableMid> {
  reason: string;
  allows(mid: T): boolean;
}

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
  /** Every attempt, in order, with its outcome and why the next one was (or was not) made. */
  attempts?: RoutingAttempt[];
  /** Every MID of the merchant: eligible ones by priority, then the others with why not. */
  considered: { midId: string; priority: number; eligible: boolean; reason?: Ineligibility }[];
}

/** One attempt of a payment on one MID (cascading, issue 15). */
export interface RoutingAttempt {
  midId: string;
  transId: string;
  /** routed: the router's first choice; cascade: the next candidate after a retryable decline. */
  why: 'routed' | 'cascade';
  outcome?: 'approved' | 'declined' | 'challenge' | 'redirect' | 'pending';
  /** The unified decline code and its retry decision (connectors/error-codes.ts). */
  code?: string;
  retry?: string;
  /** Why no further attempt followed a decline. */
  stop?: 'hard_decline' | 'authenticated' | 'not_retryable' | 'no_more_candidates' | 'max_attempts' | 'integrity';
}

function ineligibility<T extends RoutableMid>(mid: T, intent: Intent, connectors: ConnectorNames | undefined, rules: readonly RoutingRule<T>[]): Ineligibility | undefined {
  if (!mid.enabled) return 'disabled';
  const broken = rules.find((rule) => !rule.allows(mid));
  if (broken) return broken.reason;
  if (!MODES_FOR[intent].includes(mid.paymentMode)) return 'payment_mode';
  if (connectors && !connectors.has(mid.connector)) return 'connector_unavailable';
  return undefined;
}

/**
 * The decision that picked `chosen` for an intent: eligibleMids' choice among the MIDs the further rules allow,
 * with the reason of every other MID.
 */
export function explainRouting<T extends RoutableMid>(
  mids: readonly T[], intent: Intent, chosen: RoutableMid, connectors?: ConnectorNames, rules: readonly RoutingRule<T>[] = [],
): RoutingDecision {
  const allowed = mids.filter((m) => rules.every((rule) => rule.allows(m)));
  const eligible = eligibleMids(allowed, intent, connectors);
  const eligibleIds = new Set(eligible.map((m) => m.id));
  const others = mids.filter((m) => !eligibleIds.has(m.id))
    .map((m) => ({ midId: m.id, priority: m.priority, eligible: false, reason: ineligibility(m, intent, connectors, rules) ?? 'not_eligible' }));
  return {
    intent, midId: chosen.id, rule: 'highest_priority',
    considered: [...eligible.map((m) => ({ midId: m.id, priority: m.priority, eligible: true })), ...others],
  };
}
