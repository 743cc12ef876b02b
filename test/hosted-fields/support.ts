/**
 * What a merchant's backend and the gateway's field frame send in the hosted-fields flow, written from the
 * docs (wire-reference 2.1 and 7.4), with the real hash formulas of test/support/merchant.ts.
 */
import type { TestGateway, TestMerchant } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import type { CardConnector } from '../../src/connectors/types.ts';
import { readAnswer } from '../support/answer.ts';

export interface Order {
  number: string;
  amount: string;
  currency: string;
  description: string;
}

export const newOrder = (prefix = 'hpf', patch: Partial<Order> = {}): Order => ({
  number: `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
  amount: '10.00',
  currency: 'USD',
  description: 'Hosted fields order',
  ...patch,
});

/** The session/token body a merchant backend sends (as the mobibox-pay client does), signed with the session formula. */
export function tokenBody(m: TestMerchant, order: Order, extra: Record<string, unknown> = {}) {
  return {
    operation: 'purchase',
    merchant_key: m.key,
    order,
    hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
    return_url: 'https://shop.example/return',
    ...extra,
  };
}

export async function openToken(t: TestGateway, order: Order, extra: Record<string, unknown> = {}, m: TestMerchant = t.merchant): Promise<string> {
  const res = await t.postJson('/api/v1/session/token', tokenBody(m, order, extra));
  if (res.status !== 200 || typeof res.body?.token !== 'string') throw new Error(`session/token: ${res.status} ${res.text}`);
  return res.body.token as string;
}

/** What the card field frame posts: same origin as the gateway, header Token. */
export function collect(t: TestGateway, token: string | undefined, card: { number?: string; expiry?: string; cvv?: string } = {}, headers: Record<string, string> = {}) {
  return t.postJson('/hosted-fields/collect', {
    card_number: card.number ?? '4111111111111111',
    card_expiry: card.expiry ?? '01/38',
    card_cvv: card.cvv ?? '123',
    browser: { language: 'en-GB', color_depth: 24, screen_height: 1080, screen_width: 1920, timezone_offset: -60, java_enabled: false, javascript_enabled: true },
  }, { origin: t.baseUrl, ...(token === undefined ? {} : { token }), ...headers });
}

export const processingBody = (extra: Record<string, unknown> = {}) => ({
  name: 'Jane Roe',
  with_hosted_fields: true,
  email: 'success@gmail.com',
  billing_address: { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567' },
  browser_info: { accept_headers: 'text/html,application/xhtml+xml', user_agent: 'Mozilla/5.0 (test)', language: 'en-GB', color_depth: 24, screen_height: 1080, screen_width: 1920, timezone_offset: -60, java_enabled: false, javascript_enabled: true },
  ...extra,
});

export function processing(t: TestGateway, token: string | undefined, operation: 'purchase' | 'debit' = 'purchase', body: unknown = processingBody()) {
  return t.postJson(`/api/v1/processing/${operation}/card`, body, token === undefined ? {} : { token });
}

export async function update(t: TestGateway, token: string | undefined, body: unknown) {
  const res = await fetch(`${t.baseUrl}/api/v1/session/update`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { token }) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return readAnswer(res);
}

/** A change of amount or currency as the merchant's backend signs it: the session formula over the new order. */
export function signedChange(m: TestMerchant, order: Order, change: Record<string, unknown>): Record<string, unknown> {
  const amount = String(change.order_amount ?? order.amount);
  const currency = String(change.order_currency ?? order.currency);
  const description = String(change.order_description ?? order.description);
  return { ...change, merchant_key: m.key, hash: checkoutHash(m.password, order.number, amount, currency, description) };
}

export function status(t: TestGateway, lookup: { payment_id?: string; order_id?: string; size?: number }, m: TestMerchant = t.merchant) {
  return t.postJson('/api/v1/payment/status', { merchant_key: m.key, ...lookup, hash: checkoutHash(m.password, lookup.payment_id ?? lookup.order_id ?? '') });
}

/** The callback hash as a merchant re-computes it from the callback's own fields. */
export const callbackHashOk = (m: TestMerchant, f: Record<string, string>) =>
  f.hash === checkoutHash(m.password, f.id ?? '', f.order_number ?? '', f.order_amount ?? '', f.order_currency ?? '', f.order_description ?? '');

/** Wraps the gateway's sandbox card connector to record what it was asked (card data included: test only). */
export function spyOnConnector(t: TestGateway): Parameters<CardConnector['authorize']>[0][] {
  const connectors = t.gateway.ctx.connectors as Map<string, CardConnector>;
  const real = connectors.get('sandbox-card');
  if (!real) throw new Error('no sandbox connector');
  const calls: Parameters<CardConnector['authorize']>[0][] = [];
  const spy: CardConnector = Object.create(real) as CardConnector;
  Object.defineProperty(spy, 'authorize', { value: (req: Parameters<CardConnector['authorize']>[0]) => {
    calls.push(structuredClone(req));
    return real.authorize(req);
  } });
  connectors.set('sandbox-card', spy);
  return calls;
}
