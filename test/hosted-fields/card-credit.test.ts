/**
 * `POST /api/v1/payment/card/credit` over HTTP on both stores: the card credit hash (order_id + order_amount +
 * order_currency + order_description + PASSWORD), card_number or card_token, payee names from the token unless
 * sent, 200 "accepted" and the outcome by callback type=credit.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener, platformBody } from '../support/merchant.ts';
import { callbackHashOk, collect, newOrder, openToken, processing, spyOnConnector, status } from './support.ts';

const PAYOUT_CARD = '4601541833776519';

function creditBody(m: TestMerchant, extra: Record<string, unknown> = {}, order = { id: `cr-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, amount: '15.00', currency: 'USD', description: 'Payout' }) {
  return {
    merchant_key: m.key,
    order_id: order.id,
    order_amount: order.amount,
    order_currency: order.currency,
    order_description: order.description,
    card_number: PAYOUT_CARD,
    hash: checkoutHash(m.password, order.id, order.amount, order.currency, order.description),
    ...extra,
  };
}

for (const { kind, skip } of await storeKinds()) {
  describe(`card credit (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    let calls: ReturnType<typeof spyOnConnector>;

    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true, notificationUrl: listener.url });
      calls = spyOnConnector(t);
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    const creditCallback = async (orderId: string) => {
      const [cb] = await listener.waitForMatching((c) => c.fields.order_number === orderId, 1);
      assert.ok(cb);
      assert.ok(callbackHashOk(t.merchant, cb.fields));
      return cb.fields;
    };

    it('pays out to a card number: 200 accepted, then a signed callback type=credit', async () => {
      const body = creditBody(t.merchant, { payee_first_name: 'Ann', payee_last_name: 'Lee', payee_email: 'ann@example.com', custom_data: { ref: 'p-1' } });
      const res = await t.postJson('/api/v1/payment/card/credit', body);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.result, 'accepted');
      assert.match(res.body.payment_id, /^[0-9a-f-]{36}$/);
      assert.deepEqual(Object.keys(res.body).sort(), ['payment_id', 'result']);
      const cb = await creditCallback(body.order_id);
      assert.equal(cb.type, 'credit');
      assert.equal(cb.status, 'success');
      assert.equal(cb.order_status, 'settled');
      assert.equal(cb.id, res.body.payment_id);
      assert.equal(cb.card, '460154****6519');
      assert.equal(cb.customer_name, 'Ann Lee');
      assert.equal(cb.customer_email, 'ann@example.com');
      assert.equal(cb['custom_data[ref]'], 'p-1');
      assert.equal(calls.at(-1)?.intent, 'payout');
      const st = await status(t, { payment_id: res.body.payment_id });
      assert.equal(st.body.status, 'settled');
      // The card sent for a payout is used once: it is not in the vault.
      const vaulted = await t.store.db.query('SELECT 1 FROM card_vault v JOIN payments p ON p.vault_id = v.id WHERE p.id = $1', [res.body.payment_id]);
      assert.equal(vaulted.length, 0);
    });

    it('a card the test engine refuses for payouts: still 200 accepted, the callback reports the decline', async () => {
      const body = creditBody(t.merchant, { card_number: '5555555555554444' });
      const res = await t.postJson('/api/v1/payment/card/credit', body);
      assert.equal(res.status, 200, res.text);
      const cb = await creditCallback(body.order_id);
      assert.equal(cb.type, 'credit');
      assert.equal(cb.status, 'fail');
      assert.equal(cb.order_status, 'decline');
    });

    it('pays out to a card_token; the payee name comes from the token unless sent', async () => {
      // A debit through the hosted fields stores the card and gives its token.
      const order = newOrder('tok');
      const token = await openToken(t, order, { operation: 'debit' });
      await collect(t, token);
      const paid = await processing(t, token, 'debit', { name: 'Jane Roe', with_hosted_fields: true });
      assert.equal(paid.body.result, 'success', paid.text);
      const [debitCb] = await listener.waitForMatching((c) => c.fields.order_number === order.number, 1);
      const cardToken = debitCb?.fields.card_token ?? '';
      assert.match(cardToken, /^[0-9a-f]{64}$/);
      // The vault row has no holder from the hosted fields (the name is not a field): set one as an issuer would.
      await t.store.db.query("UPDATE card_vault SET holder = 'Jane Q Roe' WHERE id = (SELECT vault_id FROM card_tokens WHERE token = $1)", [cardToken]);

      const fromToken = creditBody(t.merchant, { card_number: undefined, card_token: cardToken });
      delete (fromToken as Record<string, unknown>).card_number;
      const res = await t.postJson('/api/v1/payment/card/credit', fromToken);
      assert.equal(res.status, 200, res.text);
      const cb = await creditCallback(fromToken.order_id);
      assert.equal(cb.customer_name, 'Jane Q Roe');
      assert.equal(cb.card, '411111****1111');
      assert.equal(cb.status, 'success');
      assert.equal(calls.at(-1)?.card.pan, '4111111111111111');

      const named = creditBody(t.merchant, { card_token: cardToken, payee_last_name: 'Smith' });
      delete (named as Record<string, unknown>).card_number;
      await t.postJson('/api/v1/payment/card/credit', named);
      assert.equal((await creditCallback(named.order_id)).customer_name, 'Jane Smith', 'request values take priority');

      // Another merchant cannot use this merchant's token.
      const other = await t.addMerchant();
      const foreign = creditBody(other, { card_token: cardToken });
      delete (foreign as Record<string, unknown>).card_number;
      const refused = await t.postJson('/api/v1/payment/card/credit', foreign);
      assert.deepEqual(refused.body, { http_code: 400, error_code: '205005', error_message: 'Card token is invalid or not found.' });
    });

    it('checks the hash with the card credit formula, and the merchant', async () => {
      const body = creditBody(t.merchant);
      const sessionFormula = checkoutHash(t.merchant.password, body.order_id, body.order_amount, body.order_currency, body.order_description);
      assert.equal(sessionFormula, body.hash, 'same terms in the same order as a session, on the order_* fields');
      const bad = await t.postJson('/api/v1/payment/card/credit', { ...body, hash: checkoutHash(t.merchant.password, body.order_id, '15.01', 'USD', body.order_description) });
      assert.deepEqual(platformBody(bad.body), { http_code: 401, error_code: '100000', error_message: 'hash: Hash is not valid.' });
      const unknown = await t.postJson('/api/v1/payment/card/credit', { ...body, merchant_key: 'nobody' });
      assert.equal(unknown.status, 401);
      const other = await t.addMerchant();
      assert.equal((await t.postJson('/api/v1/payment/card/credit', { ...body, merchant_key: other.key })).status, 401);
      // Amount sent as a JSON number: the hash covers its decimal string.
      const numeric = creditBody(t.merchant, {}, { id: `num-${Date.now()}`, amount: '20', currency: 'USD', description: 'Payout' });
      assert.equal((await t.postJson('/api/v1/payment/card/credit', { ...numeric, order_amount: 20 })).status, 200);
    });

    it('answers 400 for bad fields, an unknown card_token and a zero amount', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ card_number: '4111111111111112' }, 'card_number: Invalid card number.'],
        [{ card_number: '4111-1111' }, 'card_number: This value is not valid.'],
        [{ card_token: 'short' }, 'card_token: This value is too short. It should have 64 characters or more.'],
        [{ order_currency: 'usd' }, 'order_currency: This value is not valid.'],
        [{ order_description: 'x' }, 'order_description: This value is too short. It should have 2 characters or more.'],
        [{ payee_email: 'xyz' }, 'payee_email: This value is not a valid email address.'],
        [{ payee_ip: 'nope' }, 'payee_ip: This value is not a valid IP address.'],
        [{ order_id: undefined }, 'order_id: This value should not be blank.'],
      ];
      for (const [patch, message] of cases) {
        const body: Record<string, unknown> = { ...creditBody(t.merchant), ...patch };
        for (const [k, v] of Object.entries(patch)) if (v === undefined) delete body[k];
        const res = await t.postJson('/api/v1/payment/card/credit', body);
        assert.equal(res.status, 400, `${JSON.stringify(patch)}: ${res.text}`);
        assert.ok(res.body.errors.some((e: { error_message: string }) => e.error_message === message), `${message} in ${res.text}`);
      }
      const noCard = creditBody(t.merchant);
      delete (noCard as Record<string, unknown>).card_number;
      assert.equal((await t.postJson('/api/v1/payment/card/credit', noCard)).body.errors[0].error_message, 'card_number: This value should not be blank.');
      const zero = creditBody(t.merchant, {}, { id: `zero-${Date.now()}`, amount: '0.00', currency: 'USD', description: 'Payout' });
      assert.equal((await t.postJson('/api/v1/payment/card/credit', zero)).body.errors[0].error_message, 'order_amount: This value should be greater than 0.');
      const precise = creditBody(t.merchant, {}, { id: `p-${Date.now()}`, amount: '1.005', currency: 'USD', description: 'Payout' });
      assert.equal((await t.postJson('/api/v1/payment/card/credit', precise)).body.errors[0].error_message, 'order_amount: This value is not valid.');
      const unknownToken = creditBody(t.merchant, { card_token: 'a'.repeat(64) });
      delete (unknownToken as Record<string, unknown>).card_number;
      const res = await t.postJson('/api/v1/payment/card/credit', unknownToken);
      assert.deepEqual(res.body, { http_code: 400, error_code: '205005', error_message: 'Card token is invalid or not found.' });
      const rows = await t.store.db.query('SELECT 1 FROM payments WHERE order_id = $1', [unknownToken.order_id]);
      assert.equal(rows.length, 0, 'an unknown token leaves no payment behind');
    });
  });
}
