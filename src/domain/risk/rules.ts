/**
 * Risk rules (issue 26): what an operator or a merchant writes, as ONE TypeBox schema (the admin API validates and
 * documents with it, the types derive from it). A rule set is an ordered list of rules, each with conditions that
 * must all hold (`when`), an outcome (`then`) and a mode: `active`, `shadow` (evaluated and recorded, no effect) or
 * `off`. Amounts are decimal strings in major units compared exactly, as routing rules compare them.
 *
 * Rule sets are stored exactly as the admin API takes them (snake_case): what was saved is what runs.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { Decimal } from '../routing/rules.ts';
import { scaledDecimal } from '../routing/eligibility.ts';
import { compile, fieldPath } from '../schema-errors.ts';
import { MESSAGES, type FieldError } from '../errors.ts';
import { isCidr } from './ip.ts';

/** The longest velocity window: 30 days. */
export const MAX_WINDOW_MINUTES = 43_200;
export const MAX_RULES = 200;

const Codes = (pattern: string, description: string) => Type.Array(Type.String({ pattern }), { minItems: 1, maxItems: 300, uniqueItems: true, description });
const Countries = (description: string) => Codes('^[A-Z]{2}$', `${description} (ISO 3166-1 alpha-2).`);

/** What the velocity counters are kept by. `session`: a hosted-fields session; `device`: the payer's device id. */
export const VelocityBy = Type.Union([
  Type.Literal('card'), Type.Literal('email'), Type.Literal('ip'), Type.Literal('device'), Type.Literal('session'), Type.Literal('merchant'),
], { description: 'card: the card fingerprint (keyed hash of the PAN); email, ip, device (hosted page device id), session (hosted-fields session), merchant.' });
export type VelocityBy = Static<typeof VelocityBy>;
export const VELOCITY_BY: readonly VelocityBy[] = ['card', 'email', 'ip', 'device', 'session', 'merchant'];

export const VelocityMeasure = Type.Union([
  Type.Literal('attempts'), Type.Literal('declines'), Type.Literal('approvals'), Type.Literal('amount'), Type.Literal('distinct_cards'),
], { description: 'attempts (screened payments), declines, approvals, amount (sum, in `currency`), distinct_cards (distinct card fingerprints).' });
export type VelocityMeasure = Static<typeof VelocityMeasure>;

export const VelocityCondition = Type.Object({
  measure: VelocityMeasure,
  by: VelocityBy,
  window_minutes: Type.Integer({ minimum: 1, maximum: MAX_WINDOW_MINUTES, description: 'The sliding window, 1 minute to 30 days, ending now. attempts, amount and distinct_cards count the payment being screened; declines and approvals are past outcomes.' }),
  more_than: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Holds when the count over the window is greater than this (every measure but amount).' })),
  more_than_amount: Type.Optional(Decimal),
  currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'amount: the currency summed (ISO 4217).' })),
}, { additionalProperties: false, description: 'A velocity test: measure by key over the window, more than the figure. A merchant-initiated charge skips rules with velocity conditions.' });
export type VelocityCondition = Static<typeof VelocityCondition>;

export const ThreeDsResult = Type.Union([Type.Literal('authenticated'), Type.Literal('attempted'), Type.Literal('failed'), Type.Literal('not_enrolled')]);
export type ThreeDsResult = Static<typeof ThreeDsResult>;

/**
 * A 3-D Secure outcome (its EMV transStatus) in the rules' words: Y authenticated, A attempted, N and R failed;
 * anything else (U: not performed, C: still waiting, I) is unknown. `not_enrolled` is what a caller that knows the
 * card is not enrolled says itself.
 */
export function threeDsResultOf(t: { transStatus?: string } | null | undefined): ThreeDsResult | undefined {
  switch (t?.transStatus) {
    case 'Y': return 'authenticated';
    case 'A': return 'attempted';
    case 'N': case 'R': return 'failed';
    default: return undefined;
  }
}

const THREE_DS_RESULTS: readonly string[] = ['authenticated', 'attempted', 'failed', 'not_enrolled'];
/** A stored result (a chain's, PaymentDetails.chainThreeDs) read back; anything else: unknown. */
export const asThreeDsResult = (v: unknown): ThreeDsResult | undefined => (typeof v === 'string' && THREE_DS_RESULTS.includes(v) ? (v as ThreeDsResult) : undefined);

export const CountryPair = Type.Union([Type.Literal('card_ip'), Type.Literal('card_billing'), Type.Literal('ip_billing')]);
export type CountryPair = Static<typeof CountryPair>;

export const RiskConditions = Type.Object({
  amount: Type.Optional(Type.Object({ min: Type.Optional(Decimal), max: Type.Optional(Decimal) }, { additionalProperties: false, minProperties: 1, description: 'Inclusive bounds, exact decimals in the payment\'s currency.' })),
  currencies: Type.Optional(Codes('^[A-Z]{3}$', 'ISO 4217 codes.')),
  brands: Type.Optional(Codes('^[a-z_]{2,20}$', 'Card brands as the gateway names them (visa, mastercard, ...).')),
  bin_ranges: Type.Optional(Type.Array(Type.Object({ from: Type.String({ pattern: '^\\d{6,8}$' }), to: Type.String({ pattern: '^\\d{6,8}$' }) }, { additionalProperties: false }), { minItems: 1, maxItems: 100, description: 'Inclusive ranges of the card\'s first 6 to 8 digits (one BIN: from = to).' })),
  card_countries: Type.Optional(Countries('Issuing countries, from the BIN table; unknown: no match')),
  billing_countries: Type.Optional(Countries('The payer\'s billing country')),
  ip_countries: Type.Optional(Countries('The payer IP\'s country, from the IP-to-country table; unknown: no match')),
  ips: Type.Optional(Type.Array(Type.String({ maxLength: 43 }), { minItems: 1, maxItems: 300, uniqueItems: true, description: 'Payer IP addresses or CIDR blocks (IPv4 or IPv6).' })),
  country_mismatch: Type.Optional(Type.Array(CountryPair, { minItems: 1, uniqueItems: true, description: 'Holds when any listed pair of countries is known on both sides and differs: card_ip (BIN vs IP), card_billing, ip_billing.' })),
  email_domains: Type.Optional(Codes('^[a-z0-9.-]{1,253}$', 'The payer e-mail\'s domain, lower case (exact).')),
  methods: Type.Optional(Codes('^[a-z0-9_-]{2,40}$', 'card, or an alternative method\'s key (the catalog\'s keys have hyphens: bank-code).')),
  merchants: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 300, uniqueItems: true, description: 'Merchant ids (useful in platform rules).' })),
  mids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 300, uniqueItems: true, description: 'MID ids; only known at the screen for a scheduled charge (else no match).' })),
  operations: Type.Optional(Type.Array(Type.Union([Type.Literal('sale'), Type.Literal('auth'), Type.Literal('payout')]), { minItems: 1, uniqueItems: true })),
  channels: Type.Optional(Type.Array(Type.Union([Type.Literal('s2s_card'), Type.Literal('checkout'), Type.Literal('s2s_apm'), Type.Literal('schedule')]), { minItems: 1, uniqueItems: true })),
  recurring: Type.Optional(Type.Boolean({ description: 'true: payments of a recurring chain only; false: the others only.' })),
  merchant_initiated: Type.Optional(Type.Boolean({ description: 'true: charges the payer is not present for only; false: the others only.' })),
  sandbox: Type.Optional(Type.Boolean({ description: 'true: sandbox merchants\' payments only; false: live merchants\' only (the sandbox\'s test cards are shared by every sandbox merchant).' })),
  custom_data: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Type.Union([Type.String({ maxLength: 255 }), Type.Null()]), { minProperties: 1, maxProperties: 20, description: 'Keys the payment\'s custom_data must hold; a string value must be equal, null: any value.' })),
  three_ds: Type.Optional(Type.Array(ThreeDsResult, { minItems: 1, uniqueItems: true, description: 'The 3-D Secure result when known before the screen; unknown: no match.' })),
  velocity: Type.Optional(Type.Array(VelocityCondition, { minItems: 1, maxItems: 5, description: 'Every velocity test given must hold.' })),
}, { additionalProperties: false, description: 'Every condition given must hold; none: the rule matches every payment.' });
export type RiskConditions = Static<typeof RiskConditions>;

export const RiskOutcome = Type.Union([
  Type.Object({ action: Type.Union([Type.Literal('allow'), Type.Literal('block'), Type.Literal('review'), Type.Literal('require_3ds')]) }, { additionalProperties: false }),
  Type.Object({ action: Type.Literal('score'), points: Type.Integer({ minimum: 1, maximum: 100, description: 'Added to the payment\'s score (capped at 100).' }) }, { additionalProperties: false }),
], { description: 'allow, block, review, require_3ds: decide and stop; score: add points and go on.' });
export type RiskOutcome = Static<typeof RiskOutcome>;
export type RiskAction = 'allow' | 'block' | 'review' | 'require_3ds';

export const RiskMode = Type.Union([Type.Literal('active'), Type.Literal('shadow'), Type.Literal('off')], { description: 'active: applies; shadow: evaluated and recorded, no effect; off: skipped.' });
export type RiskMode = Static<typeof RiskMode>;

export const RiskRule = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  mode: RiskMode,
  when: RiskConditions,
  then: RiskOutcome,
}, { additionalProperties: false });
export type RiskRule = Static<typeof RiskRule>;

const example = {
  rules: [
    { name: 'Card testing: declines per card', mode: 'active', when: { velocity: [{ measure: 'declines', by: 'card', window_minutes: 10, more_than: 5 }] }, then: { action: 'block' } },
    { name: 'Large foreign amounts', mode: 'shadow', when: { amount: { min: '1000.00' }, country_mismatch: ['card_ip'] }, then: { action: 'review' } },
    { name: 'Free mail', mode: 'active', when: { email_domains: ['mailinator.com'] }, then: { action: 'score', points: 40 } },
  ],
  score_thresholds: { review: 50, block: 90 },
};

export const RiskRuleSet = Type.Object({
  rules: Type.Array(RiskRule, { maxItems: MAX_RULES, description: 'Ordered: the first active rule that matches with a deciding outcome decides; score rules add up on the way.' }),
  score_thresholds: Type.Optional(Type.Object({
    review: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    block: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  }, { additionalProperties: false, description: 'No rule decided: a score at or above block blocks, at or above review holds for review. A merchant\'s thresholds replace the platform\'s.' })),
}, { additionalProperties: false, examples: [example] });
export type RiskRuleSet = Static<typeof RiskRuleSet>;

export const EMPTY_RULE_SET: RiskRuleSet = { rules: [] };

/** A rule without any condition matches every payment. */
export const isCatchAll = (when: RiskConditions): boolean => Object.values(when).every((v) => v === undefined);

const decides = (rule: RiskRule): boolean => rule.mode === 'active' && rule.then.action !== 'score';

/** The schema's errors with the names an operator reads: an unknown field is "not expected". */
function schemaErrors(value: unknown): FieldError[] {
  const check = compile(RiskRuleSet);
  if (check.Check(value)) return [];
  const seen = new Map<string, string>();
  for (const error of check.Errors(value)) {
    const field = fieldPath(error.path);
    if (seen.has(field)) continue;
    if (error.type === ValueErrorType.ObjectAdditionalProperties) seen.set(field, MESSAGES.extraField);
    else if (error.type === ValueErrorType.Union) continue; // a union's own error says less than its variants'
    else seen.set(field, messageOf(error.type, error.schema as { minimum?: number; maximum?: number; maxLength?: number }));
    if (seen.size >= 50) break;
  }
  if (seen.size === 0) seen.set('rules', MESSAGES.notValid);
  return [...seen].map(([field, message]) => ({ field, message }));
}

function messageOf(type: ValueErrorType, schema: { minimum?: number; maximum?: number; maxLength?: number }): string {
  switch (type) {
    case ValueErrorType.ObjectRequiredProperty: return MESSAGES.blank;
    case ValueErrorType.IntegerMinimum: case ValueErrorType.IntegerMaximum: return MESSAGES.notInRange(schema.minimum ?? 0, schema.maximum ?? 0);
    case ValueErrorType.Integer: case ValueErrorType.Number: return MESSAGES.notType('integer');
    case ValueErrorType.String: return MESSAGES.notType('string');
    case ValueErrorType.Boolean: return MESSAGES.notType('bool');
    case ValueErrorType.Array: return MESSAGES.notType('array');
    case ValueErrorType.Object: return MESSAGES.notType('object');
    case ValueErrorType.StringMaxLength: return MESSAGES.tooLong(schema.maxLength ?? 0);
    case ValueErrorType.Literal: return MESSAGES.notChoice;
    default: return MESSAGES.notValid;
  }
}

/** What the schema cannot say: reachable rules, bounds in order, velocity figures that fit their measure. */
function meaningErrors(set: RiskRuleSet): FieldError[] {
  const errors: FieldError[] = [];
  const catchAll = set.rules.findIndex((r) => decides(r) && isCatchAll(r.when));
  for (const [index, rule] of set.rules.entries()) {
    const at = `rules[${index}]`;
    if (catchAll !== -1 && index > catchAll) errors.push({ field: at, message: `This rule is never reached: rules[${catchAll}] decides every payment.` });
    const { min, max } = rule.when.amount ?? {};
    if (min !== undefined && max !== undefined && scaledDecimal(min) > scaledDecimal(max)) errors.push({ field: `${at}.when.amount`, message: 'min should not be greater than max.' });
    for (const [r, range] of (rule.when.bin_ranges ?? []).entries()) {
      if (range.from.length !== range.to.length || range.from > range.to) errors.push({ field: `${at}.when.bin_ranges[${r}]`, message: 'from and to should have the same length and from should not be greater than to.' });
    }
    for (const [i, ip] of (rule.when.ips ?? []).entries()) if (!isCidr(ip)) errors.push({ field: `${at}.when.ips[${i}]`, message: 'This value is not a valid IP address or CIDR block.' });
    for (const [v, velocity] of (rule.when.velocity ?? []).entries()) {
      const vat = `${at}.when.velocity[${v}]`;
      if (velocity.measure === 'amount') {
        if (velocity.more_than_amount === undefined) errors.push({ field: `${vat}.more_than_amount`, message: MESSAGES.blank });
        if (velocity.currency === undefined) errors.push({ field: `${vat}.currency`, message: MESSAGES.blank });
        if (velocity.more_than !== undefined) errors.push({ field: `${vat}.more_than`, message: 'An amount is compared with more_than_amount.' });
      } else {
        if (velocity.more_than === undefined) errors.push({ field: `${vat}.more_than`, message: MESSAGES.blank });
        if (velocity.more_than_amount !== undefined || velocity.currency !== undefined) errors.push({ field: vat, message: 'more_than_amount and currency go with the amount measure only.' });
      }
      if (velocity.measure === 'distinct_cards' && velocity.by === 'card') errors.push({ field: `${vat}.by`, message: 'Distinct cards are counted by something other than the card.' });
    }
  }
  const { review, block } = set.score_thresholds ?? {};
  if (review !== undefined && block !== undefined && review > block) errors.push({ field: 'score_thresholds.review', message: 'review should not be greater than block.' });
  return errors;
}

/** Every problem of a rule set as saved (the schema's, then the meaning's), each naming its field; none: valid. */
export function validateRuleSet(value: unknown): FieldError[] {
  const schema = schemaErrors(value);
  return schema.length > 0 ? schema : meaningErrors(value as RiskRuleSet);
}

/**
 * The velocity conditions whose counters a payment's screen reads: those of rules that run (active or shadow) and
 * that its merchant-level facts do not rule out already (a rule for live merchants only, or for other merchants).
 */
export const velocityConditions = (sets: readonly RiskRuleSet[], payment: { merchantId: string; sandbox: boolean }): VelocityCondition[] =>
  sets.flatMap((s) => s.rules.flatMap((r) => {
    const w = r.when;
    if (r.mode === 'off' || !w.velocity) return [];
    if ((w.sandbox !== undefined && w.sandbox !== payment.sandbox) || (w.merchants && !w.merchants.includes(payment.merchantId))) return [];
    return w.velocity;
  }));

/** The counter a velocity condition reads, as one key (rules reading the same counter share one read). */
export const velocityKey = (v: VelocityCondition): string => `${v.measure}:${v.by}:${v.window_minutes}:${v.currency ?? ''}`;
