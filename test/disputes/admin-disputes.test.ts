/**
 * Disputes over HTTP (issue 29), as an operator enters them from a bank letter and a merchant hears of them: a
 * chargeback debits the merchant (amount and the chargeback fee of the fee schedule) in the ledger, turns the
 * payment to CHARGEBACK, sends the S2S CHARGEBACK callback (Formula 2, chargeback_date, bank_date, reason_code) and
 * shows in GET_TRANS_DETAILS; a won dispute credits the amount back; a second dispute above what remains answers
 * 208010; an event the table does not allow answers 409; every change is in the history.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { CARD, EMAIL, f2, followUp, sale, startListener, type Listener } from '../s2s-card/support.ts';
import { adminClient, D3_FORBIDDEN, operatorWithRole, type AdminCall } from '../admin/support.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`disputes: operator intake, ledger, callbacks (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let admin: AdminCall;
    let notifications: Listener;
    const clock = new ManualClock('2030-03-01T09:00:00Z');
    before(async () => {
      notifications = await startListener('OK');
      gw = await startTestGateway(kind, { clock, workers: true, notificationUrl: notifications.url, adminToken: `disputes-${kind}` });
      admin = adminClient(gw.baseUrl, `disputes-${kind}`);
      const fees = await admin('POST', '/admin/v1/money/fee-schedules', {
        merchant_id: gw.merchant.id, effective_from: '2030-03-01T09:00:00Z',
        rows: [{ operation: 'sale', currency: 'USD', percent: '2' }, { operation: 'chargeback', currency: 'USD', fixed: '15.00' }],
      });
      assert.equal(fees.status, 201, fees.text);
    });
    after(async () => {
      await gw?.close();
      await notifications?.close();
    });

    async function callbackOf(transId: string, action: string) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const cb = notifications.received.find((r) => r.fields.trans_id === transId && r.fields.action === action);
        if (cb) return cb;
        if (Date.now() > deadline) throw new Error(`no ${action} callback for ${transId}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    const entriesOf = async (paymentId: string) =>
      (await admin('GET', `/admin/v1/payments/${paymentId}/ledger`)).body.entries.filter((e: { ref: string }) => e.ref.startsWith('dispute:'))
        .map((e: { event: string; account: string; amount: string }) => `${e.event} ${e.account.replace(gw.merchant.id, 'M').replace(/acquirer:[^:]+/, 'acquirer')} ${e.amount}`);

    it('a lost chargeback: debited amount and fee, payment CHARGEBACK, signed callback, listed in GET_TRANS_DETAILS', async () => {
      const paid = await sale(gw, { order_amount: '40.00' });
      const id = paid.body.trans_id as string;
      const opened = await admin('POST', `/admin/v1/payments/${id}/disputes`, { event: 'chargeback', amount: '25.00', reason_code: '10.4', bank_date: '2030-02-27', due_at: '2030-03-20T00:00:00Z', note: 'letter 114' });
      assert.equal(opened.status, 201, opened.text);
      assert.deepEqual({ stage: opened.body.stage, status: opened.body.status, category: opened.body.category, amount: opened.body.amount }, { stage: 'first_chargeback', status: 'evidence_required', category: 'fraud', amount: '25.00' });
      assert.deepEqual((await entriesOf(id)).sort(), [
        'chargeback acquirer:receivable -25.00', 'chargeback merchant:M:available 25.00',
        'fee merchant:M:fees 15.00', 'fee platform:fee_revenue -15.00',
      ].sort());

      const cb = await callbackOf(id, 'CHARGEBACK');
      assert.equal(cb.fields.result, 'SUCCESS');
      assert.equal(cb.fields.status, 'CHARGEBACK');
      assert.equal(cb.fields.amount, '25.00');
      assert.equal(cb.fields.reason_code, '10.4');
      assert.equal(cb.fields.bank_date, '2030-02-27');
      assert.equal(cb.fields.chargeback_date, '2030-03-01 09:00:00');
      assert.equal(cb.fields.hash, f2(EMAIL, gw.merchant.password, id, CARD));

      const details = await followUp(gw, 'GET_TRANS_DETAILS', id);
      assert.equal(details.body.status, 'CHARGEBACK', details.text);
      assert.ok(details.body.transactions.some((t: { type: string; status: string; amount: string }) => t.type === 'chargeback' && t.status === 'success' && t.amount === '25.00'), details.text);

      const lost = await admin('POST', `/admin/v1/disputes/${opened.body.id}/events`, { event: 'defense_period_ended' });
      assert.equal(lost.status, 200, lost.text);
      assert.equal(lost.body.status, 'lost');
      assert.equal((await entriesOf(id)).length, 4, 'losing moves no more money');
      const read = await admin('GET', `/admin/v1/disputes/${opened.body.id}`);
      assert.deepEqual(read.body.history.map((h: { event: string; money: string; to_status: string }) => `${h.event}:${h.to_status}:${h.money}`), ['chargeback:evidence_required:debit', 'defense_period_ended:lost:none']);
      assert.equal(read.body.history[0].details.note, 'letter 114');
    });

    it('a won chargeback credits the amount back (the fee stays) and the payment is settled again', async () => {
      const id = (await sale(gw, { order_amount: '10.00' })).body.trans_id as string;
      const opened = await admin('POST', `/admin/v1/payments/${id}/disputes`, { event: 'chargeback', reason_code: '4853' });
      assert.equal(opened.status, 201, opened.text);
      assert.equal(opened.body.amount, '10.00', 'all that remains captured');
      assert.equal(opened.body.category, 'consumer_dispute');
      assert.equal((await admin('POST', `/admin/v1/disputes/${opened.body.id}/events`, { event: 'information_supplied' })).body.status, 'evidence_submitted');
      const won = await admin('POST', `/admin/v1/disputes/${opened.body.id}/events`, { event: 'won' });
      assert.equal(won.body.status, 'won', won.text);
      const entries = await entriesOf(id);
      assert.ok(entries.includes('chargeback_reversal merchant:M:available -10.00') && entries.includes('chargeback_reversal acquirer:receivable 10.00'), entries.join('\n'));
      assert.equal(entries.filter((e: string) => e.startsWith('fee ')).length, 2, 'the fee is not given back');
      assert.equal((await followUp(gw, 'GET_TRANS_STATUS', id)).body.status, 'SETTLED');
      const check = await admin('GET', '/admin/v1/money/ledger-check');
      assert.equal(check.body.balanced, true, check.text);
    });

    it('refuses more than remains captured (208010), an event the table does not allow (409), bad fields (400), viewers (403)', async () => {
      const id = (await sale(gw, { order_amount: '30.00' })).body.trans_id as string;
      assert.equal((await followUp(gw, 'CREDITVOID', id, { amount: '5.00' })).status, 200);
      const first = await admin('POST', `/admin/v1/payments/${id}/disputes`, { event: 'chargeback', amount: '20.00', reason_code: '13.1' });
      assert.equal(first.status, 201, first.text);
      const second = await admin('POST', `/admin/v1/payments/${id}/disputes`, { event: 'chargeback', amount: '5.01', reason_code: '13.1' });
      assert.deepEqual(second.body, { http_code: 400, error_code: '208010', error_message: "Not acceptable to request the chargeback for amount bigger than payment's amount." });
      assert.equal((await admin('POST', `/admin/v1/payments/${id}/disputes`, { event: 'chargeback', amount: '5.00' })).status, 201, 'exactly what remains fits');

      const again = await admin('POST', `/admin/v1/disputes/${first.body.id}/events`, { event: 'chargeback' });
      assert.equal(again.status, 409, again.text);
      const bad = await admin('POST', `/admin/v1/payments/${id}/disputes`, { event: 'nonsense', amount: '-1' });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.errors.map((e: { error_message: string }) => e.error_message.split(':')[0]), ['event', 'amount']);
      const viewer = await operatorWithRole(gw, 'viewer');
      assert.deepEqual((await viewer.call('POST', `/admin/v1/payments/${id}/disputes`, { event: 'chargeback' })).body, D3_FORBIDDEN);
      const listed = await viewer.call('GET', `/admin/v1/disputes?merchant_id=${gw.merchant.id}&status=evidence_required`);
      assert.equal(listed.status, 200);
      assert.ok(listed.body.some((d: { id: string }) => d.id === first.body.id));
      const ofPayment = await admin('GET', `/admin/v1/disputes?payment_id=${id}&stage=first_chargeback`);
      assert.deepEqual(ofPayment.body.map((d: { payment_id: string; stage: string }) => `${d.payment_id}:${d.stage}`), [`${id}:first_chargeback`, `${id}:first_chargeback`]);
      assert.deepEqual((await admin('GET', `/admin/v1/disputes?payment_id=${id}&stage=inquiry`)).body, []);
      assert.equal((await admin('GET', '/admin/v1/disputes?status=nonsense')).status, 400);
      // The test merchant is a sandbox merchant (its key a test key): listed under mode=test, never under live.
      assert.ok((await admin('GET', `/admin/v1/disputes?payment_id=${id}&mode=test`)).body.length === 2);
      assert.deepEqual((await admin('GET', `/admin/v1/disputes?payment_id=${id}&mode=live`)).body, []);
    });

    it("the month's dispute and fraud-dispute ratios per merchant and MID, against the payments captured in it", async () => {
      const ratios = await admin('GET', '/admin/v1/disputes/ratios?month=2030-03');
      assert.equal(ratios.status, 200, ratios.text);
      assert.deepEqual([ratios.body.threshold_percent, ratios.body.threshold_min_count], ['0.90', 100]);
      const mine = ratios.body.rows.filter((r: { merchant_id: string }) => r.merchant_id === gw.merchant.id);
      assert.equal(mine.length, 1, ratios.text);
      const { mid_id: _mid, merchant_id: _m, ...row } = mine[0];
      // Three sales (40, 10, 30); four chargebacks (25 fraud, 10, 20, 5): 4/3 and 1/3 of the count.
      assert.deepEqual(row, {
        currency: 'USD', settled_count: 3, settled_amount: '80.00', dispute_count: 4, dispute_amount: '60.00', dispute_ratio: '133.33',
        fraud_count: 1, fraud_amount: '25.00', fraud_ratio: '33.33', threshold_percent: '0.90', threshold_min_count: 100, over_threshold: false,
      });
      assert.deepEqual((await admin('GET', '/admin/v1/disputes/ratios?month=2030-04')).body.rows.filter((r: { merchant_id: string }) => r.merchant_id === gw.merchant.id), []);
      assert.equal((await admin('GET', '/admin/v1/disputes/ratios?month=2030-13')).status, 400);
    });
  });
}
