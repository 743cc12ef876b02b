/**
 * The portal's payments, callbacks, developer settings and audit log (issue 30). Each route names its service in
 * services/portal/payments.ts, which checks the role and keeps every read and write inside the signed-in user's
 * merchants (another merchant's object answers 404).
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import {
  portalAudit, portalCallback, portalCallbacks, portalSendTestCallback, portalDevelopers, portalPayment, portalPaymentAction, portalPaymentCsv, portalPayments, EXPORT_COLUMNS,
  portalResendCallback, portalRotateSigningSecret, revealSigningSecret,
} from '../../services/portal/payments.ts';
import type { SearchQuery } from '../../services/admin/payment-search.ts';
import { STATUS_NAMES, MAX_PAGE } from '../../services/admin/payment-search.ts';
import { callbackPageSize, DEFAULT_CALLBACK_PAGE, MAX_CALLBACK_PAGE } from '../../services/queries/callbacks.ts';
import { formatAmount } from '../../domain/money.ts';
import { allowedActions } from '../../domain/operator-actions.ts';
import type { Payment, Transaction } from '../../domain/model/payment.ts';
import { GatewayError, MESSAGES, errorBody } from '../../domain/errors.ts';
import { errorSchema } from '../admin/errors.ts';
import { PaymentSummary, SUMMARY_EXAMPLE, actionAnswer, actionSchemas, summary } from '../admin/payment-routes.ts';
import { CallbackView, presentCallback } from '../admin/callback-routes.ts';
import { Timestamp } from '../admin/schemas.ts';
import { Figures } from '../admin/stats-routes.ts';
import { portalFigures } from '../../services/portal/figures.ts';
import { portalChangeDeveloperSettings, portalRotatePassword } from '../../services/portal/developers.ts';
import { DEFAULT_GRACE_HOURS, MAX_GRACE_HOURS } from '../../domain/password-rotation.ts';
import { FieldList, ReturnParams } from '../admin/settings-routes.ts';
import { OPTIONAL_FIELDS, PORTAL_EDITABLE_SETTINGS, RETURN_PARAMETERS } from '../../domain/protocol-mapping.ts';
import { userOf } from './auth.ts';
import { FORMAT_QUERY, PORTAL_TAG, portalResponses } from './errors.ts';
import { sendExport } from './export-routes.ts';
import { XLSX_CONTENT_TYPE } from '../../services/xlsx.ts';

const { tags, security } = PORTAL_TAG;
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const choice = (values: readonly string[], description?: string) => Type.Union(values.map((v) => Type.Literal(v)), { errorMessage: MESSAGES.notChoice, ...(description ? { description } : {}) });
const MerchantQuery = Type.Optional(Type.String({ maxLength: 64, description: 'One of the user\'s merchants; absent: all of them (a group\'s user), or the only one.' }));

export const SearchQuerySchema = Type.Object({
  merchant_id: MerchantQuery,
  status: Type.Optional(choice([...STATUS_NAMES.keys()], 'Checkout name (settled) or S2S name (SETTLED)')),
  order_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  payment_id: Type.Optional(Type.String({ maxLength: 64 })),
  trans_id: Type.Optional(Type.String({ maxLength: 64 })),
  email: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Payer e-mail, case-insensitive, exact' })),
  card_last4: Type.Optional(Type.String({ pattern: '^[0-9]{4}$' })),
  amount_from: Type.Optional(Type.String({ maxLength: 32, description: 'Inclusive; a decimal in `currency`, which is then required' })),
  amount_to: Type.Optional(Type.String({ maxLength: 32, description: 'Inclusive; a decimal in `currency`, which is then required' })),
  currency: Type.Optional(Type.String({ maxLength: 6 })),
  method: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  created_from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or date-time with zone; inclusive' })),
  created_to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or date-time with zone; exclusive' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: `Page size, 1 to ${MAX_PAGE} (default 50)` })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the page before' })),
}, { additionalProperties: false });
type Query = Static<typeof SearchQuerySchema>;

const PaymentList = Type.Object({ payments: Type.Array(PaymentSummary), next_cursor: Nullable(Type.String()) }, { examples: [{ payments: [SUMMARY_EXAMPLE], next_cursor: null }] });
const TransactionView = Type.Object({
  id: Type.String(), type: Type.String(), status: Type.String(), amount: Type.String(), created_at: Timestamp, reason: Nullable(Type.String()),
  initiated_by: Nullable(Type.Object({ kind: Type.String(), name: Type.String() }, { description: 'Set when a person started it (an operator, or a merchant user in the portal); null: the API' })),
  reason_given: Nullable(Type.String({ description: 'Why the person who started it did (the reason given with a refund, capture or void in the portal); null: none given' })),
}, { examples: [{ id: '01a20bf0-0c11-7d2a-8e3f-5a6b7c8d9e0f', type: 'refund', status: 'success', amount: '5.00', created_at: '2026-11-24T06:10:00.000Z', reason: null, initiated_by: { kind: 'merchant_user', name: 'merchant:fin@shop.example' }, reason_given: 'Damaged item' }] });
const PortalAction = Type.Object({
  action: choice(['capture', 'refund', 'void'] as const),
  max_amount: Type.String({ description: 'The largest amount the action may take (a decimal in the payment\'s currency)' }),
  partial: Type.Boolean({ description: 'false: exactly max_amount (a void, the reversal of a held authorization)' }),
});
const DisputeView = Type.Object({
  id: Type.String(), stage: Type.String(), status: Type.String(), amount: Type.String(), currency: Type.String(),
  reason_code: Nullable(Type.String()), category: Type.String(), due_at: Nullable(Timestamp), created_at: Timestamp,
});
const PaymentDetail = Type.Object({
  payment: Type.Intersect([PaymentSummary, Type.Object({
    decline_reason: Nullable(Type.String()),
    three_ds: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'The payment\'s 3-D Secure facts (version, ECI, authentication status) when it had any' })),
    allowed_actions: Type.Array(PortalAction, { description: 'Refund, capture or void as the payment\'s state allows now (the state table of domain/operator-actions.ts); empty while an operation is in flight' }),
  })]),
  transactions: Type.Array(TransactionView), callbacks: Type.Array(CallbackView), disputes: Type.Array(DisputeView),
}, { description: 'A payment with its timeline: transactions (attempts, captures, refunds), 3-D Secure, callbacks with each delivery, and disputes.' });

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
type IdParams = Static<typeof IdParams>;
const { body: ActionBody, result: ActionResult } = actionSchemas({
  reason: 'Why (a refund\'s reason: customer request, damaged item, duplicate, ...): kept on the transaction (reason_given in the payment\'s timeline) and in the audit log (details.reason_given), apart from the user\'s name',
  example: { amount: '5.00', reason: 'Damaged item' },
  pending: 'the acquirer has not answered yet',
  payment: { refunded_amount: '5.00' },
});
type ActionBody = Static<typeof ActionBody>;

const Day = (description: string) => Type.Optional(Type.String({ maxLength: 10, description, examples: ['2026-11-28'] }));
const FiguresQuery = Type.Object({
  from: Day('First day (UTC, YYYY-MM-DD), included; default: 29 days before `to`.'),
  to: Day('Last day (UTC, YYYY-MM-DD), included; default: today.'),
  merchant_id: MerchantQuery,
}, { additionalProperties: false });

const CallbackQuery = Type.Object({
  merchant_id: MerchantQuery, payment_id: Type.Optional(Type.String({ maxLength: 64 })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: `How many, newest first: 1 to ${MAX_CALLBACK_PAGE} (default ${DEFAULT_CALLBACK_PAGE}); outside that range: 400 on limit` })),
}, { additionalProperties: false });
const Developers = Type.Object({
  merchant_id: Type.String(), name: Type.String(), merchant_key: Type.String(), sandbox: Type.Boolean({ description: 'true: a sandbox merchant (test cards, no money moves)' }),
  notification_url: Nullable(Type.String()),
  allowed_source_addresses: Type.Array(Type.String(), { description: 'Where the merchant\'s servers may call from; empty: anywhere.' }),
  previous_password_valid_until: Nullable(Timestamp),
  callback_fields: Type.Array(Type.String(), { description: 'Protocol Mapping\'s optional fields added to callbacks ("Add Data to Callback").' }),
  status_fields: Type.Array(Type.String(), { description: 'Optional fields added to status responses ("Add Data to Get status response").' }),
  return_params: Type.Array(Type.String(), { description: 'Appended to success_url and cancel_url besides payment_id, trans_id, order_id and hash.' }),
  editable_settings: Type.Array(choice(PORTAL_EDITABLE_SETTINGS), { description: 'Which of callback_fields, status_fields and return_params your payment provider lets you change here (PATCH); the others are shown read-only.' }),
  choices: Type.Object({
    fields: Type.Array(Type.Object({ name: Type.String(), wire: Type.Array(Type.String(), { description: 'What appears on the wire when the field is on' }), note: Type.String() }), { description: 'The optional fields callback_fields and status_fields choose from' }),
    return_params: Type.Array(Type.String(), { description: 'The parameters return_params chooses from' }),
  }),
}, { examples: [{
  merchant_id: SUMMARY_EXAMPLE.merchant_id, name: 'ACME Shop', merchant_key: 'a8e2d6f4-1b3c-4d5e-8f90-123456789abc', sandbox: true, notification_url: 'https://shop.example/callbacks', allowed_source_addresses: [], previous_password_valid_until: null,
  callback_fields: ['payer_email'], status_fields: [], return_params: ['payment_method'], editable_settings: ['callback_fields'],
  choices: { fields: [{ name: 'payer_email', wire: ['payer_email'], note: 'Payer attribute.' }], return_params: [...RETURN_PARAMETERS] },
}] });
const MerchantBody = Type.Object({ merchant_id: MerchantQuery }, { additionalProperties: false, examples: [{}] });
const Secret = Type.Object({ merchant_id: Type.String(), signing_secret: Type.String({ description: 'whsec_…: verify the webhook-signature header with it' }), previous_valid_until: Type.Optional(Timestamp) },
  { examples: [{ merchant_id: SUMMARY_EXAMPLE.merchant_id, signing_secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }] });
const RotateBody = Type.Object({
  merchant_id: MerchantQuery,
  grace_hours: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_GRACE_HOURS, description: `How long the previous password keeps verifying requests, in hours (default ${DEFAULT_GRACE_HOURS}; 0 ends it at once).` })),
}, { additionalProperties: false, examples: [{ grace_hours: 24 }] });
const Rotated = Type.Object({
  merchant_id: Type.String(), password: Type.String({ description: 'The new hash password, in this answer only.' }),
  previous_password_valid_until: Nullable(Timestamp),
}, { examples: [{ merchant_id: SUMMARY_EXAMPLE.merchant_id, password: 'b7Qe2LmX9pRt4VzK8nWc3HsJ', previous_password_valid_until: '2026-11-25T05:00:00.000Z' }] });
const SettingsBody = Type.Object({
  merchant_id: MerchantQuery,
  notification_url: Type.Optional(Type.Union([Type.String({ format: 'url', maxLength: 2048 }), Type.Null()], { description: 'Where callbacks go (absolute http or https URL); null removes it.' })),
  allowed_source_addresses: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 49 }), { maxItems: 100, uniqueItems: true, description: 'IP addresses or CIDR blocks your servers call the gateway from; empty: any address.' })),
  callback_fields: Type.Optional(FieldList('callbacks ("Add Data to Callback"); only when editable_settings names it, else 403')),
  status_fields: Type.Optional(FieldList('status responses ("Add Data to Get status response"); only when editable_settings names it, else 403')),
  return_params: Type.Optional(ReturnParams),
}, { additionalProperties: false, minProperties: 1, examples: [{ notification_url: 'https://shop.example/callbacks', allowed_source_addresses: ['203.0.113.0/24'] }, { callback_fields: ['payer_email', 'rrn'] }] });

const AuditEntry = Type.Object({
  id: Type.String(), at: Timestamp, user_name: Type.String({ description: 'merchant:<e-mail> for the merchant\'s users; an operator\'s e-mail otherwise' }),
  action: Type.String(), object_type: Type.String(), object_id: Type.String(), before: Type.Unknown(), after: Type.Unknown(), details: Type.Unknown(),
});
const AuditList = Type.Object({ entries: Type.Array(AuditEntry) });
const AuditQuery = Type.Object({ limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 200, default 50' })) }, { additionalProperties: false });

/** A transaction as the merchant sees it: never the operators' notes or resolutions. */
const presentTransaction = (t: Transaction, currency: string) => {
  const by = t.details.initiatedBy as { kind?: string; name?: string; reason?: unknown } | null | undefined;
  return {
    id: t.id, type: t.type, status: t.status, amount: formatAmount(t.amount, currency), created_at: t.createdAt.toISOString(),
    reason: typeof t.details.reason === 'string' ? t.details.reason : null,
    initiated_by: by?.kind ? { kind: by.kind, name: by.name ?? '' } : null,
    reason_given: typeof by?.reason === 'string' ? by.reason : null,
  };
};

/** The developers screen's answer (GET, and PATCH after a change). */
const developersView = (d: Awaited<ReturnType<typeof portalDevelopers>>) => ({
  merchant_id: d.merchantId, name: d.name, merchant_key: d.merchantKey, sandbox: d.sandbox, notification_url: d.notificationUrl,
  allowed_source_addresses: d.allowedSourceAddresses, previous_password_valid_until: d.previousPasswordValidUntil?.toISOString() ?? null,
  callback_fields: d.callbackFields, status_fields: d.statusFields, return_params: d.returnParams, editable_settings: d.editableSettings,
  choices: { fields: OPTIONAL_FIELDS.map((f) => ({ name: f.name, wire: [...f.wire], note: f.note })), return_params: [...RETURN_PARAMETERS] },
});

const ExportSearchSchema = Type.Object({ ...SearchQuerySchema.properties, format: FORMAT_QUERY }, { additionalProperties: false });

export function registerPortalPaymentRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Querystring: Query }>('/payments', {
    schema: { tags, security, summary: 'Search the merchant\'s payments, newest first (pages behind a cursor)', querystring: SearchQuerySchema, response: portalResponses({ 200: PaymentList }) },
  }, async (req) => {
    const page = await portalPayments(ctx, userOf(req), req.query as SearchQuery);
    return { payments: page.payments.map(summary), next_cursor: page.nextCursor };
  });

  app.get<{ Querystring: Query & { format?: 'csv' | 'xlsx' } }>('/payments/export', {
    schema: {
      tags, security, summary: 'The payments of a search as CSV (or XLSX), streamed from the database page by page (every cell quoted; formulas neutralised)',
      querystring: ExportSearchSchema, produces: ['text/csv', XLSX_CONTENT_TYPE], response: portalResponses({ 200: Type.String({ description: `text/csv (or XLSX with format=xlsx): ${EXPORT_COLUMNS.join(', ')}` }) }),
    },
  }, async (req, reply) => {
    // The role and the scope are checked before answering, so a refused export is a D3 error, not a broken download.
    const { format, ...query } = req.query;
    const lines = await portalPaymentCsv(ctx, userOf(req), query as SearchQuery);
    return sendExport(reply, lines, `payments-${ctx.clock.now().toISOString().slice(0, 10)}`, format, 'payments');
  });

  app.get<{ Params: IdParams }>('/payments/:id', {
    schema: { tags, security, summary: 'One payment with its transactions and callbacks', params: IdParams, response: portalResponses({ 200: PaymentDetail }, [404]) },
  }, async (req) => {
    const d = await portalPayment(ctx, userOf(req), req.params.id);
    const p = d.payment;
    return {
      payment: {
        ...summary(p), decline_reason: p.declineReason ?? null, three_ds: p.threeDs ? { ...p.threeDs } : null,
        allowed_actions: allowedActions(p).map((a) => ({ action: a.action, max_amount: formatAmount(a.maxAmount, p.currency), partial: a.partial })),
      },
      transactions: d.transactions.map((t) => presentTransaction(t, p.currency)), callbacks: d.callbacks.map((c) => presentCallback(c, ctx.clock.now())),
      disputes: d.disputes.map((x) => ({
        id: x.id, stage: x.stage, status: x.status, amount: formatAmount(x.amount, x.currency), currency: x.currency, reason_code: x.reasonCode,
        category: x.category, due_at: x.dueAt?.toISOString() ?? null, created_at: x.createdAt.toISOString(),
      })),
    };
  });

  for (const action of ['refund', 'capture', 'void'] as const) {
    app.post<{ Params: IdParams; Body: ActionBody }>(`/payments/:id/${action}`, {
      preValidation: async (req) => { req.body ??= {}; },
      schema: {
        tags, security, params: IdParams, body: ActionBody, response: { ...portalResponses({ 200: ActionResult }), 409: errorSchema('Another operation of this payment is in flight', errorBody(new GatewayError('operationInProgress'))) },
        summary: { refund: 'Refund a payment, in full or in part (several partial refunds up to the captured amount)', capture: 'Capture a held authorization, in full or once in part', void: 'Void a settled payment with nothing refunded' }[action],
        description: 'The same compare-and-set engine as the merchant API: the merchant\'s callback follows; 409 while another operation is in flight. Send an `Idempotency-Key` header. Recorded in the merchant\'s audit log with the user. Permission payments.act.',
      },
    }, async (req) => {
      return actionAnswer(await portalPaymentAction(ctx, userOf(req), req.params.id, action, action === 'void' ? undefined : req.body.amount, req.body.reason?.trim() || undefined));
    });
  }

  app.get<{ Querystring: Static<typeof FiguresQuery> }>('/figures', {
    schema: {
      tags, security, summary: 'The home\'s figures: volume, payments, approval rate and declines by reason over a date range, beside the period before it',
      description: 'The console\'s aggregation (GET /admin/v1/stats/figures) over the user\'s merchants only, split per merchant. Permission payments.read.',
      querystring: FiguresQuery, response: portalResponses({ 200: Figures }, [400]),
    },
  }, async (req) => portalFigures(ctx, userOf(req), req.query));

  app.get<{ Querystring: Static<typeof CallbackQuery> }>('/callbacks', {
    schema: { tags, security, summary: 'The merchant\'s callbacks, newest first, each with its deliveries', querystring: CallbackQuery, response: portalResponses({ 200: Type.Object({ callbacks: Type.Array(CallbackView) }) }) },
  }, async (req) => ({ callbacks: (await portalCallbacks(ctx, userOf(req), { ...req.query, limit: callbackPageSize(req.query.limit) })).map((c) => presentCallback(c, ctx.clock.now())) }));

  app.get<{ Params: IdParams }>('/callbacks/:id', {
    schema: { tags, security, summary: 'One callback with every delivery attempt and its state in words (permission callbacks.read)', params: IdParams, response: portalResponses({ 200: CallbackView }, [404]) },
  }, async (req) => presentCallback(await portalCallback(ctx, userOf(req), req.params.id), ctx.clock.now()));

  app.post<{ Body: Static<typeof MerchantBody> }>('/developers/test-callback', {
    preValidation: async (req) => { req.body ??= {}; },
    schema: {
      tags, security, summary: 'Send a test callback to the notification URL',
      description: 'A callback with `type=test` and `status=success` (no payment), through the outbox as every callback: signed with the webhook signing '
        + 'secret (webhook-signature headers), X-Callback-Id, retried on failure. Answers its id at once; GET /portal/v1/callbacks/{id} shows each delivery '
        + '(HTTP status, time, error). No notification URL: 400 at notification_url. Permission callbacks.resend; in the audit log (callback.test).',
      body: MerchantBody, response: portalResponses({ 200: Type.Object({ id: Type.String({ description: 'The test callback\'s id (its X-Callback-Id)' }), merchant_id: Type.String() }, { examples: [{ id: '0f8fad5b-d9cb-469f-a165-70867728950e', merchant_id: SUMMARY_EXAMPLE.merchant_id }] }) }),
    },
  }, async (req) => {
    const sent = await portalSendTestCallback(ctx, userOf(req), req.body.merchant_id);
    return { id: sent.id, merchant_id: sent.merchantId };
  });

  app.post<{ Params: IdParams }>('/callbacks/:id/resend', {
    preValidation: async (req) => { req.body ??= {}; },
    schema: { tags, security, summary: 'Send a callback again now (a retrying one becomes due at once; a finished one starts over with the same event id)', params: IdParams, body: Type.Object({}, { additionalProperties: false, examples: [{}] }), response: portalResponses({ 200: Type.Object({ result: Type.String() }, { examples: [{ result: 'requeued' }] }) }) },
  }, async (req) => ({ result: String(await portalResendCallback(ctx, userOf(req), req.params.id)) }));

  app.get<{ Querystring: Static<typeof MerchantBody> }>('/developers', {
    schema: { tags, security, summary: 'The merchant key, sandbox or live, and the notification URL', querystring: MerchantBody, response: portalResponses({ 200: Developers }) },
  }, async (req) => {
    return developersView(await portalDevelopers(ctx, userOf(req), req.query.merchant_id));
  });

  app.post<{ Body: Static<typeof RotateBody> }>('/developers/password', {
    preValidation: async (req) => { req.body ??= {}; },
    schema: { tags, security, summary: 'Rotate the hash password: the new one is answered once; the previous one keeps verifying requests for grace_hours', body: RotateBody, response: portalResponses({ 200: Rotated }) },
  }, async (req, reply) => {
    const rotated = await portalRotatePassword(ctx, userOf(req), req.body.merchant_id, req.body.grace_hours ?? DEFAULT_GRACE_HOURS);
    reply.header('cache-control', 'no-store');
    return { merchant_id: rotated.merchantId, password: rotated.password, previous_password_valid_until: rotated.previousValidUntil?.toISOString() ?? null };
  });

  app.patch<{ Body: Static<typeof SettingsBody> }>('/developers', {
    schema: {
      tags, security, summary: 'Change the notification URL, the allowed source addresses, or the Protocol Mapping settings the operator lets you change (audited)',
      description: 'callback_fields, status_fields and return_params are accepted only when editable_settings (GET) names them (the operator\'s portal_editable_settings); '
        + 'otherwise 403, the refused setting named in the error\'s fields, and nothing of the request is changed. Validated as the admin API validates them; '
        + 'in the merchant\'s audit log (merchant.settings.update) with the user. Permission developers.secrets (owner, developer).',
      body: SettingsBody, response: portalResponses({ 200: Developers }),
    },
  }, async (req) => {
    const { merchant_id: merchantId, ...patch } = req.body;
    await portalChangeDeveloperSettings(ctx, userOf(req), merchantId, patch);
    return developersView(await portalDevelopers(ctx, userOf(req), merchantId));
  });

  app.post<{ Body: Static<typeof MerchantBody> }>('/developers/signing-secret/reveal', {
    preValidation: async (req) => { req.body ??= {}; },
    schema: { tags, security, summary: 'Show the webhook signing secret (recorded in the audit log)', body: MerchantBody, response: portalResponses({ 200: Secret }) },
  }, async (req, reply) => {
    const user = userOf(req);
    const secret = await revealSigningSecret(ctx, user, req.body.merchant_id);
    reply.header('cache-control', 'no-store');
    return { merchant_id: req.body.merchant_id ?? user.merchantIds[0]!, signing_secret: secret };
  });

  app.post<{ Body: Static<typeof MerchantBody> }>('/developers/signing-secret', {
    preValidation: async (req) => { req.body ??= {}; },
    schema: { tags, security, summary: 'Rotate the webhook signing secret: the new one is answered; the previous one keeps signing for a day', body: MerchantBody, response: portalResponses({ 200: Secret }) },
  }, async (req, reply) => {
    const rotated = await portalRotateSigningSecret(ctx, userOf(req), req.body.merchant_id);
    reply.header('cache-control', 'no-store');
    return { merchant_id: rotated.merchantId, signing_secret: rotated.secret.expose(), previous_valid_until: rotated.previousValidUntil.toISOString() };
  });

  app.get<{ Querystring: Static<typeof AuditQuery> }>('/audit', {
    schema: { tags, security, summary: 'The merchant\'s own audit log: every write of its users (and of operators on its users), newest first', querystring: AuditQuery, response: portalResponses({ 200: AuditList }) },
  }, async (req) => {
    const limit = req.query.limit === undefined ? undefined : Number(req.query.limit);
    const entries = await portalAudit(ctx, userOf(req), { ...(limit !== undefined ? { limit } : {}) });
    return { entries: entries.map((e) => ({ id: e.id, at: e.at.toISOString(), user_name: e.userName, action: e.action, object_type: e.objectType, object_id: e.objectId, before: e.before, after: e.after, details: e.details })) };
  });
}

