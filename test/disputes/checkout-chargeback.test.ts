/**
 * A chargeback of a Checkout payment (issue 29): paid on the hosted page, charged back by an operator, the merchant
 * gets the Checkout callback type=chargeback, status=success, order_status=chargeback, signed with the Checkout
 * formula, and the status lookup answers chargeback.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener } from '../support/merchant.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';

const BILLING = { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567' };

for (const { kind, skip } of await storeKinds()) {
  describe(`disputes: a Checkout payment's chargeback (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    let admin: AdminCall;
    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true, notificationUrl: listener.url, adminToken: `co-cb-${kind}` });
      admin = adminClient(t.baseUrl, `co-cb-${kind}`);
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    it('type=chargeback callback, signed; the status lookup answers chargeback', async () => {
      const o = { number: `order-${Math.random().toString(36).slice(2)}`, amount: '12.00', currency: 'USD', description: 'Disputed order' };
      const session = await t.postJson('/api/v1/session', {
        merchant_key: t.merchant.key, operation: 'purchase', methods: ['card'], order: o, success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel',
        customer: { name: 'John Doe', email: 'success@gmail.com' }, billing_address: BILLING, hash: checkoutHash(t.merchant.password, o.number, o.amount, o.currency, o.description),
      });
      assert.equal(session.status, 200, session.text);
      await fetch(`${t.baseUrl}${new URL(session.body.redirect_url).pathname}/pay`, {
        method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ method: 'card', card_number: '4111 1111 1111 1111', card_expiry: '01/38', card_cvv: '123', card_holder: 'John Doe' }).toString(),
      });
      const lookup = () => t.postJson('/api/v1/payment/status', { merchant_key: t.merchant.key, order_id: o.number, hash: checkoutHash(t.merchant.password, o.number) });
      const paid = await lookup();
      assert.equal(paid.body.status, 'settled', paid.text);
      const paymentId = paid.body.payment_id as string;

      const opened = await admin('POST', `/admin/v1/payments/${paymentId}/disputes`, { event: 'chargeback', amount: '12.00', reason_code: '13.1' });
      assert.equal(opened.status, 201, opened.text);
      const deadline = Date.now() + 10_000;
      let cb = listener.received.find((r) => r.fields.id === paymentId && r.fields.type === 'chargeback');
      while (!cb && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        cb = listener.received.find((r) => r.fields.id === paymentId && r.fields.type === 'chargeback');
      }
      assert.ok(cb, 'a chargeback callback');
      assert.equal(cb.fields.status, 'success');
      assert.equal(cb.fields.order_status, 'chargeback');
      assert.equal(cb.fields.amount, '12.00');
      assert.equal(cb.fields.hash, checkoutHash(t.merchant.password, cb.fields.id!, cb.fields.order_number!, cb.fields.order_amount!, cb.fields.order_currency!, cb.fields.order_description!));
      assert.equal((await lookup()).body.status, 'chargeback');
    });
  });
}
