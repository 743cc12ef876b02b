/**
 * The schedule actions over HTTP on both stores: CREATE_SCHEDULE (F3), UPDATE_SCHEDULE, DELETE_SCHEDULE,
 * PAUSE/PAUSE_SCHEDULE, RUN/RUN_SCHEDULE, SCHEDULE_INFO (POST and GET), DESCHEDULE (F4), their validation and
 * errors, and the schedule fields of the payment requests that name a schedule.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { errorOf, f1, messages, saleFields } from '../s2s-card/support.ts';
import { createSchedule, f3, f4, initSale, newSchedule, payCheckout, scheduleAction, sessionBody } from '../recurring/support.ts';

const MONTHLY = { interval_length: '1', interval_unit: 'month', payments_count: '12' };
const NOT_FOUND = { http_code: 400, error_code: '100000', error_message: 'Schedule not found', result: 'ERROR' };
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

for (const { kind, skip } of await storeKinds()) {
  describe(`schedule actions (${kind})`, { skip }, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway(kind, { clock: new ManualClock('2030-01-15T10:00:00Z') });
    });
    after(() => gw?.close());

    const info = async (id: string) => (await scheduleAction(gw, 'SCHEDULE_INFO', id)).body;

    describe('CREATE_SCHEDULE', () => {
      it('creates a schedule (F3) and answers its schedule_id', async () => {
        const res = await createSchedule(gw, { name: 'Gold monthly', ...MONTHLY, day_of_month: '31' });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(Object.keys(res.body), ['action', 'result', 'schedule_id']);
        assert.equal(res.body.action, 'CREATE_SCHEDULE');
        assert.equal(res.body.result, 'SUCCESS');
        assert.deepEqual(await info(res.body.schedule_id), {
          action: 'SCHEDULE_INFO', result: 'SUCCESS', schedule_id: res.body.schedule_id, name: 'Gold monthly', interval_length: 1, interval_unit: 'month',
          day_of_month: 31, payments_count: 12, delays: null, paused: 'N', delayed_first_payment: 'none',
        });
      });

      it('reads both spellings of delayed_first_payment and answers the interface spec\'s (D1)', async () => {
        const cases: [Record<string, string>, Record<string, unknown>][] = [
          [{ delayed_first_payment: 'by_interval', first_payment_interval_length: '14', first_payment_interval_unit: 'day' }, { delayed_first_payment: 'delay_by_interval', first_payment_interval_length: 14, first_payment_interval_unit: 'day' }],
          [{ delayed_first_payment: 'delay_by_interval', first_payment_interval_length: '1', first_payment_interval_unit: 'month' }, { delayed_first_payment: 'delay_by_interval', first_payment_interval_length: 1, first_payment_interval_unit: 'month' }],
          [{ delayed_first_payment: 'to_day_of_week', first_payment_day_of_week: '5' }, { delayed_first_payment: 'day_of_week', first_payment_day_of_week: 5 }],
          [{ delayed_first_payment: 'day_of_week', first_payment_day_of_week: 'monday' }, { delayed_first_payment: 'day_of_week', first_payment_day_of_week: 1 }],
          [{ delayed_first_payment: 'to_day_of_month', first_payment_day_of_month: '30' }, { delayed_first_payment: 'day_of_month', first_payment_day_of_month: 30 }],
          [{ delayed_first_payment: 'day_of_month', first_payment_day_of_month: '1' }, { delayed_first_payment: 'day_of_month', first_payment_day_of_month: 1 }],
        ];
        for (const [sent, expected] of cases) {
          const id = await newSchedule(gw, { ...MONTHLY, ...sent });
          const got = await info(id);
          for (const [key, value] of Object.entries(expected)) assert.equal(got[key], value, `${JSON.stringify(sent)}: ${key}`);
        }
      });

      it('names every missing or wrong parameter', async () => {
        assert.deepEqual(messages(await createSchedule(gw, {})).sort(), [
          'interval_length: This value should not be blank.', 'interval_unit: This value should not be blank.',
          'name: This value should not be blank.', 'payments_count: This value should not be blank.',
        ]);
        const cases: [Record<string, string>, string][] = [
          [{ interval_length: '0' }, 'interval_length: This value should be greater than 0.'],
          [{ interval_length: 'x' }, 'interval_length: This value should be of type integer.'],
          [{ interval_unit: 'hour' }, 'interval_unit: The value you selected is not a valid choice.'],
          [{ day_of_month: '32' }, 'day_of_month: This value should be between 1 and 31.'],
          [{ interval_unit: 'day', day_of_month: '5' }, 'day_of_month: This value is not correct.'],
          [{ payments_count: '-1' }, 'payments_count: This value should be greater than 0.'],
          [{ delayed_first_payment: 'later' }, 'delayed_first_payment: The value you selected is not a valid choice.'],
          [{ delayed_first_payment: 'day_of_week' }, 'first_payment_day_of_week: This value should not be blank.'],
          [{ delayed_first_payment: 'day_of_week', first_payment_day_of_week: '8' }, 'first_payment_day_of_week: The value you selected is not a valid choice.'],
          [{ name: 'x'.repeat(101) }, 'name: This value is too long. It should have 100 characters or less.'],
        ];
        for (const [sent, message] of cases) assert.deepEqual(messages(await createSchedule(gw, { name: 'P', ...MONTHLY, ...sent })), [message], JSON.stringify(sent));
      });

      it('refuses delays with "Parameter is deprecated"', async () => {
        const res = await createSchedule(gw, { name: 'Old', ...MONTHLY, delays: '1' });
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { http_code: 400, error_code: '100000', error_message: 'Parameter is deprecated', errors: [{ error_code: '100000', error_message: 'delays: Parameter is deprecated' }], result: 'ERROR' });
      });

      it('refuses a wrong hash with 401, and takes the key a Checkout-only merchant has', async () => {
        const res = await gw.postForm('/post', { action: 'CREATE_SCHEDULE', client_key: gw.merchant.key, name: 'P', ...MONTHLY, hash: f3('wrong') });
        assert.equal(res.status, 401);
        const checkoutOnly = await gw.addMerchant();
        assert.equal((await payCheckout(gw, sessionBody(gw.merchant))).paymentId.length, 36);
        assert.equal((await createSchedule(gw, { name: 'P', ...MONTHLY }, checkoutOnly)).body.result, 'SUCCESS');
      });
    });

    describe('by schedule_id', () => {
      it('answers an unknown schedule_id of every action with 400 100000 "Schedule not found"', async () => {
        for (const action of ['UPDATE_SCHEDULE', 'DELETE_SCHEDULE', 'PAUSE', 'PAUSE_SCHEDULE', 'RUN', 'RUN_SCHEDULE', 'SCHEDULE_INFO']) {
          assert.deepEqual(errorOf(await scheduleAction(gw, action, UNKNOWN)), NOT_FOUND, action);
        }
        assert.deepEqual(errorOf(await scheduleAction(gw, 'DESCHEDULE', UNKNOWN, { recurring_token: UNKNOWN })), NOT_FOUND);
      });

      it('finds no schedule of another merchant', async () => {
        const other = await gw.addMerchant();
        const id = await newSchedule(gw, MONTHLY, other);
        assert.deepEqual(errorOf(await scheduleAction(gw, 'SCHEDULE_INFO', id)), NOT_FOUND);
      });

      it('checks F4 over the schedule_id', async () => {
        const id = await newSchedule(gw, MONTHLY);
        const res = await gw.postForm('/post', { action: 'SCHEDULE_INFO', client_key: gw.merchant.key, schedule_id: id, hash: f4(UNKNOWN, gw.merchant.password) });
        assert.equal(res.status, 401);
      });

      it('takes SCHEDULE_INFO by GET too', async () => {
        const id = await newSchedule(gw, MONTHLY);
        const query = new URLSearchParams({ action: 'SCHEDULE_INFO', client_key: gw.merchant.key, schedule_id: id, hash: f4(id, gw.merchant.password) });
        const res = await fetch(`${gw.baseUrl}/post?${query}`);
        assert.equal(res.status, 200);
        assert.equal(((await res.json()) as { schedule_id: string }).schedule_id, id);
      });

      it('UPDATE_SCHEDULE changes only what is sent, and refuses delays', async () => {
        const id = await newSchedule(gw, { ...MONTHLY, name: 'Before', delayed_first_payment: 'day_of_week', first_payment_day_of_week: '3' });
        const res = await scheduleAction(gw, 'UPDATE_SCHEDULE', id, { name: 'After' });
        assert.deepEqual(res.body, { action: 'UPDATE_SCHEDULE', result: 'SUCCESS' });
        const got = await info(id);
        assert.equal(got.name, 'After');
        assert.deepEqual([got.interval_length, got.interval_unit, got.payments_count, got.delayed_first_payment, got.first_payment_day_of_week], [1, 'month', 12, 'day_of_week', 3]);
        await scheduleAction(gw, 'UPDATE_SCHEDULE', id, { payments_count: '3', interval_unit: 'day', interval_length: '10' });
        assert.deepEqual([(await info(id)).interval_length, (await info(id)).interval_unit, (await info(id)).payments_count], [10, 'day', 3]);
        assert.deepEqual(messages(await scheduleAction(gw, 'UPDATE_SCHEDULE', id, { delayed_first_payment: 'day_of_month' })), ['first_payment_day_of_month: This value should not be blank.']);
        assert.equal(errorOf(await scheduleAction(gw, 'UPDATE_SCHEDULE', id, { delays: '2' })).error_message, 'Parameter is deprecated');
        assert.equal((await info(id)).delayed_first_payment, 'day_of_week', 'a refused update changes nothing');
      });

      it('PAUSE and RUN, in both spellings, answer with the interface spec\'s names (D1)', async () => {
        const id = await newSchedule(gw, MONTHLY);
        for (const [action, answered, paused] of [['PAUSE_SCHEDULE', 'PAUSE', 'Y'], ['RUN_SCHEDULE', 'RUN', 'N'], ['PAUSE', 'PAUSE', 'Y'], ['RUN', 'RUN', 'N']] as const) {
          assert.deepEqual((await scheduleAction(gw, action, id)).body, { action: answered, result: 'SUCCESS' });
          assert.equal((await info(id)).paused, paused, action);
        }
      });

      it('DELETE_SCHEDULE deletes only a schedule no payment uses', async () => {
        const unused = await newSchedule(gw, MONTHLY);
        assert.deepEqual((await scheduleAction(gw, 'DELETE_SCHEDULE', unused)).body, { action: 'DELETE_SCHEDULE', result: 'SUCCESS' });
        assert.deepEqual(errorOf(await scheduleAction(gw, 'SCHEDULE_INFO', unused)), NOT_FOUND);
        const used = await newSchedule(gw, MONTHLY);
        assert.equal((await initSale(gw, { schedule_id: used })).body.result, 'SUCCESS');
        assert.deepEqual(errorOf(await scheduleAction(gw, 'DELETE_SCHEDULE', used)), { http_code: 400, error_code: '100000', error_message: 'Schedule is used by payments and can not be deleted.', result: 'ERROR' });
        assert.equal((await info(used)).schedule_id, used);
      });

      it('a payment request refused on the way (an unknown card token) leaves the schedule it names deletable; an opened Checkout session uses it', async () => {
        const named = await newSchedule(gw, MONTHLY);
        const token = 'b'.repeat(64);
        const fields = saleFields({ recurring_init: 'Y', schedule_id: named, card_number: undefined, card_exp_month: undefined, card_exp_year: undefined, card_cvv2: undefined, card_token: token });
        const refused = await gw.postForm('/post', { client_key: gw.merchant.key, ...fields, hash: f1(fields.payer_email as string, gw.merchant.password, token) });
        assert.equal(errorOf(refused).error_code, '205005', refused.text);
        assert.deepEqual((await scheduleAction(gw, 'DELETE_SCHEDULE', named)).body, { action: 'DELETE_SCHEDULE', result: 'SUCCESS' }, 'no payment uses it');
        const forSession = await newSchedule(gw, MONTHLY);
        const opened = await gw.postJson('/api/v1/session', sessionBody(gw.merchant, { recurring_init: true, schedule_id: forSession }));
        assert.equal(opened.status, 200, opened.text);
        assert.equal(errorOf(await scheduleAction(gw, 'DELETE_SCHEDULE', forSession)).error_message, 'Schedule is used by payments and can not be deleted.');
      });

      it('DESCHEDULE stops one chain (recurring_token + schedule_id); an unknown token is an Incorrect transaction', async () => {
        const id = await newSchedule(gw, MONTHLY);
        const sale = await initSale(gw, { schedule_id: id });
        const token = sale.body.recurring_token;
        assert.deepEqual((await scheduleAction(gw, 'DESCHEDULE', id, { recurring_token: token })).body, { action: 'DESCHEDULE', result: 'SUCCESS' });
        assert.deepEqual((await scheduleAction(gw, 'DESCHEDULE', id, { recurring_token: token })).body, { action: 'DESCHEDULE', result: 'SUCCESS' }, 'again: the same answer');
        assert.equal(errorOf(await scheduleAction(gw, 'DESCHEDULE', id, { recurring_token: UNKNOWN })).error_message, 'Incorrect transaction');
      });
    });

    describe('payment requests naming a schedule', () => {
      it('SALE recurring_init=Y with schedule_id answers schedule_id and first_recurring_date', async () => {
        const id = await newSchedule(gw, MONTHLY);
        const res = await initSale(gw, { schedule_id: id });
        assert.equal(res.body.schedule_id, id);
        assert.equal(res.body.first_recurring_date, '2030-02-15', 'none: one interval after the initiating payment');
        const trial = await initSale(gw, { schedule_id: id, schedule_start_date: '2030-03-01', payment_schedule_amount: '9.99' });
        assert.equal(trial.body.first_recurring_date, '2030-03-01');
      });

      it('answers an unknown schedule with "Schedule not found", and checks the schedule fields', async () => {
        assert.deepEqual(errorOf(await initSale(gw, { schedule_id: UNKNOWN })), NOT_FOUND);
        const id = await newSchedule(gw, MONTHLY);
        assert.deepEqual(messages(await initSale(gw, { schedule_id: id, recurring_init: undefined })), ['recurring_init: This value should be true.']);
        assert.deepEqual(messages(await initSale(gw, { schedule_id: id, order_amount: '0.00' })), ['payment_schedule_amount: This value should not be blank.']);
        assert.deepEqual(messages(await initSale(gw, { schedule_id: id, payment_schedule_amount: '0' })), ['payment_schedule_amount: This value should be greater than 0.']);
        assert.deepEqual(messages(await initSale(gw, { schedule_id: id, schedule_start_date: '2030-01-14' })), ['schedule_start_date: This value should be greater than or equal to 2030-01-15.']);
      });

      it('Checkout sessions check the same', async () => {
        const open = (extra: Record<string, unknown>, amount?: string) => gw.postJson('/api/v1/session', sessionBody(gw.merchant, extra, { amount }));
        assert.deepEqual((await open({ recurring_init: true, schedule_id: UNKNOWN })).body, { http_code: 400, error_code: '100000', error_message: 'Schedule not found' });
        const id = await newSchedule(gw, MONTHLY);
        assert.deepEqual((await open({ schedule_id: id })).body.errors, [{ error_code: '100000', error_message: 'recurring_init: This value should be true.' }]);
        assert.deepEqual((await open({ recurring_init: true, schedule_id: id }, '0.00')).body.errors, [{ error_code: '100000', error_message: 'payment_schedule_amount: This value should not be blank.' }]);
        assert.equal((await open({ recurring_init: true, schedule_id: id, payment_schedule_amount: '5.00' }, '0.00')).status, 200);
      });

      it('S2S DEBIT starts a debit chain on a schedule the same way', async () => {
        const id = await newSchedule(gw, MONTHLY);
        const fields = saleFields({ action: 'DEBIT', recurring_init: 'Y', schedule_id: id });
        const res = await initSale(gw, fields);
        assert.equal(res.body.action, 'DEBIT', res.text);
        assert.equal(res.body.schedule_id, id);
      });
    });
  });
}
