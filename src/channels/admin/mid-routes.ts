/**
 * The MIDs of a merchant (issue 11): `/admin/v1/merchants/{id}/mids`. Read with mids.read, changed with
 * mids.write. A MID is never deleted (payments refer to it): it is disabled. Credentials are write-only: the
 * answers carry them masked.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { changeMid, createMid, getMerchantMid, listMerchantMids, reorderMids } from '../../services/admin/mids.ts';
import { ADMIN_TAG, actorOf, requirePermission } from './operator-auth.ts';
import { MerchantParams, MidParams, withErrors } from './config-schemas.ts';

const PaymentMode = Type.Union([Type.Literal('SMS'), Type.Literal('DMS'), Type.Literal('SMS/DMS')], {
  description: 'SMS takes sales, DMS authorizations (captured later), SMS/DMS both (interface spec, Endpoints rule 7).',
});
const Decimal = Type.String({ pattern: '^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,8})?$', description: 'A decimal amount in major units, as a string (never a float).' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const DailyCaps = Type.Record(Type.String({ pattern: '^[A-Z]{3}$' }), Type.Object({
  max_count: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'Payments per UTC day in this currency.' })),
  max_amount: Type.Optional(Type.String({ pattern: '^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,8})?$', description: 'Amount per UTC day in this currency (major units, exact at its exponent).' })),
}, { additionalProperties: false, minProperties: 1 }), {
  maxProperties: 200,
  description: 'Daily volume caps by currency (issue 15): a payment counts from when it is sent to the MID; a declined or failed attempt gives its share back. A MID whose cap is reached is passed over (reason daily_cap). A currency not listed: no cap; null: none.',
});

const writable = {
  name: Type.String({ minLength: 1, maxLength: 100, description: 'Defaults to the connector name.' }),
  payment_mode: PaymentMode,
  priority: Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: 'Higher first; among equals, the older MID first.' }),
  enabled: Type.Boolean(),
  currencies: Nullable(Type.Array(Type.String({ pattern: '^[A-Z]{3}$' }), { maxItems: 200, uniqueItems: true, description: 'ISO 4217 codes the MID takes; null: any.' })),
  min_amount: Nullable(Decimal),
  max_amount: Nullable(Decimal),
  daily_caps: Nullable(DailyCaps),
  descriptor: Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'What the cardholder\'s statement shows.' })),
  card_on_file_support: Type.Boolean({ description: 'Ask the connector for a card-on-file token, stored as recurring_token.' }),
  settings: Type.Record(Type.String(), Type.Unknown(), { maxProperties: 100, description: 'The connector\'s own settings, validated by its settings schema.' }),
  credentials: Nullable(Type.Record(Type.String(), Nullable(Type.String({ minLength: 1, maxLength: 16_384 })), {
    maxProperties: 50,
    description: 'Sealed at rest, never returned in full. On PATCH the fields given replace the stored ones, a field set to null is removed, and null as a whole removes every credential.',
  })),
};

const example = {
  connector: 'sandbox-card', name: 'EUR acquiring', payment_mode: 'DMS', priority: 10, currencies: ['EUR'],
  min_amount: '1.00', max_amount: '5000.00', daily_caps: { EUR: { max_count: 1000, max_amount: '50000.00' } }, descriptor: 'SHOP*ORDER', card_on_file_support: false,
  settings: { terminal_id: 'T-1001' }, credentials: { api_key: 'sk_live_0123456789abcdef' },
};

const CreateBody = Type.Object({
  connector: Type.String({ minLength: 1, maxLength: 64, description: 'A connector of the registry (src/connectors/registry.ts).' }),
  ...Object.fromEntries(Object.entries(writable).map(([k, v]) => [k, Type.Optional(v)])),
}, { additionalProperties: false, examples: [example] });
type CreateBody = Static<typeof CreateBody>;

const PatchBody = Type.Object(
  Object.fromEntries(Object.entries(writable).map(([k, v]) => [k, Type.Optional(v)])),
  { additionalProperties: false, minProperties: 1, examples: [{ payment_mode: 'SMS', credentials: { api_key: 'sk_live_rotated_abcdef123456' } }] },
);

const OrderBody = Type.Object({
  mid_ids: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 500, description: 'Every MID of the merchant, best first.' }),
}, { additionalProperties: false });
type OrderBody = Static<typeof OrderBody>;

const MidView = Type.Object({
  id: Type.String(),
  merchant_id: Type.String(),
  name: Type.String(),
  connector: Type.String(),
  payment_mode: PaymentMode,
  priority: Type.Integer(),
  enabled: Type.Boolean(),
  currencies: Nullable(Type.Array(Type.String())),
  min_amount: Nullable(Type.String()),
  max_amount: Nullable(Type.String()),
  daily_caps: Nullable(DailyCaps),
  descriptor: Nullable(Type.String()),
  card_on_file_support: Type.Boolean(),
  settings: Type.Record(Type.String(), Type.Unknown()),
  credentials: Nullable(Type.Record(Type.String(), Type.String(), { description: 'Masked: the last four characters of values of 12 or more, else ****. null: none set, or sealed under a key no longer in VAULT_KEYS.' })),
  credentials_key_id: Nullable(Type.String({ description: 'The VAULT_KEYS key that sealed the credentials.' })),
  today: Type.Optional(Type.Object({
    day: Type.String({ format: 'date', description: 'The UTC day the counts are for.' }),
    volume: Type.Record(Type.String(), Type.Object({
      count: Type.Integer({ description: 'Payments counted against the cap (declined and failed attempts are given back).' }),
      amount: Type.String({ description: 'Their amount, in major units of the currency.' }),
    }), { description: 'By currency; a currency the MID carried nothing in today is absent.' }),
  }, { description: 'What the MID has carried today, as its daily caps count it (GET only).' })),
}, { examples: [{ id: '0193a0c4-0000-7000-8000-000000000001', merchant_id: '0193a0c4-0000-7000-8000-000000000000', ...example, enabled: true, credentials: { api_key: '****cdef' }, credentials_key_id: 'k2', today: { day: '2026-11-24', volume: { EUR: { count: 312, amount: '15840.50' } } } }] });

const MidList = Type.Object({ mids: Type.Array(MidView) });

type MidParams = Static<typeof MidParams>;
type MerchantParams = Static<typeof MerchantParams>;

export function registerAdminMidRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const read = requirePermission(ctx, 'mids.read');
  const write = requirePermission(ctx, 'mids.write');
  const tag = (summary: string) => ({ ...ADMIN_TAG, summary });

  app.get<{ Params: MerchantParams }>('/admin/v1/merchants/:id/mids', {
    onRequest: read, schema: { ...tag('A merchant\'s MIDs, in routing order'), params: MerchantParams, response: withErrors({ 200: MidList }) },
  }, async (req) => ({ mids: await listMerchantMids(ctx, req.params.id) }));

  app.post<{ Params: MerchantParams; Body: CreateBody }>('/admin/v1/merchants/:id/mids', {
    onRequest: write, schema: { ...tag('Add a MID to a merchant'), params: MerchantParams, body: CreateBody, response: withErrors({ 201: MidView }) },
  }, async (req, reply) => reply.code(201).send(await createMid(ctx, actorOf(req), req.params.id, req.body as CreateBody & { connector: string })));

  app.put<{ Params: MerchantParams; Body: OrderBody }>('/admin/v1/merchants/:id/mids/order', {
    onRequest: write, schema: { ...tag('Reorder a merchant\'s MIDs (sets their priorities)'), params: MerchantParams, body: OrderBody, response: withErrors({ 200: MidList }) },
  }, async (req) => ({ mids: await reorderMids(ctx, actorOf(req), req.params.id, req.body.mid_ids) }));

  app.get<{ Params: MidParams }>('/admin/v1/merchants/:id/mids/:midId', {
    onRequest: read, schema: { ...tag('One MID, credentials masked'), params: MidParams, response: withErrors({ 200: MidView }) },
  }, async (req) => getMerchantMid(ctx, req.params.id, req.params.midId));

  app.patch<{ Params: MidParams; Body: Static<typeof PatchBody> }>('/admin/v1/merchants/:id/mids/:midId', {
    onRequest: write, schema: { ...tag('Change a MID; routing follows at the next request on every node'), params: MidParams, body: PatchBody, response: withErrors({ 200: MidView }) },
  }, async (req) => changeMid(ctx, actorOf(req), req.params.id, req.params.midId, req.body));

  for (const [verb, enabled] of [['enable', true], ['disable', false]] as const) {
    app.post<{ Params: MidParams }>(`/admin/v1/merchants/:id/mids/:midId/${verb}`, {
      onRequest: write, schema: { ...tag(enabled ? 'Enable a MID' : 'Disable a MID (it is kept: payments refer to it)'), params: MidParams, response: withErrors({ 200: MidView }) },
    }, async (req) => changeMid(ctx, actorOf(req), req.params.id, req.params.midId, { enabled }, `mid.${verb}`));
  }
}
