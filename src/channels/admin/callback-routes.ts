/**
 * The operator's side of callbacks (decisions D7): the event log of every callback with its delivery
 * attempts, resending one now (a failed or delivered one again, a retrying one at once), and unblocking a URL
 * blocked after five timeouts. Authenticated with an operator's Bearer token; answers in D3 bodies.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { listCallbacks, type CallbackWithAttempts } from '../../services/queries/callbacks.ts';
import { blockedUrls, unblockCallbackUrl, MAX_BLOCKED_LISTED } from '../../services/admin/callback-urls.ts';
import { resendNow } from '../../services/admin/callback-resend.ts';
import { ADMIN_TAG as TAG, actorOf, requirePermission } from './operator-auth.ts';
import { ErrorResponses } from './errors.ts';

const ListQuery = Type.Object({
  merchant_id: Type.Optional(Type.String({ maxLength: 64 })),
  payment_id: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], { errorMessage: 'The value you selected is not a valid choice.' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
});
type ListQuery = Static<typeof ListQuery>;

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
  attempts: Type.Integer(),
  next_attempt_at: Type.String(),
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

export function presentCallback(c: CallbackWithAttempts): Static<typeof CallbackView> {
  return {
    id: c.id,
    merchant_id: c.merchantId,
    payment_id: c.paymentId,
    url: c.url,
    protocol: c.protocol,
    status: c.status,
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

export function registerAdminCallbackRoutes(app: FastifyInstance, ctx: ServiceContext): void {

  app.get<{ Querystring: ListQuery }>('/callbacks', { onRequest: requirePermission('callbacks.read'), schema: { ...TAG, summary: 'Callback event log with delivery attempts, newest first', querystring: ListQuery, response: { 200: Type.Object({ callbacks: Type.Array(CallbackView) }), ...ErrorResponses } } }, async (req) => {
    const q = req.query;
    const list = await listCallbacks(ctx.db, { merchantId: q.merchant_id, paymentId: q.payment_id, status: q.status, limit: q.limit ? Number(q.limit) : undefined });
    return { callbacks: list.map(presentCallback) };
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

  app.get<{ Querystring: { limit?: string } }>('/callback-urls/blocked', {
    onRequest: requirePermission('callbacks.read'),
    schema: {
      ...TAG,
      summary: 'Callback URLs blocked now (five timeouts within five minutes block a URL for fifteen), the block ending last first',
      description: `Each with when its block ends, the timeouts that caused it, and the callbacks waiting for it. Up to ${MAX_BLOCKED_LISTED}. Permission callbacks.read.`,
      querystring: Type.Object({ limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: `1 to ${MAX_BLOCKED_LISTED} (default ${MAX_BLOCKED_LISTED})` })) }, { additionalProperties: false }),
      response: { 200: BlockedList, ...ErrorResponses },
    },
  }, async (req) => {
    const list = await blockedUrls(ctx, req.query.limit ? Number(req.query.limit) : undefined);
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
