/**
 * `Idempotency-Key` on every merchant POST, as Stripe does: the same key with the same body replays the
 * stored answer; the same key with another body is refused; a request still running under the key answers
 * 409. Keys are scoped to the merchant (on the admin API, to the operator) and kept at least 24 hours.
 * Requests without the header pay nothing.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../services/context.ts';
import { GatewayError } from '../domain/errors.ts';
import { sendError } from './error-handler.ts';

const HEADER = 'idempotency-key';
const KEEP_MS = 48 * 3600_000;

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: { merchantId: string; key: string };
  }
}

function merchantKeyOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const key = b.merchant_key ?? b.client_key;
  return typeof key === 'string' ? key : undefined;
}

/**
 * Whose keys a request's key is among: the merchant's, or on the admin API (whose guard ran in onRequest) the
 * operator's own, so that a double click of an operator's refund replays the first answer.
 */
async function scopeOf(ctx: ServiceContext, req: FastifyRequest): Promise<string | undefined> {
  if (req.operator) return `operator:${req.operator.userId}`;
  return (await ctx.merchants.byMerchantKey(merchantKeyOf(req.body) ?? ''))?.merchant.id;
}

const fingerprint = (req: FastifyRequest) => createHash('sha256').update(`${req.method} ${req.url}\n${JSON.stringify(req.body ?? null)}`).digest('hex');

export function installIdempotency(app: FastifyInstance, ctx: ServiceContext): void {
  app.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    const header = req.headers[HEADER];
    if (req.method !== 'POST' || typeof header !== 'string' || header === '') return;
    if (header.length > 255) return sendError(req, reply, GatewayError.field('Idempotency-Key', 'This value is too long. It should have 255 characters or less.'));
    const merchantId = await scopeOf(ctx, req);
    if (!merchantId) return; // the route answers the unknown merchant itself
    const now = ctx.clock.now();
    const hash = fingerprint(req);
    const inserted = await ctx.db.query(
      `INSERT INTO idempotency_keys (merchant_id, key, request_hash, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (merchant_id, key) DO NOTHING RETURNING key`,
      [merchantId, header, hash, now],
    );
    if (inserted.length === 1) {
      req.idempotency = { merchantId, key: header };
      if (Math.random() < 0.01) await ctx.db.query('DELETE FROM idempotency_keys WHERE created_at < $1', [new Date(now.getTime() - KEEP_MS)]);
      return;
    }
    const [stored] = await ctx.db.query<{ request_hash: string; status_code: number | null; response_body: string | null }>(
      'SELECT request_hash, status_code, response_body FROM idempotency_keys WHERE merchant_id = $1 AND key = $2',
      [merchantId, header],
    );
    if (!stored || stored.request_hash !== hash) return sendError(req, reply, new GatewayError('idempotencyKeyReused'));
    if (stored.status_code === null) return sendError(req, reply, new GatewayError('operationInProgress'));
    return reply.code(stored.status_code).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(stored.response_body);
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const idem = req.idempotency;
    if (!idem) return payload;
    if (reply.statusCode >= 500) {
      // A failure of ours is not an answer to keep: the merchant may retry with the same key.
      await ctx.db.query('DELETE FROM idempotency_keys WHERE merchant_id = $1 AND key = $2', [idem.merchantId, idem.key]);
    } else {
      await ctx.db.query('UPDATE idempotency_keys SET status_code = $3, response_body = $4 WHERE merchant_id = $1 AND key = $2', [idem.merchantId, idem.key, reply.statusCode, typeof payload === 'string' ? payload : String(payload)]);
    }
    return payload;
  });
}
