/**
 * The other S2S CARD actions over HTTP on both stores: DEBIT, CREDIT2CARD, the three lookups, RETRY, the
 * schedule and recurring actions that issue 4 brings, and unknown actions.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { getPayment } from '../../src/store/payments-repo.ts';
import { CARD, EMAIL, PAYOUT_CARD, errorOf, f1, f5, f6, f7, followUp, messages, orderId, reversedIdHash, sale, saleFields } from './support.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

for (const { kind, skip } of await storeKinds()) {
  describe(`S2S CARD actions (${kind})`, { skip }, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway(kind);
    });
    after(() => gw.close());

    const post = (fields: Record<string, unknown>) => gw.postForm('/post', { client_key: gw.merchant.key, ...fields });

    describe('DEBIT', () => {
      const debit = (overrides: Record<string, unknown> = {}) => {
        const fields = saleFields({ action: 'DEBIT', payer_email: undefined, payer_first_name: undefined, payer_last_name: undefined, payer_phone: undefined, ...overrides });
        return post({ ...fields, hash: f1((fields.payer_email as string | undefined) ?? '', gw.merchant.password, CARD) });
      };

      it('settles a debit, hashed without the optional e-mail', async () => {
        const res = await debit();
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(Object.keys(res.body), ['action', 'result', 'status', 'order_id', 'trans_id', 'trans_date', 'descriptor', 'amount', 'currency']);
        assert.equal(res.body.action, 'DEBIT');
        assert.equal(res.body.status, 'SETTLED');
        assert.match((await getPayment(gw.store.db, res.body.trans_id))?.cardToken ?? '', /^[0-9a-f]{64}$/, 'a debit always stores a card_token');
      });

      it('answers REDIRECT/3DS for a 3DS card', async () => {
        const res = await debit({ card_exp_month: '05' });
        assert.equal(res.body.result, 'REDIRECT');
        assert.equal(res.body.status, '3DS');
      });

      it('reverses a settled debit on CREDITVOID (REVERSAL)', async () => {
        const id = (await debit({ payer_email: EMAIL })).body.trans_id;
        const res = await followUp(gw, 'CREDITVOID', id);
        assert.equal(res.body.result, 'ACCEPTED', res.text);
        assert.equal((await getPayment(gw.store.db, id))?.status, 'reversal');
      });
    });

    describe('CREDIT2CARD', () => {
      const credit = (pan: string, overrides: Record<string, unknown> = {}) =>
        post({ action: 'CREDIT2CARD', order_id: orderId('PAYOUT'), order_amount: '1.03', order_currency: 'USD', order_description: 'wine', card_number: pan, ...overrides, hash: f5(gw.merchant.password, pan) });

      it('pays out to the payout test card without expiry, with the documented fields', async () => {
        const res = await credit(PAYOUT_CARD, { payee_first_name: 'Ann', payee_last_name: 'Lee' });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(Object.keys(res.body), ['action', 'result', 'status', 'order_id', 'trans_id', 'trans_date', 'descriptor']);
        assert.equal(res.body.result, 'SUCCESS');
        assert.equal(res.body.status, 'SETTLED');
        const payment = await getPayment(gw.store.db, res.body.trans_id);
        assert.equal(payment?.vaultId, null, 'a payout card is not vaulted');
        assert.equal(payment?.details.cardMask, '460154****6519');
      });

      it('declines another card', async () => {
        const res = await credit('4242424242424242');
        assert.equal(res.body.result, 'DECLINED');
        assert.equal(res.body.status, 'DECLINED');
        assert.equal(res.body.decline_reason, 'Declined by processing');
      });

      it('is looked up with Formula 6', async () => {
        const id = (await credit(PAYOUT_CARD)).body.trans_id;
        const res = await post({ action: 'GET_TRANS_STATUS', trans_id: id, hash: f6(gw.merchant.password, id, PAYOUT_CARD) });
        assert.equal(res.body.status, 'SETTLED', res.text);
      });

      it('needs card_number or card_token', async () => {
        const res = await post({ action: 'CREDIT2CARD', order_id: 'x', order_amount: '1.00', order_currency: 'USD', order_description: 'd', hash: 'h' });
        assert.deepEqual(messages(res), ['card_number: This value should not be blank.']);
      });
    });

    describe('GET_TRANS_STATUS', () => {
      it('answers the status with the documented fields', async () => {
        const id = (await sale(gw)).body.trans_id;
        const res = await followUp(gw, 'GET_TRANS_STATUS', id);
        assert.deepEqual(Object.keys(res.body), ['action', 'result', 'status', 'order_id', 'trans_id']);
        assert.equal(res.body.result, 'SUCCESS');
        assert.equal(res.body.status, 'SETTLED');
      });

      it('adds decline_reason for a declined payment, and the masked card when Protocol Mapping enables it', async () => {
        const m = await gw.addMerchant({ settings: { statusFields: ['card'] } });
        const id = (await sale(gw, { card_exp_month: '02' }, m)).body.trans_id;
        const res = await followUp(gw, 'GET_TRANS_STATUS', id, {}, m);
        assert.equal(res.body.status, 'DECLINED');
        assert.equal(res.body.decline_reason, 'Declined by processing');
        assert.equal(res.body.card, '411111****1111');
        assert.equal(res.body.card_expiration_date, '02/2038');
      });

      it('accepts the reversed trans_id recipe', async () => {
        const id = (await sale(gw)).body.trans_id;
        const res = await post({ action: 'GET_TRANS_STATUS', trans_id: id, hash: reversedIdHash(id, gw.merchant.password) });
        assert.equal(res.body.status, 'SETTLED', res.text);
      });

      it('answers an unknown trans_id with 101000 Transaction does not exist.', async () => {
        const res = await followUp(gw, 'GET_TRANS_STATUS', UNKNOWN);
        assert.deepEqual(errorOf(res), { http_code: 400, error_code: '101000', error_message: 'Transaction does not exist.', result: 'ERROR' });
      });
    });

    describe('GET_TRANS_STATUS_BY_ORDER', () => {
      it('answers the newest payment of the order, verified with Formula 7', async () => {
        const order = orderId('BYORDER');
        await sale(gw, { order_id: order, card_exp_month: '02' });
        const newest = await sale(gw, { order_id: order });
        const res = await post({ action: 'GET_TRANS_STATUS_BY_ORDER', order_id: order, hash: f7(EMAIL, gw.merchant.password, order, CARD) });
        assert.deepEqual(res.body, { action: 'GET_TRANS_STATUS_BY_ORDER', result: 'SUCCESS', status: 'SETTLED', order_id: order, trans_id: newest.body.trans_id });
      });

      it('accepts the reversed order_id recipe', async () => {
        const order = orderId('BYORDER');
        await sale(gw, { order_id: order });
        const res = await post({ action: 'GET_TRANS_STATUS_BY_ORDER', order_id: order, hash: reversedIdHash(order, gw.merchant.password) });
        assert.equal(res.body.status, 'SETTLED', res.text);
      });

      it('answers an unknown order with 101000 Order does not exist.', async () => {
        const res = await post({ action: 'GET_TRANS_STATUS_BY_ORDER', order_id: 'no-such-order', hash: reversedIdHash('no-such-order', gw.merchant.password) });
        assert.deepEqual(errorOf(res), { http_code: 400, error_code: '101000', error_message: 'Order does not exist.', result: 'ERROR' });
      });
    });

    describe('GET_TRANS_DETAILS', () => {
      it('answers payer, amount, masked card and the transactions', async () => {
        const id = (await sale(gw, { auth: 'Y' })).body.trans_id;
        await followUp(gw, 'CAPTURE', id, { amount: '1.50' });
        const res = await followUp(gw, 'GET_TRANS_DETAILS', id);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.action, 'GET_TRANS_DETAILS');
        assert.equal(res.body.status, 'SETTLED');
        assert.equal(res.body.name, 'John Doe');
        assert.equal(res.body.mail, EMAIL);
        assert.equal(res.body.ip, '123.123.123.123');
        assert.equal(res.body.amount, '1.99');
        assert.equal(res.body.card, '411111****1111');
        assert.deepEqual(res.body.transactions.map((t: { type: string; status: string; amount: string }) => [t.type, t.status, t.amount]), [['auth', 'success', '1.99'], ['capture', 'success', '1.50']]);
      });

      it('answers an unknown trans_id with 101000 Transaction does not exist.', async () => {
        assert.equal(errorOf(await followUp(gw, 'GET_TRANS_DETAILS', UNKNOWN)).error_message, 'Transaction does not exist.');
      });
    });

    describe('RETRY', () => {
      it('answers a payment that is no declined recurring charge with Incorrect transaction', async () => {
        const id = (await sale(gw, { card_exp_month: '02' })).body.trans_id;
        const res = await post({ action: 'RETRY', trans_id: id, hash: f1(EMAIL, gw.merchant.password, CARD) });
        assert.deepEqual(errorOf(res), { http_code: 400, error_code: '100000', error_message: 'Incorrect transaction', result: 'ERROR' });
      });

      it('answers an unknown trans_id with 100000 Payment not found.', async () => {
        const res = await post({ action: 'RETRY', trans_id: UNKNOWN, hash: f1(EMAIL, gw.merchant.password, CARD) });
        assert.equal(errorOf(res).error_message, 'Payment not found.');
      });
    });

    describe('SCHEDULE_INFO by GET', () => {
      it('takes SCHEDULE_INFO by GET (an unknown schedule answers "Schedule not found"), and no other action', async () => {
        const info = await fetch(`${gw.baseUrl}/post?action=SCHEDULE_INFO&client_key=${gw.merchant.key}&schedule_id=x&hash=h`);
        assert.notEqual(((await info.json()) as { error_code: string }).error_code, '204005');
        const saleByGet = await fetch(`${gw.baseUrl}/v2/post?action=SALE`);
        assert.equal(saleByGet.status, 400);
        assert.deepEqual(((await saleByGet.json()) as { errors: unknown }).errors, [{ error_code: '100000', error_message: 'action: The value you selected is not a valid choice.' }]);
      });
    });

    describe('action', () => {
      it('answers an unknown action as a validation error on action', async () => {
        const res = await post({ action: 'REFUND', hash: 'h' });
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { http_code: 400, error_code: '100000', error_message: 'Request data is invalid.', errors: [{ error_code: '100000', error_message: 'action: The value you selected is not a valid choice.' }], result: 'ERROR' });
      });

      it('answers a missing action as blank', async () => {
        assert.deepEqual(messages(await post({})), ['action: This value should not be blank.']);
      });
    });
  });
}
