/**
 * Issue 12, items 7-10: what the platform family's official SDKs send, through HTTP on both stores.
 * 7 cancel_url optional; 8 unserved methods skipped with warnings; 9 billing state validated only where the
 * payer is asked for it; 10 the hosted page records the payer's IP for callbacks.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener } from '../support/merchant.ts';

const BILLING = { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567' };

for (const { kind, skip } of await storeKinds()) {
  describe(`What real clients send (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true, notificationUrl: listener.url });
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    function sessionBody(extra: Record<string, unknown> = {}, without: string[] = []) {
      const order = { number: `rc-${Math.random().toString(36).slice(2)}`, amount: '12.00', currency: 'USD', description: 'SDK order' };
      const body: Record<string, unknown> = {
        merchant_key: t.merchant.key, operation: 'purchase', order, success_url: 'https://shop.example/success',
        cancel_url: 'https://shop.example/cancel', error_url: 'https://shop.example/error', billing_address: BILLING,
        hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description), ...extra,
      };
      for (const key of without) delete body[key];
      return body;
    }

    async function open(extra: Record<string, unknown> = {}, without: string[] = []) {
      const res = await t.postJson('/api/v1/session', sessionBody(extra, without));
      assert.equal(res.status, 200, res.text);
      return res.body as { redirect_url: string; warnings?: string[] };
    }

    const cancel = async (redirectUrl: string) => (await fetch(`${redirectUrl}/cancel`, { method: 'POST' })).text();

    it('a GET of the cancel URL (a link preview, a prefetch) cancels nothing: it leads back to the page (issue 25, item 17)', async () => {
      const { redirect_url } = await open();
      const res = await fetch(`${redirect_url}/cancel`, { redirect: 'manual' });
      assert.equal(res.status, 303);
      assert.equal(new URL(res.headers.get('location')!, redirect_url).href, redirect_url);
      const page = await (await fetch(redirect_url)).text();
      assert.match(page, /<form id="cancel-form" method="post" action="[^"]*\/cancel"/, 'the page still offers to pay and to cancel');
      assert.match(await cancel(redirect_url), /https:\/\/shop\.example\/cancel/, 'the POST cancels');
    });

    it('7: a session without cancel_url opens; cancelling goes to error_url', async () => {
      const { redirect_url } = await open({}, ['cancel_url']);
      const page = await cancel(redirect_url);
      assert.match(page, /https:\/\/shop\.example\/error/);
    });

    it('7: without cancel_url nor error_url, cancelling shows the gateway\'s "payment cancelled" page', async () => {
      const { redirect_url } = await open({}, ['cancel_url', 'error_url']);
      const page = await cancel(redirect_url);
      assert.match(page, /Payment cancelled/);
      assert.ok(!page.includes('shop.example/success'));
    });

    it('8: methods the gateway does not serve are skipped and listed in warnings; the page offers the rest', async () => {
      const opened = await open({ methods: ['card', 'om-wallet', 'naps'] });
      assert.deepEqual(opened.warnings, ['methods[1]: om-wallet is not available and was skipped.', 'methods[2]: naps is not available and was skipped.']);
      const page = await (await fetch(opened.redirect_url)).text();
      assert.ok(!page.includes('om-wallet'));
      const plain = await open({ methods: ['card'] });
      assert.equal(plain.warnings, undefined, 'no warnings member when nothing was skipped');
    });

    it('8: a session none of whose methods is served is refused, naming each', async () => {
      const res = await t.postJson('/api/v1/session', sessionBody({ methods: ['om-wallet', 'naps'] }));
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.errors.map((e: { error_message: string }) => e.error_message), [
        'methods[0]: The value you selected is not a valid choice.', 'methods[1]: The value you selected is not a valid choice.',
      ]);
    });

    it('9: the billing state is validated only for CA, US, JP, AU and IN', async () => {
      await open({ billing_address: { ...BILLING, state: 'X' } });
      await open({ billing_address: { ...BILLING, country: 'DE', state: 'A very long region name that goes on beyond 32' } });
      for (const country of ['US', 'CA', 'JP', 'AU', 'IN']) {
        const res = await t.postJson('/api/v1/session', sessionBody({ billing_address: { ...BILLING, country, state: 'X' } }));
        assert.equal(res.status, 400, country);
        assert.equal(res.body.errors[0].error_message, 'billing_address.state: This value is too short. It should have 2 characters or more.');
      }
      await open({ billing_address: { ...BILLING, country: 'US', state: 'NY' } });
    });

    it('10: a hosted-checkout callback carries the payer\'s IP as the page saw it', async () => {
      const { redirect_url } = await open();
      const res = await fetch(`${redirect_url}/pay`, {
        method: 'POST', redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.7' },
        body: new URLSearchParams({ method: 'card', card_number: '4111 1111 1111 1111', card_expiry: '01/38', card_cvv: '123', card_holder: 'John Doe' }).toString(),
      });
      assert.ok(res.status < 400, String(res.status));
      const sessionId = new URL(redirect_url).pathname.split('/').pop();
      const [payment] = await t.store.db.query<{ id: string }>('SELECT id FROM payments WHERE session_id = $1', [sessionId]);
      assert.ok(payment);
      const [callback] = await listener.waitForMatching((c) => c.fields.id === payment.id, 1, 15_000);
      assert.equal(callback?.fields.customer_ip, '203.0.113.7');
    });
  });
}
