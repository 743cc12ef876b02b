/**
 * Smart routing (issue 15): a merchant's ordered routing rules. Eligibility comes first (domain/routing.ts and the
 * MID limits); then the first rule whose conditions all match the payment picks the MIDs, as one MID, an ordered
 * fallback list or a weighted volume split whose shares each hold a fallback list. No rule matching (or a matching
 * rule none of whose MIDs is eligible): the merchant's default order, by priority. The result is an ordered list of
 * candidates: the first carries the payment, the next ones are where a retryable decline cascades to.
 *
 * Rules are stored and shown exactly as the admin API takes them (snake_case), so what an operator saved is what
 * runs; amounts are decimal strings in major units compared exactly (never floats), as the MID limits are.
 */
import { scaledDecimal } from './mid-limits.ts';
import { exponentOf, type Money } from './money.ts';
import type { Intent } from './routing.ts';
import type { FieldError } from './errors.ts';
import { rankBySuccess, SUCCESS_RATE_DEFAULTS, type MidScore, type SuccessRateParams } from './success-rate.ts';

export interface RoutingConditions {
  currencies?: string[];
  /** Inclusive bounds, decimal strings in the payment's currency (major units). */
  amount?: { min?: string; max?: string };
  brands?: string[];
  /** Inclusive ranges of the card's first digits (6 to 8); both ends of a range have the same length. */
  bin_ranges?: { from: string; to: string }[];
  /** The issuing country, when the gateway knows it; an unknown country never matches. */
  card_countries?: string[];
  methods?: string[];
  billing_countries?: string[];
  operations?: Intent[];
  recurring?: boolean;
  /** Each key must be present in the payment's custom_data; a string value must be equal, null: any value. */
  custom_data?: Record<string, string | null>;
}

export type RoutingOutput =
  | { kind: 'mid'; mid_id: string }
  | { kind: 'fallback'; mid_ids: string[] }
  | { kind: 'split'; shares: { weight: number; mid_ids: string[] }[] }
  /** The MIDs ordered by their recent approval rate for the payment's currency and brand (domain/success-rate.ts). */
  | ({ kind: 'success_rate'; mid_ids: string[] } & Partial<SuccessRateParams>);

export interface RoutingRuleDef {
  name: string;
  when: RoutingConditions;
  then: RoutingOutput;
}

export interface RoutingConfig {
  rules: RoutingRuleDef[];
  /** Further attempts on other MIDs after a retryable decline (0: no cascading). */
  max_extra_attempts: number;
  /** Half-life of an outcome's weight in the success-rate counters of this merchant's MIDs (default 60). */
  success_half_life_minutes?: number;
}

/** Whether any rule routes by success rate (then the merchant's outcomes are counted and scores read). */
export const usesSuccessRate = (config: RoutingConfig): boolean => config.rules.some((r) => r.then.kind === 'success_rate');

export const DEFAULT_ROUTING: RoutingConfig = { rules: [], max_extra_attempts: 1 };
export const MAX_EXTRA_ATTEMPTS = 4;

/** What the router knows of a payment when it routes it. */
export interface PaymentFacts {
  intent: Intent;
  money: Money;
  method: string;
  brand?: string;
  /** The card's first digits (6 or more). */
  bin?: string;
  cardCountry?: string;
  billingCountry?: string;
  recurring: boolean;
  customData?: Readonly<Record<string, unknown>>;
}

const SCALE = 8;
const scaledMinor = (m: Money): bigint => m.minor * 10n ** BigInt(SCALE - Math.min(exponentOf(m.currency), SCALE));

function binWithin(bin: string | undefined, range: { from: string; to: string }): boolean {
  if (!bin || bin.length < range.from.length) return false;
  const prefix = bin.slice(0, range.from.length);
  return prefix >= range.from && prefix <= range.to; // same length, digits only: string order is numeric order
}

const inList = (list: readonly string[] | undefined, value: string | undefined): boolean =>
  list === undefined || (value !== undefined && list.includes(value));

/** Each condition as a test; a condition that is absent always holds. */
const CONDITION_TESTS: readonly ((c: RoutingConditions, p: PaymentFacts) => boolean)[] = [
  (c, p) => inList(c.currencies, p.money.currency),
  (c, p) => {
    if (!c.amount) return true;
    const amount = scaledMinor(p.money);
    return (c.amount.min === undefined || amount >= scaledDecimal(c.amount.min)) && (c.amount.max === undefined || amount <= scaledDecimal(c.amount.max));
  },
  (c, p) => inList(c.brands, p.brand),
  (c, p) => !c.bin_ranges || c.bin_ranges.some((r) => binWithin(p.bin, r)),
  (c, p) => inList(c.card_countries, p.cardCountry),
  (c, p) => inList(c.methods, p.method),
  (c, p) => inList(c.billing_countries, p.billingCountry),
  (c, p) => inList(c.operations, p.intent),
  (c, p) => c.recurring === undefined || c.recurring === p.recurring,
  (c, p) => !c.custom_data || Object.entries(c.custom_data).every(([key, value]) => {
    const given = p.customData?.[key];
    return given !== undefined && (value === null || String(given) === value);
  }),
];

export function ruleMatches(when: RoutingConditions, payment: PaymentFacts): boolean {
  return CONDITION_TESTS.every((test) => test(when, payment));
}

/** A rule without any condition matches every payment: the rules after it are never reached. */
export const isCatchAll = (when: RoutingConditions): boolean => Object.values(when).every((v) => v === undefined);

/** Which share of a split a draw in [0, 1) lands on: shares take consecutive slices of 0..100 by weight. */
export function pickShare(shares: readonly { weight: number }[], draw: number): number {
  let point = draw * 100;
  for (const [index, share] of shares.entries()) {
    if (point < share.weight) return index;
    point -= share.weight;
  }
  return shares.length - 1;
}

/** The ordered MIDs a rule's output names (for a split: the drawn share's list; success rate: ranked later). */
export function outputMids(output: RoutingOutput, draw: () => number): { midIds: string[]; share?: number } {
  switch (output.kind) {
    case 'mid': return { midIds: [output.mid_id] };
    case 'fallback':
    case 'success_rate': return { midIds: output.mid_ids };
    case 'split': {
      const share = pickShare(output.shares, draw());
      return { midIds: output.shares[share]!.mid_ids, share };
    }
  }
}

export interface RuleChoice {
  /** The rule that picked the candidates; null: no rule matched, the default order by priority. */
  rule: { index: number; name: string } | null;
  share?: number;
  /** Eligible MIDs in the order attempts go to them. */
  candidates: string[];
  /** Rules that matched but named no eligible MID, passed over. */
  skipped: { index: number; name: string }[];
  /** A success-rate rule: each eligible MID's score, and whether this payment explored. */
  scores?: MidScore[];
  explored?: boolean;
}

/** A MID's success-rate score under a rule's parameters (the service reads the counters). */
export type Scorer = (midId: string, params: SuccessRateParams) => MidScore;

const neutralScorer: Scorer = (midId, params) => ({ mid_id: midId, score: params.default_score, outcomes: 0, observed: false });

function ranked(output: Extract<RoutingOutput, { kind: 'success_rate' }>, candidates: string[], scorer: Scorer, draw: () => number): Pick<RuleChoice, 'candidates' | 'scores' | 'explored'> {
  const params: SuccessRateParams = {
    exploration_percent: output.exploration_percent ?? SUCCESS_RATE_DEFAULTS.exploration_percent,
    min_outcomes: output.min_outcomes ?? SUCCESS_RATE_DEFAULTS.min_outcomes,
    default_score: output.default_score ?? SUCCESS_RATE_DEFAULTS.default_score,
  };
  const scores = candidates.map((id) => scorer(id, params));
  const { order, explored } = rankBySuccess(scores, params.exploration_percent, draw);
  return { candidates: order, scores, explored };
}

/**
 * The candidates for a payment among the eligible MIDs (given best first by priority): the first matching rule's
 * eligible MIDs in its order, else every eligible MID by priority.
 */
export function chooseCandidates(config: RoutingConfig, eligibleByPriority: readonly string[], payment: PaymentFacts, draw: () => number = Math.random, scorer: Scorer = neutralScorer): RuleChoice {
  const eligible = new Set(eligibleByPriority);
  const skipped: RuleChoice['skipped'] = [];
  for (const [index, rule] of config.rules.entries()) {
    if (!ruleMatches(rule.when, payment)) continue;
    const { midIds, share } = outputMids(rule.then, draw);
    const candidates = midIds.filter((id) => eligible.has(id));
    if (candidates.length > 0 && rule.then.kind === 'success_rate') return { rule: { index, name: rule.name }, skipped, ...ranked(rule.then, candidates, scorer, draw) };
    if (candidates.length > 0) return { rule: { index, name: rule.name }, ...(share !== undefined ? { share } : {}), candidates, skipped };
    skipped.push({ index, name: rule.name });
  }
  return { rule: null, candidates: [...eligibleByPriority], skipped };
}

const outputLists = (o: RoutingOutput): string[][] =>
  o.kind === 'mid' ? [[o.mid_id]] : o.kind === 'split' ? o.shares.map((s) => s.mid_ids) : [o.mid_ids];

/** What the schema cannot say about a merchant's rules: MIDs it has, shares adding up, rules reachable. */
export function validateRouting(config: RoutingConfig, merchantMidIds: ReadonlySet<string>): FieldError[] {
  const errors: FieldError[] = [];
  const catchAll = config.rules.findIndex((r) => isCatchAll(r.when));
  for (const [index, rule] of config.rules.entries()) {
    const at = `rules[${index}]`;
    if (catchAll !== -1 && index > catchAll) errors.push({ field: at, message: `This rule is never reached: rules[${catchAll}] matches every payment.` });
    for (const list of outputLists(rule.then)) {
      for (const id of list) if (!merchantMidIds.has(id)) errors.push({ field: `${at}.then`, message: `Unknown MID ${id}.` });
      if (new Set(list).size !== list.length) errors.push({ field: `${at}.then`, message: 'A MID may appear once in a fallback list.' });
    }
    if (rule.then.kind === 'split') {
      const total = rule.then.shares.reduce((sum, s) => sum + s.weight, 0);
      if (total !== 100) errors.push({ field: `${at}.then.shares`, message: `The weights should add up to 100 (they add up to ${total}).` });
    }
    const { min, max } = rule.when.amount ?? {};
    if (min !== undefined && max !== undefined && scaledDecimal(min) > scaledDecimal(max)) errors.push({ field: `${at}.when.amount`, message: 'min should not be greater than max.' });
    for (const [r, range] of (rule.when.bin_ranges ?? []).entries()) {
      if (range.from.length !== range.to.length || range.from > range.to) errors.push({ field: `${at}.when.bin_ranges[${r}]`, message: 'from and to should have the same length and from should not be greater than to.' });
    }
  }
  return errors;
}
