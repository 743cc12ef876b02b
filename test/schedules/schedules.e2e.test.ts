/**
 * Schedules run forward on the sandbox test clock, on both stores: every charge's date, amount and callback.
 * The runner is driven pass by pass (its background loop is stopped), the callback dispatcher delivers.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener, type ReceivedCallback } from '../support/merchant.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { getPayment } from '../../src/store/payments-repo.ts';
import { chargesOf, findActiveSubscription } from '../../src/store/schedules-repo.ts';
import { CARD, EMAIL, f1, f2, saleFields } from '../s2s-card/support.ts';
import { advanceClock, initSale, newSchedule, payCheckout, scheduleAction, scriptConnector, sessionBody, type ScriptedConnector } from './../recurring/support.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`schedules on the test clock (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let listener: Listener;
    let connector: ScriptedConnector;
    const clock = new ManualClock('2030-01-15T10:00:00Z');

    before(async () => {
      listener = await startListener();
      gw = await startTestGateway(kind, { clock, workers: true, notificationUrl: listener.url });
      await gw.gateway.runner.stop();
      connector = scriptConnector(gw);
    });
    after(async () => {
      await gw?.close();
      await listener?.close();
    });

    /** Runs the runner until a pass finds nothing to do; answers how many payments it charged. */
    async function runDue(): Promise<number> {
      let total = 0;
      for (;;) {
        const pass = await gw.gateway.runner.runOnce();
        total += pass.recorded;
        if (pass.claimed === 0) return total;
      }
    }

    async function advance(days: number, m: TestMerchant = gw.merchant): Promise<string> {
      const res = await advanceClock(gw, days, m);
      assert.equal(res.status, 200, res.text);
      return res.body.now as string;
    }

    /** Callbacks of different payments arrive in any order: sorted by their date. */
    const callbacksOf = async (match: (c: ReceivedCallback) => boolean, count: number) => {
      const dateOf = (c: ReceivedCallback) => c.fields.date ?? c.fields.trans_date ?? '';
      return (await listener.waitForMatching(match, count)).sort((a, b) => dateOf(a).localeCompare(dateOf(b)));
    };

    it('runs a Checkout chain with a trial: the trial fee, then payment_schedule_amount from schedule_start_date, monthly, payments_count times', async () => {
      const scheduleId = await newSchedule(gw, { interval_length: '1', interval_unit: 'month', payments_count: '3' });
      const body = sessionBody(gw.merchant, { recurring_init: true, schedule_id: scheduleId, schedule_start_date: '2030-02-01', payment_schedule_amount: '19.99', custom_data: { plan: 'gold' } }, { amount: '1.00' });
      const { paymentId: initId, orderNumber } = await payCheckout(gw, body);
      const [init] = await callbacksOf((c) => c.fields.id === initId, 1);
      assert.equal(init?.fields.type, 'sale');
      assert.equal(init?.fields.order_amount, '1.00', 'the trial fee');
      assert.equal(init?.fields.recurring_init_trans_id, initId);
      assert.equal(init?.fields.schedule_id, scheduleId);
      assert.equal(init?.fields.first_recurring_date, '2030-02-01');
      const token = init?.fields.recurring_token as string;
      const status = await gw.postJson('/api/v1/payment/status', { merchant_key: gw.merchant.key, payment_id: initId, hash: checkoutHash(gw.merchant.password, initId) });
      assert.deepEqual([status.body.schedule_id, status.body.shedule_id, status.body.first_recurring_date, status.body.recurring_token], [scheduleId, scheduleId, '2030-02-01', token]);

      assert.equal(await runDue(), 0, 'nothing is due during the trial');
      assert.equal(await advance(16), '2030-01-31 10:00:00');
      assert.equal(await runDue(), 0);
      await advance(1);
      assert.equal(await runDue(), 1);
      assert.equal(await advance(28), '2030-03-01 10:00:00');
      assert.equal(await runDue(), 1);
      await advance(365);
      assert.equal(await runDue(), 1, 'a year later only the third and last payment was left');

      const charges = await callbacksOf((c) => c.fields.type === 'recurring' && c.fields.recurring_token === token, 3);
      assert.deepEqual(charges.map((c) => c.fields.date), ['2030-02-01 00:00:00', '2030-03-01 00:00:00', '2030-04-01 00:00:00']);
      for (const c of charges) {
        assert.equal(c.fields.status, 'success');
        assert.equal(c.fields.order_status, 'settled');
        assert.equal(c.fields.order_amount, '19.99');
        assert.equal(c.fields.order_number, orderNumber);
        assert.equal(c.fields.schedule_id, scheduleId);
        assert.equal(c.fields.first_recurring_date, '2030-02-01');
        assert.equal(c.fields.recurring_init_trans_id, initId);
        assert.equal(c.fields['custom_data[plan]'], 'gold');
        assert.equal(c.fields.hash, checkoutHash(gw.merchant.password, c.fields.id as string, orderNumber, '19.99', 'USD', 'Subscription'));
      }
      const subscription = await findActiveSubscription(gw.store.db, scheduleId, token);
      assert.deepEqual((await chargesOf(gw.store.db, subscription!.id)).map((c) => [c.seq, c.dueDate]), [[1, '2030-02-01'], [2, '2030-03-01'], [3, '2030-04-01']]);
      const byOrder = await gw.postJson('/api/v1/payment/status', { merchant_key: gw.merchant.key, order_id: orderNumber, size: 10, hash: checkoutHash(gw.merchant.password, orderNumber) });
      assert.deepEqual(byOrder.body.map((p: { order: { amount: string } }) => p.order.amount), ['19.99', '19.99', '19.99', '1.00']);
    });

    it('runs a zero-amount S2S debit chain on day_of_month 31: month ends, RECURRING_DEBIT callbacks to its callback_url', async () => {
      const m = await gw.addMerchant({ notificationUrl: listener.url });
      const scheduleId = await newSchedule(gw, { interval_length: '1', interval_unit: 'month', payments_count: '3', delayed_first_payment: 'to_day_of_month', first_payment_day_of_month: '31' }, m);
      const fields = saleFields({ action: 'DEBIT', recurring_init: 'Y', order_amount: '0.00', schedule_id: scheduleId, payment_schedule_amount: '4.50', callback_url: `${listener.url}?debit` });
      const init = await gw.postForm('/post', { client_key: m.key, ...fields, hash: f1(EMAIL, m.password, CARD) });
      assert.equal(init.body.status, 'SETTLED', init.text);
      assert.equal(init.body.first_recurring_date, '2030-01-31');
      for (const days of [16, 28, 31]) {
        await advance(days, m);
        assert.equal(await runDue(), 1);
      }
      await advance(40, m);
      assert.equal(await runDue(), 0);
      const charges = await callbacksOf((c) => c.fields.action === 'RECURRING_DEBIT' && c.fields.recurring_token === init.body.recurring_token, 3);
      assert.deepEqual(charges.map((c) => [c.fields.trans_date, c.fields.amount, c.fields.result, c.fields.status]), [
        ['2030-01-31 00:00:00', '4.50', 'SUCCESS', 'SETTLED'],
        ['2030-02-28 00:00:00', '4.50', 'SUCCESS', 'SETTLED'],
        ['2030-03-31 00:00:00', '4.50', 'SUCCESS', 'SETTLED'],
      ]);
      for (const c of charges) assert.equal(c.fields.hash, f2(EMAIL, m.password, c.fields.trans_id as string, CARD));
    });

    it('charges nothing while paused; RUN skips what fell due on earlier days and charges what is due today', async () => {
      const m = await gw.addMerchant({ notificationUrl: listener.url });
      const scheduleId = await newSchedule(gw, { interval_length: '1', interval_unit: 'week', payments_count: '4' }, m);
      const init = await initSale(gw, { schedule_id: scheduleId }, m);
      assert.equal(init.body.first_recurring_date, '2030-01-22');
      await advance(7, m);
      assert.equal(await runDue(), 1);
      assert.equal((await scheduleAction(gw, 'PAUSE_SCHEDULE', scheduleId, {}, m)).body.result, 'SUCCESS');
      await advance(14, m);
      assert.equal(await runDue(), 0, 'paused: the payments of Jan 29 and Feb 5 wait');
      assert.equal((await scheduleAction(gw, 'RUN_SCHEDULE', scheduleId, {}, m)).body.result, 'SUCCESS');
      assert.equal(await runDue(), 1, 'Feb 5 (today) is charged');
      await advance(7, m);
      assert.equal(await runDue(), 1);
      const subscription = await findActiveSubscription(gw.store.db, scheduleId, init.body.recurring_token);
      const charges = await chargesOf(gw.store.db, subscription!.id);
      assert.deepEqual(charges.map((c) => [c.seq, c.dueDate, c.paymentId === null ? 'skipped' : 'charged']), [
        [1, '2030-01-22', 'charged'], [2, '2030-01-29', 'skipped'], [3, '2030-02-05', 'charged'], [4, '2030-02-12', 'charged'],
      ]);
    });

    it('records and reports a declined charge, goes on with the next one, and RETRY settles it', async () => {
      const m = await gw.addMerchant({ notificationUrl: listener.url });
      const scheduleId = await newSchedule(gw, { interval_length: '10', interval_unit: 'day', payments_count: '3' }, m);
      const init = await initSale(gw, { schedule_id: scheduleId, custom_data: { sub: 'x' } }, m);
      connector.declineNext = 1;
      await advance(10, m);
      assert.equal(await runDue(), 1);
      const [declined] = await callbacksOf((c) => c.fields.action === 'RECURRING_SALE' && c.fields.recurring_token === init.body.recurring_token, 1);
      assert.deepEqual([declined?.fields.result, declined?.fields.status, declined?.fields.decline_reason], ['DECLINED', 'DECLINED', 'Insufficient funds']);
      assert.equal((await getPayment(gw.store.db, declined?.fields.trans_id as string))?.status, 'decline');
      await advance(10, m);
      assert.equal(await runDue(), 1, 'the next payment is charged as planned');
      const retry = await gw.postForm('/post', { action: 'RETRY', client_key: m.key, trans_id: declined?.fields.trans_id, hash: f1(EMAIL, m.password, CARD) });
      assert.equal(retry.body.result, 'ACCEPTED', retry.text);
      assert.equal((await getPayment(gw.store.db, declined?.fields.trans_id as string))?.status, 'settled');
    });

    it('UPDATE_SCHEDULE moves the next payments: counted from the last one with the new interval', async () => {
      const m = await gw.addMerchant({ notificationUrl: listener.url });
      const scheduleId = await newSchedule(gw, { interval_length: '1', interval_unit: 'month', payments_count: '2' }, m);
      const init = await initSale(gw, { schedule_id: scheduleId }, m);
      assert.equal(init.body.first_recurring_date, '2030-02-15');
      await advance(31, m);
      assert.equal(await runDue(), 1);
      await scheduleAction(gw, 'UPDATE_SCHEDULE', scheduleId, { interval_length: '14', interval_unit: 'day', payments_count: '3' }, m);
      const subscription = await findActiveSubscription(gw.store.db, scheduleId, init.body.recurring_token);
      assert.equal(subscription?.nextDueDate, '2030-03-01');
      await advance(40, m);
      assert.equal(await runDue(), 2);
      assert.deepEqual((await chargesOf(gw.store.db, subscription!.id)).map((c) => c.dueDate), ['2030-02-15', '2030-03-01', '2030-03-15']);
    });

    it('DESCHEDULE stops a chain; a schedule\'s other chains go on', async () => {
      const m = await gw.addMerchant({ notificationUrl: listener.url });
      const scheduleId = await newSchedule(gw, { interval_length: '1', interval_unit: 'day', payments_count: '5' }, m);
      const a = await initSale(gw, { schedule_id: scheduleId }, m);
      const b = await initSale(gw, { schedule_id: scheduleId }, m);
      await scheduleAction(gw, 'DESCHEDULE', scheduleId, { recurring_token: a.body.recurring_token }, m);
      await advance(1, m);
      assert.equal(await runDue(), 1, 'only the chain still on the schedule');
      assert.ok(b.body.recurring_token);
    });

    it('serves the test clock to sandbox merchants only, signed', async () => {
      const m = await gw.addMerchant();
      const read = await gw.postJson('/sandbox/test-clock', { merchant_key: m.key, hash: checkoutHash(m.password, m.key) });
      assert.deepEqual(read.body, { merchant_key: m.key, now: '2030-01-15 10:00:00', offset_seconds: 0 });
      assert.equal((await gw.postJson('/sandbox/test-clock/advance', { merchant_key: m.key, days: 1, hash: 'a'.repeat(40) })).status, 401);
      const moved = await gw.postJson('/sandbox/test-clock/advance', { merchant_key: m.key, seconds: 90, hash: checkoutHash(m.password, m.key, '', '90') });
      assert.deepEqual(moved.body, { merchant_key: m.key, now: '2030-01-15 10:01:30', offset_seconds: 90 });
      await gw.store.db.query('UPDATE merchants SET sandbox = false WHERE id = $1', [m.id]);
      gw.gateway.ctx.merchants.invalidate();
      const live = await gw.postJson('/sandbox/test-clock', { merchant_key: m.key, hash: checkoutHash(m.password, m.key) });
      assert.deepEqual(live.body, { http_code: 403, error_code: '100000', error_message: 'Test clocks are available to sandbox merchants only.' });
    });
  });
}
