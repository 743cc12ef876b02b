/**
 * The rate limits on the wire: routes of LIMITED_ROUTES count every request; failed authentications are
 * counted per client IP and merchant key, and a client over the limit gets 429 (D3 body, Retry-After) on every
 * authenticated channel until the window ends.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../services/rate-limiter.ts';
import { AUTH_FAILURES, LIMITED_ROUTES, bucketName } from '../domain/rate-limits.ts';

function merchantKeyOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const key = b.merchant_key ?? b.client_key;
  return typeof key === 'string' && key !== '' ? key : undefined;
}

function authBuckets(req: FastifyRequest): string[] {
  const key = merchantKeyOf(req.body);
  return [bucketName('authFailures', 'ip', req.ip), ...(key ? [bucketName('authFailures', 'merchant', key)] : [])];
}

export function installRateLimits(app: FastifyInstance, limiter: RateLimiter | undefined): void {
  if (!limiter?.enabled) return;
  app.addHook('onRequest', async (req) => {
    limiter.throwIfBlocked([bucketName('authFailures', 'ip', req.ip)]);
    const rules = LIMITED_ROUTES[`${req.method} ${req.routeOptions.url ?? ''}`];
    for (const rule of rules ?? []) {
      const subject = rule.by === 'ip' ? req.ip : String((req.params as Record<string, unknown> | undefined)?.id ?? '');
      await limiter.consume(rule.limit, rule.by, subject);
    }
  });
  // After the body is parsed: a merchant key over its failure limit is refused before anything else runs.
  app.addHook('preHandler', async (req) => limiter.throwIfBlocked(authBuckets(req)));
  app.addHook('onSend', async (req, _reply, payload) => {
    if (req.answeredError && AUTH_FAILURES.has(req.answeredError)) await limiter.recordFailures('authFailures', authBuckets(req));
    return payload;
  });
}
