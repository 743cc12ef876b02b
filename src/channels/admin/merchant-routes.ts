/**
 * Merchants for operators (issue 11): create (the password in that answer only), list and search, read,
 * change, disable and enable, and password rotation with a grace period during which the previous password
 * still verifies requests on every merchant channel. Every change reaches the merchant channels at once
 * (the merchant directory is invalidated).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { DEFAULT_GRACE_HOURS, MAX_GRACE_HOURS } from '../../domain/password-rotation.ts';
import { MIN_MERCHANT_PASSWORD_LENGTH } from '../../domain/merchant-passwords.ts';
import { findMerchantRecord, listMerchantRecords, type MerchantRecord } from '../../services/queries/merchants.ts';
import { createMerchant, issueTestKey, merchantTag, rotatePassword, setMerchantDisabled, updateMerchant } from '../../services/admin/merchants.ts';
import { IfMatchHeaders, PreconditionFailed, tagged, withEntityTag } from './conditional.ts';
import { ADMIN_TAG, actorOf, requirePermission } from './operator-auth.ts';
import { IdParams, NullableTimestamp, Timestamp, bodyDefaultsToEmpty, notFound } from './schemas.ts';
import { isUuid } from '../../domain/ids.ts';
import { responses } from './errors.ts';
import { decodeCursor, nextCursor, pageSize } from './cursor.ts';

const CHOICE = { errorMessage: 'The value you selected is not a valid choice.' };
const Name = Type.String({ minLength: 1, maxLength: 255 });
const NotificationUrl = Type.String({ format: 'url', maxLength: 2048, description: 'Where callbacks go: an absolute http or https URL.' });
const HashAlgorithm = Type.Union([Type.Literal('md5'), Type.Literal('sha256')], { ...CHOICE, description: 'The inner digest of every hash formula (decisions D2): md5 (default) or sha256.' });
const Printable = (min: number, description: string) => Type.String({ minLength: min, maxLength: 255, pattern: '^[!-~]+$', description });

const MERCHANT_EXAMPLE = {
  id: '01936f61-aaaa-7bbb-8ccc-ddddeeeeffff', name: 'Second Shop', merchant_key: '5b0c7e1f9a2d4c8e8f1a2b3c4d5e6f70',
  sandbox: true, notification_url: 'https://shop.example/callbacks', hash_algorithm: 'md5', disabled: false,
  created_at: '2026-11-24T05:00:00.000Z', updated_at: '2026-11-24T05:00:00.000Z', previous_password_valid_until: null,
  mode: 'test', live_merchant_id: null, test_merchant_id: null,
};
const MerchantProps = {
  id: Type.String(), name: Type.String(), merchant_key: Type.String({ description: '`merchant_key` on Checkout, `client_key` on S2S CARD and S2S APM.' }),
  sandbox: Type.Boolean({ description: 'Sandbox merchants are routed to sandbox connectors and may use test clocks.' }),
  notification_url: Type.Union([Type.String(), Type.Null()]), hash_algorithm: HashAlgorithm, disabled: Type.Boolean(),
  created_at: Timestamp, updated_at: Timestamp,
  previous_password_valid_until: Type.Union([Timestamp, Type.Null()], { description: 'After a rotation: until when the previous password still verifies requests.' }),
  mode: Type.Union([Type.Literal('test'), Type.Literal('live')], { description: 'Issue 25, item 26: what this merchant\'s key is. test: a sandbox merchant\'s key (sandbox connectors only, never a live MID); live: never the sandbox.' }),
  live_merchant_id: Type.Union([Type.String(), Type.Null()], { description: 'On a test key\'s merchant: the live merchant it is the test key of.' }),
  test_merchant_id: Type.Union([Type.String(), Type.Null()], { description: 'On a live merchant: the merchant of its test key (`POST /admin/v1/merchants/{id}/test-key`), or null.' }),
};
const Merchant = Type.Object(MerchantProps, { description: 'A merchant (never its password).', examples: [MERCHANT_EXAMPLE] });
const PASSWORD_EXAMPLE = '9f86d081884c7d659a2feaa0c55ad0157be3a1c94d2e8f60';
const CreatedMerchant = Type.Object({
  ...MerchantProps,
  password: Type.String({ description: 'Shown in this answer only; never again.' }),
  signing_secret: Type.String({ description: 'The webhook signing secret (`whsec_...`, Standard Webhooks): shown in this answer only; rotate it with `POST /admin/v1/merchants/{id}/signing-secret`.' }),
},
  { description: 'The new merchant: `password` and `signing_secret` are in this answer only.', examples: [{ ...MERCHANT_EXAMPLE, password: PASSWORD_EXAMPLE, signing_secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }] });

const CreateBody = Type.Object({
  name: Name,
  notification_url: Type.Optional(NotificationUrl),
  sandbox: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  hash_algorithm: Type.Optional(HashAlgorithm),
  merchant_key: Type.Optional(Printable(1, 'For a merchant moving from another platform; generated when absent.')),
  password: Type.Optional(Printable(MIN_MERCHANT_PASSWORD_LENGTH, 'For a merchant moving from another platform: at least 16 characters, not a common password; generated (48 random hex characters) when absent.')),
}, { additionalProperties: false, examples: [{ name: 'Second Shop', notification_url: 'https://shop.example/callbacks', sandbox: true, hash_algorithm: 'md5' }] });
type CreateBody = Static<typeof CreateBody>;

const PatchBody = Type.Object({
  name: Type.Optional(Name),
  notification_url: Type.Optional(Type.Union([NotificationUrl, Type.Null()], { description: 'null removes it (no callbacks without a per-payment URL).' })),
  sandbox: Type.Optional(Type.Boolean()),
  hash_algorithm: Type.Optional(HashAlgorithm),
}, { additionalProperties: false, minProperties: 1, examples: [{ notification_url: 'https://shop.example/callbacks-v2' }, { hash_algorithm: 'sha256' }] });
type PatchBody = Static<typeof PatchBody>;

const RotateBody = Type.Object({
  grace_hours: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_GRACE_HOURS, description: `How long the previous password keeps verifying requests, in hours (default ${DEFAULT_GRACE_HOURS}; 0 ends it at once).` })),
  password: Type.Optional(Printable(MIN_MERCHANT_PASSWORD_LENGTH, 'The new password when the merchant chose it: at least 16 characters, not a common password; generated (48 random hex characters) when absent.')),
}, { additionalProperties: false, examples: [{ grace_hours: 24 }, { grace_hours: 0 }] });
type RotateBody = Static<typeof RotateBody>;

const Rotated = Type.Object({
  id: Type.String(), merchant_key: Type.String(), password: Type.String({ description: 'The new password: shown in this answer only.' }),
  previous_password_valid_until: NullableTimestamp,
}, { description: 'The new password, in this answer only, and the end of the previous one\'s grace period.', examples: [{ id: MERCHANT_EXAMPLE.id, merchant_key: MERCHANT_EXAMPLE.merchant_key, password: PASSWORD_EXAMPLE, previous_password_valid_until: '2026-11-25T05:00:00.000Z' }] });

const ListQuery = Type.Object({
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Part of the name (any case) or the exact merchant key.' })),
  disabled: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], CHOICE)),
  mode: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('live')], { ...CHOICE, description: 'test: only test keys (sandbox merchants); live: only live keys. Absent: both.' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'Page size, 1 to 200 (default 50).' })),
  cursor: Type.Optional(Type.String({ maxLength: 512, description: 'next_cursor of the previous page.' })),
}, { additionalProperties: false });
type ListQuery = Static<typeof ListQuery>;
const Page = Type.Object({ merchants: Type.Array(Merchant), next_cursor: Type.Union([Type.String(), Type.Null()]) },
  { description: 'A page of merchants, newest first.', examples: [{ merchants: [MERCHANT_EXAMPLE], next_cursor: null }] });

type Id = Static<typeof IdParams>;

export const presentMerchant = (m: MerchantRecord, now: Date) => ({
  id: m.id, name: m.name, merchant_key: m.key, sandbox: m.sandbox, notification_url: m.notificationUrl, hash_algorithm: m.digest,
  disabled: m.disabled, created_at: m.createdAt.toISOString(), updated_at: m.updatedAt.toISOString(),
  previous_password_valid_until: m.previousPasswordExpiresAt && m.previousPasswordExpiresAt > now ? m.previousPasswordExpiresAt.toISOString() : null,
  mode: m.sandbox ? 'test' as const : 'live' as const, live_merchant_id: m.liveMerchantId, test_merchant_id: m.testMerchantId,
});

export function registerAdminMerchantRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const read = requirePermission('merchants.read');
  const write = requirePermission('merchants.write');
  const schema = (summary: string, extra: Record<string, unknown>) => ({ ...ADMIN_TAG, summary, ...extra });
  const present = (m: MerchantRecord) => presentMerchant(m, ctx.clock.now());
  /** Runs a change on a merchant named by a path id (404 unless a UUID of one), then drops the cached merchants. */
  const changing = async (reply: FastifyReply, id: string, change: () => Promise<MerchantRecord | undefined>) => {
    if (!isUuid(id)) throw notFound();
    const merchant = await change();
    if (!merchant) throw notFound();
    ctx.merchants.invalidate();
    return withEntityTag(reply, present(merchant), merchantTag(merchant));
  };

  app.post<{ Body: CreateBody }>('/merchants', {
    onRequest: write,
    schema: schema('Create a merchant; its password is in this answer only', { body: CreateBody, response: responses({ 201: CreatedMerchant }, [400]) }),
  }, async (req, reply) => {
    const b = req.body;
    const { merchant, password, signingSecret } = await createMerchant(ctx.db, ctx.keyring, actorOf(req), {
      name: b.name, notificationUrl: b.notification_url, sandbox: b.sandbox, digest: b.hash_algorithm, key: b.merchant_key, password: b.password,
    }, ctx.clock.now(), ctx.callbackTargets);
    ctx.merchants.invalidate();
    return reply.code(201).send({ ...present(merchant), password, signing_secret: signingSecret.expose() });
  });

  app.get<{ Querystring: ListQuery }>('/merchants', {
    onRequest: read,
    schema: schema('Merchants, newest first, searched by name or key, paged by cursor', { querystring: ListQuery, response: responses({ 200: Page }, [400]) }),
  }, async (req) => {
    const q = req.query;
    const limit = pageSize(q.limit);
    const [beforeId] = decodeCursor(q.cursor, 1) ?? [];
    const merchants = await listMerchantRecords(ctx.db, ctx.keyring, { search: q.search, disabled: q.disabled === undefined ? undefined : q.disabled === 'true', ...(q.mode ? { mode: q.mode } : {}), beforeId, limit });
    return { merchants: merchants.map(present), next_cursor: nextCursor(merchants, limit, (m) => [m.id]) };
  });

  app.get<{ Params: Id }>('/merchants/:id', {
    onRequest: read,
    schema: schema('One merchant (never its password), with the ETag of what its PATCH changes', { params: IdParams, response: responses({ 200: tagged(Merchant) }, [404]) }),
  }, async (req, reply) => {
    const merchant = isUuid(req.params.id) ? await findMerchantRecord(ctx.db, ctx.keyring, req.params.id) : undefined;
    if (!merchant) throw notFound();
    return withEntityTag(reply, present(merchant), merchantTag(merchant));
  });

  app.patch<{ Params: Id; Body: PatchBody; Headers: Static<typeof IfMatchHeaders> }>('/merchants/:id', {
    onRequest: write,
    schema: schema('Change a merchant\'s name, notification URL, sandbox flag or hash algorithm. With If-Match, only over the merchant read', {
      params: IdParams, headers: IfMatchHeaders, body: PatchBody, response: responses({ 200: tagged(Merchant), ...PreconditionFailed }),
    }),
  }, async (req, reply) => {
    const b = req.body;
    return changing(reply, req.params.id, () => updateMerchant(ctx.db, ctx.keyring, actorOf(req), req.params.id, {
      name: b.name, notificationUrl: b.notification_url, sandbox: b.sandbox, digest: b.hash_algorithm,
    }, ctx.clock.now(), ctx.callbackTargets, {}, req.headers['if-match']));
  });

  for (const [verb, disabled] of [['disable', true], ['enable', false]] as const) {
    app.post<{ Params: Id }>(`/merchants/:id/${verb}`, {
      onRequest: write,
      schema: schema(disabled
        ? 'Disable a merchant: every merchant channel refuses it as unknown from the next request; nothing is deleted'
        : 'Enable a disabled merchant again', { params: IdParams, response: responses({ 200: tagged(Merchant) }, [404]) }),
    }, async (req: FastifyRequest<{ Params: Id }>, reply: FastifyReply) =>
      changing(reply, req.params.id, () => setMerchantDisabled(ctx.db, ctx.keyring, actorOf(req), req.params.id, disabled, ctx.clock.now())));
  }

  app.post<{ Params: Id }>('/merchants/:id/test-key', {
    onRequest: write,
    schema: schema('Give a live merchant its test key (issue 25, item 26): a merchant in sandbox mode linked to it, with its own key, password and signing secret (in this answer only) and a sandbox MID', {
      params: IdParams, response: responses({ 201: CreatedMerchant }, [400, 404]),
    }),
  }, async (req, reply) => {
    if (!isUuid(req.params.id)) throw notFound();
    const issued = await issueTestKey(ctx.db, ctx.keyring, actorOf(req), req.params.id, ctx.clock.now());
    if (!issued) throw notFound();
    ctx.merchants.invalidate();
    return reply.code(201).send({ ...present(issued.merchant), password: issued.password, signing_secret: issued.signingSecret.expose() });
  });

  app.post<{ Params: Id; Body: RotateBody }>('/merchants/:id/password', {
    onRequest: write,
    preValidation: bodyDefaultsToEmpty,
    schema: schema(`Rotate the merchant's password: the new one is in this answer only; the previous one still verifies requests for grace_hours (default ${DEFAULT_GRACE_HOURS}); callbacks and return URLs are signed with the new one at once`, {
      params: IdParams, body: RotateBody, response: responses({ 200: Rotated }),
    }),
  }, async (req) => {
    if (!isUuid(req.params.id)) throw notFound();
    const rotated = await rotatePassword(ctx.db, ctx.keyring, actorOf(req), req.params.id, {
      graceHours: req.body.grace_hours ?? DEFAULT_GRACE_HOURS, password: req.body.password,
    }, ctx.clock.now());
    if (!rotated) throw notFound();
    ctx.merchants.invalidate();
    const m = present(rotated.merchant);
    return { id: m.id, merchant_key: m.merchant_key, password: rotated.password, previous_password_valid_until: m.previous_password_valid_until };
  });
}
