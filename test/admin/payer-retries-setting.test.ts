/**
 * The payer-retries setting (issue 18's "a decline is not the end", switched by the merchant's admin settings):
 * configured through the admin API and observed on the hosted page over real HTTP, on both stores.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { adminCall, d3Messages } from './config-support.ts';

async function declineOnCheckout(t: TestGateway, m: TestMerchant): Promise<string> {
  const order = { number: `order-${Math.random().toString(36).slice(2)}`, amount: '10.00', currency: 'USD', description: 'Retry test' };
  const session = await t.postJson('/api/v1/session', {
    merchant_key: m.key, operation: 'purchase', methods: ['card'], order,
    success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel', error_url: 'https://shop.example/error',
    customer: { name: 'John Doe', email: 'success@gmail.com' },
    billing_address: { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA' },
    hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
  });
  assert.equal(session.status, 200, session.text);
  const path = new URL(session.body.redirect_url).pathname;
  const res = await fetch(`${t.baseUrl}${path}/pay`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    // Expiry month 02: the sandbox declines.
    body: new URLSearchParams({ method: 'card', card_number: '4111111111111111', card_expiry: '02/38', card_cvv: '123', card_holder: 'John Doe' }).toString(),
  });
  return res.status >= 300 && res.status < 400 ? `redirect:${res.headers.get('location')}` : await res.text();
}

for (const { kind, skip } of await storeKinds()) {
  describe(`admin settings: payer retries (${kind})`, { skip }, () => {
    let t: TestGateway;
    const ADMIN = `admin-retries-${kind}`;
    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN });
    });
    after(async () => t?.close());

    const settings = (m: TestMerchant, method = 'GET', body?: unknown) => adminCall(t.baseUrl, method, `/admin/v1/merchants/${m.id}/settings`, ADMIN, body);

    it('defaults to three tries and keeps a declined payer on the page', async () => {
      const m = await t.addMerchant();
      const view = await settings(m);
      assert.equal(view.status, 200);
      assert.deepEqual(view.body.payer_retries, { max_attempts: 3 });
      const answer = await declineOnCheckout(t, m);
      assert.ok(answer.startsWith('redirect:') && answer.includes('/checkout/'), `back to the hosted page: ${answer.slice(0, 200)}`);
    });

    it('keeps the platform\'s behaviour when switched off: the declined payer goes to the merchant', async () => {
      const m = await t.addMerchant();
      const changed = await settings(m, 'PATCH', { payer_retries: false });
      assert.equal(changed.status, 200);
      assert.equal(changed.body.payer_retries, false);
      const answer = await declineOnCheckout(t, m);
      assert.ok(answer.replace(/&amp;/g, '&').includes('https://shop.example/error'), 'links to the error_url');
      const reset = await settings(m, 'PATCH', { payer_retries: null });
      assert.deepEqual(reset.body.payer_retries, { max_attempts: 3 });
    });

    it('refuses a number of tries out of range with a D3 400', async () => {
      const m = await t.addMerchant();
      for (const bad of [{ max_attempts: 0 }, { max_attempts: 21 }, { max_attempts: '3' }, true]) {
        const res = await settings(m, 'PATCH', { payer_retries: bad });
        assert.equal(res.status, 400, JSON.stringify(bad));
        assert.ok(d3Messages(res).length > 0);
      }
    });
  });
}
