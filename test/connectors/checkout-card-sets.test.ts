/**
 * Issue 25 item 27: a Checkout session's parameters.card reaches the connector. Our merchant's MID forwards with the
 * `akurateco` connector to an upstream Portcullis (the platform family's S2S CARD); the session's card parameter
 * sets arrive there in the SALE's parameters[...] and are kept with the upstream's payment.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { checkoutHash } from '../support/merchant.ts';
import { startChain, upstreamPayments, type Chain } from './support.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`Checkout parameters.card through the akurateco connector (${kind})`, { skip }, () => {
    let chain: Chain;
    before(async () => { chain = await startChain(kind); });
    after(async () => chain?.close());

    it('the instalment set sent in parameters.card is in the upstream SALE', async () => {
      const { ours } = chain;
      const m = ours.merchant;
      const order = { number: `SETS-${Date.now()}`, amount: '10.00', currency: 'USD', description: 'Card sets' };
      const card = { bnrg_installm_def: '01', bnrg_installm_months: '03', bnrg_installm_plan: '05' };
      const session = await ours.postJson('/api/v1/session', {
        merchant_key: m.key, operation: 'purchase', methods: ['card'], order, parameters: { card },
        success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel',
        customer: { name: 'John Doe', email: 'success@gmail.com' },
        // The family's SALE requires the payer's phone (item 24: the page does not ask it yet).
        billing_address: { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567' },
        hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
      });
      assert.equal(session.status, 200, session.text);
      const res = await fetch(`${ours.baseUrl}${new URL(session.body.redirect_url).pathname}/pay`, {
        method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ method: 'card', card_number: '4111 1111 1111 1111', card_expiry: '01/38', card_cvv: '123', card_holder: 'John Doe' }).toString(),
      });
      assert.equal(res.status, 200, 'the receipt page');
      assert.match(await res.text(), /Payment successful/);
      const paymentId = session.body.payment_id as string | undefined ?? (await ours.postJson('/api/v1/payment/status', { merchant_key: m.key, order_id: order.number, hash: checkoutHash(m.password, order.number) })).body.payment_id;
      assert.ok(paymentId);
      const [upstream] = await upstreamPayments(chain, paymentId);
      assert.ok(upstream, 'the SALE reached the upstream');
      const sent = upstream.details.parameters as Record<string, unknown> | undefined;
      assert.deepEqual({ ...sent }, { ...sent, ...card }, `the upstream got ${JSON.stringify(sent)}`);
    });
  });
}
