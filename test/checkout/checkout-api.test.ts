/**
 * The Checkout JSON API as a merchant uses it: signed requests over HTTP, answers checked field by field,
 * on both stores. Payments are made through the hosted page's form (no browser needed for that here).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener, platformBody } from '../support/merchant.ts';
import { ManualClock } from '../../src/domain/clock.ts';

const BILLING = { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567' };

interface OrderInput {
  number?: string;
  amount?: string;
  currency?: string;
  description?: string;
}

function sessionBody(m: TestMerchant, order: OrderInput = {}, extra: Record<string, unknown> = {}) {
  const o = { number: order.number ?? `order-${Math.random().toString(36).slice(2)}`, amount: order.amount ?? '10.00', currency: order.currency ?? 'USD', description: order.description ?? 'Test order' };
  return {
    merchant_key: m.key,
    operation: 'purchase',
    methods: ['card'],
    order: o,
    success_url: 'https://shop.example/success',
    cancel_url: 'https://shop.example/cancel',
    error_url: 'https://shop.example/error',
    customer: { name: 'John Doe', email: 'success@gmail.com' },
    billing_address: BILLING,
    hash: checkoutHash(m.password, o.number, o.amount, o.currency, o.description),
    ...extra,
  };
}

const statusHash = (m: TestMerchant, id: string) => checkoutHash(m.password, id);

/** Pays a session through the hosted page form; returns the final HTTP answer of the page flow. */
async function payOnPage(t: TestGateway, redirectUrl: string, expiry: string) {
  const path = new URL(redirectUrl).pathname;
  const res = await fetch(`${t.baseUrl}${path}/pay`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ method: 'card', card_number: '4111 1111 1111 1111', card_expiry: expiry, card_cvv: '123', card_holder: 'John Doe' }).toString(),
  });
  return { status: res.status, location: res.headers.get('location'), html: await res.text() };
}

/** The merchant URL that a redirect page sends the payer to. */
function returnUrlFrom(html: string): URL {
  const match = /https:\/\/shop\.example\/[a-z]+\?[^"'<\s]+/.exec(html.replace(/&amp;/g, '&'));
  assert.ok(match, 'the page carries the merchant return URL');
  return new URL(match[0]);
}

for (const { kind, skip } of await storeKinds()) {
  describe(`Checkout API (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    const clock = new ManualClock('2030-01-15T10:00:00Z');

    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { clock, workers: true, notificationUrl: listener.url, settings: { statusFields: ['card', '3ds'], callbackFields: ['3ds'] } });
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    async function openSession(order: OrderInput = {}, extra: Record<string, unknown> = {}) {
      const res = await t.postJson('/api/v1/session', sessionBody(t.merchant, order, extra));
      assert.equal(res.status, 200, res.text);
      return res.body.redirect_url as string;
    }

    async function status(paymentOrOrder: { payment_id?: string; order_id?: string; size?: unknown }) {
      const id = paymentOrOrder.payment_id ?? paymentOrOrder.order_id ?? '';
      return t.postJson('/api/v1/payment/status', { merchant_key: t.merchant.key, ...paymentOrOrder, hash: statusHash(t.merchant, id) });
    }

    async function paidPayment(expiry = '01/38', order: OrderInput = {}, extra: Record<string, unknown> = {}) {
      const number = order.number ?? `order-${Math.random().toString(36).slice(2)}`;
      const url = await openSession({ ...order, number }, extra);
      const page = await payOnPage(t, url, expiry);
      const st = await status({ order_id: number });
      return { url, page, number, paymentId: st.body.payment_id as string, status: st.body };
    }

    describe('POST /api/v1/session', () => {
      it('opens a session whose redirect_url serves the hosted page', async () => {
        const url = await openSession();
        assert.match(url, new RegExp(`^${t.baseUrl}/checkout/[A-Za-z0-9_-]{20,}$`));
        const page = await fetch(url);
        assert.equal(page.status, 200);
        assert.match(page.headers.get('content-type') ?? '', /text\/html/);
        assert.match(await page.text(), /10\.00/);
      });

      it('answers 401 "hash: Hash is not valid." for a wrong hash', async () => {
        const res = await t.postJson('/api/v1/session', { ...sessionBody(t.merchant), hash: 'a'.repeat(40) });
        assert.equal(res.status, 401);
        assert.deepEqual(platformBody(res.body), { http_code: 401, error_code: '100000', error_message: 'hash: Hash is not valid.' });
      });

      it('answers 401 "merchant_key: Merchant not found." for an unknown key', async () => {
        const res = await t.postJson('/api/v1/session', { ...sessionBody(t.merchant), merchant_key: 'nobody' });
        assert.equal(res.status, 401);
        assert.deepEqual(res.body, { http_code: 401, error_code: '100000', error_message: 'merchant_key: Merchant not found.' });
      });

      it('validates every field to its documented limit, naming the field path', async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ operation: 'transfer' }, 'operation: The value you selected is not a valid choice.'],
          [{ success_url: 'not a url' }, 'success_url: This value is not a valid URL.'],
          [{ success_url: undefined }, 'success_url: This value should not be blank.'],
          [{ cancel_url: 'not a url' }, 'cancel_url: This value is not a valid URL.'],
          [{ session_expiry: 0 }, 'session_expiry: This value should be between 1 and 720.'],
          [{ session_expiry: 721 }, 'session_expiry: This value should be between 1 and 720.'],
          [{ url_target: '_window' }, 'url_target: The value you selected is not a valid choice.'],
          [{ customer: { email: 'not-an-email' } }, 'customer.email: This value is not a valid email address.'],
          [{ billing_address: { ...BILLING, zip: 'X' } }, 'billing_address.zip: This value is too short. It should have 2 characters or more.'],
          [{ billing_address: { ...BILLING, city: 'C'.repeat(41) } }, 'billing_address.city: This value is too long. It should have 40 characters or less.'],
          [{ methods: ['no-such-method'] }, 'methods[0]: The value you selected is not a valid choice.'],
          [{ auth: true, operation: 'debit' }, 'auth: This value is not correct.'],
        ];
        for (const [patch, message] of cases) {
          const body: Record<string, unknown> = { ...sessionBody(t.merchant), ...patch };
          for (const [k, v] of Object.entries(patch)) if (v === undefined) delete body[k];
          const res = await t.postJson('/api/v1/session', body);
          assert.equal(res.status, 400, `${JSON.stringify(patch)}: ${res.text}`);
          assert.equal(res.body.error_message, 'Request data is invalid.');
          assert.ok(res.body.errors.some((e: { error_message: string }) => e.error_message === message), `${message} in ${res.text}`);
        }
      });

      it('rejects a zero amount, except for recurring_init or auth', async () => {
        const zero = await t.postJson('/api/v1/session', sessionBody(t.merchant, { amount: '0.00' }));
        assert.equal(zero.status, 400);
        assert.deepEqual(zero.body.errors, [{ error_code: '100000', error_message: 'order.amount: This value should be greater than 0.' }]);
        assert.equal((await t.postJson('/api/v1/session', sessionBody(t.merchant, { amount: '0.00' }, { recurring_init: true }))).status, 200);
        assert.equal((await t.postJson('/api/v1/session', sessionBody(t.merchant, { amount: '0.00' }, { auth: true }))).status, 200);
      });

      it('accepts amounts in the currency exponent: "100" and "100.00" for JPY, "1.500" for KWD; rejects extra precision', async () => {
        assert.equal((await t.postJson('/api/v1/session', sessionBody(t.merchant, { amount: '100', currency: 'JPY' }))).status, 200);
        assert.equal((await t.postJson('/api/v1/session', sessionBody(t.merchant, { amount: '100.00', currency: 'JPY' }))).status, 200);
        assert.equal((await t.postJson('/api/v1/session', sessionBody(t.merchant, { amount: '1.500', currency: 'KWD' }))).status, 200);
        const tooPrecise = await t.postJson('/api/v1/session', sessionBody(t.merchant, { amount: '1.005' }));
        assert.equal(tooPrecise.status, 400);
        const unknownCurrency = await t.postJson('/api/v1/session', sessionBody(t.merchant, { currency: 'XYZ' }));
        assert.equal(unknownCurrency.status, 400);
      });

      it('answers malformed input with D3 bodies, never a 5xx', async () => {
        const raw = async (body: string | Uint8Array, contentType: string) => {
          const res = await fetch(`${t.baseUrl}/api/v1/session`, { method: 'POST', headers: { 'content-type': contentType }, body: body as BodyInit });
          return { status: res.status, body: await res.json() };
        };
        const cases = [
          await raw('{"merchant_key":', 'application/json'),
          await raw('', 'application/json'),
          await raw('[]', 'application/json'),
          await raw('null', 'application/json'),
          await raw('"text"', 'application/json'),
          await raw('merchant_key=x', 'application/x-www-form-urlencoded'),
          await raw('<xml/>', 'application/xml'),
          await raw(new Uint8Array([0xff, 0xfe, 0x7b, 0x22]), 'application/json'),
          await raw(JSON.stringify({ ...sessionBody(t.merchant), order: 'not-an-object' }), 'application/json'),
          await raw(JSON.stringify({ ...sessionBody(t.merchant), session_expiry: '60' }), 'application/json'),
          await raw(JSON.stringify({ ...sessionBody(t.merchant), custom_data: 'x'.repeat(400_000) }), 'application/json'),
        ];
        for (const res of cases) {
          assert.ok(res.status >= 400 && res.status < 500, `status ${res.status}`);
          assert.equal(typeof res.body.http_code, 'number');
          assert.equal(res.body.http_code, res.status);
          assert.equal(typeof res.body.error_code, 'string');
          assert.equal(typeof res.body.error_message, 'string');
        }
      });
    });

    describe('POST /api/v1/payment/status', () => {
      it('finds a new session\'s payment in status prepare, by payment_id and by order_id', async () => {
        const number = `order-${Date.now()}`;
        await openSession({ number, amount: '3.01' });
        const byOrder = await status({ order_id: number });
        assert.equal(byOrder.status, 200, byOrder.text);
        assert.equal(byOrder.body.status, 'prepare');
        assert.deepEqual(byOrder.body.order, { number, amount: '3.01', currency: 'USD', description: 'Test order' });
        assert.match(byOrder.body.date, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        const byId = await status({ payment_id: byOrder.body.payment_id });
        assert.deepEqual(byId.body, byOrder.body);
      });

      it('answers the Errors table rows for unknown payments and orders', async () => {
        const unknownPayment = await status({ payment_id: '00000000-0000-4000-8000-000000000000' });
        assert.equal(unknownPayment.status, 400);
        assert.deepEqual(unknownPayment.body, { http_code: 400, error_code: '101000', error_message: 'Payment does not exist.' });
        const unknownOrder = await status({ order_id: 'no-such-order' });
        assert.deepEqual(unknownOrder.body, { http_code: 400, error_code: '101000', error_message: 'Order does not exist.' });
        const badHash = await t.postJson('/api/v1/payment/status', { merchant_key: t.merchant.key, order_id: 'x', hash: 'f'.repeat(40) });
        assert.equal(badHash.status, 401);
      });

      it('applies the size rules: absent object, 1 array of one, 2..100 newest first, else the error', async () => {
        const number = `multi-${Date.now()}`;
        for (let i = 0; i < 3; i++) {
          await openSession({ number });
          clock.advance(1000);
        }
        const single = await status({ order_id: number });
        assert.equal(Array.isArray(single.body), false);
        const one = await status({ order_id: number, size: 1 });
        assert.equal(one.body.length, 1);
        assert.equal(one.body[0].payment_id, single.body.payment_id);
        const many = await status({ order_id: number, size: '100' });
        assert.equal(many.body.length, 3);
        assert.equal(many.body[0].payment_id, single.body.payment_id, 'newest first');
        const two = await status({ order_id: number, size: 2 });
        assert.deepEqual(two.body.map((p: { payment_id: string }) => p.payment_id), many.body.slice(0, 2).map((p: { payment_id: string }) => p.payment_id));
        for (const size of [0, 101, -1, '1000']) {
          const res = await status({ order_id: number, size });
          assert.equal(res.status, 400, `size ${size}`);
          assert.equal(res.body.error_message, 'size should be within 1..100');
        }
      });
    });

    describe('paying and the follow-ups', () => {
      it('settles a sale with the success card and signs the return URL and the callback', async () => {
        const { page, status: st, number, paymentId } = await paidPayment('01/38', { amount: '12.34' });
        assert.equal(page.status, 200);
        assert.equal(st.status, 'settled');
        assert.equal(st.card, '411111****1111');
        assert.equal(st.card_expiration_date, '01/2038');
        const back = returnUrlFrom(page.html);
        assert.equal(back.pathname, '/success');
        assert.equal(back.searchParams.get('payment_id'), paymentId);
        assert.equal(back.searchParams.get('order_id'), number);
        assert.ok(back.searchParams.get('trans_id'));
        assert.equal(back.searchParams.get('hash'), checkoutHash(t.merchant.password, paymentId, number, '12.34', 'USD', 'Test order'));
        const [cb] = await listener.waitForMatching((c) => c.fields.order_number === number, 1);
        assert.ok(cb);
        assert.match(String(cb.headers['content-type']), /application\/x-www-form-urlencoded/);
        assert.equal(cb.fields.id, paymentId);
        assert.equal(cb.fields.order_status, 'settled');
        assert.equal(cb.fields.type, 'sale');
        assert.equal(cb.fields.status, 'success');
        assert.equal(cb.fields.card, '411111****1111');
        assert.equal(cb.fields.hash, checkoutHash(t.merchant.password, cb.fields.id!, cb.fields.order_number!, cb.fields.order_amount!, cb.fields.order_currency!, cb.fields.order_description!));
        assert.doesNotMatch(cb.raw, /4111111111111111/);
      });

      it('declines with the decline card and keeps the payer on the page with tries left (the default)', async () => {
        const { url, page, status: st } = await paidPayment('02/38');
        assert.equal(st.status, 'decline');
        assert.equal(st.reason, 'Declined by processing');
        assert.equal(page.status, 303);
        assert.equal(page.location, new URL(url).pathname);
        const again = await (await fetch(url)).text();
        assert.match(again, /<div class="error-summary"[^>]*data-decline/);
        assert.match(again, /The card was declined\. Try another card\./);
        assert.match(again, /2 tries left\./);
      });

      it('answers hostile page input (NUL characters, huge values) without a 5xx', async () => {
        const url = await openSession();
        const path = new URL(url).pathname;
        const attempts: Record<string, string>[] = [
          { card_number: '4111111111111111', card_expiry: '01/38', card_cvv: '123', card_holder: 'John\u0000Doe', email: 'a\u0000@b.com' },
          { card_number: '4111\u00001111', card_expiry: '\u0000', card_cvv: 'x'.repeat(10_000), card_holder: 'J D' },
        ];
        for (const fields of attempts) {
          const res = await fetch(`${t.baseUrl}${path}/pay`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
          assert.ok(res.status < 500, `status ${res.status}`);
        }
        const longId = await fetch(`${t.baseUrl}/checkout/${'x'.repeat(500)}`);
        assert.equal(longId.status, 404);
      });

      it('allows one successful payment per session', async () => {
        const { url } = await paidPayment('01/38');
        const again = await payOnPage(t, url, '01/38');
        assert.match(again.html, /already been paid/);
      });

      it('lets a declined payer try again in the same session: a new payment of the same order', async () => {
        const number = `retry-${Date.now()}`;
        const url = await openSession({ number });
        await payOnPage(t, url, '02/38');
        await payOnPage(t, url, '01/38');
        const both = await status({ order_id: number, size: 10 });
        assert.deepEqual(both.body.map((p: { status: string }) => p.status), ['settled', 'decline']);
      });

      it('holds an authorization, captures part of it once, refunds, and refuses what the state table forbids', async () => {
        const { paymentId, status: st } = await paidPayment('01/38', { amount: '100.00' }, { auth: true });
        assert.equal(st.status, 'pending');
        const voidHeld = await t.postJson('/api/v1/payment/void', { merchant_key: t.merchant.key, payment_id: paymentId, hash: checkoutHash(t.merchant.password, paymentId) });
        assert.deepEqual(voidHeld.body, { http_code: 400, error_code: '100000', error_message: 'Void is not allowed.' });
        const tooMuch = await t.postJson('/api/v1/payment/capture', { merchant_key: t.merchant.key, payment_id: paymentId, amount: '100.01', hash: checkoutHash(t.merchant.password, paymentId, '100.01') });
        assert.equal(tooMuch.status, 400);
        const cap = await t.postJson('/api/v1/payment/capture', { merchant_key: t.merchant.key, payment_id: paymentId, amount: '60.00', hash: checkoutHash(t.merchant.password, paymentId, '60.00') });
        assert.equal(cap.status, 200, cap.text);
        assert.equal(cap.body.payment_id, paymentId);
        assert.equal(cap.body.status, 'settled');
        assert.equal(cap.body.trans_status, 'SUCCESS');
        const second = await t.postJson('/api/v1/payment/capture', { merchant_key: t.merchant.key, payment_id: paymentId, amount: '10.00', hash: checkoutHash(t.merchant.password, paymentId, '10.00') });
        assert.equal(second.status, 400, 'one capture only');
        const overRefund = await t.postJson('/api/v1/payment/refund', { merchant_key: t.merchant.key, payment_id: paymentId, amount: '60.01', hash: checkoutHash(t.merchant.password, paymentId, '60.01') });
        assert.equal(overRefund.status, 400);
        const partial = await t.postJson('/api/v1/payment/refund', { merchant_key: t.merchant.key, payment_id: paymentId, amount: '20.00', hash: checkoutHash(t.merchant.password, paymentId, '20.00') });
        assert.deepEqual(partial.body, { payment_id: paymentId, result: 'accepted' });
        assert.equal((await status({ payment_id: paymentId })).body.status, 'settled');
        const rest = await t.postJson('/api/v1/payment/refund', { merchant_key: t.merchant.key, payment_id: paymentId, amount: '40.00', hash: checkoutHash(t.merchant.password, paymentId, '40.00') });
        assert.equal(rest.status, 200);
        assert.equal((await status({ payment_id: paymentId })).body.status, 'refund');
      });

      it('reports a failed capture (card month 03) and keeps the authorization pending', async () => {
        const { paymentId } = await paidPayment('03/38', { amount: '5.00' }, { auth: true });
        const cap = await t.postJson('/api/v1/payment/capture', { merchant_key: t.merchant.key, payment_id: paymentId, amount: '5.00', hash: checkoutHash(t.merchant.password, paymentId, '5.00') });
        assert.equal(cap.status, 200);
        assert.equal(cap.body.trans_status, 'DECLINED');
        assert.equal(cap.body.status, 'pending');
      });

      it('voids a settled sale and answers the documented void body', async () => {
        const { paymentId, number } = await paidPayment('01/38', { amount: '7.50' });
        const res = await t.postJson('/api/v1/payment/void', { merchant_key: t.merchant.key, payment_id: paymentId, hash: checkoutHash(t.merchant.password, paymentId) });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.status, 'SUCCESS');
        assert.equal(res.body.payment_status, 'void');
        assert.deepEqual(res.body.order, { number, amount: '7.50', currency: 'USD', description: 'Test order' });
        const again = await t.postJson('/api/v1/payment/void', { merchant_key: t.merchant.key, payment_id: paymentId, hash: checkoutHash(t.merchant.password, paymentId) });
        assert.equal(again.status, 400);
      });

      it('answers "Payment does not exist." for follow-ups on unknown payments', async () => {
        const id = '00000000-0000-4000-8000-000000000001';
        for (const path of ['capture', 'refund']) {
          const res = await t.postJson(`/api/v1/payment/${path}`, { merchant_key: t.merchant.key, payment_id: id, amount: '1.00', hash: checkoutHash(t.merchant.password, id, '1.00') });
          assert.deepEqual(res.body, { http_code: 400, error_code: '101000', error_message: 'Payment does not exist.' });
        }
      });

      it('runs 3-D Secure through the ACS page and records the 3DS attributes', async () => {
        const number = `3ds-${Date.now()}`;
        const url = await openSession({ number });
        const first = await payOnPage(t, url, '05/38');
        assert.equal(first.status, 303);
        assert.match(first.location ?? '', /^\/sandbox\/acs\//);
        assert.equal((await status({ order_id: number })).body.status, '3ds');
        const acs = await fetch(t.baseUrl + first.location);
        assert.equal(acs.status, 200);
        const done = await fetch(`${t.baseUrl}${first.location}/complete`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=submit&otp=1234' });
        assert.equal(returnUrlFrom(await done.text()).pathname, '/success');
        const st = (await status({ order_id: number })).body;
        assert.equal(st.status, 'settled');
        assert.equal(st.authenticationFlow, 'Challenge');
        assert.equal(st.transStatus, 'Y');
        for (const key of ['threeDSServerTransID', 'dsTransID', 'acsTransID', 'eci', 'protocolVersion']) assert.ok(st[key], key);
      });

      it('a challenge completed after its MID lost its connector is refused without stranding the payment', async () => {
        const number = `3ds-gone-${Date.now()}`;
        const first = await payOnPage(t, await openSession({ number }), '05/38');
        assert.match(first.location ?? '', /^\/sandbox\/acs\//);
        const paymentId = first.location!.split('/').pop()!;
        const [row] = await t.store.db.query<{ mid_id: string; connector: string }>('SELECT p.mid_id, m.connector FROM payments p JOIN mids m ON m.id = p.mid_id WHERE p.id = $1', [paymentId]);
        await t.store.db.query("UPDATE mids SET connector = 'retired' WHERE id = $1", [row!.mid_id]);
        try {
          const done = await fetch(`${t.baseUrl}${first.location}/complete`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=submit&otp=1234' });
          assert.ok(done.status < 500, `answered ${done.status}`);
          const [after] = await t.store.db.query<{ status: string; pending_operation: string | null }>('SELECT status, pending_operation FROM payments WHERE id = $1', [paymentId]);
          assert.deepEqual({ ...after }, { status: '3ds', pending_operation: null }, 'still waiting for its payer, not claimed');
        } finally {
          await t.store.db.query('UPDATE mids SET connector = $2 WHERE id = $1', [row!.mid_id, row!.connector]);
        }
        const done = await fetch(`${t.baseUrl}${first.location}/complete`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=submit&otp=1234' });
        assert.equal(returnUrlFrom(await done.text()).pathname, '/success');
        assert.equal((await status({ order_id: number })).body.status, 'settled');
      });

      it('sends a debit\'s 3ds callback and its settled callback, both with card_token', async () => {
        const number = `debit-${Date.now()}`;
        const url = await openSession({ number }, { operation: 'debit' });
        const first = await payOnPage(t, url, '05/38');
        await fetch(`${t.baseUrl}${first.location}/complete`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=submit' });
        const mine = await listener.waitForMatching((c) => c.fields.order_number === number, 2);
        assert.deepEqual(mine.map((c) => c.fields.order_status), ['3ds', 'settled']);
        for (const cb of mine) assert.match(cb.fields.card_token ?? '', /^[0-9a-f]{64}$/);
        assert.equal(mine[1]?.fields.type, 'debit');
      });

      it('sends the payer to expiry_url once the session has expired', async () => {
        const url = await openSession({}, { session_expiry: 1, expiry_url: 'https://shop.example/expired' });
        clock.advance(61_000);
        const page = await fetch(url);
        assert.match(await page.text(), /https:\/\/shop\.example\/expired/);
        clock.advance(-61_000);
      });
    });
  });
}
