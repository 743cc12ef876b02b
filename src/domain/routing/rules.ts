/**
 * Smart routing (issue 15): a merchant's ordered routing rules. Eligibility comes first (eligibility.ts); then the
 * first rule whose conditions all match the payment picks the MIDs, as one MID, an ordered fallback list or a
 * weighted volume split whose shares each hold a fallback list. No rule matching (or a matching rule none of whose
 * MIDs is eligible): the merchant's default order, by priority. The result is an ordered list of candidates: the
 * first carries the payment, the next ones are where a retryable decline cascades to.
 *
 * The rules are ONE TypeBox schema: the admin API validates and documents with it, the types below derive from it,
 * and every condition has its test in CONDITION_TESTS (a condition added to the schema without a test does not
 * compile). Rules are stored and shown exactly as the admin API takes them (snake_case), so what an operator saved
 * is what runs; amounts are decimal strings in major units compared exactly (never floats), as the MID limits are.
 */
import { Type, type Static } from '@sinclair/typebox';
import { isCountryCode } from '../countries.ts';
import { isKnownCurrency } from '../money.ts';
import type { FieldError } from '../errors.ts';
import { scaledDecimal, scaledMoney } from './eligibility.ts';
import type { PaymentFacts } from './facts.ts';
import { DEFAULT_HALF_LIFE_MINUTES, rankBySuccess, SUCCESS_RATE_DEFAULTS, type MidScore, type SuccessRateParams } from './success-rate.ts';

export const MAX_EXTRA_ATTEMPTS = 4;

export const Decimal = Type.String({ pattern: '^\\d{1,18}(\\.\\d{1,8})?$', description: 'Decimal amount in the payment\'s currency (major units).' });
const Codes = (pattern: string, description: string) => Type.Array(Type.String({ pattern }), { minItems: 1, maxItems: 300, uniqueItems: true, description });
const MidId = Type.String({ maxLength: 64, description: 'A MID of this merchant.' });
const MidList = Type.Array(MidId, { minItems: 1, maxItems: 50, description: 'Tried in this order: the first eligible MID carries the payment, a retryable decline cascades to the next.' });
export const Operation = Type.Union([Type.Literal('sale'), Type.Literal('auth'), Type.Literal('payout')]);

export const RoutingConditions = Type.Object({
  currencies: Type.Optional(Codes('^[A-Z]{3}$', 'ISO 4217 codes.')),
  amount: Type.Optional(Type.Object({ min: Type.Optional(Decimal), max: Type.Optional(Decimal) }, { additionalProperties: false, minProperties: 1, description: 'Inclusive bounds.' })),
  brands: Type.Optional(Codes('^[a-z_]{2,20}$', 'Card brands as the gateway names them (visa, mastercard, ...).')),
  bin_ranges: Type.Optional(Type.Array(Type.Object({ from: Type.String({ pattern: '^\\d{6,8}$' }), to: Type.String({ pattern: '^\\d{6,8}$' }) }, { additionalProperties: false }), { minItems: 1, maxItems: 100, description: 'Inclusive ranges of the card\'s first 6 to 8 digits.' })),
  card_countries: Type.Optional(Codes('^[A-Z]{2}$', 'Issuing countries (ISO 3166-1 alpha-2); a payment whose card country is unknown does not match.')),
  methods: Type.Optional(Codes('^[a-z_]{2,30}$', 'Payment methods (card).')),
  billing_countries: Type.Optional(Codes('^[A-Z]{2}$', 'The payer\'s country (ISO 3166-1 alpha-2).')),
  operations: Type.Optional(Type.Array(Operation, { minItems: 1, uniqueItems: true })),
  recurring: Type.Optional(Type.Boolean({ description: 'true: recurring payments (a chain\'s first payment or a later charge) only; false: the others only.' })),
  custom_data: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Type.Union([Type.String({ maxLength: 255 }), Type.Null()]), { minProperties: 1, maxProperties: 20, description: 'Keys the payment\'s custom_data must hold; a string value must be equal, null: any value.' })),
}, { additionalProperties: false, description: 'Every condition given must hold; no condition: the rule matches every payment (a catch-all, which must be the last rule).' });
export type RoutingConditions = Static<typeof RoutingConditions>;

export const RoutingOutput = Type.Union([
  Type.Object({ kind: Type.Literal('mid'), mid_id: MidId }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('fallback'), mid_ids: MidList }, { additionalProperties: false }),
  Type.Object({
    kind: Type.Literal('split'),
    shares: Type.Array(Type.Object({ weight: Type.Integer({ minimum: 1, maximum: 100 }), mid_ids: MidList }, { additionalProperties: false }), { minItems: 2, maxItems: 10, description: 'Weights add up to 100; each payment is drawn into one share.' }),
  }, { additionalProperties: false }),
  // The MIDs ordered by their recent approval rate for the payment's currency and brand (success-rate.ts).
  Type.Object({
    kind: Type.Literal('success_rate'),
    mid_ids: MidList,
    exploration_percent: Type.Optional(Type.Number({ minimum: 0, maximum: 50, description: `Percent of payments whose first MID is drawn at random among the eligible ones, so every MID keeps being measured (default ${SUCCESS_RATE_DEFAULTS.exploration_percent}).` })),
    min_outcomes: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: `Decayed outcomes a MID needs (same currency and brand) before its own approval rate counts (default ${SUCCESS_RATE_DEFAULTS.min_outcomes}).` })),
    default_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: `The score of a MID with fewer outcomes (default ${SUCCESS_RATE_DEFAULTS.default_score}).` })),
  }, { additionalProperties: false, description: 'The eligible MIDs of mid_ids ordered by recent approval rate for the payment\'s currency and card brand, best first (ties: this order); a retryable decline cascades down that order.' }),
]);
export type RoutingOutput = Static<typeof RoutingOutput>;

export const RoutingRuleDef = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), when: RoutingConditions, then: RoutingOutput }, { additionalProperties: false });
export type RoutingRuleDef = Static<typeof RoutingRuleDef>;

const example = {
  rules: [
    { name: 'EUR cards', when: { currencies: ['EUR'], operations: ['sale', 'auth'] }, then: { kind: 'split', shares: [{ weight: 70, mid_ids: ['mid-a', 'mid-b'] }, { weight: 30, mid_ids: ['mid-b', 'mid-a'] }] } },
    { name: 'Large amounts', when: { amount: { min: '1000.00' } }, then: { kind: 'fallback', mid_ids: ['mid-b', 'mid-a'] } },
  ],
  max_extra_attempts: 1,
};

export const RoutingConfig = Type.Object({
  rules: Type.Array(RoutingRuleDef, { maxItems: 200, description: 'Ordered: the first rule whose conditions all hold picks the MIDs. No rule matching (or none of its MIDs eligible): every eligible MID by priority.' }),
  max_extra_attempts: Type.Integer({ minimum: 0, maximum: MAX_EXTRA_ATTEMPTS, description: 'Further MIDs a retryable decline may cascade to (default 1; 0 turns cascading off).' }),
  success_half_life_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 43_200, description: `Success-rate routing: an outcome's weight halves every this many minutes (default ${DEFAULT_HALF_LIFE_MINUTES}).` })),
}, { additionalProperties: false, examples: [example] });
export type RoutingConfig = Static<typeof RoutingConfig>;

/** Whether any rule routes by success rate (then the merchant's outcomes are counted and scores read). */
export const usesSuccessRate = (config: RoutingConfig): boolean => config.rules.some((r) => r.then.kind === 'success_rate');

export const DEFAULT_ROUTING: RoutingConfig = { rules: [], max_extra_attempts: 1 };

function binWithin(bin: string | undefined, range: { from: string; to: string }): boolean {
  if (!bin || bin.length < range.from.length) return false;
  const prefix = bin.slice(0, range.from.length);
  return prefix >= range.from && prefix <= range.to; // same length, digits only: string order is numeric order
}

const listed = (list: readonly string[], value: string | undefined): boolean => value !== undefined && list.includes(value);

type ConditionTests = { readonly [K in keyof RoutingConditions]-?: (condition: NonNullable<RoutingConditions[K]>, p: PaymentFacts) => boolean };

/** Each condition's test; a condition that is absent always holds. */
const CONDITION_TESTS: ConditionTests = {
  currencies: (c, p) => c.includes(p.money.currency),
  amount: (c, p) => {
    const amount = scaledMoney(p.money);
    return (c.min === undefined || amount >= scaledDecimal(c.min)) && (c.max === undefined || amount <= scaledDecimal(c.max));
  },
  brands: (c, p) => listed(c, p.brand),
  bin_ranges: (c, p) => c.some((r) => binWithin(p.bin, r)),
  card_countries: (c, p) => listed(c, p.cardCountry),
  methods: (c, p) => c.includes(p.method),
  billing_countries: (c, p) => listed(c, p.billingCountry),
  operations: (c, p) => c.includes(p.intent),
  recurring: (c, p) => c === p.recurring,
  custom_data: (c, p) => Object.entries(c).every(([key, value]) => {
    const given = p.customData?.[key];
    return given !== undefined && (value === null || String(given) === value);
  }),
};

export function ruleMatches(when: RoutingConditions, payment: PaymentFacts): boolean {
  // Only the conditions a rule gives are tested (most rules give a few of the ten).
  for (const key in when) {
    const condition = when[key as keyof RoutingConditions];
    const test = CONDITION_TESTS[key as keyof RoutingConditions] as ((c: unknown, p: PaymentFacts) => boolean) | undefined;
    if (condition !== undefined && test && !test(condition, payment)) return false;
  }
  return true;
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
  const skipped: RuleChoice['skipped'] = [];
  if (config.rules.length === 0) return { rule: null, candidates: [...eligibleByPriority], skipped };
  const eligible = new Set(eligibleByPriority);
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
    // Codes of the right shape that name nothing (issue 31 item 9: said in words, at the code's place).
    for (const key of ['card_countries', 'billing_countries'] as const) {
      for (const [i, code] of (rule.when[key] ?? []).entries()) if (!isCountryCode(code)) errors.push({ field: `${at}.when.${key}[${i}]`, message: `'${code}' is not a country code.` });
    }
    for (const [i, code] of (rule.when.currencies ?? []).entries()) if (!isKnownCurrency(code)) errors.push({ field: `${at}.when.currencies[${i}]`, message: `'${code}' is not a currency code.` });
    const { min, max } = rule.when.amount ?? {};
    if (min !== undefined && max !== undefined && scaledDecimal(min) > scaledDecimal(max)) errors.push({ field: `${at}.when.amount`, message: 'min should not be greater than max.' });
    for (const [r, range] of (rule.when.bin_ranges ?? []).entries()) {
      if (range.from.length !== range.to.length || range.from > range.to) errors.push({ field: `${at}.when.bin_ranges[${r}]`, message: 'from and to should have the same length and from should not be greater than to.' });
    }
  }
  return errors;
}
