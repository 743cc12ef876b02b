/**
 * Smart routing for operators (issue 15): `GET|PUT /admin/v1/merchants/{id}/routing` (mids.read, mids.write;
 * every save audited) and `POST /admin/v1/merchants/{id}/routing/dry-run` (mids.read): which MID a described
 * payment would go to, and why. The body of PUT is the whole ordered list: the first rule that matches wins.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { dryRunRouting, getRouting, putRouting, type DryRunInput } from '../../services/admin/routing.ts';
import { MAX_EXTRA_ATTEMPTS, type RoutingConfig } from '../../domain/routing-rules.ts';
import { DEFAULT_HALF_LIFE_MINUTES, SUCCESS_RATE_DEFAULTS } from '../../domain/success-rate.ts';
import { ADMIN_TAG, actorOf, requirePermission } from './operator-auth.ts';
import { MerchantParams } from './config-schemas.ts';
import { withErrors } from './errors.ts';

const Decimal = Type.String({ pattern: '^\\d{1,18}(\\.\\d{1,8})?$', description: 'Decimal amount in the payment\'s currency (major units).' });
const Codes = (pattern: string, description: string) => Type.Array(Type.String({ pattern }), { minItems: 1, maxItems: 300, uniqueItems: true, description });
const MidId = Type.String({ maxLength: 64, description: 'A MID of this merchant.' });
const MidList = Type.Array(MidId, { minItems: 1, maxItems: 50, description: 'Tried in this order: the first eligible MID carries the payment, a retryable decline cascades to the next.' });
const Operation = Type.Union([Type.Literal('sale'), Type.Literal('auth'), Type.Literal('payout')]);

const Conditions = Type.Object({
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

const Output = Type.Union([
  Type.Object({ kind: Type.Literal('mid'), mid_id: MidId }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('fallback'), mid_ids: MidList }, { additionalProperties: false }),
  Type.Object({
    kind: Type.Literal('split'),
    shares: Type.Array(Type.Object({ weight: Type.Integer({ minimum: 1, maximum: 100 }), mid_ids: MidList }, { additionalProperties: false }), { minItems: 2, maxItems: 10, description: 'Weights add up to 100; each payment is drawn into one share.' }),
  }, { additionalProperties: false }),
  Type.Object({
    kind: Type.Literal('success_rate'),
    mid_ids: MidList,
    exploration_percent: Type.Optional(Type.Number({ minimum: 0, maximum: 50, description: `Percent of payments whose first MID is drawn at random among the eligible ones, so every MID keeps being measured (default ${SUCCESS_RATE_DEFAULTS.exploration_percent}).` })),
    min_outcomes: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: `Decayed outcomes a MID needs (same currency and brand) before its own approval rate counts (default ${SUCCESS_RATE_DEFAULTS.min_outcomes}).` })),
    default_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: `The score of a MID with fewer outcomes (default ${SUCCESS_RATE_DEFAULTS.default_score}).` })),
  }, { additionalProperties: false, description: 'The eligible MIDs of mid_ids ordered by recent approval rate for the payment\'s currency and card brand, best first (ties: this order); a retryable decline cascades down that order.' }),
]);

const Rule = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), when: Conditions, then: Output }, { additionalProperties: false });

const example = {
  rules: [
    { name: 'EUR cards', when: { currencies: ['EUR'], operations: ['sale', 'auth'] }, then: { kind: 'split', shares: [{ weight: 70, mid_ids: ['mid-a', 'mid-b'] }, { weight: 30, mid_ids: ['mid-b', 'mid-a'] }] } },
    { name: 'Large amounts', when: { amount: { min: '1000.00' } }, then: { kind: 'fallback', mid_ids: ['mid-b', 'mid-a'] } },
  ],
  max_extra_attempts: 1,
};

const RoutingBody = Type.Object({
  rules: Type.Array(Rule, { maxItems: 200, description: 'Ordered: the first rule whose conditions all hold picks the MIDs. No rule matching (or none of its MIDs eligible): every eligible MID by priority.' }),
  max_extra_attempts: Type.Integer({ minimum: 0, maximum: MAX_EXTRA_ATTEMPTS, description: 'Further MIDs a retryable decline may cascade to (default 1; 0 turns cascading off).' }),
  success_half_life_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 43_200, description: `Success-rate routing: an outcome's weight halves every this many minutes (default ${DEFAULT_HALF_LIFE_MINUTES}).` })),
}, { additionalProperties: false, examples: [example] });

const DryRunBody = Type.Object({
  operation: Operation,
  amount: Decimal,
  currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  bin: Type.Optional(Type.String({ pattern: '^\\d{6,8}$', description: 'The card\'s first 6 to 8 digits (its brand and, through the BIN table, its country follow from them).' })),
  billing_country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
  recurring: Type.Optional(Type.Boolean()),
  custom_data: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Union([Type.String({ maxLength: 255 }), Type.Number(), Type.Boolean()]), { maxProperties: 20 })),
}, { additionalProperties: false, examples: [{ operation: 'sale', amount: '25.00', currency: 'EUR', bin: '41111111', billing_country: 'DE' }] });

const RuleRef = Type.Object({ index: Type.Integer(), name: Type.String() });
export const ScoreView = Type.Object({
  mid_id: Type.String(),
  score: Type.Number({ description: 'Recent approval rate (0 to 1), or the rule\'s default_score when observed is false.' }),
  outcomes: Type.Number({ description: 'Decayed outcomes behind the score.' }),
  observed: Type.Boolean({ description: 'false: fewer outcomes than min_outcomes, the default score.' }),
});
const DryRunView = Type.Object({
  mid_id: Type.String({ description: 'The MID the payment would go to.' }),
  rule: Type.Union([Type.Literal('routing_rule'), Type.Literal('highest_priority')]),
  matched_rule: Type.Union([RuleRef, Type.Null()]),
  share: Type.Union([Type.Integer(), Type.Null()], { description: 'The share of a volume split drawn (each dry run draws anew).' }),
  candidates: Type.Array(Type.String(), { description: 'Eligible MIDs in attempt order: cascading goes down this list.' }),
  skipped_rules: Type.Array(RuleRef, { description: 'Rules that matched but named no eligible MID.' }),
  considered: Type.Array(Type.Object({
    mid_id: Type.String(), priority: Type.Integer(), eligible: Type.Boolean(),
    candidate: Type.Boolean({ description: 'Kept: in candidates. An eligible MID that is not a candidate was not named by the matched rule.' }),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'Why not eligible (dropped): disabled, payment_mode, connector_unavailable, currency, amount, daily_cap.' }),
  })),
  card_country: Type.Union([Type.String(), Type.Null()], { description: 'The issuing country the BIN table gives for bin; null: unknown.' }),
  brand: Type.Union([Type.String(), Type.Null()], { description: 'The card brand of bin.' }),
  scores: Type.Array(ScoreView, { description: 'A success-rate rule: the score of each eligible MID it named (nothing is counted by a dry run).' }),
  explored: Type.Union([Type.Boolean(), Type.Null()], { description: 'A success-rate rule: whether this draw explored (first MID at random).' }),
});

type Params = Static<typeof MerchantParams>;

export function registerAdminRoutingRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Params: Params }>('/merchants/:id/routing', {
    onRequest: requirePermission('mids.read'),
    schema: { ...ADMIN_TAG, summary: 'A merchant\'s routing rules and cascading', params: MerchantParams, response: withErrors({ 200: RoutingBody }) },
  }, async (req) => getRouting(ctx, req.params.id));

  app.put<{ Params: Params; Body: RoutingConfig }>('/merchants/:id/routing', {
    onRequest: requirePermission('mids.write'),
    schema: {
      ...ADMIN_TAG, summary: 'Replace a merchant\'s routing rules (validated: MIDs of this merchant, shares adding up to 100, no rule after a catch-all); audited',
      params: MerchantParams, body: RoutingBody, response: withErrors({ 200: RoutingBody }),
    },
  }, async (req) => putRouting(ctx, actorOf(req), req.params.id, req.body));

  app.post<{ Params: Params; Body: DryRunInput }>('/merchants/:id/routing/dry-run', {
    onRequest: requirePermission('mids.read'),
    schema: { ...ADMIN_TAG, summary: 'Which MID a described card payment would go to, and why (nothing is written)', params: MerchantParams, body: DryRunBody, response: withErrors({ 200: DryRunView }) },
  }, async (req) => dryRunRouting(ctx, req.params.id, req.body));
}
