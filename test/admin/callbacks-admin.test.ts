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
      for (const until = Date.now() + 15_000; Date.now() < until;) {
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

    it('refuses a page size outside 1 to 1000 with the D3 400 on limit that the other lists answer', async () => {
      for (const limit of ['1001', '9999', '0']) {
        const res = await admin(`/admin/v1/callbacks?limit=${limit}`);
        assert.equal(res.status, 400, limit);
        const body = await res.json() as { http_code: number; error_message: string; errors: { error_message: string }[] };
        assert.equal(body.http_code, 400);
        assert.equal(body.error_message, 'Request data is invalid.');
        assert.deepEqual(body.errors.map((e) => e.error_message), ['limit: This value should be between 1 and 1000.'], limit);
      }
      assert.equal((await admin('/admin/v1/callbacks?limit=1000')).status, 200);
      const one = await admin('/admin/v1/callbacks?limit=1');
      assert.equal(((await one.json()) as { callbacks: unknown[] }).callbacks.length, 1);
    });

    it('refuses a page size outside its range on every other admin list too, never capping it silently', async () => {
      const lists: [string, number][] = [
        ['/admin/v1/callback-urls/blocked', 500], ['/admin/v1/payments/needs-operator', 1000],
        ['/admin/v1/disputes', 500], ['/admin/v1/reconciliation/batches', 500],
      ];
      for (const [path, max] of lists) {
        for (const limit of [String(max + 1), '0']) {
          const res = await admin(`${path}?limit=${limit}`);
          assert.equal(res.status, 400, `${path} ${limit}`);
          const body = await res.json() as { errors: { error_message: string }[] };
          assert.deepEqual(body.errors.map((e) => e.error_message), [`limit: This value should be between 1 and ${max}.`], `${path} ${limit}`);
        }
        assert.equal((await admin(`${path}?limit=${max}`)).status, 200, path);
      }
    });

    it('answers 404 for an unknown callback', async () => {
      const res = await admin('/admin/v1/callbacks/00000000-0000-4000-8000-000000000000/resend', { method: 'POST' });
      assert.equal(res.status, 404);
    });

    it('lists the blocked callback URLs with their waiting callbacks, and unblocks one (audited)', async () => {
      const url = 'http://127.0.0.1:9/blocked';
      const healthy = 'http://127.0.0.1:9/counted-not-blocked';
      const ended = 'http://127.0.0.1:9/block-ended';
      await t.store.db.query(`INSERT INTO callback_url_health (url, timeouts, blocked_until) VALUES ($1, ARRAY[now(), now()], now() + interval '15 minutes'), ($2, ARRAY[now()], NULL), ($3, '{}', now() - interval '1 minute')`, [url, healthy, ended]);
      await t.store.db.query(`UPDATE callbacks SET url = $1 WHERE id = (SELECT id FROM callbacks ORDER BY created_at LIMIT 1)`, [url]);
      // Waiting behind the block, as the dispatcher leaves a blocked URL's callbacks (due when the block ends): a
      // callback due now would be claimed and tried by the running dispatcher while the list is read.
      await t.store.db.query(`UPDATE callbacks SET status = 'pending', next_attempt_at = now() + interval '10 minutes' WHERE url = $1`, [url]);

      const listed = await admin('/admin/v1/callback-urls/blocked');
      assert.equal(listed.status, 200);
      const { urls } = await listed.json();
      assert.deepEqual(urls.map((u: any) => u.url), [url], 'only the URL blocked now');
      assert.equal(urls[0].timeouts.length, 2);
      assert.ok(Date.parse(urls[0].blocked_until) > Date.now());
      assert.equal(urls[0].waiting_callbacks, 1);
      assert.deepEqual(urls[0].merchant_ids, [t.merchant.id]);
      assert.equal((await admin('/admin/v1/callback-urls/blocked?limit=x')).status, 400);

      const res = await admin('/admin/v1/callback-urls/unblock', { method: 'POST', body: JSON.stringify({ url }) });
      assert.deepEqual(await res.json(), { url, unblocked: true });
      const [row] = await t.store.db.query<{ blocked_until: Date | null }>('SELECT blocked_until FROM callback_url_health WHERE url = $1', [url]);
      assert.equal(row?.blocked_until, null);
      assert.deepEqual((await (await admin('/admin/v1/callback-urls/blocked')).json()).urls, []);
      const again = await admin('/admin/v1/callback-urls/unblock', { method: 'POST', body: JSON.stringify({ url }) });
      assert.deepEqual(await again.json(), { url, unblocked: false });

      const audit = await (await admin(`/admin/v1/audit-log?action=callback_url.unblock&object_id=${encodeURIComponent(url)}`)).json();
      assert.equal(audit.entries.length, 1, 'one entry: the second call changed nothing');
      assert.equal(audit.entries[0].object_type, 'callback_url');
      assert.equal(audit.entries[0].before.timeouts, 2);
      assert.deepEqual(audit.entries[0].after, { blocked_until: null, timeouts: 0 });
    });

    it('a viewer may list blocked URLs but not unblock them', async () => {
      const created = await admin('/admin/v1/users', { method: 'POST', body: JSON.stringify({ email: `viewer-cb-${kind}@example.com`, role: 'viewer' }) });
      const user = await created.json();
      const token = await (await admin(`/admin/v1/users/${user.id}/tokens`, { method: 'POST', body: JSON.stringify({}) })).json();
      assert.equal((await admin('/admin/v1/callback-urls/blocked', {}, token.token)).status, 200);
      const refused = await admin('/admin/v1/callback-urls/unblock', { method: 'POST', body: JSON.stringify({ url: 'http://127.0.0.1:9/x' }) }, token.token);
      assert.equal(refused.status, 403);
      assert.equal((await refused.json()).http_code, 403);
    });
  });
}
