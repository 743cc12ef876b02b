/**
 * Headers every answer carries (issue 12), the router's own answers included (issue 25, item 19): no MIME
 * sniffing, no referrer, HSTS when the request came over TLS (directly or, from a TRUST_PROXY proxy, by
 * X-Forwarded-Proto: an HSTS header over plain HTTP is ignored and would only confuse; in production always,
 * its BASE_URL being https: issue 25, item 11), and a frame policy. The payer pages and hosted-fields frames set their own CSP with
 * `frame-ancestors *` (merchants embed the Checkout page and the field frames); every other answer (JSON, the
 * API docs) may not be framed.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The client reached the gateway over TLS: in production always (BASE_URL is https, whatever a proxy says
     * or omits), otherwise by the connection or a trusted proxy's X-Forwarded-Proto. Secure cookies and HSTS follow it.
     */
    readonly overTls: boolean;
  }
}

const HSTS = 'max-age=31536000; includeSubDomains';
/** For answers that are data, not documents: nothing may load from them, nobody may frame them. */
const DATA_CSP = "default-src 'none'; frame-ancestors 'none'";

/** Sets the headers on one answer (the onSend hook's work; the router's own answers call it themselves). */
export function applySecurityHeaders(req: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-content-type-options', 'nosniff');
  if (!reply.hasHeader('referrer-policy')) reply.header('referrer-policy', 'no-referrer');
  if (req.overTls) reply.header('strict-transport-security', HSTS);
  if (!reply.hasHeader('content-security-policy')) {
    reply.header('x-frame-options', 'DENY');
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('application/json')) reply.header('content-security-policy', DATA_CSP);
  }
}

export function installSecurityHeaders(app: FastifyInstance, opts: { production?: boolean } = {}): void {
  const production = opts.production === true;
  app.decorateRequest('overTls', {
    getter(this: FastifyRequest) {
      return production || this.protocol === 'https';
    },
  });
  app.addHook('onSend', async (req, reply, payload) => {
    applySecurityHeaders(req, reply);
    return payload;
  });
}
