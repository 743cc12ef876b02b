/**
 * Bulk refund (issue 31 item 10: the console's multi-select refund) over HTTP on both stores: POST
 * /admin/v1/payments/refund answers item by item (ok with the refund's result, or the D3 error of the single
 * refund), each refund the same compare-and-set with its callback and audit, replays an item under its idempotency
 * key instead of refunding again, and never refunds one payment twice when two bulk requests race.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { getPayment, listTransactions } from '../../src/store/payments-repo.ts';
import { adminClient, operatorWithRole, D3_FORBIDDEN, D3_NOT_FOUND, fieldErrors, type AdminCall } from './support.ts';
import { sale } from '../s2s-card/support.ts';

const ADMIN = 'bulk-refund-admin-token';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

for (const { kind, skip } of await storeKinds()) {
  describe(`admin: bulk refund (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    let admin: AdminCall;
    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { adminToken: ADMIN, notificationUrl: listener.url, workers: true });
      admin = adminClient(t.baseUrl, ADMIN);
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    const settledSale = async () => {
      const res = await sale(t, { order_amount: '5.00' });
      assert.equal(res.body.status, 'SETTLED', res.text);
      return res.body.trans_id as string;
    };
    const bulk = (items: unknown[], call: AdminCall = admin) => call('POST', '/admin/v1/payments/refund', { items });
    const successfulRefunds = async (id: string) => (await listTransactions(t.store.db, id)).filter((x) => x.type === 'refund' && x.status === 'success').length;

    it('refunds each item as the single refund does and answers each in order: ok with the result, or the D3 error', async () => {
      const [a, b] = [await settledSale(), await settledSale()];
      const res = await bulk([
        { payment_id: a, reason: 'Customer request: parcel returned' },
        { payment_id: b, amount: '2.00' },
        { payment_id: UNKNOWN },
        { payment_id: await settledSale(), amount: '9.99' },
      ]);
      assert.equal(res.status, 200, res.text);
      const [ra, rb, unknown, over] = res.body.items;
      assert.deepEqual([ra.payment_id, ra.ok, ra.result, ra.payment.status, ra.payment.refunded_amount, ra.replayed], [a, true, 'approved', 'refund', '5.00', false]);
      assert.deepEqual([rb.payment_id, rb.ok, rb.result, rb.payment.refunded_amount], [b, true, 'approved', '2.00']);
      assert.deepEqual(unknown, { payment_id: UNKNOWN, ok: false, error: D3_NOT_FOUND, replayed: false });
      assert.equal(over.ok, false);
      assert.equal(over.error.http_code, 400, JSON.stringify(over));

      // The merchant gets each refund's callback, as for one refund; the reason is on the transaction, not sent.
      const [callback] = await listener.waitForMatching((c) => c.fields.trans_id === b && c.fields.action === 'CREDITVOID', 1);
      assert.equal(callback!.fields.amount, '2.00');
      await listener.waitForMatching((c) => c.fields.trans_id === a && c.fields.action === 'CREDITVOID', 1);
      const detail = (await admin('GET', `/admin/v1/payments/${a}`)).body;
      const refund = detail.transactions.find((x: { type: string }) => x.type === 'refund');
      assert.equal(refund.reason_given, 'Customer request: parcel returned');
      assert.deepEqual(detail.audit.map((x: { action: string; details: { stage: string } }) => [x.action, x.details.stage]), [['payment.refund', 'requested'], ['payment.refund', 'approved']]);
    });

    it('replays an item under its idempotency key instead of refunding again; another item under the key is refused; a refused item (4xx) frees its key', async () => {
      const [a, b] = [await settledSale(), await settledSale()];
      const keyA = crypto.randomUUID();
      const keyB = crypto.randomUUID();
      const items = [{ payment_id: a, amount: '1.00', idempotency_key: keyA }, { payment_id: b, amount: '7.00', idempotency_key: keyB }];
      const first = await bulk(items);
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(first.body.items.map((i: any) => [i.ok, i.replayed]), [[true, false], [false, false]]);
      assert.equal(first.body.items[1].error.http_code, 400, 'more than was captured');

      // A retry of the whole request (a lost answer, a double click): a's refund replays; b was refused, so it runs again.
      const again = await bulk(items);
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body.items[0], { ...first.body.items[0], replayed: true }, 'the first answer, word for word');
      assert.equal(again.body.items[1].error.http_code, 400);
      assert.equal((await getPayment(t.store.db, a))!.refundedAmount, 100n, 'refunded once');
      assert.equal(await successfulRefunds(a), 1);

      // b corrected under the key its refusal freed; a's key on another amount is refused.
      const corrected = await bulk([{ payment_id: b, amount: '1.50', idempotency_key: keyB }, { payment_id: a, amount: '2.00', idempotency_key: keyA }]);
      assert.deepEqual([corrected.body.items[0].ok, corrected.body.items[0].payment.refunded_amount], [true, '1.50'], corrected.text);
      assert.deepEqual(corrected.body.items[1], { payment_id: a, ok: false, error: { http_code: 422, error_code: '100000', error_message: 'Idempotency-Key was already used with another request body.' }, replayed: false });
      assert.equal((await getPayment(t.store.db, a))!.refundedAmount, 100n);
      // The keys are the operator's own: another operator's same key is another key.
      const other = await operatorWithRole(t, 'operator');
      const theirs = await bulk([{ payment_id: a, amount: '0.50', idempotency_key: keyA }], other.call);
      assert.deepEqual([theirs.body.items[0].ok, theirs.body.items[0].replayed, theirs.body.items[0].payment.refunded_amount], [true, false, '1.50'], theirs.text);
    });

    it('never refunds one payment twice when two bulk requests race: one refund, the other item refused', async () => {
      const id = await settledSale();
      const [x, y] = await Promise.all([bulk([{ payment_id: id, amount: '3.00' }]), bulk([{ payment_id: id, amount: '3.00' }])]);
      assert.equal(x.status, 200, x.text);
      assert.equal(y.status, 200, y.text);
      const answers = [x.body.items[0], y.body.items[0]];
      assert.equal(answers.filter((a) => a.ok).length, 1, JSON.stringify(answers));
      const refused = answers.find((a) => !a.ok);
      assert.ok([400, 409].includes(refused.error.http_code), JSON.stringify(refused));
      assert.equal((await getPayment(t.store.db, id))!.refundedAmount, 300n);
      assert.equal(await successfulRefunds(id), 1);
    });

    it('refuses a payment listed twice, an empty list and bad items with D3 400s, and roles without payments.act with 403', async () => {
      const id = await settledSale();
      const twice = await bulk([{ payment_id: id }, { payment_id: id, amount: '1.00' }]);
      assert.equal(twice.status, 400, twice.text);
      assert.deepEqual(fieldErrors(twice.body), ['items[1].payment_id: This payment is listed twice: give it once, with the amount to refund.']);
      assert.equal((await bulk([])).status, 400);
      assert.equal((await admin('POST', '/admin/v1/payments/refund', { items: [{ payment_id: id, extra: 1 }] })).status, 400);
      assert.equal((await admin('POST', '/admin/v1/payments/refund', {})).status, 400);
      for (const role of ['support', 'viewer'] as const) {
        const res = await bulk([{ payment_id: id }], (await operatorWithRole(t, role)).call);
        assert.equal(res.status, 403, res.text);
        assert.deepEqual(res.body, D3_FORBIDDEN);
      }
      assert.equal((await getPayment(t.store.db, id))!.refundedAmount, 0n, 'nothing refunded by a refused request');
    });
  });
}
