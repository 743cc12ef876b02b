/**
 * The README's walkthrough on a fresh store: the token printed at the first start creates a second merchant
 * and its MID over the admin API, and that merchant takes a payment; no SQL, no restart.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { adminClient } from './support.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`admin walkthrough: a second merchant on a fresh store (${kind})`, { skip }, () => {
    let t: TestGateway;
    before(async () => {
      t = await startTestGateway(kind);
    });
    after(async () => t?.close());

    it('creates the merchant and its MID with the printed token and takes a payment', async (ctx) => {
      const printed = t.gateway.bootstrap?.generatedToken;
      assert.match(printed ?? '', /^pcop_[A-Za-z0-9_-]{43}$/, 'the first start generates the first admin\'s token');
      const admin = adminClient(t.baseUrl, printed);
      const created = await admin('POST', '/admin/v1/merchants', { name: 'Second Shop', sandbox: true });
      assert.equal(created.status, 201, created.text);
      const m = { key: created.body.merchant_key as string, password: created.body.password as string };

      const mid = await admin('POST', `/admin/v1/merchants/${created.body.id}/mids`, { connector: 'sandbox-card', payment_mode: 'SMS/DMS' });
      if (mid.status === 404 && mid.body?.error_message === 'Not found.') {
        ctx.skip('needs POST /admin/v1/merchants/{id}/mids (issue 11 part B), not on this branch');
        return;
      }
      assert.equal(mid.status, 201, mid.text);

      const order = { number: 'walkthrough-1', amount: '10.00', currency: 'USD', description: 'First order' };
      const session = await t.postJson('/api/v1/session', {
        merchant_key: m.key, operation: 'purchase', order, success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel',
        customer: { name: 'John Doe', email: 'john@example.com' },
        billing_address: { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567' },
        hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
      });
      assert.equal(session.status, 200, session.text);
      const page = await fetch(`${t.baseUrl}${new URL(session.body.redirect_url).pathname}/pay`, {
        method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ method: 'card', card_number: '4111 1111 1111 1111', card_expiry: '01/38', card_cvv: '123', card_holder: 'John Doe' }).toString(),
      });
      assert.ok(page.status < 500, `pay page answered ${page.status}`);
      const status = await t.postJson('/api/v1/payment/status', { merchant_key: m.key, order_id: order.number, hash: checkoutHash(m.password, order.number) });
      assert.equal(status.status, 200, status.text);
      assert.equal(status.body.status, 'settled');
    });
  });
}
