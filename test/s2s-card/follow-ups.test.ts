/** CAPTURE, VOID and CREDITVOID over HTTP on both stores: outcomes, both hash recipes, and their Errors rows. */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { getPayment } from '../../src/store/payments-repo.ts';
import { errorOf, followUp, reversedIdHash, sale } from './support.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

for (const { kind, skip } of await storeKinds()) {
  describe(`S2S CARD follow-ups (${kind})`, { skip }, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway(kind);
    });
    after(() => gw.close());

    const held = async (overrides: Record<string, unknown> = {}) => (await sale(gw, { auth: 'Y', ...overrides })).body.trans_id as string;
    const settled = async () => (await sale(gw)).body.trans_id as string;

    describe('CAPTURE', () => {
      it('captures a held authorization in full with the documented fields', async () => {
        const id = await held();
        const res = await followUp(gw, 'CAPTURE', id);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(Object.keys(res.body), ['action', 'result', 'status', 'order_id', 'trans_id', 'trans_date', 'descriptor', 'amount', 'currency']);
        assert.equal(res.body.action, 'CAPTURE');
        assert.equal(res.body.result, 'SUCCESS');
        assert.equal(res.body.status, 'SETTLED');
        assert.equal(res.body.trans_id, id);
        assert.equal(res.body.amount, '1.99');
      });

      it('allows one partial capture only', async () => {
        const id = await held();
        const first = await followUp(gw, 'CAPTURE', id, { amount: '1.00' });
        assert.equal(first.body.result, 'SUCCESS');
        assert.equal(first.body.amount, '1.00');
        assert.equal((await getPayment(gw.store.db, id))?.capturedAmount, 100n);
        const second = await followUp(gw, 'CAPTURE', id, { amount: '0.99' });
        assert.equal(errorOf(second).error_code, '208003');
      });

      it('refuses more than the authorized amount (208004)', async () => {
        const res = await followUp(gw, 'CAPTURE', await held(), { amount: '2.00' });
        assert.deepEqual(errorOf(res), { http_code: 400, error_code: '208004', error_message: 'Not acceptable to request the capture for amount bigger than auth amount.', result: 'ERROR' });
      });

      it('reports a declined capture (expiry month 03) and keeps the authorization PENDING', async () => {
        const res = await followUp(gw, 'CAPTURE', await held({ card_exp_month: '03' }));
        assert.equal(res.body.result, 'DECLINED');
        assert.equal(res.body.status, 'PENDING');
        assert.equal(res.body.decline_reason, 'Declined by processing');
      });

      it('accepts the reversed trans_id recipe md5(UPPER(strrev(trans_id)) . PASSWORD)', async () => {
        const id = await held();
        const res = await gw.postForm('/post', { action: 'CAPTURE', client_key: gw.merchant.key, trans_id: id, hash: reversedIdHash(id, gw.merchant.password) });
        assert.equal(res.body.result, 'SUCCESS', res.text);
      });

      it('answers an unknown trans_id with 101000 Transaction does not exist.', async () => {
        const res = await followUp(gw, 'CAPTURE', UNKNOWN);
        assert.deepEqual(errorOf(res), { http_code: 400, error_code: '101000', error_message: 'Transaction does not exist.', result: 'ERROR' });
      });

      it('refuses a wrong hash with 401', async () => {
        const id = await held();
        const res = await gw.postForm('/post', { action: 'CAPTURE', client_key: gw.merchant.key, trans_id: id, hash: 'f'.repeat(32) });
        assert.equal(res.status, 401);
        assert.equal(errorOf(res).error_message, 'hash: Hash is not valid.');
        assert.equal((await getPayment(gw.store.db, id))?.status, 'pending');
      });

      it("does not find another merchant's payment", async () => {
        const other = await gw.addMerchant();
        const res = await followUp(gw, 'CAPTURE', await held(), {}, other);
        assert.equal(errorOf(res).error_code, '101000');
      });
    });

    describe('VOID', () => {
      it('voids a settled payment with the documented fields', async () => {
        const id = await settled();
        const res = await followUp(gw, 'VOID', id);
        assert.deepEqual(Object.keys(res.body), ['action', 'result', 'status', 'order_id', 'trans_id', 'trans_date']);
        assert.equal(res.body.result, 'SUCCESS');
        assert.equal(res.body.status, 'VOID');
      });

      it('answers a held authorization with "Void is not allowed."', async () => {
        const id = await held();
        const res = await followUp(gw, 'VOID', id);
        assert.deepEqual(errorOf(res), { http_code: 400, error_code: '100000', error_message: 'Void is not allowed.', result: 'ERROR' });
        assert.equal((await getPayment(gw.store.db, id))?.status, 'pending');
      });

      it('accepts the reversed trans_id recipe', async () => {
        const id = await settled();
        const res = await gw.postForm('/post', { action: 'VOID', client_key: gw.merchant.key, trans_id: id, hash: reversedIdHash(id, gw.merchant.password) });
        assert.equal(res.body.status, 'VOID', res.text);
      });

      it('answers an unknown trans_id with 100000 Payment not found.', async () => {
        const res = await followUp(gw, 'VOID', UNKNOWN);
        assert.deepEqual(errorOf(res), { http_code: 400, error_code: '100000', error_message: 'Payment not found.', result: 'ERROR' });
      });
    });

    describe('CREDITVOID', () => {
      it('accepts partial refunds up to the amount: SETTLED until the last, then REFUND', async () => {
        const id = await settled();
        const first = await followUp(gw, 'CREDITVOID', id, { amount: '0.50' });
        assert.deepEqual(first.body, { action: 'CREDITVOID', result: 'ACCEPTED', order_id: first.body.order_id, trans_id: id });
        assert.equal((await getPayment(gw.store.db, id))?.status, 'settled');
        await followUp(gw, 'CREDITVOID', id, { amount: '0.49' });
        const tooMuch = await followUp(gw, 'CREDITVOID', id, { amount: '1.01' });
        assert.equal(errorOf(tooMuch).error_code, '208006');
        const rest = await followUp(gw, 'CREDITVOID', id);
        assert.equal(rest.body.result, 'ACCEPTED');
        const payment = await getPayment(gw.store.db, id);
        assert.equal(payment?.status, 'refund');
        assert.equal(payment?.refundedAmount, 199n);
        assert.equal(errorOf(await followUp(gw, 'CREDITVOID', id, { amount: '0.01' })).error_code, '208005');
      });

      it('reverses a held authorization (REVERSAL), whole amount only', async () => {
        const id = await held();
        assert.deepEqual(errorOf(await followUp(gw, 'CREDITVOID', id, { amount: '1.00' })), {
          http_code: 400, error_code: '208009', error_message: 'Not acceptable to request the reversal for partial amount.', result: 'ERROR',
        });
        const res = await followUp(gw, 'CREDITVOID', id);
        assert.equal(res.body.result, 'ACCEPTED');
        assert.equal((await getPayment(gw.store.db, id))?.status, 'reversal');
      });

      it('accepts the reversed trans_id recipe', async () => {
        const id = await settled();
        const res = await gw.postForm('/post', { action: 'CREDITVOID', client_key: gw.merchant.key, trans_id: id, hash: reversedIdHash(id, gw.merchant.password) });
        assert.equal(res.body.result, 'ACCEPTED', res.text);
      });

      it('answers an unknown trans_id with 100000 Payment not found.', async () => {
        const res = await followUp(gw, 'CREDITVOID', UNKNOWN);
        assert.deepEqual(errorOf(res), { http_code: 400, error_code: '100000', error_message: 'Payment not found.', result: 'ERROR' });
      });

      it('refuses a malformed amount', async () => {
        const res = await followUp(gw, 'CREDITVOID', await settled(), { amount: '1,00' });
        assert.deepEqual(res.body.errors, [{ error_code: '100000', error_message: 'amount: This value is not valid.' }]);
      });
    });
  });
}
