/**
 * Recurring chains end to end on both stores: a Checkout recurring init, then RECURRING_SALE and a Checkout
 * recurring charge on it; S2S chains (sale and debit); card-on-file tokens and discriminators; RETRY of a
 * declined recurring charge; the errors of the recurring entity.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener, type ReceivedCallback } from '../support/merchant.ts';
import { getPayment, listTransactions } from '../../src/store/payments-repo.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { CARD, EMAIL, errorOf, f1, f2, messages, orderId, saleFields } from '../s2s-card/support.ts';
import {
  checkoutRecurring, f3, initSale, PAGE_EMAIL, payCheckout, recurringSale, scriptConnector, sessionBody, type ScriptedConnector,
} from './support.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const COF_FIELDS = ['initiator', 'source', 'sequence'];


for (const { kind, skip } of await storeKinds()) {
  describe(`recurring chains (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let listener: Listener;
    let connector: ScriptedConnector;
    const callbackOf = (paymentId: string, match: (c: ReceivedCallback) => boolean = () => true) =>
      listener.waitForMatching((c) => (c.fields.id === paymentId || c.fields.trans_id === paymentId) && match(c), 1).then((c) => c.at(-1) as ReceivedCallback);

    before(async () => {
      listener = await startListener();
      gw = await startTestGateway(kind, {
        clock: new ManualClock('2030-01-15T10:00:00Z'),
        workers: true,
        notificationUrl: listener.url,
        settings: { callbackFields: COF_FIELDS, statusFields: COF_FIELDS },
        mids: [{ paymentMode: 'SMS/DMS', cardOnFileSupport: true }],
      });
      connector = scriptConnector(gw);
    });
    after(async () => {
      await gw?.close();
      await listener?.close();
    });

    describe('Checkout chain', () => {
      let chain: { initId: string; token: string };

      before(async () => {
        const body = sessionBody(gw.merchant, { recurring_init: true, custom_data: { plan: 'gold' } });
        const { paymentId } = await payCheckout(gw, body);
        const cb = await callbackOf(paymentId, (c) => c.fields.type === 'sale');
        chain = { initId: cb.fields.recurring_init_trans_id as string, token: cb.fields.recurring_token as string };
      });

      it('answers the initiating payment with recurring_init_trans_id and recurring_token, and card-on-file discriminators', async () => {
        assert.match(chain.initId, UUID);
        assert.match(chain.token, UUID);
        const cb = await callbackOf(chain.initId, (c) => c.fields.type === 'sale');
        assert.equal(cb.fields.status, 'success');
        assert.equal(cb.fields.recurring_init_trans_id, cb.fields.id, 'the chain is named by its first payment');
        assert.deepEqual([cb.fields.initiator, cb.fields.source, cb.fields.sequence], ['cardholder', 'ecommerce', 'first']);
        const payment = await getPayment(gw.store.db, chain.initId);
        assert.equal(payment?.details.recurringTokenIssuer, 'connector', 'a MID with card_on_file_support stores the connector token');
        const status = await gw.postJson('/api/v1/payment/status', { merchant_key: gw.merchant.key, payment_id: chain.initId, hash: checkoutHash(gw.merchant.password, chain.initId) });
        assert.equal(status.body.recurring_token, chain.token);
        assert.equal(status.body.initiator, 'cardholder');
      });

      it('charges the chain by RECURRING_SALE (F1 over the first payment\'s e-mail and card), its custom_data in the callback', async () => {
        const res = await recurringSale(gw, chain, { order_amount: '7.25', custom_data: { invoice: 'inv-2' } }, { email: PAGE_EMAIL });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.action, 'RECURRING_SALE');
        assert.equal(res.body.result, 'SUCCESS');
        assert.equal(res.body.status, 'SETTLED');
        assert.equal(res.body.amount, '7.25');
        assert.equal(res.body.currency, 'USD');
        assert.equal(res.body.recurring_token, chain.token);
        const cb = await callbackOf(res.body.trans_id);
        assert.equal(cb.fields.action, 'RECURRING_SALE');
        assert.equal(cb.fields.result, 'SUCCESS');
        assert.equal(cb.fields.hash, f2(PAGE_EMAIL, gw.merchant.password, res.body.trans_id, CARD));
        assert.equal(cb.fields['custom_data[invoice]'], 'inv-2', 'the secondary charge\'s custom_data');
        assert.equal(cb.fields['custom_data[plan]'], undefined, 'in place of the initial one');
        assert.deepEqual([cb.fields.initiator, cb.fields.source, cb.fields.sequence], ['merchant', 'unscheduled', 'subsequent']);
      });

      it('charges the chain by Checkout payment/recurring, answering the Recurring body', async () => {
        const res = await checkoutRecurring(gw, chain, { amount: '3.10', number: 'rec-order-1', description: 'Month 2' }, { custom_data: { month: '2' } });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.status, 'settled');
        assert.match(res.body.payment_id, UUID);
        assert.match(res.body.date, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        assert.deepEqual(res.body.order, { number: 'rec-order-1', amount: '3.10', currency: 'USD', description: 'Month 2' });
        const cb = await callbackOf(res.body.payment_id);
        assert.equal(cb.fields.type, 'recurring');
        assert.equal(cb.fields.status, 'success');
        assert.equal(cb.fields.order_amount, '3.10');
        assert.equal(cb.fields.hash, checkoutHash(gw.merchant.password, res.body.payment_id, 'rec-order-1', '3.10', 'USD', 'Month 2'));
        assert.equal(cb.fields['custom_data[month]'], '2');
        assert.equal(cb.fields.recurring_init_trans_id, chain.initId);
      });

      it('keeps the initial custom_data on a charge that sends none', async () => {
        const res = await checkoutRecurring(gw, chain, { amount: '1.00' });
        const cb = await callbackOf(res.body.payment_id);
        assert.equal(cb.fields['custom_data[plan]'], 'gold');
      });

      it('refuses a zero-amount charge, a wrong hash and another currency', async () => {
        assert.deepEqual((await checkoutRecurring(gw, chain, { amount: '0.00' })).body.errors, [{ error_code: '100000', error_message: 'order.amount: This value should be greater than 0.' }]);
        const bad = await gw.postJson('/api/v1/payment/recurring', { merchant_key: gw.merchant.key, recurring_init_trans_id: chain.initId, recurring_token: chain.token, order: { number: 'x1', amount: '1.00', description: 'Month' }, hash: 'a'.repeat(40) });
        assert.equal(bad.status, 401);
        const order = { number: 'x2', amount: '1.00', currency: 'EUR', description: 'Month' };
        const eur = await gw.postJson('/api/v1/payment/recurring', {
          merchant_key: gw.merchant.key, recurring_init_trans_id: chain.initId, recurring_token: chain.token, order,
          hash: checkoutHash(gw.merchant.password, chain.initId, chain.token, order.number, order.amount, order.description),
        });
        assert.deepEqual(eur.body.errors, [{ error_code: '100000', error_message: 'order.currency: This value is not valid.' }], 'the chain is in USD');
      });
    });

    it('accepts a zero-amount Checkout recurring init, and only that zero amount', async () => {
      const { paymentId } = await payCheckout(gw, sessionBody(gw.merchant, { recurring_init: true }, { amount: '0.00' }));
      const payment = await getPayment(gw.store.db, paymentId);
      assert.equal(payment?.status, 'settled');
      assert.match(String(payment?.details.recurring_token), UUID);
      const plain = await gw.postJson('/api/v1/session', sessionBody(gw.merchant, {}, { amount: '0.00' }));
      assert.deepEqual(plain.body.errors, [{ error_code: '100000', error_message: 'order.amount: This value should be greater than 0.' }]);
    });

    it('starts a chain from a Checkout debit and charges it by RECURRING_DEBIT, not RECURRING_SALE', async () => {
      const { paymentId } = await payCheckout(gw, sessionBody(gw.merchant, { operation: 'debit', recurring_init: true }));
      const cb = await callbackOf(paymentId, (c) => c.fields.order_status === 'settled');
      const chain = { initId: paymentId, token: cb.fields.recurring_token as string };
      assert.match(chain.token, UUID);
      assert.deepEqual(errorOf(await recurringSale(gw, chain, {}, { email: PAGE_EMAIL })), { http_code: 400, error_code: '100000', error_message: 'Incorrect transaction', result: 'ERROR' });
      const res = await recurringSale(gw, chain, {}, { action: 'RECURRING_DEBIT', email: PAGE_EMAIL });
      assert.equal(res.body.action, 'RECURRING_DEBIT', res.text);
      assert.equal(res.body.status, 'SETTLED');
      assert.equal((await callbackOf(res.body.trans_id)).fields.action, 'RECURRING_DEBIT');
    });

    describe('S2S chain', () => {
      it('answers SALE recurring_init=Y with recurring_token, and charges it by RECURRING_SALE with auth', async () => {
        const init = await initSale(gw);
        assert.equal(init.body.result, 'SUCCESS', init.text);
        assert.match(init.body.recurring_token, UUID);
        const chain = { initId: init.body.trans_id, token: init.body.recurring_token };
        const res = await recurringSale(gw, chain, { auth: 'Y', order_amount: '0.00' });
        assert.equal(res.body.status, 'PENDING', res.text);
        const payment = await getPayment(gw.store.db, res.body.trans_id);
        assert.equal(payment?.operation, 'recurring');
        assert.deepEqual((await listTransactions(gw.store.db, res.body.trans_id)).map((t) => t.type), ['recurring']);
      });

      it('answers an unknown pair, a wrong token and a chain-less payment with 400 100000 Incorrect transaction', async () => {
        const init = await initSale(gw);
        const plain = await initSale(gw, { recurring_init: undefined });
        for (const chain of [{ initId: UNKNOWN, token: init.body.recurring_token }, { initId: init.body.trans_id, token: UNKNOWN }, { initId: plain.body.trans_id, token: UNKNOWN }]) {
          assert.deepEqual(errorOf(await recurringSale(gw, chain)), { http_code: 400, error_code: '100000', error_message: 'Incorrect transaction', result: 'ERROR' });
        }
      });

      it('refuses a wrong hash and a zero amount without auth', async () => {
        const init = await initSale(gw);
        const chain = { initId: init.body.trans_id, token: init.body.recurring_token };
        assert.equal((await recurringSale(gw, chain, {}, { email: 'other@example.com' })).status, 401);
        assert.deepEqual(messages(await recurringSale(gw, chain, { order_amount: '0' })), ['order_amount: This value should be greater than 0.']);
      });

      it('refuses an order_currency other than the chain\'s (issue 25, item 17) and charges nothing', async () => {
        const init = await initSale(gw);
        const chain = { initId: init.body.trans_id, token: init.body.recurring_token };
        const eur = await recurringSale(gw, chain, { order_currency: 'EUR', order_id: 'eur-1' });
        assert.equal(eur.status, 400, eur.text);
        assert.deepEqual(messages(eur), ['order_currency: This value is not valid.']);
        const rows = await gw.store.db.query('SELECT count(*)::int AS n FROM payments WHERE order_id LIKE $1', ['eur-%']);
        assert.equal(rows[0]?.n, 0, 'no payment was created');
        const usd = await recurringSale(gw, chain, { order_currency: 'USD' });
        assert.equal(usd.body.currency, 'USD', usd.text);
        assert.equal(usd.body.result, 'SUCCESS');
      });

      it('records payer_present=N on a stored card as merchant-initiated', async () => {
        const stored = await initSale(gw, { recurring_init: undefined, req_token: 'Y' });
        const token = stored.body.card_token as string;
        const fields = saleFields({ card_number: undefined, card_exp_month: undefined, card_exp_year: undefined, card_cvv2: undefined, card_token: token, payer_present: 'N', order_id: orderId() });
        const res = await gw.postForm('/post', { client_key: gw.merchant.key, ...fields, hash: f1(EMAIL, gw.merchant.password, token) });
        assert.equal(res.body.result, 'SUCCESS', res.text);
        const status = await gw.postForm('/post', { action: 'GET_TRANS_STATUS', client_key: gw.merchant.key, trans_id: res.body.trans_id, hash: f2(EMAIL, gw.merchant.password, res.body.trans_id, CARD) });
        assert.deepEqual([status.body.initiator, status.body.source, status.body.sequence], ['merchant', 'unscheduled', 'subsequent']);
      });

      it('declines a merchant-initiated charge the acquirer wants authenticated (3-D Secure card): no payer to do it', async () => {
        const init = await initSale(gw, { card_exp_month: '05' });
        assert.equal(init.body.result, 'REDIRECT');
        const acs = await fetch(`${gw.baseUrl}/sandbox/acs/${init.body.trans_id}/complete`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=submit' });
        await acs.text();
        const chainPayment = await getPayment(gw.store.db, init.body.trans_id);
        assert.equal(chainPayment?.status, 'settled');
        const res = await recurringSale(gw, { initId: init.body.trans_id, token: String(chainPayment?.details.recurring_token) });
        assert.equal(res.body.result, 'DECLINED', res.text);
        assert.equal(res.body.decline_reason, 'Authentication required');
      });
    });

    it('puts an existing chain on a schedule from a recurring charge naming it, once', async () => {
      const sch = await gw.postForm('/post', { action: 'CREATE_SCHEDULE', client_key: gw.merchant.key, name: 'Later', interval_length: '1', interval_unit: 'month', payments_count: '2', hash: f3(gw.merchant.password) });
      const init = await initSale(gw);
      const chain = { initId: init.body.trans_id, token: init.body.recurring_token };
      const first = await checkoutRecurring(gw, chain, { amount: '2.00' }, { schedule_id: sch.body.schedule_id });
      assert.equal(first.body.schedule_id, sch.body.schedule_id, first.text);
      assert.equal(first.body.first_recurring_date, '2030-02-15', 'counted from the charge that put the chain on the schedule');
      const again = await recurringSale(gw, chain, { schedule_id: sch.body.schedule_id });
      assert.equal(again.body.first_recurring_date, first.body.first_recurring_date, 'the chain keeps its one subscription');
      const rows = await gw.store.db.query('SELECT id FROM schedule_subscriptions WHERE recurring_token = $1', [chain.token]);
      assert.equal(rows.length, 1);
      assert.deepEqual(errorOf(await recurringSale(gw, chain, { schedule_id: UNKNOWN })), { http_code: 400, error_code: '100000', error_message: 'Schedule not found', result: 'ERROR' });
    });

    describe('RETRY', () => {
      it('retries a declined recurring charge: ACCEPTED, then SETTLED, reported as RECURRING_SALE', async () => {
        const init = await initSale(gw);
        const chain = { initId: init.body.trans_id, token: init.body.recurring_token };
        connector.declineNext = 1;
        const declined = await recurringSale(gw, chain);
        assert.equal(declined.body.status, 'DECLINED', declined.text);
        assert.equal(declined.body.decline_reason, 'Insufficient funds');
        await callbackOf(declined.body.trans_id, (c) => c.fields.result === 'DECLINED');
        const res = await gw.postForm('/post', { action: 'RETRY', client_key: gw.merchant.key, trans_id: declined.body.trans_id, hash: f1(EMAIL, gw.merchant.password, CARD) });
        assert.deepEqual(res.body, { action: 'RETRY', result: 'ACCEPTED', order_id: declined.body.order_id, trans_id: declined.body.trans_id });
        const cb = await callbackOf(declined.body.trans_id, (c) => c.fields.result === 'SUCCESS');
        assert.equal(cb.fields.action, 'RECURRING_SALE');
        assert.equal(cb.fields.status, 'SETTLED');
        const payment = await getPayment(gw.store.db, declined.body.trans_id);
        assert.equal(payment?.status, 'settled');
        assert.equal(payment?.declineReason, null);
        // Both transactions bear the test's fixed clock time: compared without their order.
        assert.deepEqual((await listTransactions(gw.store.db, payment!.id)).map((t) => `${t.type}:${t.status}`).sort(), ['recurring:fail', 'retry:success']);
        // Two acquirer attempts of one payment (payment_attempts): the charge, declined, and the RETRY, approved.
        const attempts = await gw.store.db.query<{ seq: number; why: string; status: string; mid_id: string }>('SELECT seq, why, status, mid_id FROM payment_attempts WHERE payment_id = $1 ORDER BY seq', [payment!.id]);
        assert.deepEqual(attempts.map((a) => [a.seq, a.why, a.status, a.mid_id]), [[1, 'routed', 'declined', payment!.midId], [2, 'retry', 'approved', payment!.midId]]);
        const again = await gw.postForm('/post', { action: 'RETRY', client_key: gw.merchant.key, trans_id: declined.body.trans_id, hash: f1(EMAIL, gw.merchant.password, CARD) });
        assert.equal(errorOf(again).error_message, 'Incorrect transaction', 'a settled charge is not retried');
      });

      it('retries by Checkout payment/retry, and reports a retry that declines again', async () => {
        const init = await initSale(gw);
        connector.declineNext = 2;
        const declined = await recurringSale(gw, { initId: init.body.trans_id, token: init.body.recurring_token });
        const res = await gw.postJson('/api/v1/payment/retry', { merchant_key: gw.merchant.key, payment_id: declined.body.trans_id, hash: checkoutHash(gw.merchant.password, declined.body.trans_id) });
        assert.deepEqual(res.body, { payment_id: declined.body.trans_id, result: 'accepted' });
        const payment = await getPayment(gw.store.db, declined.body.trans_id);
        assert.equal(payment?.status, 'decline');
        assert.equal(payment?.pendingOperation, null);
      });
    });
  });
}
