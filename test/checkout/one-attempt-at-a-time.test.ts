/**
 * A Checkout session has one attempt under way at a time, over HTTP on both stores: while its card payment waits at
 * 3-D Secure (the payer in another tab, say), choosing an alternative method on the page continues the challenge
 * instead of opening a second payment beside it that could be paid too; the session ends paid once.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

for (const { kind, skip } of await storeKinds()) {
  describe(`Checkout: one attempt at a time (${kind})`, { skip }, () => {
    let t: TestGateway;
    before(async () => {
      t = await startTestGateway(kind);
    });
    after(async () => t?.close());

    const post = (path: string, fields: Record<string, string>) =>
      fetch(`${t.baseUrl}${path}`, { method: 'POST', redirect: 'manual', headers: FORM, body: new URLSearchParams(fields).toString() });
    const paymentsOf = async (sessionId: string) =>
      (await t.store.db.query<{ status: string }>('SELECT status FROM payments WHERE session_id = $1 ORDER BY created_at', [sessionId])).map((r) => r.status);

    it('an alternative method chosen while the card waits at 3-D Secure continues the challenge; no second payment', async () => {
      const order = { number: `ONE-${kind}-${Date.now()}`, amount: '10.00', currency: 'EUR', description: 'One at a time' };
      const session = await t.postJson('/api/v1/session', {
        merchant_key: t.merchant.key, operation: 'purchase', methods: ['card', 'bank-details'], order,
        success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel', customer: { name: 'John Doe', email: 'success@gmail.com' },
        hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description),
      });
      assert.equal(session.status, 200, session.text);
      const page = new URL(session.body.redirect_url).pathname;
      const sessionId = page.split('/').pop()!;

      // The card asks for a challenge (expiry 05/38 on the sandbox): the payer is sent to the ACS.
      const card = await post(`${page}/pay`, { method: 'card', card_number: '4111 1111 1111 1111', card_expiry: '05/38', card_cvv: '123', card_holder: 'John Doe' });
      const acs = card.headers.get('location');
      assert.equal(card.status, 303, await card.text());
      assert.match(acs ?? '', /^\/sandbox\/acs\//);
      assert.deepEqual(await paymentsOf(sessionId), ['3ds']);

      // Meanwhile, on the page again, bank details are chosen: the challenge goes on, nothing new is opened.
      const other = await post(`${page}/pay`, { method: 'bank-details' });
      assert.equal(other.status, 303, await other.text());
      assert.equal(other.headers.get('location'), acs);
      assert.deepEqual(await paymentsOf(sessionId), ['3ds']);

      const done = await fetch(`${t.baseUrl}${acs}/complete`, { method: 'POST', headers: FORM, body: 'decision=submit&otp=1234' });
      assert.ok(done.status < 400, `${done.status}`);
      assert.deepEqual(await paymentsOf(sessionId), ['settled'], 'paid once');
    });
  });
}
