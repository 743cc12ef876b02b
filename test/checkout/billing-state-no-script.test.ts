/**
 * Issue 25 item 23: the hosted card form posted without JavaScript (a plain form post, as a browser with scripts
 * off sends it). A payer in CA, US, JP, AU or IN without a state is asked for it by the server as the page's script
 * asks: the rule is STATE_REQUIRED_COUNTRIES, which the page also hands its script. Elsewhere no state is asked.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';

const CARD = { method: 'card', card_number: '4111111111111111', card_expiry: '12/38', card_cvv: '123', card_holder: 'John Doe' };
const ADDRESS = { billing_city: 'Springfield', billing_address: '1 Main Street', billing_zip: '12345' };

for (const { kind, skip } of await storeKinds()) {
  describe(`hosted card form without JavaScript: the billing state (${kind})`, { skip }, () => {
    let t: TestGateway;
    let asksAll: TestMerchant;
    let asksNone: TestMerchant;
    before(async () => {
      t = await startTestGateway(kind);
      // Protocol Mapping marks the payer's country required: the whole billing address is asked on the page.
      asksAll = await t.addMerchant({ settings: { requiredPayerFields: ['payer_country'], payerRetries: false } });
      asksNone = await t.addMerchant({ settings: { payerRetries: false } });
    });
    after(async () => t?.close());

    async function openSession(m: TestMerchant, billing?: Record<string, string>): Promise<string> {
      const order = { number: `state-${Math.random().toString(36).slice(2)}`, amount: '10.00', currency: 'USD', description: 'State test' };
      const session = await t.postJson('/api/v1/session', {
        merchant_key: m.key, operation: 'purchase', methods: ['card'], order,
        success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel', error_url: 'https://shop.example/error',
        customer: { name: 'John Doe', email: 'success@gmail.com' }, ...(billing ? { billing_address: billing } : {}),
        hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
      });
      assert.equal(session.status, 200, session.text);
      return `${t.baseUrl}${new URL(session.body.redirect_url).pathname}`;
    }

    async function post(page: string, form: Record<string, string>) {
      const res = await fetch(`${page}/pay`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
      return { status: res.status, location: res.headers.get('location'), text: await res.text() };
    }

    it('the whole address asked: each of CA, US, JP, AU, IN without a state is put back with the state asked; with one it pays', async () => {
      for (const country of ['CA', 'US', 'JP', 'AU', 'IN']) {
        const page = await openSession(asksAll);
        const without = await post(page, { ...CARD, billing_country: country, ...ADDRESS });
        assert.equal(without.status, 422, `${country}: ${without.location ?? ''}`);
        assert.match(without.text, /Enter the state or province/, country);
        const blank = await post(page, { ...CARD, billing_country: country, billing_state: '   ', ...ADDRESS });
        assert.equal(blank.status, 422, `${country} blank state`);
        const paid = await post(page, { ...CARD, billing_country: country, billing_state: 'North', ...ADDRESS });
        assert.equal(paid.status, 303, `${country}: ${paid.text.slice(0, 200)}`);
      }
    });

    it('a country outside the rule pays without a state', async () => {
      const paid = await post(await openSession(asksAll), { ...CARD, billing_country: 'DE', ...ADDRESS });
      assert.equal(paid.status, 303, paid.text.slice(0, 200));
    });

    it("the merchant sent the payer's country without a state: the page asks only the state, and the server insists", async () => {
      const page = await openSession(asksNone, { country: 'JP', city: 'Tokyo', address: '1 Chiyoda', zip: '1000001' });
      const shown = await (await fetch(page)).text();
      assert.match(shown, /name="billing_state"/);
      const without = await post(page, CARD);
      assert.equal(without.status, 422);
      assert.match(without.text, /Enter the state or province/);
      const paid = await post(page, { ...CARD, billing_state: 'Tokyo' });
      assert.equal(paid.status, 303, paid.text.slice(0, 200));
    });

    it("the page hands its script the server's own list of countries", async () => {
      const shown = await (await fetch(await openSession(asksAll))).text();
      assert.match(shown, /"stateCountries":\["CA","US","JP","AU","IN"\]/);
    });
  });
}
