/**
 * The rate limits on the wire: routes of LIMITED_ROUTES count every request; failed authentications are
 * counted per client IP and per (IP, merchant key), and a client over the limit gets 429 (D3 body, Retry-After)
 * on every authenticated channel until the window ends. Per merchant key they only slow the failures down past
 * a much higher count (domain/rate-limits.ts AUTH_FAILURES says why).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../services/rate-limiter.ts';
import { AUTH_FAILURES, LIMITED_ROUTES, NEVER_BLOCKED_ROUTES, bucketName } from '../domain/rate-limits.ts';

function merchantKeyOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const key = b.merchant_key ?? b.client_key;
  return typeof key === 'string' && key !== '' ? key : undefined;
}

/** The buckets a failed authentication counts in: those that block (IP; IP and key) and the key's own. */
function authBuckets(req: FastifyRequest): { blocking: string[]; key?: string } {
  const key = merchantKeyOf(req.body);
  const ip = bucketName('authFailures', 'ip', req.ip);
  if (!key) return { blocking: [ip] };
  return { blocking: [ip, bucketName('authFailures', 'ip-key', `${req.ip} ${key}`)], key: bucketName('keyFailures', 'merchant', key) };
}

export function installRateLimits(app: FastifyInstance, limiter: RateLimiter | undefined): void {
  if (!limiter?.enabled) return;
  const exempt = (req: FastifyRequest) => NEVER_BLOCKED_ROUTES.has(req.routeOptions.url ?? '');
  app.addHook('onRequest', async (req) => {
    if (exempt(req)) return;
    limiter.throwIfBlocked([bucketName('authFailures', 'ip', req.ip)]);
    const rules = LIMITED_ROUTES[`${req.method} ${req.routeOptions.url ?? ''}`];
    for (const rule of rules ?? []) {
      const subject = rule.by === 'ip' ? req.ip : String((req.params as Record<string, unknown> | undefined)?.id ?? '');
      await limiter.consume(rule.limit, rule.by, subject);
    }
  });
  // After the body is parsed: this IP, over its failure limit for this merchant key, is refused before anything else runs.
  app.addHook('preHandler', async (req) => {
    if (!exempt(req)) limiter.throwIfBlocked(authBuckets(req).blocking);
  });
  app.addHook('onSend', async (req, _reply, payload) => {
    if (req.answeredError && AUTH_FAILURES.has(req.answeredError)) {
      const buckets = authBuckets(req);
      await limiter.recordFailures('authFailures', buckets.blocking);
      if (buckets.key) await limiter.recordAndSlowDown(buckets.key, limiter.keyFailureThreshold);
    }
    return payload;
  });
}
