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
  portalAudit, portalCallbacks, portalDevelopers, portalPayment, portalPaymentAction, portalPaymentPages, portalPayments,
  portalResendCallback, portalRotateSigningSecret, revealSigningSecret,
} from '../../services/portal/payments.ts';
import type { SearchQuery } from '../../services/admin/payment-search.ts';
import { STATUS_NAMES, MAX_PAGE } from '../../services/admin/payment-search.ts';
import { formatAmount } from '../../domain/money.ts';
import { csvRow } from '../../domain/csv.ts';
import type { Payment, Transaction } from '../../domain/model/payment.ts';
import { GatewayError, MESSAGES, errorBody } from '../../domain/errors.ts';
import { errorSchema } from '../admin/errors.ts';
import { PaymentSummary, SUMMARY_EXAMPLE, summary } from '../admin/payment-routes.ts';
import { CallbackView, presentCallback } from '../admin/callback-routes.ts';
import { Timestamp } from '../admin/schemas.ts';
import { userOf } from './auth.ts';
import { PORTAL_TAG, portalResponses } from './errors.ts';

const { tags, security } = PORTAL_TAG;
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const choice = (values: readonly string[], description?: string) => Type.Union(values.map((v) => Type.Literal(v)), { errorMessage: MESSAGES.notChoice, ...(description ? { description } : {}) });
const MerchantQuery = Type.Optional(Type.String({ maxLength: 64, description: 'One of the user\'s merchants; absent: all of them (a group\'s user), or the only one.' }));

const SearchQuerySchema = Type.Object({
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
});
const PaymentDetail = Type.Object({ payment: PaymentSummary, transactions: Type.Array(TransactionView), callbacks: Type.Array(CallbackView) },
  { description: 'A payment with its timeline: transactions (attempts, captures, refunds) and callbacks with each delivery.' });

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
type IdParams = Static<typeof IdParams>;
const ActionBody = Type.Object({
  amount: Type.Optional(Type.String({ maxLength: 32, description: 'Decimal in the payment\'s currency; omitted: the whole remaining amount' })),
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Why (kept in the audit log)' })),
}, { additionalProperties: false, examples: [{ amount: '5.00', reason: 'Damaged item' }] });
type ActionBody = Static<typeof ActionBody>;
const ActionResult = Type.Object({
  result: Type.String({ description: 'approved, declined, or pending (the acquirer has not answered yet)' }),
  reason: Nullable(Type.String()), trans_id: Type.String(), payment: PaymentSummary,
}, { examples: [{ result: 'approved', reason: null, trans_id: '6f1e0d3c-7a2b-4c5d-8e9f-0a1b2c3d4e5f', payment: { ...SUMMARY_EXAMPLE, refunded_amount: '5.00' } }] });

const CallbackQuery = Type.Object({ merchant_id: MerchantQuery, payment_id: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: false });
const Developers = Type.Object({
  merchant_id: Type.String(), name: Type.String(), merchant_key: Type.String(), sandbox: Type.Boolean({ description: 'true: a sandbox merchant (test cards, no money moves)' }),
  notification_url: Nullable(Type.String()),
}, { examples: [{ merchant_id: SUMMARY_EXAMPLE.merchant_id, name: 'ACME Shop', merchant_key: 'a8e2d6f4-1b3c-4d5e-8f90-123456789abc', sandbox: true, notification_url: 'https://shop.example/callbacks' }] });
const MerchantBody = Type.Object({ merchant_id: MerchantQuery }, { additionalProperties: false, examples: [{}] });
const Secret = Type.Object({ merchant_id: Type.String(), signing_secret: Type.String({ description: 'whsec_…: verify the webhook-signature header with it' }), previous_valid_until: Type.Optional(Timestamp) },
  { examples: [{ merchant_id: SUMMARY_EXAMPLE.merchant_id, signing_secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }] });
const AuditEntry = Type.Object({
  id: Type.String(), at: Timestamp, user_name: Type.String({ description: 'merchant:<e-mail> for the merchant\'s users; an operator\'s e-mail otherwise' }),
  action: Type.String(), object_type: Type.String(), object_id: Type.String(), before: Type.Unknown(), after: Type.Unknown(), details: Type.Unknown(),
});
const AuditList = Type.Object({ entries: Type.Array(AuditEntry) });
const AuditQuery = Type.Object({ limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 200, default 50' })) }, { additionalProperties: false });

/** A transaction as the merchant sees it: never the operators' notes or resolutions. */
const presentTransaction = (t: Transaction, currency: string) => {
  const by = t.details.initiatedBy as { kind?: string; name?: string } | null | undefined;
  return {
    id: t.id, type: t.type, status: t.status, amount: formatAmount(t.amount, currency), created_at: t.createdAt.toISOString(),
    reason: typeof t.details.reason === 'string' ? t.details.reason : null,
    initiated_by: by?.kind ? { kind: by.kind, name: by.name ?? '' } : null,
  };
};

const EXPORT_COLUMNS = ['id', 'merchant_id', 'created_at', 'order_id', 'status', 'amount', 'currency', 'captured_amount', 'refunded_amount', 'method', 'card', 'payer_email'] as const;
const exportRow = (p: Payment) => {
  const s = summary(p);
  return csvRow([s.id, s.merchant_id, s.created_at, s.order_id, s.status, s.amount, s.currency, s.captured_amount, s.refunded_amount, s.method, s.card, s.payer_email]);
};

export function registerPortalPaymentRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Querystring: Query }>('/payments', {
    schema: { tags, security, summary: 'Search the merchant\'s payments, newest first (pages behind a cursor)', querystring: SearchQuerySchema, response: portalResponses({ 200: PaymentList }) },
  }, async (req) => {
    const page = await portalPayments(ctx, userOf(req), req.query as SearchQuery);
    return { payments: page.payments.map(summary), next_cursor: page.nextCursor };
  });

  app.get<{ Querystring: Query }>('/payments/export', {
    schema: {
      tags, security, summary: 'The payments of a search as CSV, streamed from the database page by page (every cell quoted; formulas neutralised)',
      querystring: SearchQuerySchema, produces: ['text/csv'], response: portalResponses({ 200: Type.String({ description: `text/csv: ${EXPORT_COLUMNS.join(', ')}` }) }),
    },
  }, async (req, reply) => {
    const pages = portalPaymentPages(ctx, userOf(req), req.query as SearchQuery);
    // The first page is read before answering, so a refused search is a D3 error, not a broken download.
    const first = await pages.next();
    async function* lines() {
      yield csvRow(EXPORT_COLUMNS);
      if (first.done) return;
      yield first.value.map(exportRow).join('');
      for await (const page of pages) yield page.map(exportRow).join('');
    }
    return reply.type('text/csv; charset=utf-8').header('cache-control', 'no-store')
      .header('content-disposition', `attachment; filename="payments-${ctx.clock.now().toISOString().slice(0, 10)}.csv"`).send(Readable.from(lines()));
  });

  app.get<{ Params: IdParams }>('/payments/:id', {
    schema: { tags, security, summary: 'One payment with its transactions and callbacks', params: IdParams, response: portalResponses({ 200: PaymentDetail }, [404]) },
  }, async (req) => {
    const d = await portalPayment(ctx, userOf(req), req.params.id);
    return { payment: summary(d.payment), transactions: d.transactions.map((t) => presentTransaction(t, d.payment.currency)), callbacks: d.callbacks.map(presentCallback) };
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
      const done = await portalPaymentAction(ctx, userOf(req), req.params.id, action, action === 'void' ? undefined : req.body.amount, req.body.reason);
      return { result: done.outcome.kind, reason: done.outcome.kind === 'declined' ? done.outcome.reason : null, trans_id: done.transId, payment: summary(done.payment) };
    });
  }

  app.get<{ Querystring: Static<typeof CallbackQuery> }>('/callbacks', {
    schema: { tags, security, summary: 'The merchant\'s callbacks, newest first, each with its deliveries', querystring: CallbackQuery, response: portalResponses({ 200: Type.Object({ callbacks: Type.Array(CallbackView) }) }) },
  }, async (req) => ({ callbacks: (await portalCallbacks(ctx, userOf(req), req.query)).map(presentCallback) }));

  app.post<{ Params: IdParams }>('/callbacks/:id/resend', {
    preValidation: async (req) => { req.body ??= {}; },
    schema: { tags, security, summary: 'Send a callback again now (a retrying one becomes due at once; a finished one starts over with the same event id)', params: IdParams, body: Type.Object({}, { additionalProperties: false, examples: [{}] }), response: portalResponses({ 200: Type.Object({ result: Type.String() }, { examples: [{ result: 'requeued' }] }) }) },
  }, async (req) => ({ result: String(await portalResendCallback(ctx, userOf(req), req.params.id)) }));

  app.get<{ Querystring: Static<typeof MerchantBody> }>('/developers', {
    schema: { tags, security, summary: 'The merchant key, sandbox or live, and the notification URL', querystring: MerchantBody, response: portalResponses({ 200: Developers }) },
  }, async (req) => {
    const d = await portalDevelopers(ctx, userOf(req), req.query.merchant_id);
    return { merchant_id: d.merchantId, name: d.name, merchant_key: d.merchantKey, sandbox: d.sandbox, notification_url: d.notificationUrl };
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

