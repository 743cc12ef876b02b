/**
 * Issue 25 item 24: the hosted page asks for every payer field the routed connector requires. The platform family's
 * SALE (the `akurateco` connector, here forwarding to an upstream Portcullis) refuses a payer without a phone with a
 * 400; the page now asks the phone when the session has none, and the server insists before any acquirer is called.
 * An upstream refusal of our request itself (an ERROR answer: invalid_request) is recorded as the payment's decline
 * and the payer is not put back on the form to loop: the page says the payment could not be made and links back.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { checkoutHash } from '../support/merchant.ts';
import type { TestGateway, TestMerchant } from '../support/gateway.ts';
import { startChain, startProxy, upstreamPayments, type Chain, type Proxy } from './support.ts';

const CARD = { method: 'card', card_number: '4111 1111 1111 1111', card_expiry: '01/38', card_cvv: '123', card_holder: 'John Doe' };

for (const { kind, skip } of await storeKinds()) {
  describe(`payer fields a connector requires, asked on the hosted page (${kind})`, { skip }, () => {
    let chain: Chain;
    before(async () => { chain = await startChain(kind); });
    after(async () => chain?.close());

    async function openSession(gw: TestGateway, m: TestMerchant, extra: Record<string, unknown> = {}): Promise<{ page: string; order: string }> {
      const order = { number: `PHONE-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`, amount: '10.00', currency: 'USD', description: 'Payer fields' };
      const session = await gw.postJson('/api/v1/session', {
        merchant_key: m.key, operation: 'purchase', methods: ['card'], order,
        success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel', customer: { name: 'John Doe', email: 'success@gmail.com' },
        hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description), ...extra,
      });
      assert.equal(session.status, 200, session.text);
      return { page: `${gw.baseUrl}${new URL(session.body.redirect_url).pathname}`, order: order.number };
    }
    const post = async (page: string, form: Record<string, string>) => {
      const res = await fetch(`${page}/pay`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
      return { status: res.status, text: await res.text() };
    };
    const paymentIdOf = async (gw: TestGateway, m: TestMerchant, order: string) =>
      (await gw.postJson('/api/v1/payment/status', { merchant_key: m.key, order_id: order, hash: checkoutHash(m.password, order) })).body.payment_id as string | undefined;

    it('akurateco MID, no phone in the session: the page asks it; without one the acquirer is not called; with one the payment goes', async () => {
      const { ours } = chain;
      const m = ours.merchant;
      const { page, order } = await openSession(ours, m);
      assert.match(await (await fetch(page)).text(), /name="payer_phone"[^>]*required/);
      const without = await post(page, CARD);
      assert.equal(without.status, 422);
      assert.match(without.text, /Enter a phone number/);
      const id = await paymentIdOf(ours, m, order);
      if (id) assert.deepEqual(await upstreamPayments(chain, id), [], 'no SALE went upstream');
      const paid = await post(page, { ...CARD, payer_phone: '+44 1234 567' });
      assert.equal(paid.status, 200, paid.text.slice(0, 300));
      assert.match(paid.text, /Payment successful/);
      const [upstream] = await upstreamPayments(chain, (await paymentIdOf(ours, m, order))!);
      assert.equal(upstream?.payer.phone, '+44 1234 567');
    });

    it('a session that carries the phone is not asked again; a sandbox MID asks no phone', async () => {
      const { ours, upstream } = chain;
      const withPhone = await openSession(ours, ours.merchant, { billing_address: { phone: '+441234567' } });
      assert.doesNotMatch(await (await fetch(withPhone.page)).text(), /name="payer_phone"/);
      const sandbox = await openSession(upstream, upstream.merchant);
      assert.doesNotMatch(await (await fetch(sandbox.page)).text(), /name="payer_phone"/);
    });
  });

  describe(`an upstream refusal of our request ends the hosted session (${kind})`, { skip }, () => {
    let chain: Chain;
    let proxy: Proxy;
    before(async () => {
      chain = await startChain(kind);
      // The acquirer refuses our SALE itself (an ERROR answer, invalid_request); everything else goes through.
      proxy = await startProxy(`${chain.upstream.baseUrl}/post`, {
        rewrite: (action, body) => (action === 'SALE' ? JSON.stringify({ action: 'SALE', result: 'ERROR', error_code: '100000', error_message: 'Request data is invalid.' }) : body),
      });
      await chain.ours.store.db.query("UPDATE mids SET settings = jsonb_set(settings, '{endpoint}', to_jsonb($1::text)) WHERE id = $2", [proxy.url, chain.midId]);
      chain.ours.gateway.ctx.merchants.invalidate();
    });
    after(async () => {
      await chain?.close();
      await proxy?.close();
    });

    it('recorded as the decline "Request refused by the acquirer"; the payer is not put back on the form to meet it again', async () => {
      const { ours } = chain;
      const m = ours.merchant;
      const order = { number: `REFUSED-${Date.now()}`, amount: '10.00', currency: 'USD', description: 'Refused request' };
      const session = await ours.postJson('/api/v1/session', {
        merchant_key: m.key, operation: 'purchase', methods: ['card'], order, error_url: 'https://shop.example/error',
        success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel', customer: { name: 'John Doe', email: 'success@gmail.com' },
        billing_address: { phone: '+441234567' }, hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
      });
      assert.equal(session.status, 200, session.text);
      const page = `${ours.baseUrl}${new URL(session.body.redirect_url).pathname}`;
      const post = async () => (await fetch(`${page}/pay`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(CARD).toString() })).status;
      await post();
      const status = await ours.postJson('/api/v1/payment/status', { merchant_key: m.key, order_id: order.number, hash: checkoutHash(m.password, order.number) });
      assert.equal(status.body.status, 'decline', status.text);
      assert.equal(status.body.reason, 'Request refused by the acquirer', status.text);
      // Not the form again (a retry would meet the same refusal): the page that ends the session, linking to error_url.
      const after = (await (await fetch(page)).text()).replace(/&amp;/g, '&');
      assert.doesNotMatch(after, /id="pay-form"/);
      assert.match(after, /https:\/\/shop\.example\/error/);
      await post();
      assert.equal(proxy.actions.filter((a) => a === 'SALE').length, 1, 'the acquirer was asked once');
    });
  });
}
