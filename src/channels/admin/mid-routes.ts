/**
 * The MIDs of a merchant (issue 11): `/admin/v1/merchants/{id}/mids`. Read with mids.read, changed with
 * mids.write. A MID is never deleted (payments refer to it): it is disabled. Credentials are write-only: the
 * answers carry them masked.
 */
import { IfMatchHeaders, PreconditionFailed, tagged, withEntityTag } from './conditional.ts';
import type { FastifyInstance } from 'fastify';
import { Type, type Static, type TOptional, type TProperties, type TSchema } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { changeMid, createMid, getMerchantMid, listMerchantMids, midTag, reorderMids } from '../../services/admin/mids.ts';
import { MidFields, type MidField } from '../../domain/model/mid.ts';
import { snakeKeys } from '../../domain/model/snake-case.ts';
import { ADMIN_TAG, actorOf, requirePermission } from './operator-auth.ts';
import { mayDo } from '../../domain/admin-roles.ts';
import type { FastifyRequest } from 'fastify';

/** What the operator's role lets it write on a MID: the endpoints and credentials of a live MID need mids.live. */
const rightsOf = (req: FastifyRequest) => ({ liveEndpoints: req.operator !== undefined && mayDo(req.operator.role, 'mids.live') });
import { MerchantParams, MidParams } from './config-schemas.ts';
import { withErrors } from './errors.ts';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const optional = <T extends TProperties>(props: T) =>
  Object.fromEntries(Object.entries(props).map(([k, v]) => [k, Type.Optional(v)])) as { [K in keyof T]: TOptional<T[K]> };

/** The MID's fields on the wire (snake_case), as a write must give them; credentials are write-only, sealed at rest. */
const { connector, ...changeable } = snakeKeys(MidFields.properties);
const writable = {
  ...changeable,
  credentials: Nullable(Type.Record(Type.String(), Nullable(Type.String({ minLength: 1, maxLength: 16_384 })), {
    maxProperties: 50,
    description: 'Sealed at rest, never returned in full. On PATCH the fields given replace the stored ones, a field set to null is removed, and null as a whole removes every credential.',
  })),
};

/** Keywords that bind what a write may give; a view shows the stored value and drops them. */
const INPUT_ONLY = new Set(['minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'maxItems', 'uniqueItems', 'maxProperties', 'description']);
/** Fields a view shows as written: their description says what a value means. */
const SHOWN_AS_WRITTEN: ReadonlySet<MidField> = new Set(['paymentMode', 'dailyCaps']);

/** The schema without its input constraints, recursively (sub-schemas in properties, items, unions, records). */
function bare<T extends TSchema>(schema: T): T {
  const out: Record<string | symbol, unknown> = {};
  for (const key of Reflect.ownKeys(schema)) {
    if (typeof key === 'string' && INPUT_ONLY.has(key)) continue;
    const value = (schema as Record<string | symbol, unknown>)[key];
    if (key === 'properties' || key === 'patternProperties') out[key] = Object.fromEntries(Object.entries(value as TProperties).map(([k, v]) => [k, bare(v)]));
    else if (key === 'anyOf' || key === 'allOf' || key === 'oneOf') out[key] = (value as TSchema[]).map(bare);
    else if (key === 'items' && value && typeof value === 'object') out[key] = bare(value as TSchema);
    else out[key] = value;
  }
  return out as T;
}

const shown = Object.fromEntries(Object.entries(MidFields.properties).map(([k, v]) => [k, SHOWN_AS_WRITTEN.has(k as MidField) ? v : bare(v)])) as typeof MidFields.properties;

const example = {
  connector: 'sandbox-card', name: 'EUR acquiring', payment_mode: 'DMS', priority: 10, currencies: ['EUR'],
  min_amount: '1.00', max_amount: '5000.00', daily_caps: { EUR: { max_count: 1000, max_amount: '50000.00' } }, descriptor: 'SHOP*ORDER', card_on_file_support: false,
  settings: { terminal_id: 'T-1001' }, credentials: { api_key: 'sk_live_0123456789abcdef' },
};

const CreateBody = Type.Object({ connector, ...optional(writable) }, { additionalProperties: false, examples: [example] });
type CreateBody = Static<typeof CreateBody>;

const PatchBody = Type.Object(optional(writable), {
  additionalProperties: false, minProperties: 1, examples: [{ payment_mode: 'SMS', credentials: { api_key: 'sk_live_rotated_abcdef123456' } }],
});

const OrderBody = Type.Object({
  mid_ids: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 500, description: 'Every MID of the merchant, best first.' }),
}, { additionalProperties: false });
type OrderBody = Static<typeof OrderBody>;

const MidView = Type.Object({
  id: Type.String(),
  merchant_id: Type.String(),
  ...snakeKeys(shown),
  credentials: Nullable(Type.Record(Type.String(), Type.String(), { description: 'Masked: the last four characters of values of 12 or more, else ****. null: none set, or sealed under a key no longer in VAULT_KEYS.' })),
  credentials_key_id: Nullable(Type.String({ description: 'The VAULT_KEYS key that sealed the credentials.' })),
  today: Type.Optional(Type.Object({
    day: Type.String({ format: 'date', description: 'The UTC day the counts are for.' }),
    volume: Type.Record(Type.String(), Type.Object({
      count: Type.Integer({ description: 'Payments counted against the cap (declined and failed attempts are given back).' }),
      amount: Type.String({ description: 'Their amount, in major units of the currency.' }),
    }), { description: 'By currency; a currency the MID carried nothing in today is absent.' }),
  }, { description: 'What the MID has carried today, as its daily caps count it (not part of its ETag).' })),
}, { examples: [{ id: '0193a0c4-0000-7000-8000-000000000001', merchant_id: '0193a0c4-0000-7000-8000-000000000000', ...example, enabled: true, credentials: { api_key: '****cdef' }, credentials_key_id: 'k2', today: { day: '2026-11-24', volume: { EUR: { count: 312, amount: '15840.50' } } } }] });

const MidList = Type.Object({ mids: Type.Array(MidView) });

type MidParams = Static<typeof MidParams>;
type MerchantParams = Static<typeof MerchantParams>;

export function registerAdminMidRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const read = requirePermission('mids.read');
  const write = requirePermission('mids.write');
  const tag = (summary: string) => ({ ...ADMIN_TAG, summary });

  app.get<{ Params: MerchantParams }>('/merchants/:id/mids', {
    onRequest: read, schema: { ...tag('A merchant\'s MIDs, in routing order'), params: MerchantParams, response: withErrors({ 200: MidList }) },
  }, async (req) => ({ mids: await listMerchantMids(ctx, req.params.id) }));

  app.post<{ Params: MerchantParams; Body: CreateBody }>('/merchants/:id/mids', {
    onRequest: write, schema: { ...tag('Add a MID to a merchant'), params: MerchantParams, body: CreateBody, response: withErrors({ 201: MidView }) },
  }, async (req, reply) => reply.code(201).send(await createMid(ctx, actorOf(req), req.params.id, req.body, rightsOf(req))));

  app.put<{ Params: MerchantParams; Body: OrderBody }>('/merchants/:id/mids/order', {
    onRequest: write, schema: { ...tag('Reorder a merchant\'s MIDs (sets their priorities)'), params: MerchantParams, body: OrderBody, response: withErrors({ 200: MidList }) },
  }, async (req) => ({ mids: await reorderMids(ctx, actorOf(req), req.params.id, req.body.mid_ids) }));

  app.get<{ Params: MidParams }>('/merchants/:id/mids/:midId', {
    onRequest: read, schema: { ...tag('One MID, credentials masked (with the ETag of its configuration: `today` left out)'), params: MidParams, response: withErrors({ 200: tagged(MidView) }) },
  }, async (req, reply) => {
    const view = await getMerchantMid(ctx, req.params.id, req.params.midId);
    return withEntityTag(reply, view, midTag(view));
  });

  app.patch<{ Params: MidParams; Body: Static<typeof PatchBody>; Headers: Static<typeof IfMatchHeaders> }>('/merchants/:id/mids/:midId', {
    onRequest: write,
    schema: {
      ...tag('Change a MID; routing follows at the next request on every node. With If-Match, only over the MID read'), params: MidParams, headers: IfMatchHeaders, body: PatchBody,
      response: withErrors({ 200: tagged(MidView), ...PreconditionFailed }),
    },
  }, async (req, reply) => {
    const view = await changeMid(ctx, actorOf(req), req.params.id, req.params.midId, req.body, 'mid.update', rightsOf(req), req.headers['if-match']);
    return withEntityTag(reply, view, midTag(view));
  });

  for (const [verb, enabled] of [['enable', true], ['disable', false]] as const) {
    app.post<{ Params: MidParams }>(`/merchants/:id/mids/:midId/${verb}`, {
      onRequest: write, schema: { ...tag(enabled ? 'Enable a MID' : 'Disable a MID (it is kept: payments refer to it)'), params: MidParams, response: withErrors({ 200: MidView }) },
    }, async (req) => changeMid(ctx, actorOf(req), req.params.id, req.params.midId, { enabled }, `mid.${verb}`));
  }
}
