/**
 * MID choice by payment mode (interface spec, Endpoints rule 7): a sale goes to an SMS-capable MID,
 * an authorization to a DMS-capable one. SMS/DMS serves both.
 */
export type PaymentMode = 'SMS' | 'DMS' | 'SMS/DMS';
export type Intent = 'sale' | 'auth' | 'payout';

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

/** Why a MID could not carry a payment, in the order the rules are checked. */
export type Ineligibility = 'disabled' | 'payment_mode' | 'connector_unavailable';

/**
 * The routing decision of a payment, recorded with it so an operator can see which MID carried it and why
 * (issue 11; routing rules beyond payment mode and priority will add their own reasons here).
 */
export interface RoutingDecision {
  intent: Intent;
  midId: string;
  /** The rule that picked the MID among the eligible ones. */
  rule: 'highest_priority';
  /** Every MID of the merchant: eligible ones by priority, then the others with why not. */
  considered: { midId: string; priority: number; eligible: boolean; reason?: Ineligibility }[];
}

function ineligibility(mid: RoutableMid, intent: Intent, connectors?: ConnectorNames): Ineligibility | undefined {
  if (!mid.enabled) return 'disabled';
  if (!MODES_FOR[intent].includes(mid.paymentMode)) return 'payment_mode';
  if (connectors && !connectors.has(mid.connector)) return 'connector_unavailable';
  return undefined;
}

/** The decision that picked `chosen` for an intent (eligibleMids' choice, with the reasons of the others). */
export function explainRouting(mids: readonly RoutableMid[], intent: Intent, chosen: RoutableMid, connectors?: ConnectorNames): RoutingDecision {
  const eligible = eligibleMids(mids, intent, connectors).map((m) => ({ midId: m.id, priority: m.priority, eligible: true }));
  const others = mids.flatMap((m) => {
    const reason = ineligibility(m, intent, connectors);
    return reason ? [{ midId: m.id, priority: m.priority, eligible: false, reason }] : [];
  });
  return { intent, midId: chosen.id, rule: 'highest_priority', considered: [...eligible, ...others] };
}
