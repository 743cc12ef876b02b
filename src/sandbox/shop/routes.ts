/**
 * The sandbox demo shop, `GET /sandbox/shop?merchant_key=...&target=_top`: for a sandbox merchant, the gateway
 * plays the merchant's backend (it opens a Checkout session and a hosted-fields session as the merchant would)
 * and serves a shop page showing both integrations working. `GET /sandbox/shop/return` is the shop's return page.
 * Live merchants get nothing here: the page acts for the merchant without its signature.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { openSession, DEFAULT_SESSION_EXPIRY_MINUTES } from '../../services/checkout-sessions.ts';
import { findMerchantByKey, listMids } from '../../services/queries/merchants.ts';
import type { SessionRequest } from '../../services/queries/sessions.ts';
import { parseAmount } from '../../domain/money.ts';
import { PAGE_HEADERS, renderMessagePage } from '../../web/pages.ts';
import { renderShopPage } from './page.ts';
import { pageTranslator } from '../../channels/pages/locale.ts';
import { EN } from '../../web/i18n.ts';

const PAGE = { schema: { hide: true }, config: { dialect: 'html' as const } };
const TARGETS = ['_self', '_parent', '_top', '_blank'];
const DEMO_ORDER = { amount: '19.99', currency: 'EUR', description: 'Demo shop order' };

function first(query: unknown, name: string): string {
  const v = typeof query === 'object' && query !== null ? (query as Record<string, unknown>)[name] : undefined;
  return typeof v === 'string' ? v.slice(0, 255) : '';
}

function request(back: string, o: { target?: string; hostedFields?: boolean }): SessionRequest {
  return {
    methods: ['card'],
    parameters: {},
    successUrl: `${back}?result=success`,
    cancelUrl: `${back}?result=cancel`,
    errorUrl: `${back}?result=error`,
    expiryUrl: `${back}?result=expired`,
    ...(o.target ? { urlTarget: o.target } : {}),
    reqToken: false,
    recurringInit: false,
    auth: false,
    ...(o.hostedFields ? { hostedFields: { returnUrl: back } } : {}),
  };
}

export function registerShopRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const send = (reply: FastifyReply, body: string, status = 200) => reply.code(status).headers(PAGE_HEADERS).send(body);

  app.get('/sandbox/shop', PAGE, async (req, reply) => {
    const t = pageTranslator(req, reply);
    const merchant = await findMerchantByKey(ctx.db, ctx.keyring, first(req.query, 'merchant_key'));
    if (!merchant || !merchant.sandbox || merchant.disabled) {
      return send(reply, renderMessagePage({ title: 'Demo shop', message: 'Open /sandbox/shop?merchant_key=<a sandbox merchant key>: the demo shop pays as that sandbox merchant.', kind: 'info' }, t), 404);
    }
    const mids = await listMids(ctx.db, merchant.id);
    const target = TARGETS.includes(first(req.query, 'target')) ? first(req.query, 'target') : '_top';
    const back = `${ctx.baseUrl}/sandbox/shop/return`;
    const money = parseAmount(DEMO_ORDER.amount, DEMO_ORDER.currency);
    if (!money.ok) throw new Error('demo order amount');
    const order = (kind: string) => ({ number: `shop-${kind}-${Date.now().toString(36)}`, amount: money.money, description: DEMO_ORDER.description });
    const payer = { name: 'Jane Roe', email: 'success@gmail.com', ip: req.ip };
    const hosted = await openSession(ctx, merchant, mids, { operation: 'purchase', order: order('page'), request: request(back, { target }), sessionExpiryMinutes: DEFAULT_SESSION_EXPIRY_MINUTES, payer });
    const fields = await openSession(ctx, merchant, mids, { operation: 'purchase', order: order('fields'), request: request(back, { hostedFields: true }), sessionExpiryMinutes: DEFAULT_SESSION_EXPIRY_MINUTES, payer });
    // The shop is the merchant's page, written in English; the hosted page in its frame speaks the payer's language.
    return send(reply, renderShopPage({
      merchantName: merchant.name, merchantKey: merchant.key, frameUrl: hosted.redirectUrl, target, fieldsToken: fields.sessionId,
      amount: EN.money(money.money.minor, DEMO_ORDER.currency),
    }));
  });

  app.get('/sandbox/shop/return', PAGE, async (req, reply) => {
    const t = pageTranslator(req, reply);
    const result = first(req.query, 'result') || 'returned';
    const order = first(req.query, 'order_id');
    return send(reply, renderMessagePage({
      title: `Demo shop: ${result}`,
      message: `The payer is back in the shop${order ? ` with order ${order}` : ''}. In a real shop this is your success_url, cancel_url or error_url.`,
      kind: result === 'success' ? 'success' : result === 'returned' ? 'info' : 'error',
      link: { href: '/sandbox/shop', label: 'Demo shop' },
    }, t));
  });
}
