/**
 * Headers every answer carries (issue 12): no MIME sniffing, no referrer, HSTS when the request came over TLS
 * (directly or, behind trustProxy, by X-Forwarded-Proto: an HSTS header over plain HTTP is ignored and would
 * only confuse), and a frame policy. The payer pages and hosted-fields frames set their own CSP with
 * `frame-ancestors *` (merchants embed the Checkout page and the field frames); every other answer (JSON, the
 * API docs) may not be framed.
 */
import type { FastifyInstance } from 'fastify';

const HSTS = 'max-age=31536000; includeSubDomains';
/** For answers that are data, not documents: nothing may load from them, nobody may frame them. */
const DATA_CSP = "default-src 'none'; frame-ancestors 'none'";

export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    if (!reply.hasHeader('referrer-policy')) reply.header('referrer-policy', 'no-referrer');
    if (req.protocol === 'https') reply.header('strict-transport-security', HSTS);
    if (!reply.hasHeader('content-security-policy')) {
      reply.header('x-frame-options', 'DENY');
      const type = String(reply.getHeader('content-type') ?? '');
      if (type.startsWith('application/json')) reply.header('content-security-policy', DATA_CSP);
    }
    return payload;
  });
}
