/**
 * The optional Protocol Mapping field `fee` (issue 27 item 7) over HTTP: a merchant that switches it on hears
 * each payment's fee and net amount (the ledger's, as its fee schedule priced it) in its S2S CARD and Checkout
 * callbacks, signed with the family's formulas, and reads them in its status answers; a refund's callback carries
 * the fee so far; a merchant that leaves it off gets the family's payloads unchanged.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { CARD, EMAIL, f2, followUp, sale, startListener, type Listener, type Received } from '../s2s-card/support.ts';
import { insertFeeSchedule } from '../../src/store/ledger-repo.ts';
import { parseFeeRows } from '../../src/domain/ledger/fees.ts';
import { forgetBooks } from '../../src/services/money/postings.ts';

async function callbackWhere(l: Listener, match: (f: Record<string, string>) => boolean, what: string): Promise<Received> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = l.received.find((r) => match(r.fields));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no callback ${what}: ${JSON.stringify(l.received.map((r) => r.fields))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const { kind, skip } of await storeKinds()) {
  describe(`fee and net_amount in callbacks and status answers (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    let on: TestMerchant;
    let off: TestMerchant;
    before(async () => {
      listener = await startListener('OK');
      t = await startTestGateway(kind, { workers: true });
      on = await t.addMerchant({ notificationUrl: listener.url, settings: { callbackFields: ['fee'], statusFields: ['fee'] } });
      off = await t.addMerchant({ notificationUrl: listener.url });
      // The platform's schedule: 2.9 % + 0.30 USD a sale, a flat 0.15 a refund (in force since yesterday).
      const rows = parseFeeRows([
        { operation: 'sale', currency: 'USD', percent: '2.9', fixed: '0.30' },
        { operation: 'refund', currency: 'USD', fixed: '0.15' },
      ]);
      assert.ok('rows' in rows);
      await insertFeeSchedule(t.store.db, { id: `fs-fields-${kind}`, merchantId: null, effectiveFrom: new Date(Date.now() - 86_400_000), rows: rows.rows, createdBy: null }, new Date());
      forgetBooks(t.gateway.ctx);
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    it('S2S CARD: the SALE and refund callbacks carry the fee so far, signed with Formula 2; the status answer too', async () => {
      const res = await sale(t, { order_amount: '10.00' }, on);
      assert.equal(res.body.status, 'SETTLED', res.text);
      const id = res.body.trans_id as string;
      const cb = await callbackWhere(listener, (f) => f.trans_id === id && f.action === 'SALE', `SALE ${id}`);
      // 2.9 % of 10.00 = 0.29, plus 0.30: 0.59; the merchant is owed 10.00 - 0.59.
      assert.equal(cb.fields.fee, '0.59', cb.raw);
      assert.equal(cb.fields.net_amount, '9.41');
      assert.equal(cb.fields.hash, f2(EMAIL, on.password, id, CARD), 'signed with Formula 2');
      const status = await followUp(t, 'GET_TRANS_STATUS', id, {}, on);
      assert.equal(status.status, 200, status.text);
      assert.deepEqual([status.body.fee, status.body.net_amount], ['0.59', '9.41']);

      assert.equal((await followUp(t, 'CREDITVOID', id, { amount: '4.00' }, on)).body.result, 'ACCEPTED');
      const refund = await callbackWhere(listener, (f) => f.trans_id === id && f.action === 'CREDITVOID' && f.result === 'SUCCESS', `CREDITVOID ${id}`);
      // The refund's flat 0.15 joins the sale's 0.59; owed: 10.00 - 4.00 - 0.74.
      assert.deepEqual([refund.fields.fee, refund.fields.net_amount], ['0.74', '5.26'], refund.raw);
      assert.equal(refund.fields.hash, f2(EMAIL, on.password, id, CARD));
      const later = await followUp(t, 'GET_TRANS_STATUS', id, {}, on);
      assert.deepEqual([later.body.fee, later.body.net_amount], ['0.74', '5.26']);
    });

    it('S2S CARD: a merchant that leaves the field off gets neither field', async () => {
      const res = await sale(t, { order_amount: '10.00' }, off);
      const id = res.body.trans_id as string;
      const cb = await callbackWhere(listener, (f) => f.trans_id === id && f.action === 'SALE', `SALE ${id}`);
      assert.equal(cb.fields.hash, f2(EMAIL, off.password, id, CARD));
      assert.ok(!/(^|&)(fee|net_amount)=/.test(cb.raw), cb.raw);
      const status = await followUp(t, 'GET_TRANS_STATUS', id, {}, off);
      assert.ok(!('fee' in status.body) && !('net_amount' in status.body), status.text);
    });

    it('Checkout: the callback of a session paid on the hosted page and the status lookup carry them, signed as Checkout signs', async () => {
      const order = { number: `FEE-${process.pid}-${Date.now()}`, amount: '20.00', currency: 'USD', description: 'Fee fields' };
      const session = await t.postJson('/api/v1/session', {
        merchant_key: on.key, operation: 'purchase', methods: ['card'], order, success_url: 'https://shop.example/success',
        customer: { name: 'John Doe', email: 'success@gmail.com' },
        hash: checkoutHash(on.password, order.number, order.amount, order.currency, order.description),
      });
      assert.equal(session.status, 200, session.text);
      const path = new URL(session.body.redirect_url).pathname;
      const paid = await fetch(`${t.baseUrl}${path}/pay`, {
        method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ method: 'card', card_number: '4111 1111 1111 1111', card_expiry: '01/38', card_cvv: '123', card_holder: 'John Doe' }).toString(),
      });
      await paid.text();
      assert.ok(paid.status < 400, `pay: ${paid.status}`);
      const cb = await callbackWhere(listener, (f) => f.order_number === order.number && f.type === 'sale', `sale ${order.number}`);
      assert.equal(cb.fields.order_status, 'settled', cb.raw);
      assert.equal(cb.fields.hash, checkoutHash(on.password, cb.fields.id!, cb.fields.order_number!, cb.fields.order_amount!, cb.fields.order_currency!, cb.fields.order_description!));
      // 2.9 % of 20.00 = 0.58, plus 0.30: 0.88.
      assert.deepEqual([cb.fields.fee, cb.fields.net_amount], ['0.88', '19.12']);
      const status = await t.postJson('/api/v1/payment/status', { merchant_key: on.key, order_id: order.number, hash: checkoutHash(on.password, order.number) });
      assert.equal(status.status, 200, status.text);
      assert.deepEqual([status.body.fee, status.body.net_amount], ['0.88', '19.12']);
    });
  });
}
