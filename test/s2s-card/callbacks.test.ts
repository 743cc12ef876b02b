/**
 * S2S CARD callbacks on both stores, delivered by the real dispatcher to local listeners: fields per action,
 * Formula 2 (Formula 6 for CREDIT2CARD), callback_url over the notification URL, `OK` needed for delivery.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { CARD, EMAIL, PAYOUT_CARD, f1, f2, f5, f6, followUp, orderId, sale, saleFields, signedSale, startListener, type Listener } from './support.ts';

const DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

for (const { kind, skip } of await storeKinds()) {
  describe(`S2S CARD callbacks (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let notifications: Listener;
    before(async () => {
      notifications = await startListener('OK');
      gw = await startTestGateway(kind, { workers: true, notificationUrl: notifications.url });
    });
    after(async () => {
      await gw.close();
      await notifications.close();
    });

    /** The callbacks of one payment that have arrived at a listener, waiting for `count` of them. */
    async function callbacksOf(listener: Listener, transId: string, count: number) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const mine = listener.received.filter((r) => r.fields.trans_id === transId);
        if (mine.length >= count) return mine;
        if (Date.now() > deadline) throw new Error(`expected ${count} callbacks for ${transId}, got ${mine.length}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    it('sends the SALE outcome to the notification URL, form-encoded and signed with Formula 2', async () => {
      const res = await sale(gw, { custom_data: { basket: 'b 1' } });
      const [cb] = await callbacksOf(notifications, res.body.trans_id, 1);
      assert.match(String(cb?.headers['content-type']), /^application\/x-www-form-urlencoded/);
      const f = cb!.fields;
      assert.deepEqual(Object.keys(f).slice(0, 6), ['action', 'result', 'status', 'order_id', 'trans_id', 'hash']);
      assert.equal(f.action, 'SALE');
      assert.equal(f.result, 'SUCCESS');
      assert.equal(f.status, 'SETTLED');
      assert.equal(f.hash, f2(EMAIL, gw.merchant.password, res.body.trans_id, CARD));
      assert.match(f.trans_date ?? '', DATE);
      assert.equal(f.amount, '1.99');
      assert.equal(f.currency, 'USD');
      assert.equal(f.card, '411111****1111');
      assert.equal(f.card_expiration_date, '01/2038');
      assert.equal(f['custom_data[basket]'], 'b 1');
      assert.ok(!cb!.raw.includes(CARD), 'no PAN in a callback');
      const deadline = Date.now() + 15_000;
      let status = '';
      while (status !== 'delivered' && Date.now() < deadline) {
        [{ status = '' } = {}] = await gw.store.db.query<{ status: string }>('SELECT status FROM callbacks WHERE payment_id = $1', [res.body.trans_id]);
        if (status !== 'delivered') await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(status, 'delivered', 'a 2xx with body OK delivers');
    });

    it('wakes the dispatcher only after a write that wrote a callback (a wake costs a claim statement)', async () => {
      const woken: string[] = [];
      const nudge = gw.gateway.dispatcher.nudge.bind(gw.gateway.dispatcher);
      gw.gateway.dispatcher.nudge = () => { woken.push('nudge'); nudge(); };
      try {
        const quiet = await gw.addMerchant({ mids: [{ paymentMode: 'SMS/DMS' }] });
        const silent = await sale(gw, {}, quiet);
        assert.equal(silent.body.result, 'SUCCESS');
        assert.deepEqual(woken, [], 'a SALE of a merchant without a notification URL writes no callback and wakes nothing');
        const res = await sale(gw);
        assert.equal(res.body.result, 'SUCCESS');
        await callbacksOf(notifications, res.body.trans_id, 1);
        assert.ok(woken.length >= 1, 'a SALE that wrote its callback wakes the dispatcher');
      } finally {
        gw.gateway.dispatcher.nudge = nudge;
      }
    });

    it('sends the callback once the answer is out, not at the dispatcher\'s next poll', async () => {
      const own = await startListener('OK');
      const patient = await startTestGateway(kind, { workers: true, dispatcherPollMs: 10 * 60_000, notificationUrl: own.url });
      try {
        // The start-up pass has run (the queue was empty); the next poll is ten minutes away.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const res = await sale(patient);
        const [cb] = await callbacksOf(own, res.body.trans_id, 1);
        assert.equal(cb?.fields.action, 'SALE');
      } finally {
        await patient.close();
        await own.close();
      }
    });

    it('reports a decline with decline_reason', async () => {
      const res = await sale(gw, { card_exp_month: '02' });
      const [cb] = await callbacksOf(notifications, res.body.trans_id, 1);
      assert.equal(cb?.fields.result, 'DECLINED');
      assert.equal(cb?.fields.status, 'DECLINED');
      assert.equal(cb?.fields.decline_reason, 'Declined by processing');
    });

    it('sends every callback of a payment to its callback_url, follow-ups included', async () => {
      const own = await startListener('OK');
      try {
        const res = await sale(gw, { auth: 'Y', callback_url: own.url });
        const id = res.body.trans_id;
        await callbacksOf(own, id, 1);
        await followUp(gw, 'CAPTURE', id, { amount: '1.00' });
        await followUp(gw, 'CREDITVOID', id, { amount: '0.40' });
        await followUp(gw, 'CREDITVOID', id);
        // Delivery order is not guaranteed (several callbacks go out at once); each is found by what it reports.
        const all = await callbacksOf(own, id, 4);
        const find = (action: string, status: string) => all.find((c) => c.fields.action === action && c.fields.status === status);
        const [auth, capture, partial, full] = [find('SALE', 'PENDING'), find('CAPTURE', 'SETTLED'), find('CREDITVOID', 'SETTLED'), find('CREDITVOID', 'REFUND')];
        assert.equal(auth?.fields.result, 'SUCCESS');
        assert.deepEqual(Object.keys(capture?.fields ?? {}), ['action', 'result', 'status', 'order_id', 'trans_id', 'hash', 'trans_date', 'descriptor', 'amount', 'currency']);
        assert.equal(capture?.fields.amount, '1.00');
        assert.equal(partial?.fields.amount, '0.40');
        assert.deepEqual(Object.keys(full?.fields ?? {}), ['action', 'result', 'status', 'order_id', 'trans_id', 'hash', 'creditvoid_date', 'amount']);
        assert.equal(full?.fields.amount, '0.60');
        assert.match(full?.fields.creditvoid_date ?? '', DATE);
        for (const cb of [auth, capture, partial, full]) assert.equal(cb?.fields.hash, f2(EMAIL, gw.merchant.password, id, CARD));
        assert.equal(notifications.received.filter((r) => r.fields.trans_id === id).length, 0, 'nothing went to the notification URL');
      } finally {
        await own.close();
      }
    });

    it('signs CREDIT2CARD callbacks with Formula 6', async () => {
      const res = await gw.postForm('/post', {
        action: 'CREDIT2CARD', client_key: gw.merchant.key, order_id: orderId('C2C'), order_amount: '5.00', order_currency: 'EUR', order_description: 'payout',
        card_number: PAYOUT_CARD, hash: f5(gw.merchant.password, PAYOUT_CARD),
      });
      const [cb] = await callbacksOf(notifications, res.body.trans_id, 1);
      assert.equal(cb?.fields.action, 'CREDIT2CARD');
      assert.equal(cb?.fields.status, 'SETTLED');
      assert.equal(cb?.fields.hash, f6(gw.merchant.password, res.body.trans_id, PAYOUT_CARD));
    });

    it('carries card_token in every DEBIT callback, the 3DS step included', async () => {
      const fields = saleFields({ action: 'DEBIT', card_exp_month: '05' });
      const res = await gw.postForm('/post', { client_key: gw.merchant.key, ...fields, hash: f1(EMAIL, gw.merchant.password, CARD) });
      assert.equal(res.body.result, 'REDIRECT', res.text);
      const [step] = await callbacksOf(notifications, res.body.trans_id, 1);
      assert.deepEqual([step?.fields.action, step?.fields.result, step?.fields.status], ['DEBIT', 'REDIRECT', '3DS']);
      assert.match(step?.fields.card_token ?? '', /^[0-9a-f]{64}$/);
      assert.equal(step?.fields.redirect_url, res.body.redirect_url);
      assert.equal(step?.fields['redirect_params[MD]'], res.body.trans_id);
    });

    it('a DEBIT paid by card_token: its callback carries card and card_expiration_date of the stored card (issue 25, item 27)', async () => {
      const first = await gw.postForm('/post', signedSale(gw.merchant, saleFields({ action: 'DEBIT', card_exp_month: '01', card_exp_year: '2037' })));
      assert.equal(first.body.result, 'SUCCESS', first.text);
      const [stored] = await callbacksOf(notifications, first.body.trans_id, 1);
      const token = stored?.fields.card_token ?? '';
      assert.match(token, /^[0-9a-f]{64}$/);
      const fields = saleFields({ action: 'DEBIT', card_token: token, card_number: undefined, card_exp_month: undefined, card_exp_year: undefined, card_cvv2: undefined });
      const res = await gw.postForm('/post', signedSale(gw.merchant, fields));
      assert.equal(res.body.result, 'SUCCESS', res.text);
      const [cb] = await callbacksOf(notifications, res.body.trans_id, 1);
      assert.equal(cb?.fields.action, 'DEBIT');
      assert.equal(cb?.fields.status, 'SETTLED');
      assert.equal(cb?.fields.card, '411111****1111');
      assert.equal(cb?.fields.card_expiration_date, '01/2037');
      assert.equal(cb?.fields.hash, f2(EMAIL, gw.merchant.password, res.body.trans_id, CARD));
    });

    it('keeps a callback undelivered until the merchant answers OK', async () => {
      const refusing = await startListener('ERROR');
      try {
        const res = await sale(gw, { callback_url: refusing.url });
        await refusing.waitFor(1);
        await new Promise((resolve) => setTimeout(resolve, 200));
        const rows = await gw.store.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM callbacks WHERE payment_id = $1', [res.body.trans_id]);
        assert.equal(rows.length, 1);
        assert.equal(rows[0]?.status, 'pending', 'ERROR is not a delivery');
      } finally {
        await refusing.close();
      }
    });

    it('writes no callback for a payment with neither callback_url nor notification URL', async () => {
      const silent = await gw.addMerchant();
      const res = await sale(gw, {}, silent);
      const rows = await gw.store.db.query('SELECT id FROM callbacks WHERE payment_id = $1', [res.body.trans_id]);
      assert.equal(rows.length, 0);
    });
  });
}
