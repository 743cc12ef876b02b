/**
 * The operator's side of callbacks (decisions D7): the event log of every callback with its delivery
 * attempts, resending a failed (or delivered) one, and unblocking a URL blocked after five timeouts.
 * Authenticated with the operator token (`ADMIN_TOKEN`) as a Bearer header; answers in D3 bodies.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { GatewayError } from '../../domain/errors.ts';
import { getCallback, listCallbacks, resendCallback, unblockUrl, type CallbackWithAttempts } from '../../store/callbacks-repo.ts';
import { isUuid } from '../../store/payments-repo.ts';
import { ADMIN_TAG as TAG, requirePermission } from './operator-auth.ts';

const ListQuery = Type.Object({
  merchant_id: Type.Optional(Type.String({ maxLength: 64 })),
  payment_id: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], { errorMessage: 'The value you selected is not a valid choice.' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
});
type ListQuery = Static<typeof ListQuery>;

const UnblockBody = Type.Object({ url: Type.String({ minLength: 1, maxLength: 1024 }) });
type UnblockBody = Static<typeof UnblockBody>;

function present(c: CallbackWithAttempts) {
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

  app.get<{ Querystring: ListQuery }>('/admin/v1/callbacks', { onRequest: requirePermission(ctx, 'callbacks.read'), schema: { ...TAG, summary: 'Callback event log with delivery attempts, newest first', querystring: ListQuery } }, async (req) => {
    const q = req.query;
    const list = await listCallbacks(ctx.db, { merchantId: q.merchant_id, paymentId: q.payment_id, status: q.status, limit: q.limit ? Number(q.limit) : undefined });
    return { callbacks: list.map(present) };
  });

  app.post<{ Params: { id: string } }>('/admin/v1/callbacks/:id/resend', { onRequest: requirePermission(ctx, 'callbacks.resend'), schema: { ...TAG, summary: 'Send a failed or delivered callback again' } }, async (req) => {
    const id = req.params.id;
    if (!isUuid(id) || !(await getCallback(ctx.db, id))) throw new GatewayError('notFound');
    if (!(await resendCallback(ctx.db, id, ctx.clock.now()))) throw GatewayError.field('id', 'Only a failed or delivered callback can be resent.');
    return { id, status: 'pending' };
  });

  app.post<{ Body: UnblockBody }>('/admin/v1/callback-urls/unblock', { onRequest: requirePermission(ctx, 'callbacks.unblock'), schema: { ...TAG, summary: 'Unblock a callback URL blocked after five timeouts', body: UnblockBody } }, async (req) => {
    const unblocked = await unblockUrl(ctx.db, req.body.url, ctx.clock.now());
    return { url: req.body.url, unblocked };
  });
}
