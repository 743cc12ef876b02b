/**
 * What a merchant's recurring and schedule integration does, from the platform's docs: Formula 3 and 4, the
 * Checkout recurring hash, the test clock hash, and the requests themselves. Independent of the gateway's code.
 */
import { createHash } from 'node:crypto';
import type { TestGateway, TestMerchant } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { CARD, EMAIL, f1, orderId, saleFields } from '../s2s-card/support.ts';
import { SandboxCardConnector } from '../../src/sandbox/acquirer/card.ts';
import type { CardConnector, ConnectorOutcome } from '../../src/connectors/types.ts';

const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');
const upper = (s: string) => s.replace(/[a-z]/g, (c) => c.toUpperCase());
const strrev = (s: string) => [...s].reverse().join('');

/** Formula 3 (CREATE_SCHEDULE): md5(strtoupper(strrev(PASSWORD))). */
export const f3 = (password: string) => md5(upper(strrev(password)));
/** Formula 4 (schedule actions by id): md5(strtoupper(strrev(schedule_id . PASSWORD))). */
export const f4 = (scheduleId: string, password: string) => md5(upper(strrev(scheduleId + password)));

export const BILLING = { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567' };
export const PAGE_EMAIL = 'success@gmail.com';

/** CREATE_SCHEDULE with the given parameters; answers the HTTP result. */
export function createSchedule(gw: TestGateway, params: Record<string, unknown>, m: TestMerchant = gw.merchant) {
  return gw.postForm('/post', { action: 'CREATE_SCHEDULE', client_key: m.key, ...params, hash: f3(m.password) });
}

/** A schedule created for the test; its id. */
export async function newSchedule(gw: TestGateway, params: Record<string, unknown>, m: TestMerchant = gw.merchant): Promise<string> {
  const res = await createSchedule(gw, { name: 'Plan', ...params }, m);
  if (res.body?.result !== 'SUCCESS') throw new Error(`CREATE_SCHEDULE failed: ${res.text}`);
  return res.body.schedule_id as string;
}

/** A schedule action by id (F4). */
export function scheduleAction(gw: TestGateway, action: string, scheduleId: string, extra: Record<string, unknown> = {}, m: TestMerchant = gw.merchant) {
  return gw.postForm('/post', { action, client_key: m.key, schedule_id: scheduleId, ...extra, hash: f4(scheduleId, m.password) });
}

/** A Checkout session request, signed. */
export function sessionBody(m: TestMerchant, extra: Record<string, unknown> = {}, order: { number?: string; amount?: string; currency?: string; description?: string } = {}) {
  const o = { number: order.number ?? orderId('CO'), amount: order.amount ?? '10.00', currency: order.currency ?? 'USD', description: order.description ?? 'Subscription' };
  return {
    merchant_key: m.key,
    operation: 'purchase',
    methods: ['card'],
    order: o,
    success_url: 'https://shop.example/success',
    cancel_url: 'https://shop.example/cancel',
    customer: { name: 'John Doe', email: PAGE_EMAIL },
    billing_address: BILLING,
    hash: checkoutHash(m.password, o.number, o.amount, o.currency, o.description),
    ...extra,
  };
}

/** Opens a session and pays it on the hosted page with the sandbox card (expiry MM/YY chooses the outcome). */
export async function payCheckout(gw: TestGateway, body: ReturnType<typeof sessionBody>, expiry = '01/38'): Promise<{ paymentId: string; orderNumber: string }> {
  const opened = await gw.postJson('/api/v1/session', body);
  if (opened.status !== 200) throw new Error(`session: ${opened.text}`);
  const path = new URL(opened.body.redirect_url).pathname;
  await fetch(`${gw.baseUrl}${path}/pay`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ method: 'card', card_number: '4111 1111 1111 1111', card_expiry: expiry, card_cvv: '123', card_holder: 'John Doe' }).toString(),
  });
  const status = await gw.postJson('/api/v1/payment/status', { merchant_key: gw.merchant.key, order_id: body.order.number, hash: checkoutHash(gw.merchant.password, body.order.number) });
  return { paymentId: status.body.payment_id, orderNumber: body.order.number };
}

/** Checkout payment/recurring: hash over init id, token, number, amount, description (no currency). */
export function checkoutRecurring(gw: TestGateway, chain: { initId: string; token: string }, order: { number?: string; amount: string; description?: string }, extra: Record<string, unknown> = {}, m: TestMerchant = gw.merchant) {
  const number = order.number ?? orderId('REC');
  const description = order.description ?? 'Monthly fee';
  return gw.postJson('/api/v1/payment/recurring', {
    merchant_key: m.key,
    recurring_init_trans_id: chain.initId,
    recurring_token: chain.token,
    order: { number, amount: order.amount, description },
    ...extra,
    hash: checkoutHash(m.password, chain.initId, chain.token, number, order.amount, description),
  });
}

/** RECURRING_SALE (or RECURRING_DEBIT), F1 over the first payment's e-mail and card. */
export function recurringSale(gw: TestGateway, chain: { initId: string; token: string }, extra: Record<string, unknown> = {}, opts: { action?: string; email?: string; m?: TestMerchant } = {}) {
  const m = opts.m ?? gw.merchant;
  return gw.postForm('/post', {
    action: opts.action ?? 'RECURRING_SALE',
    client_key: m.key,
    order_id: orderId('RS'),
    order_amount: '5.00',
    order_description: 'Recurring',
    recurring_first_trans_id: chain.initId,
    recurring_token: chain.token,
    ...extra,
    hash: f1(opts.email ?? EMAIL, m.password, CARD),
  });
}

/** An S2S SALE that starts a chain (recurring_init=Y), signed with F1. */
export function initSale(gw: TestGateway, overrides: Record<string, unknown> = {}, m: TestMerchant = gw.merchant) {
  const fields = saleFields({ recurring_init: 'Y', ...overrides });
  return gw.postForm('/post', { client_key: m.key, ...fields, hash: f1((fields.payer_email as string | undefined) ?? '', m.password, CARD) });
}

/** Moves the merchant's test clock: sha1(md5(UPPER(merchant_key . days . seconds . PASSWORD))). */
export function advanceClock(gw: TestGateway, days: number, m: TestMerchant = gw.merchant) {
  return gw.postJson('/sandbox/test-clock/advance', { merchant_key: m.key, days, hash: checkoutHash(m.password, m.key, String(days), '') });
}

/** The sandbox connector, with answers a test can script: the next charges decline, or the connector is counted. */
export class ScriptedConnector extends SandboxCardConnector implements CardConnector {
  declineNext = 0;
  readonly calls: string[] = [];
  override async authorize(req: Parameters<CardConnector['authorize']>[0]): Promise<ConnectorOutcome> {
    this.calls.push(req.paymentId);
    if (this.declineNext > 0) {
      this.declineNext -= 1;
      return { kind: 'declined', reason: 'Insufficient funds' };
    }
    return super.authorize(req);
  }

  /** The truth, as a real acquirer would tell it: approved if it was ever asked to charge, else never charged. */
  override async inquire(p?: { paymentId: string }): Promise<ConnectorOutcome | undefined> {
    return p && this.calls.includes(p.paymentId) ? { kind: 'approved', reference: `inquired-${p.paymentId}` } : { kind: 'declined', reason: 'Processing interrupted' };
  }
}

/** Replaces the gateway's sandbox connector with a scripted one. */
export function scriptConnector(gw: TestGateway): ScriptedConnector {
  const connector = new ScriptedConnector();
  (gw.gateway.ctx.connectors as Map<string, CardConnector>).set(connector.name, connector);
  return connector;
}
