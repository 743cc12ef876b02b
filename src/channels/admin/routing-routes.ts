/**
 * Smart routing for operators (issue 15): `GET|PUT /admin/v1/merchants/{id}/routing` (mids.read, mids.write;
 * every save audited) and `POST /admin/v1/merchants/{id}/routing/dry-run` (mids.read): which MID a described
 * payment would go to, and why. The body of PUT is the whole ordered list: the first rule that matches wins. Its
 * schema is the domain's own (domain/routing/rules.ts RoutingConfig): what the API validates is what routing runs.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { dryRunRouting, getRouting, putRouting, type DryRunInput } from '../../services/admin/routing.ts';
import { Decimal, Operation, RoutingConfig } from '../../domain/routing/rules.ts';
import { ADMIN_TAG, requirePermission } from './operator-auth.ts';
import { registerMerchantTab } from './merchant-tab.ts';
import { MerchantParams } from './config-schemas.ts';
import { withErrors } from './errors.ts';

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
  registerMerchantTab<RoutingConfig>(app, 'routing', RoutingConfig, {
    conditional: true,
    read: { permission: 'mids.read', summary: 'A merchant\'s routing rules and cascading (with their ETag)', handle: (id) => getRouting(ctx, id) },
    put: { permission: 'mids.write', summary: 'Replace a merchant\'s routing rules (validated: MIDs of this merchant, shares adding up to 100, no rule after a catch-all); audited. With If-Match, only over the rules read', body: RoutingConfig, handle: (actor, id, config, ifMatch) => putRouting(ctx, actor, id, config, ifMatch) },
  });

  app.post<{ Params: Params; Body: DryRunInput }>('/merchants/:id/routing/dry-run', {
    onRequest: requirePermission('mids.read'),
    schema: { ...ADMIN_TAG, summary: 'Which MID a described card payment would go to, and why (nothing is written)', params: MerchantParams, body: DryRunBody, response: withErrors({ 200: DryRunView }) },
  }, async (req) => dryRunRouting(ctx, req.params.id, req.body));
}
