/**
 * The operator's side of callbacks (decisions D7): the event log of every callback with its delivery
 * attempts, resending one now (a failed or delivered one again, a retrying one at once), and unblocking a URL
 * blocked after five timeouts. Authenticated with an operator's Bearer token; answers in D3 bodies.
 */
import type { FastifyInstance } from 'fastify';
import { pageSize, pageSizeText } from '../../domain/page-size.ts';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { callbackPageSize, listCallbacks, DEFAULT_CALLBACK_PAGE, MAX_CALLBACK_PAGE, type CallbackFilter, type CallbackWithAttempts } from '../../services/queries/callbacks.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { blockedUrls, unblockCallbackUrl, MAX_BLOCKED_LISTED } from '../../services/admin/callback-urls.ts';
import { resendNow, resendMany, sendTestCallback, MAX_BULK_RESEND } from '../../services/admin/callback-resend.ts';
import { callbackEventOf, deliveryOf, DELIVERY_STATE_TEXT, type DeliveryState } from '../../domain/callback-delivery.ts';
import { ADMIN_TAG as TAG, actorOf, requirePermission } from './operator-auth.ts';
import { ErrorResponses } from './errors.ts';
import { GatewayError } from '../../domain/errors.ts';

const STATES = Object.keys(DELIVERY_STATE_TEXT) as DeliveryState[];

/** The event filter: the event_type a callback reports (sale, refund, 3ds, creditvoid, test, ...). */
const EventFilter = Type.String({ pattern: '^[a-z0-9_-]{1,32}$', description: 'The event it reports, as event_type: sale, auth, 3ds, capture, refund, reversal, void, chargeback, creditvoid, test, ... (lower case)', examples: ['refund'], errorMessage: 'Give an event type in lower case, e.g. sale or refund.' });
/** The state filter: the delivery state as `state` shows it now. */
const StateFilter = Type.Union(STATES.map((s) => Type.Literal(s)), { description: `The delivery state now: ${STATES.join(', ')} (waiting_behind: behind an earlier undelivered callback of the same payment)`, errorMessage: 'The value you selected is not a valid choice.' });

/** The filters the event log and the bulk resend share (each describes `mode` in its own words). */
const FILTERS = {
  merchant_id: Type.Optional(Type.String({ maxLength: 64 })),
  payment_id: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], { errorMessage: 'The value you selected is not a valid choice.' })),
  event: Type.Optional(EventFilter),
  state: Type.Optional(StateFilter),
};

const ListQuery = Type.Object({
  ...FILTERS,
  mode: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('live')], { description: 'test: only test keys\' (sandbox merchants\') callbacks; live: only live keys\'. Absent: both.' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: `Page size, 1 to ${MAX_CALLBACK_PAGE} (default ${DEFAULT_CALLBACK_PAGE}); outside that range: 400 on limit` })),
  cursor: Type.Optional(Type.String({ maxLength: 300, description: 'next_cursor of the page before' })),
});
type ListQuery = Static<typeof ListQuery>;

const BulkBody = Type.Object({
  ids: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: MAX_BULK_RESEND, description: 'Callback ids' })),
  filter: Type.Optional(Type.Object({
    ...FILTERS,
    mode: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('live')], { description: 'test: test keys\' callbacks only; live: live keys\' only.' })),
  }, { additionalProperties: false, description: 'As the filters of GET /admin/v1/callbacks' })),
}, { additionalProperties: false, examples: [{ filter: { merchant_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', status: 'failed' } }, { filter: { event: 'refund', state: 'waiting_behind' } }, { ids: ['0f8fad5b-d9cb-469f-a165-70867728950e'] }] });
type BulkBody = Static<typeof BulkBody>;

const UnblockBody = Type.Object({ url: Type.String({ minLength: 1, maxLength: 1024 }) });
type UnblockBody = Static<typeof UnblockBody>;

const Nullable = <T extends import('@sinclair/typebox').TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** A callback as operators see it: the event, its delivery state and every attempt. */
export const CallbackView = Type.Object({
  id: Type.String({ description: 'The event id, sent as X-Callback-Id with every attempt' }),
  merchant_id: Type.String(),
  payment_id: Nullable(Type.String()),
  url: Type.String(),
  protocol: Type.String({ description: 'checkout (any 2xx) or s2s (2xx with body OK)' }),
  status: Type.String({ description: 'pending (due or retrying), delivered or failed' }),
  event_type: Type.String({ description: 'The event it reports: sale, auth, 3ds, capture, refund, reversal, void, chargeback, ... (S2S: the action in lower case, e.g. creditvoid); test for a test send' }),
  event_status: Nullable(Type.String({ description: 'The event\'s status as sent (success, fail, waiting, ...), lower case' })),
  state: Type.Union(STATES.map((s) => Type.Literal(s)), { description: Object.entries(DELIVERY_STATE_TEXT).map(([k, v]) => `${k}: ${v}`).join('; ') }),
  state_text: Type.String({ description: 'The state in words' }),
  waiting_behind: Nullable(Type.Object({
    id: Type.String({ description: 'The earlier callback of the same payment that is not delivered yet' }),
    attempts: Type.Integer({ description: 'Its attempts so far' }),
    last_error: Nullable(Type.String()),
  }, { description: 'Set in state waiting_behind: callbacks of one payment go out in order' })),
  due_at: Nullable(Type.String({ description: 'When it is next tried at the earliest, never in the past (now when due); null once delivered or failed' })),
  attempts: Type.Integer(),
  next_attempt_at: Type.String({ description: 'The schedule as stored (may lie in the past while it waits); prefer due_at' }),
  last_error: Nullable(Type.String()),
  created_at: Type.String(),
  delivered_at: Nullable(Type.String()),
  body: Type.String({ description: 'The signed form body as sent; card numbers in it are masks' }),
  attempt_log: Type.Array(Type.Object({
    attempted_at: Type.String(), http_status: Nullable(Type.Integer()), outcome: Type.String(), error: Nullable(Type.String()), duration_ms: Type.Integer(),
  })),
});

const BlockedList = Type.Object({
  urls: Type.Array(Type.Object({
    url: Type.String(),
    blocked_until: Type.String({ description: 'When the block ends by itself (ISO 8601)' }),
    timeouts: Type.Array(Type.String(), { description: 'The timeouts inside the window that blocked it' }),
    waiting_callbacks: Type.Integer({ description: 'Callbacks to this URL not yet delivered' }),
    merchant_ids: Type.Array(Type.String(), { description: 'The merchants of those callbacks' }),
  })),
}, { examples: [{ urls: [{ url: 'https://shop.example.com/callbacks', blocked_until: '2026-11-24T06:25:00.000Z', timeouts: ['2026-11-24T06:07:10.000Z', '2026-11-24T06:08:40.000Z', '2026-11-24T06:09:20.000Z', '2026-11-24T06:09:55.000Z', '2026-11-24T06:10:00.000Z'], waiting_callbacks: 3, merchant_ids: ['7c9e6679-7425-40de-944b-e07fc1f90ae7'] }] }] });

export function presentCallback(c: CallbackWithAttempts, now: Date): Static<typeof CallbackView> {
  const event = callbackEventOf(c.fields);
  const delivery = deliveryOf(c, now);
  return {
    id: c.id,
    merchant_id: c.merchantId,
    payment_id: c.paymentId,
    url: c.url,
    protocol: c.protocol,
    status: c.status,
    event_type: event.type,
    event_status: event.status,
    state: delivery.state,
    state_text: DELIVERY_STATE_TEXT[delivery.state],
    waiting_behind: c.behind ? { id: c.behind.id, attempts: c.behind.attempts, last_error: c.behind.lastError } : null,
    due_at: delivery.dueAt?.toISOString() ?? null,
    attempts: c.attempts,
    next_attempt_at: c.nextAttemptAt.toISOString(),
    last_error: c.lastError,
    created_at: c.createdAt.toISOString(),
    delivered_at: c.deliveredAt?.toISOString() ?? null,
    // The signed body as sent; card numbers in it are masks already.
    body: c.body,
    attempt_log: c.attemptLog.map((a) => ({
      attempted_at: a.attemptedAt.toISOString(), http_status: a.httpStatus, outcome: a.outcome, error: a.error, duration_ms: a.durationMs,
    })),
  };
}

/** The store filter of the list's query or a bulk resend's filter (the same fields). */
function callbackFilter(q: { merchant_id?: string; payment_id?: string; status?: CallbackFilter['status']; event?: string; state?: DeliveryState; mode?: 'test' | 'live' }, now: Date): CallbackFilter {
  return {
    merchantId: q.merchant_id, paymentId: q.payment_id, status: q.status,
    ...(q.event ? { event: q.event } : {}), ...(q.state ? { state: { state: q.state, now } } : {}), ...(q.mode ? { mode: q.mode } : {}),
  };
}

export function registerAdminCallbackRoutes(app: FastifyInstance, ctx: ServiceContext): void {

  app.get<{ Querystring: ListQuery }>('/callbacks', {
    onRequest: requirePermission('callbacks.read'),
    schema: {
      ...TAG,
      summary: 'Callback event log with delivery attempts, newest first',
      description: 'Every filter narrows the list (AND): the merchant, the payment, the stored status, the event it reports (`event`, as `event_type`), '
        + 'the delivery state now (`state`, as `state`; e.g. `waiting_behind`) and test or live keys. Paged by an opaque cursor as the payments list: '
        + 'pass `next_cursor` as `cursor` for the next page; `next_cursor` is null on the last page. Permission callbacks.read.',
      querystring: ListQuery,
      response: {
        200: Type.Object({
          callbacks: Type.Array(CallbackView),
          next_cursor: Nullable(Type.String({ description: 'Pass as cursor for the next page; null: this was the last' })),
        }, { examples: [{ callbacks: [], next_cursor: null }] }),
        ...ErrorResponses,
      },
    },
  }, async (req) => {
    const q = req.query;
    const limit = callbackPageSize(q.limit);
    const after = decodeCursor(q.cursor, 2) as [string, string] | undefined;
    const now = ctx.clock.now();
    const list = await listCallbacks(ctx.db, { ...callbackFilter(q, now), ...(after ? { after } : {}), limit: limit + 1 });
    const page = list.slice(0, limit);
    return {
      callbacks: page.map((c) => presentCallback(c, now)),
      next_cursor: list.length > limit ? encodeCursor(page[page.length - 1]!.position) : null,
    };
  });

  app.post<{ Params: { id: string } }>('/callbacks/:id/resend', {
    onRequest: requirePermission('callbacks.resend'),
    schema: {
      ...TAG,
      summary: 'Send a callback now',
      description: 'A failed or delivered callback is sent again from the start, with the same event id (result `resent`). '
        + 'A callback still retrying becomes due at once, in place: no second row, its attempt count kept (`due_now`). '
        + 'One being sent at this very moment is left to that attempt (`sending`). Callbacks of one payment still go out in order. '
        + 'Permission callbacks.resend (admin, operator, support). Audited.',
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      response: {
        200: Type.Object({
          id: Type.String(), status: Type.Literal('pending'),
          result: Type.Union([Type.Literal('resent'), Type.Literal('due_now'), Type.Literal('sending')]),
        }, { examples: [{ id: '0f8fad5b-d9cb-469f-a165-70867728950e', status: 'pending', result: 'due_now' }] }),
        ...ErrorResponses,
      },
    },
  }, async (req) => {
    const result = await resendNow(ctx, actorOf(req), req.params.id);
    return { id: req.params.id, status: 'pending' as const, result };
  });

  app.post<{ Body: BulkBody }>('/callbacks/resend', {
    onRequest: requirePermission('callbacks.resend'),
    schema: {
      ...TAG,
      summary: 'Send several callbacks now: the ids given, or every callback a filter matches',
      description: `Either \`ids\` (up to ${MAX_BULK_RESEND}, e.g. the rows ticked in the console) or \`filter\` (the filters of GET /admin/v1/callbacks; `
        + `the newest ${MAX_BULK_RESEND} it matches, \`more: true\` when it matched more). Each callback as POST /admin/v1/callbacks/{id}/resend does it `
        + '(resent, due_now or sending), audited one by one; ids that do not exist are listed in not_found. Permission callbacks.resend.',
      body: BulkBody,
      response: {
        200: Type.Object({
          resent: Type.Array(Type.String()), due_now: Type.Array(Type.String()), sending: Type.Array(Type.String()), not_found: Type.Array(Type.String()),
          more: Type.Boolean({ description: 'The filter matched more callbacks than one call sends' }),
        }, { examples: [{ resent: ['0f8fad5b-d9cb-469f-a165-70867728950e'], due_now: [], sending: [], not_found: [], more: false }] }),
        ...ErrorResponses,
      },
    },
  }, async (req) => {
    const b = req.body;
    if ((b.ids === undefined) === (b.filter === undefined)) throw GatewayError.field('ids', 'Give either ids or filter, not both.');
    const r = await resendMany(ctx, actorOf(req), b.ids
      ? { ids: b.ids }
      : { filter: callbackFilter(b.filter!, ctx.clock.now()) });
    return { resent: r.resent, due_now: r.dueNow, sending: r.sending, not_found: r.notFound, more: r.more };
  });

  app.post<{ Params: { id: string } }>('/merchants/:id/callbacks/test', {
    onRequest: requirePermission('callbacks.resend'),
    schema: {
      ...TAG,
      summary: 'Send a test callback to the merchant\'s notification URL',
      description: 'A callback with `type=test` and `status=success` (no payment), sent through the outbox as any callback: signed with the merchant\'s '
        + 'webhook secret (webhook-signature), retried, and listed in GET /admin/v1/callbacks with its attempts. Answers its id at once; read its state there. '
        + 'A merchant without a notification URL answers 400. Permission callbacks.resend. Audited (callback.test).',
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      response: { 200: Type.Object({ id: Type.String({ description: 'The test callback\'s id' }), merchant_id: Type.String() }, { examples: [{ id: '0f8fad5b-d9cb-469f-a165-70867728950e', merchant_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7' }] }), ...ErrorResponses },
    },
  }, async (req) => ({ id: await sendTestCallback(ctx, actorOf(req), req.params.id), merchant_id: req.params.id }));

  app.get<{ Querystring: { limit?: string } }>('/callback-urls/blocked', {
    onRequest: requirePermission('callbacks.read'),
    schema: {
      ...TAG,
      summary: 'Callback URLs blocked now (five timeouts within five minutes block a URL for fifteen), the block ending last first',
      description: `Each with when its block ends, the timeouts that caused it, and the callbacks waiting for it. Up to ${MAX_BLOCKED_LISTED}. Permission callbacks.read.`,
      querystring: Type.Object({ limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: pageSizeText(MAX_BLOCKED_LISTED, MAX_BLOCKED_LISTED) })) }, { additionalProperties: false }),
      response: { 200: BlockedList, ...ErrorResponses },
    },
  }, async (req) => {
    const list = await blockedUrls(ctx, pageSize(req.query.limit, MAX_BLOCKED_LISTED));
    return {
      urls: list.map((b) => ({
        url: b.url, blocked_until: b.blockedUntil.toISOString(), timeouts: b.timeouts.map((t) => t.toISOString()),
        waiting_callbacks: b.waiting, merchant_ids: b.merchantIds,
      })),
    };
  });

  app.post<{ Body: UnblockBody }>('/callback-urls/unblock', {
    onRequest: requirePermission('callbacks.unblock'),
    schema: {
      ...TAG,
      summary: 'Unblock a callback URL blocked after five timeouts',
      description: 'Lifts the block and clears the timeout count; callbacks waiting for the block to end become due at once. '
        + '`unblocked: false` when the URL had neither. Permission callbacks.unblock (admin, operator). Audited (callback_url.unblock).',
      body: UnblockBody,
      response: { 200: Type.Object({ url: Type.String(), unblocked: Type.Boolean() }), ...ErrorResponses },
    },
  }, async (req) => {
    const unblocked = await unblockCallbackUrl(ctx, actorOf(req), req.body.url);
    return { url: req.body.url, unblocked };
  });
}
