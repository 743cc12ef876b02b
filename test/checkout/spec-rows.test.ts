/**
 * Issue 25 item 27: rows of the spec that worked by hand and that no test covered, over HTTP on both stores (a
 * Checkout session paid on the hosted page as a browser posts it; callbacks to a real listener; status lookups):
 * the Checkout Payment Method option in callbacks, status answers and the return link; req_token's card_token in
 * the callback; the top-level payer_ip.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { startListener, type Listener, type Received } from '../s2s-card/support.ts';

let orders = 0;

for (const { kind, skip } of await storeKinds()) {
  describe(`Checkout spec rows (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true });
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    /** Opens a session, pays it on the hosted page; answers the order number and the page's link back to the merchant. */
    async function paid(m: TestMerchant, extra: Record<string, unknown> = {}, expiry = '01/38'): Promise<{ order: string; back: URL }> {
      const order = { number: `ROW-${process.pid}-${Date.now()}-${++orders}`, amount: '10.00', currency: 'USD', description: 'Spec rows' };
      const session = await t.postJson('/api/v1/session', {
        merchant_key: m.key, operation: 'purchase', methods: ['card'], order,
        success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel', customer: { name: 'John Doe', email: 'success@gmail.com' },
        hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description), ...extra,
      });
      assert.equal(session.status, 200, session.text);
      const res = await fetch(`${t.baseUrl}${new URL(session.body.redirect_url).pathname}/pay`, {
        method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ method: 'card', card_number: '4111 1111 1111 1111', card_expiry: expiry, card_cvv: '123', card_holder: 'John Doe' }).toString(),
      });
      let html = (await res.text()).replace(/&amp;/g, '&');
      const acs = res.headers.get('location');
      if (acs?.startsWith('/sandbox/acs/')) {
        // The challenge on the sandbox ACS page, completed as the payer completes it.
        const done = await fetch(`${t.baseUrl}${acs}/complete`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=submit&otp=1234' });
        html = (await done.text()).replace(/&amp;/g, '&');
      }
      const href = /<a[^>]*id="redirect-link"[^>]*href="([^"]+)"/.exec(html)?.[1] ?? /<a[^>]*href="([^"]+)"[^>]*id="redirect-link"/.exec(html)?.[1];
      assert.ok(href, `a link back to the merchant (${res.status})`);
      return { order: order.number, back: new URL(href) };
    }

    async function callbackOf(order: string): Promise<Record<string, string>> {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const found = listener.received.find((r: Received) => r.fields.order_number === order && r.fields.status === 'success');
        if (found) return found.fields;
        if (Date.now() > deadline) throw new Error(`no callback for ${order}: ${JSON.stringify(listener.received.map((r) => r.fields))}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    async function status(m: TestMerchant, order: string): Promise<Record<string, any>> {
      const res = await t.postJson('/api/v1/payment/status', { merchant_key: m.key, order_id: order, hash: checkoutHash(m.password, order) });
      assert.equal(res.status, 200, res.text);
      return res.body;
    }

    it('the Checkout Payment Method option puts checkout_payment_method in callbacks, status answers and the return link; off, nowhere', async () => {
      const on = await t.addMerchant({ notificationUrl: listener.url, settings: { checkoutPaymentMethod: true } });
      const off = await t.addMerchant({ notificationUrl: listener.url });
      const a = await paid(on);
      assert.equal((await callbackOf(a.order)).checkout_payment_method, 'card');
      assert.equal((await status(on, a.order)).checkout_payment_method, 'card');
      assert.equal(a.back.searchParams.get('checkout_payment_method'), 'card', a.back.href);
      const b = await paid(off);
      assert.equal((await callbackOf(b.order)).checkout_payment_method, undefined);
      assert.equal((await status(off, b.order)).checkout_payment_method, undefined);
      assert.equal(b.back.searchParams.get('checkout_payment_method'), null, b.back.href);
    });

    it('after a 3-D Secure challenge, the return link carries the return parameters as a frictionless payment does', async () => {
      const m = await t.addMerchant({ notificationUrl: listener.url, settings: { returnParams: ['payment_method', 'brand'], checkoutPaymentMethod: true, statusFields: ['3ds'] } });
      const frictionless = await paid(m);
      const challenged = await paid(m, {}, '05/38');
      for (const back of [frictionless.back, challenged.back]) {
        assert.equal(back.pathname, '/success', back.href);
        for (const key of ['payment_id', 'trans_id', 'order_id', 'hash']) assert.ok(back.searchParams.get(key), `${key} in ${back.href}`);
        assert.equal(back.searchParams.get('payment_method'), 'card', back.href);
        assert.equal(back.searchParams.get('brand'), 'payment_document_card', back.href);
        assert.equal(back.searchParams.get('checkout_payment_method'), 'card', back.href);
      }
      assert.equal(challenged.back.searchParams.get('order_id'), challenged.order);
      assert.equal((await status(m, challenged.order)).authenticationFlow, 'Challenge', 'the second payment went through the challenge');
    });

    it('req_token: true gives the callback a card_token; false gives none', async () => {
      const m = await t.addMerchant({ notificationUrl: listener.url });
      const withToken = await callbackOf((await paid(m, { req_token: true })).order);
      assert.match(withToken.card_token ?? '', /^[0-9A-Za-z_-]{16,}$/, JSON.stringify(withToken));
      const without = await callbackOf((await paid(m, { req_token: false })).order);
      assert.equal(without.card_token, undefined);
    });

    it('the top-level payer_ip is the payer IP of callbacks and status answers when customer.ip is not sent', async () => {
      const m = await t.addMerchant({ notificationUrl: listener.url, settings: { callbackFields: ['payer_ip'], statusFields: ['payer_ip'] } });
      const { order } = await paid(m, { payer_ip: '198.51.100.23' });
      const cb = await callbackOf(order);
      assert.equal(cb.customer_ip, '198.51.100.23');
      assert.equal(cb.payer_ip, '198.51.100.23');
      assert.equal((await status(m, order)).payer_ip, '198.51.100.23');
    });
  });
}
