/**
 * `parameters.<method_key>` on a Checkout session over HTTP, on both stores: a bad member answers the D3 body
 * naming its full path; a valid one opens the session and is stored as it goes on to the provider.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { getSession } from '../../src/store/sessions-repo.ts';

const CART = {
  items: [{ name: 'Tea', merchantItemId: 'T-1', quantity: '2', currency: 'EUR', price: '1250', totalAmount: '2500', quantityUnit: 'COUNT', recipient: { country: 'DE', phone: '4930123456' } }],
  payments: [{ type: 'GIFTCARD', amount: '5.00', currency: 'EUR', primary: false }],
};

const invalid = (...messages: string[]) => ({
  http_code: 400,
  error_code: '100000',
  error_message: 'Request data is invalid.',
  errors: messages.map((error_message) => ({ error_code: '100000', error_message })),
});

for (const { kind, skip } of await storeKinds()) {
  describe(`Checkout session parameters (${kind})`, { skip }, () => {
    let t: TestGateway;

    before(async () => {
      t = await startTestGateway(kind);
    });
    after(async () => {
      await t?.close();
    });

    function session(extra: Record<string, unknown>, order: { currency?: string; number?: string } = {}) {
      const o = { number: order.number ?? `order-${Math.random().toString(36).slice(2)}`, amount: '25.00', currency: order.currency ?? 'EUR', description: 'Two teas' };
      const body = {
        merchant_key: t.merchant.key,
        operation: 'purchase',
        methods: ['card'],
        order: o,
        success_url: 'https://shop.example/success',
        cancel_url: 'https://shop.example/cancel',
        customer: { name: 'John Doe', email: 'success@gmail.com' },
        billing_address: { country: 'DE', city: 'Berlin', address: '1 Main Street', zip: '10115' },
        hash: checkoutHash(t.merchant.password, o.number, o.amount, o.currency, o.description),
        ...extra,
      };
      return t.postJson('/api/v1/session', body);
    }

    it('answers the D3 body naming parameters.card.cart.items[0].price', async () => {
      const cart = { ...CART, items: [{ ...CART.items[0], price: '12345678901234' }] };
      const res = await session({ parameters: { card: { cart } } });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body, invalid('parameters.card.cart.items[0].price: This value is too long. It should have 13 characters or less.'));
    });

    it('opens a session with valid card parameters and stores them', async () => {
      const card = { descriptor: 'TEA SHOP', shipping: { street1: '1 Main Street', country: 'DE', type: 'shipment' }, cart: CART, marketPlace: { sellers: [{ id: 's1', amount: '2500' }] } };
      const res = await session({ parameters: { card } });
      assert.equal(res.status, 200, res.text);
      const id = new URL(res.body.redirect_url).pathname.split('/').pop() as string;
      const stored = await getSession(t.store.db, id);
      assert.deepEqual(stored?.request.parameters, { card });
    });

    it('lists every failing member, nested paths in full', async () => {
      const res = await session({ parameters: { card: { descriptor: 'x'.repeat(21), shipping: { country: 'BRA' }, bnrg_installm_def: '01' } } });
      assert.equal(res.status, 400, res.text);
      const messages = (res.body.errors as { error_message: string }[]).map((e) => e.error_message).sort();
      assert.deepEqual(messages, [
        'parameters.card.bnrg_installm_months: This value should not be blank.',
        'parameters.card.bnrg_installm_plan: This value should not be blank.',
        'parameters.card.descriptor: This value is too long. It should have 20 characters or less.',
        'parameters.card.shipping.country: This value should have exactly 2 characters.',
      ]);
    });

    it('refuses session fields inside parameters, and keys that are not offered methods', async () => {
      const res = await session({ parameters: { card: { session_expiry: 30 }, session_expiry: 30, ips: {} } });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body, invalid(
        'parameters.session_expiry: This field was not expected.',
        'parameters.ips: This field was not expected.',
        'parameters.card.session_expiry: This field was not expected.',
      ));
    });

    it('refuses a method parameters member that is not an object', async () => {
      const res = await session({ parameters: { card: 'descriptor' } });
      assert.deepEqual(res.body, invalid('parameters.card: This value should be of type array.'));
    });

    it('leaves to the page what it can ask, and refuses what it cannot', async () => {
      const asked = await session({ methods: ['card', 'document-id-type', 'country-fields'], billing_address: { country: 'BR' } });
      assert.equal(asked.status, 200, asked.text);
      const missing = await session({ methods: ['bank-code'], parameters: { 'bank-code': { bank_code: 'DEUTDEFF' } } });
      assert.deepEqual(missing.body, invalid('parameters.bank-code.bank_account_number: This value should not be blank.'));
    });

    it('keeps the QR method to EUR, RSD, BAM and MKD', async () => {
      assert.equal((await session({ methods: ['ips'] }, { currency: 'RSD' })).status, 200);
      assert.deepEqual((await session({ methods: ['ips'] }, { currency: 'USD' })).body, invalid('order.currency: The value you selected is not a valid choice.'));
    });

    it('checks the request fields a method rules on', async () => {
      const res = await session({ methods: ['mobile-money'] }, { number: 'A-1' });
      assert.deepEqual(res.body, invalid('order.number: This value is too short. It should have 8 characters or more.'));
    });

    // Every payout method runs on Checkout since issue 17; a payin offered on a payout session is still refused.
    it('refuses a method that the operation does not carry', async () => {
      const res = await session({ operation: 'credit', methods: ['pix-payin'] });
      assert.equal(res.status, 400, res.text);
      assert.ok((res.body.errors as { error_message: string }[]).some((e) => e.error_message === 'methods[0]: The value you selected is not a valid choice.'), res.text);
    });

    // Issue 17: a payout session carries its payee to the payout; what the payout uses of the free-form payee objects must be valid.
    it('refuses payee data the payout cannot use, naming each field', async () => {
      const res = await session({ operation: 'credit', methods: ['pix-payout'], payee: { email: 'not-an-email', first_name: 7 }, payee_billing_address: { country: 'XX', city: 'x'.repeat(256) } });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body, invalid(
        'payee.first_name: This value should be of type string.',
        'payee_billing_address.city: This value is too long. It should have 255 characters or less.',
        'payee.email: This value is not a valid email address.',
        'payee_billing_address.country: This value is not a valid country.',
      ));
    });

    it('opens a payout session whose payee fields win over the customer, and keeps them with its payment', async () => {
      const res = await session({
        operation: 'credit', methods: ['mail-payout'], payee_first_name: 'Ana', payee_last_name: 'Lima',
        payee: { email: 'ana@example.com', phone: '+351912345678' }, payee_billing_address: { country: 'PT', city: 'Lisboa' },
      });
      assert.equal(res.status, 200, res.text);
      const id = new URL(res.body.redirect_url).pathname.split('/').pop() as string;
      const stored = await getSession(t.store.db, id);
      const [payment] = await t.store.db.query<{ payer: Record<string, string>; details: { payee: Record<string, string> } }>('SELECT payer, details FROM payments WHERE id = $1', [stored!.paymentId]);
      assert.equal(payment!.payer.name, 'Ana Lima');
      assert.equal(payment!.payer.email, 'ana@example.com');
      assert.equal(payment!.payer.country, 'PT');
      assert.deepEqual(payment!.details.payee, {
        payee_first_name: 'Ana', payee_last_name: 'Lima', payee_email: 'ana@example.com', payee_phone: '+351912345678', payee_country: 'PT', payee_city: 'Lisboa',
        payee_address: '1 Main Street', payee_zip: '10115',
      });
    });

    it('opens a mobile-money payout with no payee at all: the page will ask for it', async () => {
      const res = await session({ operation: 'credit', methods: ['mobile-money-payout'], customer: undefined }, { currency: 'GHS' });
      assert.equal(res.status, 200, res.text);
    });

    it('drops a narrative file name sent without its file, and fills in the fixed instant-payment type', async () => {
      const pix = { expiryDate: '2030-01-16T10:00:00Z', callbackUrl: 'https://shop.example/pix', reference: 'r-1', merchantType: 'retail', merchantName: 'Tea Shop', accountId: 'acc-1' };
      const res = await session({ methods: ['mobile-money-narrative', 'pix'], parameters: { 'mobile-money-narrative': { NarrativeFileName: 'a.txt' }, pix } }, { currency: 'BRL' });
      assert.equal(res.status, 200, res.text);
      const id = new URL(res.body.redirect_url).pathname.split('/').pop() as string;
      const stored = await getSession(t.store.db, id);
      assert.deepEqual(stored?.request.parameters, { 'mobile-money-narrative': {}, pix: { ...pix, market: 'BR', type: 'PIX' } });
    });
  });
}
