/**
 * Helpful bad-hash answers, on both stores: a sandbox merchant's 401 is the platform's body plus a `hint`
 * naming the formula expected and the fields it covers, in every channel that checks hashes (Checkout,
 * hosted fields, card credit, recurring, test clock, S2S CARD by form and multipart, S2S APM); the hint
 * never holds the expected value; a live merchant's answer is the platform's, byte for byte.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash, f1 } from '../support/merchant.ts';
import { mobileMoneyPayout, representative, saleFields, saleHash } from '../apm/support.ts';

const PLATFORM_401 = { http_code: 401, error_code: '100000', error_message: 'hash: Hash is not valid.' };
const ORDER = { number: 'hint-1', amount: '10.00', currency: 'USD', description: 'Hint order' };
const SALE = {
  action: 'SALE', order_id: 'hint-s2s', order_amount: '10.00', order_currency: 'USD', order_description: 'Hint', card_number: '4111111111111111', card_exp_month: '01',
  card_exp_year: '2038', card_cvv2: '123', payer_first_name: 'John', payer_last_name: 'Doe', payer_email: 'doe@example.com', payer_phone: '+441234567890',
  payer_ip: '203.0.113.9', payer_address: '1 Main Street', payer_country: 'GB', payer_city: 'London', payer_zip: 'SW1A1AA', term_url_3ds: 'https://shop.example/3ds',
};

for (const { kind, skip } of await storeKinds()) {
  describe(`bad-hash hints (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let live: TestMerchant;
    let sha256: TestMerchant;
    before(async () => {
      gw = await startTestGateway(kind);
      live = await gw.addMerchant({ sandbox: false });
      sha256 = await gw.addMerchant({ digest: 'sha256' });
    });
    after(async () => gw?.close());

    /** The hint of a sandbox answer, after checking the rest is the platform's body and no expected value leaks. */
    function hintOf(res: { status: number; body: any }, expected: string, s2s = false): string {
      assert.equal(res.status, 401);
      const { hint, ...platform } = res.body;
      assert.deepEqual(platform, s2s ? { ...PLATFORM_401, result: 'ERROR' } : PLATFORM_401);
      assert.equal(typeof hint, 'string');
      assert.ok(!hint.includes(expected), 'the hint never holds the expected hash');
      assert.ok(!/[0-9a-f]{32}/.test(hint), 'no digest-like value at all');
      return hint as string;
    }

    it('Checkout session: the session formula and its fields; a live merchant gets the platform body only', async () => {
      const body = { merchant_key: gw.merchant.key, operation: 'purchase', order: ORDER, success_url: 'https://shop.example/s', cancel_url: 'https://shop.example/c', hash: 'a'.repeat(40) };
      const hint = hintOf(await gw.postJson('/api/v1/session', body), checkoutHash(gw.merchant.password, ORDER.number, ORDER.amount, ORDER.currency, ORDER.description));
      assert.match(hint, /sha1\(md5\(UPPER\(order\.number \. order\.amount \. order\.currency \. order\.description \. PASSWORD\)\)\)/);
      assert.match(hint, /covers order\.number, order\.amount, order\.currency, order\.description and your password/);
      const liveRes = await gw.postJson('/api/v1/session', { ...body, merchant_key: live.key });
      assert.equal(liveRes.status, 401);
      assert.equal(liveRes.text, JSON.stringify(PLATFORM_401), 'the platform\'s bytes for a live merchant');
    });

    it('names the digest of a SHA-256 merchant', async () => {
      const res = await gw.postJson('/api/v1/payment/status', { merchant_key: sha256.key, payment_id: 'p-1', hash: 'b'.repeat(40) });
      assert.match(hintOf(res, checkoutHash(sha256.password, 'p-1')), /sha1\(sha256\(UPPER\(payment_id \. PASSWORD\)\)\)/);
    });

    it('every Checkout route that checks a hash names its own recipe', async () => {
      const key = gw.merchant.key;
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ['/api/v1/payment/status', { merchant_key: key, order_id: 'o-1', hash: 'c'.repeat(40) }, /order_id \. PASSWORD/],
        ['/api/v1/payment/capture', { merchant_key: key, payment_id: 'p-1', amount: '1.00', hash: 'c'.repeat(40) }, /payment_id \. amount \. PASSWORD/],
        ['/api/v1/payment/refund', { merchant_key: key, payment_id: 'p-1', hash: 'c'.repeat(40) }, /amount \(left out when not sent\)/],
        ['/api/v1/payment/void', { merchant_key: key, payment_id: 'p-1', hash: 'c'.repeat(40) }, /Checkout void or retry/],
        ['/api/v1/payment/retry', { merchant_key: key, payment_id: 'p-1', hash: 'c'.repeat(40) }, /Checkout void or retry/],
        ['/api/v1/payment/recurring', { merchant_key: key, recurring_init_trans_id: 'i', recurring_token: 't', order: { number: 'n', amount: '1.00', description: 'dd' }, hash: 'c'.repeat(40) }, /recurring_init_trans_id \. recurring_token/],
        ['/api/v1/payment/card/credit', { merchant_key: key, order_id: 'o-2', order_amount: '1.00', order_currency: 'USD', order_description: 'Payout', card_number: '4601541833776519', hash: 'c'.repeat(40) }, /order_id \. order_amount \. order_currency \. order_description/],
        ['/api/v1/session/token', { merchant_key: key, operation: 'purchase', order: ORDER, return_url: 'https://shop.example/r', hash: 'c'.repeat(40) }, /hosted-fields session token/],
        ['/sandbox/test-clock', { merchant_key: key, hash: 'c'.repeat(40) }, /merchant_key \. PASSWORD/],
        ['/sandbox/test-clock/advance', { merchant_key: key, days: 1, hash: 'c'.repeat(40) }, /merchant_key \. days \. seconds/],
      ];
      for (const [path, body, formula] of cases) assert.match(hintOf(await gw.postJson(path, body), 'none'), formula, path);
    });

    it('S2S CARD, form and multipart: the action\'s formulas, every accepted one named', async () => {
      const sale = { ...SALE, client_key: gw.merchant.key, hash: 'd'.repeat(32) };
      const expected = f1('doe@example.com', gw.merchant.password, '4111111111111111');
      assert.match(hintOf(await gw.postForm('/post', sale), expected, true), /Formula 1: md5\(UPPER\(strrev\(payer_email\) \. PASSWORD \. strrev\(first6 \. last4\)\)\)/);
      const multipart = new FormData();
      for (const [k, v] of Object.entries(sale)) multipart.append(k, v);
      const res = await fetch(`${gw.baseUrl}/v2/post`, { method: 'POST', body: multipart });
      assert.match(hintOf({ status: res.status, body: await res.json() }, expected, true), /Formula 1/);
      const paid = await gw.postForm('/post', { ...SALE, order_id: 'hint-paid', client_key: gw.merchant.key, hash: expected });
      assert.equal(paid.status, 200, paid.text);
      const capture = hintOf(await gw.postForm('/post', { action: 'CAPTURE', client_key: gw.merchant.key, trans_id: paid.body.trans_id, hash: 'd'.repeat(32) }), 'none', true);
      assert.match(capture, /Formula 2: .* -- or -- the trans_id recipe: md5\(UPPER\(strrev\(trans_id\)\) \. PASSWORD\)/);
      assert.match(hintOf(await gw.postForm('/post', { action: 'CREATE_SCHEDULE', client_key: gw.merchant.key, name: 'x', hash: 'd'.repeat(32) }), 'none', true), /Formula 3: md5\(UPPER\(strrev\(PASSWORD\)\)\); covers your password only/);
      const liveAnswer = await gw.postForm('/post', { ...sale, client_key: live.key });
      assert.equal(liveAnswer.text, JSON.stringify({ ...PLATFORM_401, result: 'ERROR' }));
    });

    it('S2S APM: SALE, CREDITVOID and CREDIT2VIRTUAL name their own recipes', async () => {
      const apm = (fields: Record<string, unknown>) => gw.postForm('/apm/post', { client_key: gw.merchant.key, hash: 'e'.repeat(32), ...fields });
      const fields = saleFields(representative('extra_fields', 's2s_apm').key);
      const expected = saleHash(fields as { order_id: string; order_amount: string; order_currency: string }, gw.merchant.password);
      assert.match(hintOf(await apm(fields), expected, true), /S2S APM SALE: md5\(UPPER\(strrev\(identifier \. order_id \. order_amount \. order_currency \. PASSWORD\)\)\)/);
      const payout = { action: 'CREDIT2VIRTUAL', brand: mobileMoneyPayout().key, order_id: 'c-1', order_amount: '1500', order_currency: 'XOF', payee_first_name: 'K', payee_last_name: 'M', payee_email: 'success@gmail.com', parameters: { mobile_money_operator: 'mtn-ci', mobile_number: '+2250701020304', customer_email: 'success@gmail.com' } };
      assert.match(hintOf(await apm(payout), 'none', true), /CREDIT2VIRTUAL: md5\(UPPER\(strrev\(order_id \. order_amount \. order_currency\)\) \. PASSWORD\)/);
      assert.match(hintOf(await apm({ action: 'CREDITVOID', trans_id: 'no-such' }), 'none', true), /S2S APM CREDITVOID: md5\(UPPER\(strrev\(trans_id \. PASSWORD\)\)\)/);
      assert.match(hintOf(await apm({ action: 'GET_TRANS_STATUS', trans_id: 'no-such' }), 'none', true), /md5\(UPPER\(strrev\(trans_id\)\) \. PASSWORD\)/);
    });
  });
}
