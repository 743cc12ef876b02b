/**
 * `Idempotency-Key` on every merchant POST, as Stripe does: the same key with the same body replays the
 * stored answer; the same key with another body is refused; a request still running under the key answers
 * 409. Keys are scoped to the merchant (on the admin API, to the operator) and kept at least 24 hours.
 * Requests without the header pay nothing.
 *
 * A key is reserved only once the request is authenticated (`reserveIdempotencyKey`, called by the routes
 * right after the hash check): a stranger who knows a merchant's key and guesses an idempotency key must not
 * take it from the merchant. An answer refusing the request before it ran (bad input, bad hash, a limit) is not
 * kept: the merchant may send the corrected request under the same key. A failure of ours (5xx) after the key
 * was reserved is neither replayed nor run again: the request may have charged before it failed (the acquirer
 * answered, then the store went away), and only the re-check settles that payment. The key stays taken with
 * the failure recorded, and a retry under it is told to look the payment up first (`idempotencyOutcomeUnknown`).
 * If even that record cannot be written, the key stays "in progress": a retry is refused either way, never run.
 * On the admin API the operator's token was checked before this hook runs, so the key is reserved here.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../services/context.ts';
import { ERRORS, GatewayError, type ErrorSpec } from '../domain/errors.ts';
import { sendError } from './error-handler.ts';

const HEADER = 'idempotency-key';
const KEEP_MS = 48 * 3600_000;

/** Refusals that mean the request never ran: the key stays free. */
const NOT_KEPT: ReadonlySet<ErrorSpec> = new Set<ErrorSpec>([
  ERRORS.invalidRequest, ERRORS.hashInvalid, ERRORS.merchantNotFound, ERRORS.payloadTooLarge,
  ERRORS.unsupportedMediaType, ERRORS.tooManyRequests, ERRORS.idempotencyKeyReused, ERRORS.operationInProgress,
  ERRORS.sourceAddressRefused, ERRORS.requestSignatureRequired, ERRORS.requestSignatureInvalid, ERRORS.requestSignatureExpired,
  ERRORS.requestSignatureReplayed,
]);

declare module 'fastify' {
  interface FastifyRequest {
    /** The key and fingerprint of a request not yet authenticated. */
    idempotencyPending?: { merchantId: string; key: string; hash: string };
    /** The key reserved for this (authenticated) request; its answer is stored on send. */
    idempotency?: { merchantId: string; key: string };
    /** The D3 error this request was answered with, if any. */
    answeredError?: ErrorSpec;
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

// The body passed the JSON parser's depth and key limits (json-body.ts), so stringify cannot overflow.
const fingerprint = (req: FastifyRequest) => createHash('sha256').update(`${req.method} ${req.url}\n${JSON.stringify(req.body ?? null)}`).digest('hex');

interface StoredKey {
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
}

async function storedKey(ctx: ServiceContext, merchantId: string, key: string): Promise<StoredKey | undefined> {
  const [stored] = await ctx.db.query<StoredKey>(
    'SELECT request_hash, status_code, response_body FROM idempotency_keys WHERE merchant_id = $1 AND key = $2',
    [merchantId, key],
  );
  return stored;
}

/** The error for a key already taken by another request, or undefined when the stored answer replays. */
function conflictOf(stored: StoredKey, hash: string): GatewayError | undefined {
  if (stored.request_hash !== hash) return new GatewayError('idempotencyKeyReused');
  if (stored.status_code === null) return new GatewayError('operationInProgress');
  if (stored.status_code >= 500) return new GatewayError('idempotencyOutcomeUnknown');
  return undefined;
}

/**
 * Takes the pending key for this request, now that it is authenticated as `merchantId`. Throws the D3 error
 * when a concurrent request took the key since the pre-handler looked.
 */
export async function reserveIdempotencyKey(ctx: ServiceContext, req: FastifyRequest, merchantId: string): Promise<void> {
  const pending = req.idempotencyPending;
  if (!pending || pending.merchantId !== merchantId) return;
  req.idempotencyPending = undefined;
  const now = ctx.clock.now();
  const inserted = await ctx.db.query(
    `INSERT INTO idempotency_keys (merchant_id, key, request_hash, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (merchant_id, key) DO NOTHING RETURNING key`,
    [merchantId, pending.key, pending.hash, now],
  );
  if (inserted.length === 1) {
    req.idempotency = { merchantId, key: pending.key };
    if (Math.random() < 0.01) await ctx.db.query('DELETE FROM idempotency_keys WHERE created_at < $1', [new Date(now.getTime() - KEEP_MS)]);
    return;
  }
  const stored = await storedKey(ctx, merchantId, pending.key);
  throw (stored && conflictOf(stored, pending.hash)) ?? new GatewayError('operationInProgress');
}

export function installIdempotency(app: FastifyInstance, ctx: ServiceContext): void {
  app.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    const header = req.headers[HEADER];
    if (req.method !== 'POST' || typeof header !== 'string' || header === '') return;
    if (header.length > 255) return sendError(req, reply, GatewayError.field('Idempotency-Key', 'This value is too long. It should have 255 characters or less.'));
    const merchantId = await scopeOf(ctx, req);
    if (!merchantId) return; // the route answers the unknown merchant itself
    const hash = fingerprint(req);
    const stored = await storedKey(ctx, merchantId, header);
    if (!stored) {
      req.idempotencyPending = { merchantId, key: header, hash };
      // An operator is authenticated already (the admin guard runs on request).
      if (req.operator) await reserveIdempotencyKey(ctx, req, merchantId);
      return;
    }
    // Only the same body (its hash field included, which the first request proved) replays the stored answer.
    const conflict = conflictOf(stored, hash);
    if (conflict) return sendError(req, reply, conflict);
    return reply.code(stored.status_code ?? 200).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(stored.response_body);
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const idem = req.idempotency;
    if (!idem) return payload;
    req.idempotency = undefined;
    if (reply.statusCode < 500 && req.answeredError && NOT_KEPT.has(req.answeredError)) {
      await ctx.db.query('DELETE FROM idempotency_keys WHERE merchant_id = $1 AND key = $2', [idem.merchantId, idem.key]);
    } else {
      // A 5xx is recorded (its body is never replayed: conflictOf refuses it); the store may be the failure, so
      // a failed write leaves the key in progress, which refuses retries too.
      await ctx.db.query('UPDATE idempotency_keys SET status_code = $3, response_body = $4 WHERE merchant_id = $1 AND key = $2', [idem.merchantId, idem.key, reply.statusCode, typeof payload === 'string' ? payload : String(payload)])
        .catch((err: unknown) => { if (reply.statusCode < 500) throw err; req.log.warn({ err: (err as Error).message }, 'idempotency key left in progress after a failure'); });
    }
    return payload;
  });
}
