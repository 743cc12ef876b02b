/**
 * Which MIDs may carry a payment at all, and why each other one may not: enabled, its limits (currencies, amount),
 * its daily cap's static part, its payment mode for the intent (interface spec, Endpoints rule 7: a sale goes to an
 * SMS-capable MID, an authorization to a DMS-capable one, SMS/DMS serves both) and a connector this node may use
 * for the merchant. One pass over the MIDs answers both questions. Limits are decimal strings in major units,
 * compared with the payment's minor units exactly, scaled to a common number of decimals (never floats).
 */
import { exponentOf, type Money } from '../money.ts';
import { capFor, fitsEmptyDay, type DailyCaps } from './caps.ts';
import type { PaymentFacts } from './facts.ts';
import type { Intent } from '../operations.ts';
import type { PaymentMode } from '../model/mid.ts';

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

/** A MID's eligibility limits (admin API: currencies, min_amount, max_amount). */
export interface MidLimits {
  currencies: readonly string[] | null;
  minAmount: string | null;
  maxAmount: string | null;
}

/** What routing reads of a MID. */
export type RoutingMid = RoutableMid & MidLimits & { dailyCaps?: DailyCaps | null };

/** The connectors a node can call, by name (a Set of names, or the registry itself). */
export interface ConnectorNames {
  has(name: string): boolean;
}

const SCALE = 8;
const POWERS_OF_TEN: readonly bigint[] = Array.from({ length: SCALE + 1 }, (_, n) => 10n ** BigInt(n));

/**
 * Limits are a handful of strings read on every payment (each MID's, each rule's): each is parsed once. The
 * memo is bounded, so operators' edits over months cannot grow it.
 */
const scaled = new Map<string, bigint>();

/** "12.5" -> 1250000000n (8 decimals); the admin API's pattern allows at most 8. */
export function scaledDecimal(amount: string): bigint {
  let value = scaled.get(amount);
  if (value === undefined) {
    const [whole = '0', fraction = ''] = amount.split('.');
    value = BigInt(whole) * POWERS_OF_TEN[SCALE]! + BigInt(fraction.padEnd(SCALE, '0').slice(0, SCALE));
    if (scaled.size >= 10_000) scaled.clear();
    scaled.set(amount, value);
  }
  return value;
}

/** An amount in minor units at the same scale as scaledDecimal: the one exact comparison of money with limits. */
export const scaledMoney = (money: Money): bigint => money.minor * POWERS_OF_TEN[SCALE - Math.min(exponentOf(money.currency), SCALE)]!;

/**
 * Whether a MID's limits let it carry a payment. A zero amount (an account check, a recurring chain's
 * initialisation) is not held to the amount limits, which are about money moved.
 */
export function withinLimits(mid: MidLimits, money: Money): boolean {
  if (mid.currencies && !mid.currencies.includes(money.currency)) return false;
  if (money.minor === 0n) return true;
  const amount = scaledMoney(money);
  if (mid.minAmount !== null && amount < scaledDecimal(mid.minAmount)) return false;
  if (mid.maxAmount !== null && amount > scaledDecimal(mid.maxAmount)) return false;
  return true;
}

/** Why a MID could not carry a payment: disabled, currency, amount, daily_cap, payment_mode, connector_unavailable, or a further rule's reason. */
export type Ineligibility = 'disabled' | 'payment_mode' | 'connector_unavailable' | (string & {});

/** A condition a MID must meet to carry a payment, with the reason it gives when not. */
export interface EligibilityRule<T = RoutingMid> {
  reason: Ineligibility;
  allows(mid: T): boolean;
}

/** The limits as rules, each with the reason a routing decision records for a MID it keeps out. */
export function limitRules(money: Money): EligibilityRule<MidLimits>[] {
  return [
    { reason: 'currency', allows: (mid) => !mid.currencies || mid.currencies.includes(money.currency) },
    { reason: 'amount', allows: (mid) => withinLimits({ currencies: null, minAmount: mid.minAmount, maxAmount: mid.maxAmount }, money) },
  ];
}

/** A MID whose daily cap could not take this payment even on an empty day (a cap of 0, a smaller amount cap). */
export const capRule = (money: Money): EligibilityRule<{ dailyCaps?: DailyCaps | null }> =>
  ({ reason: 'daily_cap', allows: (mid) => fitsEmptyDay(capFor(mid.dailyCaps, money.currency), money) });

/** Which checks a path applies besides enabled and the connector (route.ts names each path's set). */
export interface EligibilityChecks {
  /** Currencies and amount limits. */
  limits: boolean;
  /** The daily cap's static part. */
  caps: boolean;
  /** SMS/DMS against the intent. */
  paymentMode: boolean;
}

export const ALL_CHECKS: EligibilityChecks = { limits: true, caps: true, paymentMode: true };

/** One line of a routing decision: every MID of the merchant, eligible ones by priority, the others with why not. */
export interface Considered {
  midId: string;
  priority: number;
  eligible: boolean;
  reason?: Ineligibility;
}

export interface Eligibility<T> {
  /** Best priority first (ties keep the MIDs' order). */
  eligible: T[];
  considered: Considered[];
  /** No MID eligible, and the daily caps alone kept at least one out. */
  cappedOnly: boolean;
}

/** What eligibility reads of a payment; without money, neither limits nor caps can be checked (a survey). */
export type EligibilityFacts = Pick<PaymentFacts, 'intent'> & Partial<Pick<PaymentFacts, 'money'>>;

/** The rules of one payment, in the order their reasons are reported. */
function rulesFor<T extends RoutingMid>(facts: EligibilityFacts, connectors: ConnectorNames, checks: EligibilityChecks, also: readonly EligibilityRule<T>[]): EligibilityRule<T>[] {
  const modes = MODES_FOR[facts.intent];
  const { money } = facts;
  return [
    { reason: 'disabled', allows: (mid) => mid.enabled },
    ...(checks.limits && money ? limitRules(money) : []),
    ...(checks.caps && money ? [capRule(money)] : []),
    ...also,
    ...(checks.paymentMode ? [{ reason: 'payment_mode', allows: (mid: T) => modes.includes(mid.paymentMode) }] : []),
    { reason: 'connector_unavailable', allows: (mid) => connectors.has(mid.connector) },
  ];
}

/** Eligibility of every MID for one payment, in one pass: the eligible ones and a reason for each of the others. */
export function explain<T extends RoutingMid>(
  mids: readonly T[], facts: EligibilityFacts, connectors: ConnectorNames, checks: EligibilityChecks = ALL_CHECKS, also: readonly EligibilityRule<T>[] = [],
): Eligibility<T> {
  const rules = rulesFor(facts, connectors, checks, also);
  const eligible: T[] = [];
  const others: Considered[] = [];
  let cappedOnly = false;
  for (const mid of mids) {
    const broken = rules.find((rule) => !rule.allows(mid));
    if (!broken) {
      eligible.push(mid);
      continue;
    }
    others.push({ midId: mid.id, priority: mid.priority, eligible: false, reason: broken.reason });
    if (broken.reason === 'daily_cap' && rules.every((rule) => rule === broken || rule.allows(mid))) cappedOnly = true;
  }
  eligible.sort((a, b) => b.priority - a.priority);
  const considered: Considered[] = eligible.map((m) => ({ midId: m.id, priority: m.priority, eligible: true }));
  return { eligible, considered: considered.concat(others), cappedOnly: cappedOnly && eligible.length === 0 };
}
