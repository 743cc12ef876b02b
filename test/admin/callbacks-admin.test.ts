/** The operator's callback log, resend and URL unblock (decisions D7), over HTTP with the Bearer token. */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener } from '../support/merchant.ts';

const TOKEN = 'operator-secret-token';

for (const { kind, skip } of await storeKinds()) {
  describe(`admin: callbacks (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true, notificationUrl: listener.url, adminToken: TOKEN });
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    const admin = (path: string, init: RequestInit = {}, token = TOKEN) =>
      fetch(`${t.baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) } });

    async function paidOrder(number: string) {
      const order = { number, amount: '4.20', currency: 'EUR', description: 'Admin test' };
      const res = await t.postJson('/api/v1/session', {
        merchant_key: t.merchant.key, operation: 'purchase', order,
        success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/no',
        billing_address: { country: 'DE', city: 'Berlin', address: 'Main street 1', zip: '10117' },
        hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description),
      });
      await fetch(`${t.baseUrl}${new URL(res.body.redirect_url).pathname}/pay`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ card_number: '4111111111111111', card_expiry: '01/38', card_cvv: '123', card_holder: 'Max Muster' }).toString(),
      });
      return (await listener.waitForMatching((c) => c.fields.order_number === number, 1))[0]!;
    }

    it('refuses requests without the operator token, with a D3 body', async () => {
      for (const token of ['', 'wrong']) {
        const res = await admin('/admin/v1/callbacks', {}, token);
        assert.equal(res.status, 401);
        assert.deepEqual(await res.json(), { http_code: 401, error_code: '100000', error_message: 'Authorization: Operator token is not valid.' });
      }
    });

    it('lists a delivered callback with its attempts, and resends it with the same event id', async () => {
      const first = await paidOrder(`admin-${Date.now()}`);
      const paymentId = first.fields.payment_id!;
      type Listed = { callbacks: { id: string; status: string; attempt_log: { outcome: string; http_status: number }[]; body: string }[] };
      // The receiver may see the callback a moment before the dispatcher records the delivery.
      let callbacks: Listed['callbacks'] = [];
      for (let i = 0; i < 50; i++) {
        const listed = await admin(`/admin/v1/callbacks?payment_id=${paymentId}`);
        assert.equal(listed.status, 200);
        callbacks = ((await listed.json()) as Listed).callbacks;
        if (callbacks[0]?.status === 'delivered') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(callbacks.length, 1);
      const [cb] = callbacks;
      assert.equal(cb!.status, 'delivered');
      assert.equal(cb!.attempt_log[0]?.outcome, 'delivered');
      assert.equal(cb!.attempt_log[0]?.http_status, 200);
      assert.equal(cb!.body, first.raw);
      assert.equal(cb!.id, first.headers['x-callback-id']);

      const resent = await admin(`/admin/v1/callbacks/${cb!.id}/resend`, { method: 'POST' });
      assert.equal(resent.status, 200);
      const again = await listener.waitForMatching((c) => c.headers['x-callback-id'] === cb!.id, 2);
      assert.equal(again[1]!.raw, first.raw, 'the same signed body, the same event id');
    });

    it('answers 404 for an unknown callback', async () => {
      const res = await admin('/admin/v1/callbacks/00000000-0000-4000-8000-000000000000/resend', { method: 'POST' });
      assert.equal(res.status, 404);
    });

    it('unblocks a blocked callback URL', async () => {
      const url = 'http://127.0.0.1:9/blocked';
      await t.store.db.query(`INSERT INTO callback_url_health (url, timeouts, blocked_until) VALUES ($1, ARRAY[now()], now() + interval '15 minutes')`, [url]);
      const res = await admin('/admin/v1/callback-urls/unblock', { method: 'POST', body: JSON.stringify({ url }) });
      assert.deepEqual(await res.json(), { url, unblocked: true });
      const [row] = await t.store.db.query<{ blocked_until: Date | null }>('SELECT blocked_until FROM callback_url_health WHERE url = $1', [url]);
      assert.equal(row?.blocked_until, null);
      const again = await admin('/admin/v1/callback-urls/unblock', { method: 'POST', body: JSON.stringify({ url }) });
      assert.deepEqual(await again.json(), { url, unblocked: false });
    });
  });
}
