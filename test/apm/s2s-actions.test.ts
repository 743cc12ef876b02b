/**
 * S2S APM at POST /apm/post, per action, on both stores: SALE (immediate, declined, auth=Y exactly holding the
 * funds, redirect through the sandbox provider page), CAPTURE, VOID, CREDITVOID, GET_TRANS_STATUS and
 * CREDIT2VIRTUAL, each with its own hash; callbacks signed with the platform's APM callback signature
 * (CREDIT2VIRTUAL with its own formula), the sandbox e-mails deciding the outcome.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startListener, type Listener, platformBody } from '../support/merchant.ts';
import {
  callbackHash, credit2VirtualCallbackHash, credit2VirtualHash, followUp, messages, mobileMoneyPayout, orderId, representative, sale, saleFields, signedSale,
} from './support.ts';

const DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const FIELDS = representative('extra_fields', 's2s_apm');
/** The extra-fields method with its page fields sent: the provider decides at once, by the payer's e-mail. */
const direct = (extra: Record<string, unknown> = {}) => ({
  parameters: Object.fromEntries(FIELDS.params.filter((p) => p.collectOnPage).map((p) => [p.name, 'ABC12345'])),
  ...extra,
});
const REDIRECT = representative('redirect', 's2s_apm');

for (const { kind, skip } of await storeKinds()) {
  describe(`S2S APM actions (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let listener: Listener;
    before(async () => {
      listener = await startListener();
      gw = await startTestGateway(kind, { workers: true, notificationUrl: listener.url });
    });
    after(async () => {
      await gw?.close();
      await listener?.close();
    });

    const attemptsOf = (paymentId: string) => gw.store.db.query<{ seq: number; why: string; status: string; finished: boolean }>(
      'SELECT seq, why, status, finished_at IS NOT NULL AS finished FROM payment_attempts WHERE payment_id = $1 ORDER BY seq', [paymentId]);

    const callbackFor = async (transId: string, action: string, status: string) => {
      const [cb] = await listener.waitForMatching((c) => c.fields.trans_id === transId && c.fields.action === action && c.fields.status === status, 1);
      assert.ok(cb);
      return cb;
    };

    it('settles a SALE at once with the documented fields, and signs its callback', async () => {
      const fields = saleFields(FIELDS.key, direct({ custom_data: { cart: 'A-1' } }));
      const res = await gw.postForm('/apm/post', signedSale(gw.merchant, fields));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body), ['action', 'result', 'status', 'order_id', 'trans_id', 'trans_date', 'descriptor', 'amount', 'currency']);
      assert.equal(res.body.result, 'SUCCESS');
      assert.equal(res.body.status, 'SETTLED');
      assert.equal(res.body.order_id, fields.order_id);
      assert.match(res.body.trans_date, DATE);
      assert.equal(res.body.amount, '12.50');
      const cb = await callbackFor(res.body.trans_id, 'SALE', 'SETTLED');
      assert.equal(cb.fields.result, 'SUCCESS');
      assert.equal(cb.fields['custom_data[cart]'], 'A-1');
      assert.deepEqual((await attemptsOf(res.body.trans_id)).map((a) => [a.seq, a.why, a.status, a.finished]), [[1, 'routed', 'approved', true]], 'one attempt at the provider');
      assert.equal(cb.fields.hash, callbackHash(cb.raw, gw.merchant.password));
    });

    it('declines a SALE of fail@gmail.com with the decline reason', async () => {
      const res = await sale(gw, FIELDS.key, direct({ payer_email: 'fail@gmail.com' }));
      assert.equal(res.body.result, 'DECLINED');
      assert.equal(res.body.status, 'DECLINED');
      assert.equal(res.body.decline_reason, 'Declined by processing');
      const cb = await callbackFor(res.body.trans_id, 'SALE', 'DECLINED');
      assert.equal(cb.fields.decline_reason, 'Declined by processing');
      assert.equal(cb.fields.hash, callbackHash(cb.raw, gw.merchant.password));
    });

    it('holds the funds with auth=Y exactly (PENDING); any other value is an immediate sale', async () => {
      assert.equal((await sale(gw, FIELDS.key, direct({ auth: 'Y' }))).body.status, 'PENDING');
      for (const auth of ['y', 'N', 'YES', '1']) assert.equal((await sale(gw, FIELDS.key, direct({ auth }))).body.status, 'SETTLED', `auth=${auth}`);
    });

    it('captures a held authorization in full with the trans_id hash', async () => {
      const held = await sale(gw, FIELDS.key, direct({ auth: 'Y' }));
      const res = await followUp(gw, 'CAPTURE', held.body.trans_id);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.action, 'CAPTURE');
      assert.equal(res.body.result, 'SUCCESS');
      assert.equal(res.body.status, 'SETTLED');
      assert.equal(res.body.amount, '12.50');
      const cb = await callbackFor(held.body.trans_id, 'CAPTURE', 'SETTLED');
      assert.equal(cb.fields.hash, callbackHash(cb.raw, gw.merchant.password));
      // One capture only: the payment is no longer a held authorization.
      const again = await followUp(gw, 'CAPTURE', held.body.trans_id);
      assert.equal(again.status, 400);
      assert.equal(again.body.result, 'ERROR');
      assert.equal(again.body.error_code, '208003');
    });

    it('captures once in part, never above the authorization', async () => {
      const held = await sale(gw, FIELDS.key, direct({ auth: 'Y' }));
      const above = await followUp(gw, 'CAPTURE', held.body.trans_id, { amount: '12.51' });
      assert.equal(above.body.error_code, '208004');
      const part = await followUp(gw, 'CAPTURE', held.body.trans_id, { amount: '5.00' });
      assert.equal(part.body.status, 'SETTLED');
      assert.equal(part.body.amount, '5.00');
    });

    it('refuses VOID of a held authorization and voids a settled payment', async () => {
      const held = await sale(gw, FIELDS.key, direct({ auth: 'Y' }));
      const refused = await followUp(gw, 'VOID', held.body.trans_id);
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error_message, 'Void is not allowed.');
      const settled = await sale(gw, FIELDS.key, direct());
      const res = await followUp(gw, 'VOID', settled.body.trans_id);
      assert.deepEqual([res.body.action, res.body.result, res.body.status], ['VOID', 'SUCCESS', 'VOID']);
      assert.match(res.body.trans_date, DATE);
      await callbackFor(settled.body.trans_id, 'VOID', 'VOID');
    });

    it('releases a held authorization with CREDITVOID (whole amount only): REVERSAL', async () => {
      const held = await sale(gw, FIELDS.key, direct({ auth: 'Y' }));
      const partial = await followUp(gw, 'CREDITVOID', held.body.trans_id, { amount: '1.00' });
      assert.equal(partial.body.error_code, '208009');
      const res = await followUp(gw, 'CREDITVOID', held.body.trans_id);
      assert.deepEqual(res.body, { action: 'CREDITVOID', result: 'ACCEPTED', order_id: held.body.order_id, trans_id: held.body.trans_id });
      const cb = await callbackFor(held.body.trans_id, 'CREDITVOID', 'REVERSAL');
      assert.match(cb.fields.creditvoid_date ?? '', DATE);
      assert.equal(cb.fields.hash, callbackHash(cb.raw, gw.merchant.password));
      assert.equal((await followUp(gw, 'GET_TRANS_STATUS', held.body.trans_id)).body.status, 'REVERSAL');
    });

    it('refunds a settled payment with CREDITVOID: a partial keeps SETTLED, the rest gives REFUND', async () => {
      const settled = await sale(gw, FIELDS.key, direct());
      await followUp(gw, 'CREDITVOID', settled.body.trans_id, { amount: '2.50' });
      await callbackFor(settled.body.trans_id, 'CREDITVOID', 'SETTLED');
      assert.equal((await followUp(gw, 'GET_TRANS_STATUS', settled.body.trans_id)).body.status, 'SETTLED');
      const tooMuch = await followUp(gw, 'CREDITVOID', settled.body.trans_id, { amount: '10.01' });
      assert.equal(tooMuch.body.error_code, '208006');
      await followUp(gw, 'CREDITVOID', settled.body.trans_id);
      await callbackFor(settled.body.trans_id, 'CREDITVOID', 'REFUND');
    });

    it('answers GET_TRANS_STATUS with the status and decline reason', async () => {
      const declined = await sale(gw, FIELDS.key, direct({ payer_email: 'fail@gmail.com' }));
      const res = await followUp(gw, 'GET_TRANS_STATUS', declined.body.trans_id);
      assert.deepEqual(res.body, {
        action: 'GET_TRANS_STATUS', result: 'SUCCESS', status: 'DECLINED', order_id: declined.body.order_id, trans_id: declined.body.trans_id, decline_reason: 'Declined by processing',
      });
    });

    it('redirects to the sandbox provider page and settles when the payer pays there', async () => {
      const res = await sale(gw, REDIRECT.key);
      assert.equal(res.body.result, 'REDIRECT');
      assert.equal(res.body.status, 'REDIRECT');
      assert.equal(res.body.redirect_method, 'GET');
      assert.deepEqual(res.body.redirect_params, []);
      assert.match(res.body.redirect_url, new RegExp(`^${gw.baseUrl}/sandbox/apm/`));
      const redirectCb = await callbackFor(res.body.trans_id, 'SALE', 'REDIRECT');
      assert.deepEqual((await attemptsOf(res.body.trans_id)).map((a) => [a.status, a.finished]), [['redirect', false]], 'open while the payer is at the provider');
      assert.equal(redirectCb.fields.result, 'REDIRECT');
      assert.equal(redirectCb.fields.hash, callbackHash(redirectCb.raw, gw.merchant.password));
      const page = await fetch(res.body.redirect_url);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /Approve the payment/);
      const paid = await fetch(res.body.redirect_url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=approve', redirect: 'manual' });
      assert.equal(paid.status, 303);
      assert.equal(paid.headers.get('location'), `${gw.baseUrl}/pay/${res.body.trans_id}`);
      const cb = await callbackFor(res.body.trans_id, 'SALE', 'SETTLED');
      assert.equal(cb.fields.hash, callbackHash(cb.raw, gw.merchant.password));
      // The payer comes back to the gateway and goes on to the merchant's return_url.
      const back = await (await fetch(paid.headers.get('location')!)).text();
      assert.match(back, /https:\/\/shop\.example\/return/);
      assert.equal((await followUp(gw, 'GET_TRANS_STATUS', res.body.trans_id)).body.status, 'SETTLED');
      assert.deepEqual((await attemptsOf(res.body.trans_id)).map((a) => [a.seq, a.status, a.finished]), [[1, 'approved', true]], 'the payer\'s word answers the same attempt');
    });

    it('declines when the payer cancels on the provider page', async () => {
      const res = await sale(gw, REDIRECT.key);
      await fetch(res.body.redirect_url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=decline', redirect: 'manual' });
      const cb = await callbackFor(res.body.trans_id, 'SALE', 'DECLINED');
      assert.equal(cb.fields.decline_reason, 'Cancelled by payer');
    });

    it('sends a redirect SALE to the gateway payer page when the request lacks the page fields', async () => {
      const res = await sale(gw, FIELDS.key);
      assert.equal(res.body.result, 'REDIRECT');
      assert.equal(res.body.redirect_url, `${gw.baseUrl}/pay/${res.body.trans_id}`);
      const page = await (await fetch(res.body.redirect_url)).text();
      for (const p of FIELDS.params.filter((x) => x.collectOnPage)) assert.match(page, new RegExp(`name="${p.name}"`));
    });

    it('pays out with CREDIT2VIRTUAL and signs the callback with its own formula', async () => {
      const brand = mobileMoneyPayout();
      const fields = {
        action: 'CREDIT2VIRTUAL', client_key: gw.merchant.key, brand: brand.key, order_id: orderId('C2V'), order_amount: '1500', order_currency: 'XOF',
        order_description: 'Payout', payee_first_name: 'Kofi', payee_last_name: 'Mensah', payee_email: 'success@gmail.com',
        parameters: { mobile_money_operator: 'mtn-ci', mobile_number: '+2250701020304', customer_email: 'success@gmail.com' },
      };
      const res = await gw.postForm('/apm/post', { ...fields, hash: credit2VirtualHash(fields.order_id, '1500', 'XOF', gw.merchant.password) });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body), ['action', 'result', 'status', 'order_id', 'trans_id', 'trans_date', 'amount', 'currency']);
      assert.deepEqual([res.body.action, res.body.result, res.body.status, res.body.amount, res.body.currency], ['CREDIT2VIRTUAL', 'SUCCESS', 'SETTLED', '1500', 'XOF']);
      const cb = await callbackFor(res.body.trans_id, 'CREDIT2VIRTUAL', 'SETTLED');
      assert.deepEqual((await attemptsOf(res.body.trans_id)).map((a) => [a.why, a.status, a.finished]), [['routed', 'approved', true]], 'a payout is one attempt');
      assert.equal(cb.fields.hash, credit2VirtualCallbackHash(cb.fields, gw.merchant.password));
      const declined = { ...fields, order_id: orderId('C2V'), order_currency: 'GHS', order_amount: '10.00', payee_email: 'fail@gmail.com' };
      const no = await gw.postForm('/apm/post', { ...declined, hash: credit2VirtualHash(declined.order_id, '10.00', 'GHS', gw.merchant.password) });
      assert.deepEqual([no.body.result, no.body.status, no.body.decline_reason], ['DECLINED', 'DECLINED', 'Declined by processing']);
      const wrongCurrency = { ...fields, order_id: orderId('C2V'), order_currency: 'USD', order_amount: '10.00' };
      const bad = await gw.postForm('/apm/post', { ...wrongCurrency, hash: credit2VirtualHash(wrongCurrency.order_id, '10.00', 'USD', gw.merchant.password) });
      assert.equal(bad.status, 400);
      assert.deepEqual(messages(bad), ['order_currency: The value you selected is not a valid choice.']);
      const missing = { ...fields, order_id: orderId('C2V'), parameters: { mobile_money_operator: 'mtn-ci' } };
      const incomplete = await gw.postForm('/apm/post', { ...missing, hash: credit2VirtualHash(missing.order_id, '1500', 'XOF', gw.merchant.password) });
      assert.deepEqual(messages(incomplete).sort(), ['parameters.customer_email: This value should not be blank.', 'parameters.mobile_number: This value should not be blank.']);
    });

    it('refuses a wrong hash per action with 401, without revealing the payment', async () => {
      const settled = await sale(gw, FIELDS.key, direct());
      for (const action of ['CAPTURE', 'VOID', 'CREDITVOID', 'GET_TRANS_STATUS']) {
        const res = await gw.postForm('/apm/post', { action, client_key: gw.merchant.key, trans_id: settled.body.trans_id, hash: 'f'.repeat(32) });
        assert.equal(res.status, 401, action);
        assert.deepEqual(platformBody(res.body), { http_code: 401, error_code: '100000', error_message: 'hash: Hash is not valid.', result: 'ERROR' });
      }
      // The CREDITVOID hash is not the VOID one.
      const swapped = await followUp(gw, 'VOID', settled.body.trans_id, { action: 'CREDITVOID' });
      assert.equal(swapped.status, 401);
      const badSale = await gw.postForm('/apm/post', { ...signedSale(gw.merchant, saleFields(FIELDS.key, direct())), order_amount: '99.00' });
      assert.equal(badSale.status, 401);
    });

    it('answers the not-found errors of each action', async () => {
      const unknown = '00000000-0000-4000-8000-000000000000';
      assert.deepEqual([(await followUp(gw, 'GET_TRANS_STATUS', unknown)).body.error_message, (await followUp(gw, 'CAPTURE', unknown)).body.error_message], ['Transaction does not exist.', 'Transaction does not exist.']);
      assert.deepEqual([(await followUp(gw, 'VOID', unknown)).body.error_message, (await followUp(gw, 'CREDITVOID', unknown)).body.error_message], ['Payment not found.', 'Payment not found.']);
      // Another merchant's payment is not found either.
      const other = await gw.addMerchant();
      const settled = await sale(gw, FIELDS.key, direct());
      assert.equal((await followUp(gw, 'GET_TRANS_STATUS', settled.body.trans_id, {}, other)).body.error_code, '101000');
    });

    it('validates brand, currency, amount and parameters with the documented messages', async () => {
      const unknownBrand = await sale(gw, 'no-such-brand');
      assert.deepEqual(messages(unknownBrand), ['brand: The value you selected is not a valid choice.']);
      const card = await sale(gw, 'card');
      assert.deepEqual(messages(card), ['brand: The value you selected is not a valid choice.']);
      const zero = await sale(gw, FIELDS.key, direct({ order_amount: '0.00' }));
      assert.deepEqual(messages(zero), ['order_amount: This value should be greater than 0.']);
      const missing = await gw.postForm('/apm/post', { action: 'SALE', client_key: gw.merchant.key });
      assert.ok(messages(missing).includes('brand: This value should not be blank.'));
      assert.ok(messages(missing).includes('return_url: This value should not be blank.'));
      const unsupported = await gw.postForm('/apm/post', { action: 'DEBIT2VIRTUAL', client_key: gw.merchant.key });
      assert.deepEqual([unsupported.status, unsupported.body.error_message, unsupported.body.result], [400, 'Payment action not supported.', 'ERROR']);
      const unknownAction = await gw.postForm('/apm/post', { action: 'REFUND' });
      assert.deepEqual(messages(unknownAction), ['action: The value you selected is not a valid choice.']);
    });
  });
}
