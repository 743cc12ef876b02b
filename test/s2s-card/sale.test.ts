/** S2S CARD SALE over HTTP, on both stores: outcomes, auth, zero amounts, tokens, payer fields, MIDs, multipart. */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { getPayment } from '../../src/store/payments-repo.ts';
import { createHash } from 'node:crypto';
import { CARD, EMAIL, errorOf, f1, f2, messages, sale, saleFields, signedSale } from './support.ts';
import { newSchedule } from '../recurring/support.ts';

/** F1 as merchant libraries using mb_strtoupper compute it (Unicode upper case). */
const unicodeF1 = (email: string, password: string, pan: string) =>
  createHash('md5').update(([...email].reverse().join('') + password + [...(pan.slice(0, 6) + pan.slice(-4))].reverse().join('')).toUpperCase()).digest('hex');

const SUCCESS_KEYS = ['action', 'result', 'status', 'order_id', 'trans_id', 'trans_date', 'descriptor', 'amount', 'currency'];
const DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

for (const { kind, skip } of await storeKinds()) {
  describe(`S2S CARD SALE (${kind})`, { skip }, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway(kind);
    });
    after(() => gw.close());

    it('settles a sale with exactly the documented fields', async () => {
      const fields = saleFields();
      const res = await gw.postForm('/post', signedSale(gw.merchant, fields));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body), SUCCESS_KEYS);
      assert.equal(res.body.action, 'SALE');
      assert.equal(res.body.result, 'SUCCESS');
      assert.equal(res.body.status, 'SETTLED');
      assert.equal(res.body.order_id, fields.order_id);
      assert.match(res.body.trans_id, /^[0-9a-f-]{36}$/);
      assert.match(res.body.trans_date, DATE);
      assert.equal(res.body.amount, '1.99');
      assert.equal(res.body.currency, 'USD');
    });

    it('holds the funds with auth=Y (PENDING)', async () => {
      const res = await sale(gw, { auth: 'Y' });
      assert.equal(res.body.result, 'SUCCESS');
      assert.equal(res.body.status, 'PENDING');
    });

    it('declines with the decline reason (expiry month 02)', async () => {
      const res = await sale(gw, { card_exp_month: '02' });
      assert.equal(res.status, 200);
      assert.equal(res.body.result, 'DECLINED');
      assert.equal(res.body.status, 'DECLINED');
      assert.equal(res.body.decline_reason, 'Declined by processing');
    });

    it('answers REDIRECT to the gateway ACS for a 3DS card, params as an object on /post', async () => {
      const res = await sale(gw, { card_exp_month: '05' });
      assert.equal(res.body.result, 'REDIRECT');
      assert.equal(res.body.status, '3DS');
      assert.equal(res.body.redirect_url, `${gw.baseUrl}/sandbox/acs/${res.body.trans_id}`);
      assert.equal(res.body.redirect_method, 'POST');
      assert.deepEqual(Object.keys(res.body.redirect_params), ['PaReq', 'MD', 'TermUrl']);
      assert.equal(res.body.redirect_params.MD, res.body.trans_id);
    });

    it('lists redirect_params as [{name, value}] on /v2/post', async () => {
      const res = await gw.postForm('/v2/post', signedSale(gw.merchant, saleFields({ card_exp_month: '05' })));
      assert.equal(res.body.result, 'REDIRECT');
      assert.deepEqual(res.body.redirect_params.map((p: { name: string }) => p.name), ['PaReq', 'MD', 'TermUrl']);
      assert.equal(res.body.redirect_params[1].value, res.body.trans_id);
    });

    it('sends a redirect card to the provider page by GET with empty params []', async () => {
      const res = await sale(gw, { card_exp_month: '12' });
      assert.equal(res.body.result, 'REDIRECT');
      assert.equal(res.body.status, 'REDIRECT');
      assert.equal(res.body.redirect_url, `${gw.baseUrl}/sandbox/provider/${res.body.trans_id}`);
      assert.equal(res.body.redirect_method, 'GET');
      assert.deepEqual(res.body.redirect_params, []);
    });

    it('rejects a zero amount of a plain sale as order_amount: This value should be greater than 0.', async () => {
      const res = await sale(gw, { order_amount: '0.00' });
      const body = errorOf(res);
      assert.equal(res.status, 400);
      assert.equal(body.error_code, '100000');
      assert.equal(body.error_message, 'Request data is invalid.');
      assert.deepEqual(messages(res), ['order_amount: This value should be greater than 0.']);
    });

    it('accepts a zero amount with auth=Y or recurring_init=Y', async () => {
      const auth = await sale(gw, { order_amount: '0', auth: 'Y' });
      assert.equal(auth.body.result, 'SUCCESS', auth.text);
      assert.equal(auth.body.status, 'PENDING');
      assert.equal(auth.body.amount, '0.00');
      const recurring = await sale(gw, { order_amount: '0.00', recurring_init: 'Y' });
      assert.equal(recurring.body.result, 'SUCCESS', recurring.text);
    });

    it('returns a card_token with req_token=Y, and a later SALE by card_token charges the stored card', async () => {
      const first = await sale(gw, { req_token: 'Y' });
      assert.equal(first.body.result, 'SUCCESS');
      assert.match(first.body.card_token, /^[0-9a-f]{64}$/);
      const token = first.body.card_token as string;
      const fields = saleFields({ card_number: undefined, card_exp_month: undefined, card_exp_year: undefined, card_cvv2: undefined, card_token: token });
      const second = await gw.postForm('/post', { client_key: gw.merchant.key, ...fields, hash: f1(EMAIL, gw.merchant.password, token) });
      assert.equal(second.body.result, 'SUCCESS', second.text);
      assert.equal(second.body.status, 'SETTLED');
      assert.equal(second.body.card_token, undefined, 'no new token without req_token on card data');
      const payment = await getPayment(gw.store.db, second.body.trans_id);
      assert.equal(payment?.details.cardMask, '411111****1111');
    });

    it('answers 205005 for an unknown card_token', async () => {
      const token = 'a'.repeat(64);
      const fields = saleFields({ card_number: undefined, card_exp_month: undefined, card_exp_year: undefined, card_cvv2: undefined, card_token: token });
      const res = await gw.postForm('/post', { client_key: gw.merchant.key, ...fields, hash: f1(EMAIL, gw.merchant.password, token) });
      assert.equal(errorOf(res).error_code, '205005');
    });

    it('keeps the PAN masked and the CVV nowhere in the store', async () => {
      const res = await sale(gw, { card_cvv2: '987' });
      const [row] = await gw.store.db.query<Record<string, unknown>>('SELECT row_to_json(p)::text AS j FROM payments p WHERE id = $1', [res.body.trans_id]);
      const text = String(row?.j);
      assert.ok(!text.includes(CARD), 'payment row holds no PAN');
      assert.ok(!text.includes('"987"') && !/cvv/i.test(text), 'payment row holds no CVV');
      const vault = await gw.store.db.query<{ j: string }>('SELECT row_to_json(v)::text AS j FROM card_vault v');
      assert.ok(vault.every((v) => !v.j.includes(CARD) && !v.j.includes('"987"')), 'vault holds the PAN encrypted only');
      assert.ok(text.includes('411111****1111'));
    });

    it('treats payer_address, payer_country, payer_city, payer_zip as optional by default', async () => {
      const res = await sale(gw, { payer_address: undefined, payer_country: undefined, payer_city: undefined, payer_zip: undefined });
      assert.equal(res.body.result, 'SUCCESS', res.text);
    });

    it('requires them when the merchant\'s Protocol Mapping marks them Required', async () => {
      const strict = await gw.addMerchant({ settings: { requiredPayerFields: ['payer_address', 'payer_country', 'payer_city', 'payer_zip'] } });
      const res = await sale(gw, { payer_address: undefined, payer_country: undefined, payer_city: '', payer_zip: undefined }, strict);
      assert.equal(errorOf(res).error_message, 'Request data is invalid.');
      assert.deepEqual(messages(res), ['payer_address: This value should not be blank.', 'payer_country: This value should not be blank.', 'payer_city: This value should not be blank.', 'payer_zip: This value should not be blank.']);
      const full = await sale(gw, {}, strict);
      assert.equal(full.body.result, 'SUCCESS');
    });

    it('routes a sale to an SMS-capable MID and an authorization to a DMS-capable one', async () => {
      const smsOnly = await gw.addMerchant({ mids: [{ paymentMode: 'SMS' }] });
      const dmsOnly = await gw.addMerchant({ mids: [{ paymentMode: 'DMS' }] });
      assert.equal((await sale(gw, {}, smsOnly)).body.status, 'SETTLED');
      assert.equal((await sale(gw, { auth: 'Y' }, dmsOnly)).body.status, 'PENDING');
      const noDms = await sale(gw, { auth: 'Y' }, smsOnly);
      assert.deepEqual(errorOf(noDms), { http_code: 400, error_code: '204002', error_message: 'Enabled merchant mappings or MIDs not found.', result: 'ERROR' });
      const noSms = await sale(gw, {}, dmsOnly);
      assert.equal(errorOf(noSms).error_code, '204002');
      const [row] = await gw.store.db.query<{ n: bigint }>('SELECT count(*) AS n FROM payments WHERE merchant_id = ANY($1::text[]) AND status = $2', [[smsOnly.id, dmsOnly.id], 'prepare']);
      assert.equal(Number(row?.n), 0, 'a request with no eligible MID leaves no payment behind');
    });

    it('verifies with sha256 for a merchant in SHA256 mode, and refuses md5 there', async () => {
      const sha = await gw.addMerchant({ digest: 'sha256' });
      const ok = await gw.postForm('/post', signedSale(sha, saleFields(), 'sha256'));
      assert.equal(ok.body.result, 'SUCCESS', ok.text);
      const md5 = await gw.postForm('/post', signedSale(sha, saleFields(), 'md5'));
      assert.equal(md5.status, 401);
      assert.equal(errorOf(md5).error_message, 'hash: Hash is not valid.');
    });

    it('accepts the hash of a Unicode-upper-cased e-mail as well as the ASCII one (D2)', async () => {
      const email = 'jürgen@example.com';
      const unicode = await gw.postForm('/post', { ...signedSale(gw.merchant, saleFields({ payer_email: email })), hash: unicodeF1(email, gw.merchant.password, CARD) });
      assert.equal(unicode.body.result, 'SUCCESS', unicode.text);
      const ascii = await gw.postForm('/post', signedSale(gw.merchant, saleFields({ payer_email: email })));
      assert.equal(ascii.body.result, 'SUCCESS', ascii.text);
    });

    it('answers an unknown client_key with 401 merchant_key: Merchant not found.', async () => {
      const res = await gw.postForm('/post', { ...signedSale(gw.merchant, saleFields()), client_key: 'no-such-key' });
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, { http_code: 401, error_code: '100000', error_message: 'merchant_key: Merchant not found.', result: 'ERROR' });
    });

    it('takes multipart/form-data like a form, bracket keys nested', async () => {
      const form = new FormData();
      const fields = signedSale(gw.merchant, saleFields());
      for (const [k, v] of Object.entries(fields)) form.append(k, String(v));
      form.append('custom_data[basket]', 'b-17');
      form.append('parameters[descriptor]', 'Shop');
      const res = await fetch(`${gw.baseUrl}/post`, { method: 'POST', body: form });
      const body = await res.json() as Record<string, string>;
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.result, 'SUCCESS');
      const payment = await getPayment(gw.store.db, body.trans_id as string);
      assert.deepEqual(payment?.customData, { basket: 'b-17' });
      assert.deepEqual(payment?.details.parameters, { descriptor: 'Shop' });
    });

    it('stores term_url_3ds, term_url_target, payer_present and the schedule fields with the payment', async () => {
      const scheduleId = await newSchedule(gw, { name: 'Monthly', interval_length: '1', interval_unit: 'month', payments_count: '12' });
      const res = await sale(gw, { term_url_target: '_blank', payer_present: 'N', recurring_init: 'Y', schedule_id: scheduleId, schedule_start_date: '2031-02-01', payment_schedule_amount: '9.5' });
      assert.equal(res.body.result, 'SUCCESS', res.text);
      const payment = await getPayment(gw.store.db, res.body.trans_id);
      assert.equal(payment?.details.termUrl3ds, 'http://client.site.com/return.php');
      assert.equal(payment?.details.linkTarget, '_blank');
      assert.equal(payment?.details.payerPresent, false);
      assert.equal(payment?.details.schedule_id, scheduleId);
      assert.equal(payment?.details.schedule_start_date, '2031-02-01');
      assert.equal(payment?.details.payment_schedule_amount, '9.50');
    });

    it('needs schedule_id for schedule_start_date and payment_schedule_amount', async () => {
      const res = await sale(gw, { schedule_start_date: '2031-02-01' });
      assert.deepEqual(messages(res), ['schedule_id: This value should not be blank.']);
    });

    it('lists every missing required field of an empty SALE', async () => {
      const res = await gw.postForm('/post', { action: 'SALE' });
      assert.equal(res.status, 400);
      assert.deepEqual(messages(res).sort(), [
        'card_cvv2: This value should not be blank.', 'card_exp_month: This value should not be blank.', 'card_exp_year: This value should not be blank.',
        'card_number: This value should not be blank.', 'client_key: This value should not be blank.', 'hash: This value should not be blank.',
        'order_amount: This value should not be blank.', 'order_currency: This value should not be blank.', 'order_description: This value should not be blank.',
        'order_id: This value should not be blank.', 'payer_email: This value should not be blank.', 'payer_first_name: This value should not be blank.',
        'payer_ip: This value should not be blank.', 'payer_last_name: This value should not be blank.', 'payer_phone: This value should not be blank.',
        'term_url_3ds: This value should not be blank.',
      ]);
    });

    it('rejects a card number failing Luhn, and an expired card', async () => {
      assert.deepEqual(messages(await sale(gw, { card_number: '4111111111111112' })), ['card_number: Invalid card number.']);
      assert.deepEqual(messages(await sale(gw, { card_exp_year: '2020' })), ['card_exp_year: This value is not valid.']);
    });

    it('finishes a redirect sale at the provider page and sends the payer to term_url_3ds (12/2038 settles, 12/2039 declines)', async () => {
      for (const [year, status] of [['2038', 'SETTLED'], ['2039', 'DECLINED']] as const) {
        const res = await sale(gw, { card_exp_month: '12', card_exp_year: year, term_url_3ds: 'https://shop.example/back?o=1' });
        const done = await fetch(`${gw.baseUrl}/sandbox/provider/${res.body.trans_id}/complete`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=approve' });
        const page = await done.text();
        assert.ok(page.includes('https://shop.example/back?o=1'), 'the page sends the payer to term_url_3ds');
        const lookup = await gw.postForm('/post', { action: 'GET_TRANS_STATUS', client_key: gw.merchant.key, trans_id: res.body.trans_id, hash: f2(EMAIL, gw.merchant.password, res.body.trans_id, CARD) });
        assert.equal(lookup.body.status, status);
      }
    });
  });
}
