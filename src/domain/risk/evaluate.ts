/**
 * The risk engine's evaluation (issue 26), pure: a payment's facts, the values its store read (velocity counters,
 * list entries hit) and the rule sets (platform first, then the merchant's) -> a verdict with everything that led
 * to it, which is recorded on the payment as its risk evaluation.
 *
 * Order: a block list entry blocks, whatever the rules say (no rule, not even one that throws, can let a
 * block-listed card through); else an allow list entry allows without the rules; else the rules run in order:
 * the first ACTIVE rule that matches with a deciding outcome (allow, block, review, require_3ds) decides, `score`
 * rules add their points on the way, `shadow` rules are recorded as if they applied and change nothing, `off`
 * rules are skipped. No rule decided: the score against the thresholds (block, then review), else allow.
 * A rule whose test throws is skipped and recorded in `failed` (the service alerts on it).
 *
 * Every condition is one row of CONDITION_TESTS: a condition added to the schema without its test does not compile.
 */
import type { Money } from '../money.ts';
import { scaledDecimal, scaledMoney } from '../routing/eligibility.ts';
import { cidrRanges, ipWithin, type IpValue } from './ip.ts';
import { velocityKey, type CountryPair, type RiskAction, type RiskConditions, type RiskRule, type RiskRuleSet, type ThreeDsResult, type VelocityCondition } from './rules.ts';

export interface RiskFacts {
  merchantId: string;
  midId?: string | null;
  channel: string;
  /** card, or the alternative method's key. */
  method: string;
  intent: 'sale' | 'auth' | 'payout';
  money: Money;
  brand?: string;
  bin?: string;
  cardCountry?: string;
  billingCountry?: string;
  ip?: IpValue;
  ipCountry?: string;
  emailDomain?: string;
  recurring: boolean;
  merchantInitiated: boolean;
  /** A sandbox merchant's payment. */
  sandbox: boolean;
  customData?: Readonly<Record<string, unknown>> | null;
  threeDs?: ThreeDsResult;
}

export type ListKind = 'card' | 'bin' | 'email' | 'email_domain' | 'ip' | 'country' | 'device';
export const LIST_KINDS: readonly ListKind[] = ['card', 'bin', 'email', 'email_domain', 'ip', 'country', 'device'];

/** A list entry the payment's values hit (the store finds them; expired entries are never hits). */
export interface ListHit {
  list: 'allow' | 'block';
  kind: ListKind;
  /** The entry as listed (a card: its fingerprint; an IP: the address or block). */
  value: string;
  reason: string;
  /** Whose list: the platform's, or the merchant's. */
  scope: 'platform' | 'merchant';
}

export interface RiskInputs {
  /** Counter values by velocityKey(); a counter the rules need that is missing makes its rule fail (recorded). */
  velocity: ReadonlyMap<string, bigint>;
  lists: readonly ListHit[];
  /**
   * Counters of a dimension the payment has no value for (no device id, no e-mail): the rules read them as 0, the
   * evaluation's `velocity` leaves them out (nothing was counted, so no value is shown).
   */
  absent?: readonly string[];
}

export type RuleScope = 'platform' | 'merchant';

export interface RuleRef {
  scope: RuleScope;
  index: number;
  name: string;
}

export interface RuleMatch extends RuleRef {
  mode: 'active' | 'shadow';
  action: RiskAction | 'score';
  points?: number;
}

export interface RiskEvaluation {
  action: RiskAction;
  /** Why, in a few words an operator reads (the decline reason of a block is the platform's own text). */
  reason: string;
  decided_by: { rule: RuleRef } | { list: ListHit } | { score: number } | null;
  score: number;
  matched: RuleMatch[];
  lists: ListHit[];
  failed: (RuleRef & { error: string })[];
  /** The counter values the rules read, as decimal strings. */
  velocity: Record<string, string>;
  /**
   * Counters the rules read as 0 because the payment has no value for their dimension (no device id, no e-mail):
   * not in `velocity` (nothing was counted), named here so a backtest replays them as 0. Absent when none.
   */
  velocity_absent?: string[];
}

interface Evaluating {
  facts: RiskFacts;
  inputs: RiskInputs;
  /**
   * Set by a velocity condition on a counter the inputs do not hold (a backtest's stored payment whose screen did
   * not read it): the rule fails as a throwing one does, without the throw, whose stack capture cost the backtest
   * ~80 µs a payment at 3 such rules (1,000,000 payments: 80 s of the 60 s target on its own).
   */
  missing?: string;
}

const listed = (list: readonly string[], value: string | undefined): boolean => value !== undefined && list.includes(value);

function binWithin(bin: string | undefined, range: { from: string; to: string }): boolean {
  if (!bin || bin.length < range.from.length) return false;
  const prefix = bin.slice(0, range.from.length);
  return prefix >= range.from && prefix <= range.to; // same length, digits only: string order is numeric order
}

const COUNTRY_PAIRS: Readonly<Record<CountryPair, (f: RiskFacts) => [string | undefined, string | undefined]>> = {
  card_ip: (f) => [f.cardCountry, f.ipCountry],
  card_billing: (f) => [f.cardCountry, f.billingCountry],
  ip_billing: (f) => [f.ipCountry, f.billingCountry],
};

function velocityHolds(v: VelocityCondition, e: Evaluating): boolean {
  const value = e.inputs.velocity.get(velocityKey(v));
  if (value === undefined) {
    e.missing = `counter ${velocityKey(v)} was not read`;
    return false;
  }
  if (v.measure === 'amount') return scaledMoney({ minor: value, currency: v.currency! }) > scaledDecimal(v.more_than_amount!);
  return value > BigInt(v.more_than!);
}

type ConditionTests = { readonly [K in keyof RiskConditions]-?: (condition: NonNullable<RiskConditions[K]>, e: Evaluating) => boolean };

/** Each condition's test; a condition a rule does not give always holds. */
const CONDITION_TESTS: ConditionTests = {
  amount: (c, { facts }) => {
    const amount = scaledMoney(facts.money);
    return (c.min === undefined || amount >= scaledDecimal(c.min)) && (c.max === undefined || amount <= scaledDecimal(c.max));
  },
  currencies: (c, { facts }) => c.includes(facts.money.currency),
  brands: (c, { facts }) => listed(c, facts.brand),
  bin_ranges: (c, { facts }) => c.some((r) => binWithin(facts.bin, r)),
  card_countries: (c, { facts }) => listed(c, facts.cardCountry),
  billing_countries: (c, { facts }) => listed(c, facts.billingCountry),
  ip_countries: (c, { facts }) => listed(c, facts.ipCountry),
  ips: (c, { facts }) => cidrRanges(c).some((r) => ipWithin(facts.ip, r)),
  country_mismatch: (c, { facts }) => c.some((pair) => {
    const [a, b] = COUNTRY_PAIRS[pair](facts);
    return a !== undefined && b !== undefined && a !== b;
  }),
  email_domains: (c, { facts }) => listed(c, facts.emailDomain),
  methods: (c, { facts }) => c.includes(facts.method),
  merchants: (c, { facts }) => c.includes(facts.merchantId),
  mids: (c, { facts }) => listed(c, facts.midId ?? undefined),
  operations: (c, { facts }) => c.includes(facts.intent),
  channels: (c, { facts }) => (c as readonly string[]).includes(facts.channel),
  recurring: (c, { facts }) => c === facts.recurring,
  merchant_initiated: (c, { facts }) => c === facts.merchantInitiated,
  sandbox: (c, { facts }) => c === facts.sandbox,
  custom_data: (c, { facts }) => Object.entries(c).every(([key, value]) => {
    const given = facts.customData?.[key];
    return given !== undefined && given !== null && (value === null || String(given) === value);
  }),
  three_ds: (c, { facts }) => listed(c, facts.threeDs),
  // A charge the payer is not present for is not held to velocity (issue 26: it may skip velocity, not lists).
  velocity: (c, e) => !e.facts.merchantInitiated && c.every((v) => velocityHolds(v, e)),
};

export function conditionsHold(when: RiskConditions, e: Evaluating): boolean {
  for (const key in when) {
    const condition = when[key as keyof RiskConditions];
    const test = CONDITION_TESTS[key as keyof RiskConditions] as (c: unknown, e: Evaluating) => boolean;
    if (condition !== undefined && !test(condition, e)) return false;
  }
  return true;
}

const MAX_SCORE = 100;

function listVerdict(lists: readonly ListHit[]): ListHit | undefined {
  return lists.find((h) => h.list === 'block') ?? lists.find((h) => h.list === 'allow');
}

function seenVelocity(inputs: RiskInputs): Record<string, string> {
  const out: Record<string, string> = {};
  const absent = new Set(inputs.absent ?? []);
  for (const [key, value] of inputs.velocity) if (!absent.has(key)) out[key] = value.toString();
  return out;
}

/**
 * Evaluates a payment against the rule sets, in order (the platform's first). `sets` pairs each set with its
 * scope; the last set's score thresholds that are given apply (a merchant's replace the platform's).
 */
export function evaluateRisk(sets: readonly { scope: RuleScope; set: RiskRuleSet }[], facts: RiskFacts, inputs: RiskInputs): RiskEvaluation {
  const evaluation: RiskEvaluation = { action: 'allow', reason: 'no rule matched', decided_by: null, score: 0, matched: [], lists: [...inputs.lists], failed: [], velocity: seenVelocity(inputs) };
  const absent = (inputs.absent ?? []).filter((key) => inputs.velocity.has(key));
  if (absent.length > 0) evaluation.velocity_absent = absent;
  const hit = listVerdict(inputs.lists);
  if (hit) {
    return Object.assign(evaluation, { action: hit.list, reason: `${hit.scope} ${hit.list} list: ${hit.kind}`, decided_by: { list: hit } });
  }
  const e: Evaluating = { facts, inputs };
  let thresholds: RiskRuleSet['score_thresholds'];
  for (const { scope, set } of sets) {
    if (set.score_thresholds) thresholds = set.score_thresholds;
    for (let index = 0; index < set.rules.length; index++) {
      const rule = set.rules[index]!;
      if (rule.mode === 'off') continue;
      const decided = applyRule(evaluation, { scope, index, name: rule.name }, rule, e);
      if (decided) return evaluation;
    }
  }
  if (thresholds?.block !== undefined && evaluation.score >= thresholds.block) {
    return Object.assign(evaluation, { action: 'block', reason: `score ${evaluation.score} reached ${thresholds.block}`, decided_by: { score: evaluation.score } });
  }
  if (thresholds?.review !== undefined && evaluation.score >= thresholds.review) {
    return Object.assign(evaluation, { action: 'review', reason: `score ${evaluation.score} reached ${thresholds.review}`, decided_by: { score: evaluation.score } });
  }
  return evaluation;
}

/** Tests one rule and records what it did; true when it decided the payment. */
function applyRule(evaluation: RiskEvaluation, ref: RuleRef, rule: RiskRule, e: Evaluating): boolean {
  let holds: boolean;
  e.missing = undefined;
  try {
    holds = conditionsHold(rule.when, e);
  } catch (err) {
    evaluation.failed.push({ ...ref, error: err instanceof Error ? err.message : String(err) });
    return false;
  }
  if (e.missing !== undefined) {
    evaluation.failed.push({ ...ref, error: e.missing });
    return false;
  }
  if (!holds) return false;
  const mode = rule.mode as 'active' | 'shadow';
  const { then } = rule;
  evaluation.matched.push(then.action === 'score' ? { ...ref, mode, action: 'score', points: then.points } : { ...ref, mode, action: then.action });
  if (mode === 'shadow') return false;
  if (then.action === 'score') {
    evaluation.score = Math.min(MAX_SCORE, evaluation.score + then.points);
    return false;
  }
  Object.assign(evaluation, { action: then.action, reason: `${ref.scope} rule: ${rule.name}`, decided_by: { rule: ref } });
  return true;
}

/** The e-mail's domain, lower case ("Payer@Example.COM" -> "example.com"). */
export function emailDomain(email: string | undefined): string | undefined {
  const at = email?.lastIndexOf('@') ?? -1;
  return at > 0 ? email!.slice(at + 1).toLowerCase() : undefined;
}
