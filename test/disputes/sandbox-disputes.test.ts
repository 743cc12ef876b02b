/**
 * The sandbox raises a chargeback on a sandbox payment (issue 29): an operator's act opens it with a notice, and
 * its timeline (chargeback with its deadline, end of the defence period, decision) plays on the merchant's test
 * clock, moved by `POST /sandbox/test-clock/advance` as a merchant moves it. Undefended, it is lost at the
 * deadline; defended, the decision comes and a won one credits the merchant back. Sandbox merchants only.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { CARD, EMAIL, f2, sale, startListener, type Listener } from '../s2s-card/support.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';

const DAY_MS = 86_400_000;

for (const { kind, skip } of await storeKinds()) {
  describe(`disputes: the sandbox raises a chargeback on the merchant's test clock (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let admin: AdminCall;
    let notifications: Listener;
    before(async () => {
      notifications = await startListener('OK');
      gw = await startTestGateway(kind, { workers: true, notificationUrl: notifications.url, adminToken: `sandbox-disputes-${kind}` });
      admin = adminClient(gw.baseUrl, `sandbox-disputes-${kind}`);
    });
    after(async () => {
      await gw?.close();
      await notifications?.close();
    });

    const advance = async (days: number) => {
      const res = await gw.postJson('/sandbox/test-clock/advance', { merchant_key: gw.merchant.key, days, hash: checkoutHash(gw.merchant.password, gw.merchant.key, String(days), '') });
      assert.equal(res.status, 200, res.text);
      return new Date(res.body.now.replace(' ', 'T') + 'Z');
    };
    const merchantNow = async () => {
      const res = await gw.postJson('/sandbox/test-clock', { merchant_key: gw.merchant.key, hash: checkoutHash(gw.merchant.password, gw.merchant.key) });
      return new Date(res.body.now.replace(' ', 'T') + 'Z');
    };
    const read = async (id: string) => (await admin('GET', `/admin/v1/disputes/${id}`)).body;
    const paymentStatus = async (id: string) => (await admin('GET', `/admin/v1/payments/${id}`)).body.payment.status;
    const chargebackCallbacks = (id: string) => notifications.received.filter((r) => r.fields.trans_id === id && r.fields.action === 'CHARGEBACK');

    it('undefended: notice, then a day later the chargeback with its deadline, lost when the defence period ends', async () => {
      const id = (await sale(gw, { order_amount: '40.00' })).body.trans_id as string;
      const start = await merchantNow();
      const raised = await admin('POST', `/admin/v1/sandbox/payments/${id}/chargeback`, { amount: '25.00', reason_code: '10.4', notice_days: 1, defence_days: 7 });
      assert.equal(raised.status, 201, raised.text);
      assert.deepEqual({ source: raised.body.source, stage: raised.body.stage, status: raised.body.status, category: raised.body.category }, { source: 'sandbox', stage: 'first_chargeback', status: 'open', category: 'fraud' });
      assert.deepEqual(raised.body.timeline.map((s: { event: string }) => s.event), ['chargeback', 'defense_period_ended', 'won']);
      const deadline = new Date(raised.body.timeline[0].due_at);
      assert.ok(Math.abs(deadline.getTime() - start.getTime() - 8 * DAY_MS) < 60_000, `deadline 8 days on the merchant's clock: ${raised.body.timeline[0].due_at}`);

      assert.equal(await gw.gateway.disputes.runOnce(), 0, 'nothing is due before the clock moves');
      assert.equal((await read(raised.body.id)).status, 'open');
      await advance(1);
      await gw.gateway.disputes.runOnce();
      const charged = await read(raised.body.id);
      assert.equal(charged.status, 'evidence_required');
      assert.equal(charged.due_at, deadline.toISOString());
      assert.equal(await paymentStatus(id), 'chargeback');
      const cb = await (async () => {
        for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
          const [first] = chargebackCallbacks(id);
          if (first) return first;
        }
        throw new Error('no CHARGEBACK callback');
      })();
      assert.equal(cb.fields.amount, '25.00');
      assert.equal(cb.fields.reason_code, '10.4');
      assert.equal(cb.fields.hash, f2(EMAIL, gw.merchant.password, id, CARD));

      await advance(6);
      await gw.gateway.disputes.runOnce();
      assert.equal((await read(raised.body.id)).status, 'evidence_required', 'a day before the deadline it is still open to defence');
      await advance(1);
      await gw.gateway.disputes.runOnce();
      assert.equal((await read(raised.body.id)).status, 'lost');
      await advance(7);
      await gw.gateway.disputes.runOnce();
      const final = await read(raised.body.id);
      assert.equal(final.status, 'lost', 'the decision of a defended chargeback does not apply to a lost one');
      assert.deepEqual(final.history.map((h: { event: string; to_status: string; money: string }) => `${h.event}:${h.to_status}:${h.money}`),
        ['notification_of_chargeback:open:none', 'chargeback:evidence_required:debit', 'defense_period_ended:lost:none']);
      assert.equal(await paymentStatus(id), 'chargeback');
    });

    it('defended before the deadline: the decision comes after the review; won credits back and the payment is settled again', async () => {
      const id = (await sale(gw, { order_amount: '15.00' })).body.trans_id as string;
      const raised = await admin('POST', `/admin/v1/sandbox/payments/${id}/chargeback`, { notice_days: 0, defence_days: 3, review_days: 2, outcome: 'won' });
      assert.equal(raised.status, 201, raised.text);
      assert.equal(raised.body.status, 'evidence_required', 'notice_days 0: charged back at once');
      assert.equal(raised.body.amount, '15.00', 'all that remains captured');
      assert.equal(await paymentStatus(id), 'chargeback');
      const defended = await admin('POST', `/admin/v1/disputes/${raised.body.id}/events`, { event: 'information_supplied', note: 'delivery proof' });
      assert.equal(defended.status, 200, defended.text);
      await advance(3);
      await gw.gateway.disputes.runOnce();
      assert.equal((await read(raised.body.id)).status, 'evidence_submitted', 'a defended chargeback is not lost at the deadline');
      await advance(2);
      await gw.gateway.disputes.runOnce();
      const won = await read(raised.body.id);
      assert.equal(won.status, 'won');
      assert.equal(won.history.at(-1).money, 'credit');
      assert.equal(await paymentStatus(id), 'settled');
      // Steps are applied once: another pass changes nothing.
      assert.equal(await gw.gateway.disputes.runOnce(), 0);
      assert.equal((await read(raised.body.id)).history.length, won.history.length);
    });

    it('refuses a live merchant\'s payment (403), an unknown payment (404) and a bad body (400)', async () => {
      const m = await gw.addMerchant();
      const id = (await sale(gw, { order_amount: '5.00' }, m)).body.trans_id as string;
      await gw.store.db.query('UPDATE merchants SET sandbox = false WHERE id = $1', [m.id]);
      const live = await admin('POST', `/admin/v1/sandbox/payments/${id}/chargeback`, {});
      assert.equal(live.status, 403, live.text);
      assert.equal(live.body.error_message, "The sandbox raises chargebacks on sandbox merchants' payments only.");
      assert.equal((await admin('POST', `/admin/v1/sandbox/payments/${crypto.randomUUID()}/chargeback`, {})).status, 404);
      const bad = await admin('POST', `/admin/v1/sandbox/payments/${id}/chargeback`, { defence_days: -1, outcome: 'maybe' });
      assert.equal(bad.status, 400, bad.text);
    });

    it("an operator's event the table does not allow on the sandbox's (an acquirer's) dispute answers 409 and changes nothing", async () => {
      const id = (await sale(gw, { order_amount: '8.00' })).body.trans_id as string;
      const raised = await admin('POST', `/admin/v1/sandbox/payments/${id}/chargeback`, { notice_days: 0 });
      assert.equal(raised.status, 201, raised.text);
      const refused = await admin('POST', `/admin/v1/disputes/${raised.body.id}/events`, { event: 'second_chargeback' });
      assert.equal(refused.status, 409, refused.text);
      assert.equal((await admin('POST', `/admin/v1/disputes/${raised.body.id}/events`, { event: 'chargeback' })).status, 409);
      const after = await read(raised.body.id);
      assert.equal(after.status, 'evidence_required');
      assert.deepEqual(after.history.map((h: { event: string }) => h.event), ['notification_of_chargeback', 'chargeback']);
    });

    it("due soon and overdue are told on the merchant's test clock, where the sandbox set the deadline", async () => {
      const id = (await sale(gw, { order_amount: '6.00' })).body.trans_id as string;
      const raised = await admin('POST', `/admin/v1/sandbox/payments/${id}/chargeback`, { notice_days: 0, defence_days: 7 });
      assert.equal(raised.status, 201, raised.text);
      const dueState = async () => ((await admin('GET', '/admin/v1/disputes/due?within_days=3')).body as { id: string; deadline: string }[]).find((d) => d.id === raised.body.id)?.deadline;
      assert.equal(await dueState(), undefined, 'seven days left on the merchant\'s clock');
      await advance(5);
      assert.equal(await dueState(), 'due_soon', 'two days left on the merchant\'s clock (seven on the real one)');
      assert.equal((await read(raised.body.id)).deadline, 'due_soon', 'the dispute itself tells the same');
      await advance(3);
      assert.equal(await dueState(), 'overdue');
    });
  });
}
