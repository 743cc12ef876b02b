/**
 * The sandbox merchant inbox's routes (development only; a production server never registers them):
 * `POST /sandbox/inbox` receives a callback as a merchant's server does (the raw body kept: webhook-signature
 * covers it byte for byte) and answers `OK`; `GET /sandbox/inbox` is its page (also the demo session's success and
 * cancel URL, `?result=`), `GET /sandbox/inbox/callbacks` the same as JSON.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { PAGE_HEADERS } from '../../web/pages.ts';
import { SANDBOX_INBOX_PATH } from '../../config.ts';
import { MerchantInbox } from './inbox.ts';
import { renderInboxPage } from './page.ts';

const PAGE = { schema: { hide: true }, config: { dialect: 'html' as const } };
const JSON_ROUTE = { schema: { hide: true }, config: { dialect: 'json' as const } };

/** The inbox's path: the demo merchant's notification URL is BASE_URL + this. */
const INBOX_PATH = SANDBOX_INBOX_PATH;

const first = (query: unknown, name: string): string | undefined => {
  const v = typeof query === 'object' && query !== null ? (query as Record<string, unknown>)[name] : undefined;
  return typeof v === 'string' && v !== '' ? v.slice(0, 100) : undefined;
};

export async function registerInboxRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  const inbox = new MerchantInbox(ctx);
  // Its own scope: the callback's body is read as it came, whatever its type.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.post(INBOX_PATH, { schema: { hide: true }, config: { dialect: 'json' as const } }, async (req, reply) => {
      const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-callback-id'].map((h) => [h, req.headers[h] as string | undefined]));
      await inbox.receive(typeof req.body === 'string' ? req.body : '', String(req.headers['content-type'] ?? ''), headers);
      return reply.type('text/plain; charset=utf-8').send('OK');
    });
  });

  app.get(INBOX_PATH, PAGE, async (req, reply) => {
    const result = first(req.query, 'result');
    const orderId = first(req.query, 'order_id');
    const paymentId = first(req.query, 'payment_id');
    const returned = result ? { result, ...(orderId ? { orderId } : {}), ...(paymentId ? { paymentId } : {}) } : undefined;
    return reply.headers(PAGE_HEADERS).send(renderInboxPage({ entries: inbox.list(), ...(returned ? { returned } : {}) }));
  });

  app.get(`${INBOX_PATH}/callbacks`, JSON_ROUTE, async (_req, reply) =>
    reply.header('cache-control', 'no-store').send({ callbacks: inbox.list() }));
}
