/**
 * The ledger over HTTP (issue 27): S2S CARD sales, a declined sale, an authorization and its capture, partial
 * refunds and a void post balanced entries in the same write as the payment's change, each fee as the merchant's
 * schedule in force on the payment's date prices it; the running balances equal the sums of their entries.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { CARD, EMAIL, f1, f5, followUp, PAYOUT_CARD, sale, saleFields } from '../s2s-card/support.ts';
import { balanceMismatches, currencySums, entriesOfPayment, insertFeeSchedule } from '../../src/store/ledger-repo.ts';
import { parseFeeRows } from '../../src/domain/ledger/fees.ts';
import { forgetBooks } from '../../src/services/money/postings.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`ledger: every money event posted with its change (${kind})`, { skip }, () => {
    let gw: TestGateway;
    const clock = new ManualClock('2030-01-15T10:00:00Z');
    before(async () => {
      gw = await startTestGateway(kind, { clock });
      // The platform's default: 2.9 % + 0.30 USD on sales, a flat 0.15 on refunds; this merchant from the 20th: 1.5 %.
      const platform = parseFeeRows([
        { operation: 'sale', currency: 'USD', percent: '2.9', fixed: '0.30' },
        { operation: 'refund', currency: 'USD', fixed: '0.15' },
      ]);
      const own = parseFeeRows([{ operation: 'sale', percent: '1.5' }]);
      assert.ok('rows' in platform && 'rows' in own);
      await insertFeeSchedule(gw.store.db, { id: 'fs-platform', merchantId: null, effectiveFrom: new Date('2030-01-01T00:00:00Z'), rows: platform.rows, createdBy: null }, clock.now());
      await insertFeeSchedule(gw.store.db, { id: 'fs-own', merchantId: gw.merchant.id, effectiveFrom: new Date('2030-01-20T00:00:00Z'), rows: own.rows, createdBy: null }, clock.now());
      forgetBooks(gw.gateway.ctx);
    });
    after(() => gw?.close());

    const entries = (id: string) => entriesOfPayment(gw.store.db, id);
    const sumOf = (list: { account: string; amount: bigint }[], suffix: string) => list.filter((e) => e.account.endsWith(suffix)).reduce((s, e) => s + e.amount, 0n);

    it('a settled sale posts its amount and fee; a declined one posts nothing', async () => {
      const ok = await sale(gw, { order_amount: '10.00' });
      assert.equal(ok.body.status, 'SETTLED', ok.text);
      const posted = await entries(ok.body.trans_id);
      // 10.00 captured: the acquirer owes it, the merchant is owed it; fee 2.9 % of 10.00 + 0.30 = 0.59.
      assert.equal(sumOf(posted, ':receivable'), 1000n);
      assert.equal(sumOf(posted, ':pending'), -1000n);
      assert.equal(sumOf(posted, ':fees'), 59n);
      assert.equal(sumOf(posted, 'platform:fee_revenue'), -59n);
      assert.equal(posted.reduce((s, e) => s + e.amount, 0n), 0n);
      const declined = await sale(gw, { card_exp_month: '02' });
      assert.equal(declined.body.status, 'DECLINED', declined.text);
      assert.deepEqual(await entries(declined.body.trans_id), []);
    });

    it('an authorization posts nothing until its capture; partial refunds post each with its fee', async () => {
      const auth = await sale(gw, { auth: 'Y', order_amount: '20.00' });
      const id = auth.body.trans_id;
      assert.equal(auth.body.status, 'PENDING', auth.text);
      assert.deepEqual(await entries(id), []);
      assert.equal((await followUp(gw, 'CAPTURE', id, { amount: '15.00' })).body.status, 'SETTLED');
      // 2.9 % of 15.00 = 0.435 -> 0.44 (half up) + 0.30.
      assert.equal(sumOf(await entries(id), ':fees'), 74n);
      assert.equal((await followUp(gw, 'CREDITVOID', id, { amount: '5.00' })).body.result, 'ACCEPTED');
      const after = await entries(id);
      assert.equal(sumOf(after, ':receivable'), 1000n, '15.00 captured, 5.00 refunded');
      assert.equal(sumOf(after, ':fees'), 89n, 'and the refund\'s 0.15');
    });

    it('a void gives the sale and its fees back', async () => {
      const ok = await sale(gw, { order_amount: '3.00' });
      assert.equal((await followUp(gw, 'VOID', ok.body.trans_id)).body.result, 'SUCCESS');
      const posted = await entries(ok.body.trans_id);
      assert.equal(sumOf(posted, ':receivable'), 0n);
      assert.equal(sumOf(posted, ':fees'), 0n);
      assert.deepEqual([...new Set(posted.map((e) => e.event))].sort(), ['fee', 'fee_refund', 'sale', 'void']);
    });

    it('a payment made after the merchant\'s own schedule took effect has its fee; older ones keep theirs', async () => {
      clock.set(new Date('2030-01-21T10:00:00Z'));
      const ok = await sale(gw, { order_amount: '10.00' });
      assert.equal(sumOf(await entries(ok.body.trans_id), ':fees'), 15n, '1.5 % of 10.00');
    });

    it('a card payout posts from the merchant\'s available balance; a reversed debit gives its amount and fees back', async () => {
      const pan = PAYOUT_CARD;
      const payout = await gw.postForm('/post', { client_key: gw.merchant.key, action: 'CREDIT2CARD', order_id: `PO-${Date.now()}`, order_amount: '7.00', order_currency: 'USD', order_description: 'refund of goods', card_number: pan, hash: f5(gw.merchant.password, pan) });
      assert.equal(payout.body.status, 'SETTLED', payout.text);
      const paid = await entries(payout.body.trans_id);
      assert.deepEqual(paid.filter((e) => e.event === 'payout').map((e) => [e.account.split(':').pop(), e.amount]).sort(), [['available', 700n], ['receivable', -700n]]);
      const fields = saleFields({ action: 'DEBIT', order_amount: '1.99' });
      const debit = await gw.postForm('/post', { client_key: gw.merchant.key, ...fields, hash: f1(EMAIL, gw.merchant.password, CARD) });
      assert.equal(debit.body.status, 'SETTLED', debit.text);
      assert.equal(sumOf(await entries(debit.body.trans_id), ':fees'), 3n, '1.5 % of 1.99 is 2.985: 3 (half up)');
      assert.equal((await followUp(gw, 'CREDITVOID', debit.body.trans_id)).body.result, 'ACCEPTED');
      const reversed = await entries(debit.body.trans_id);
      assert.deepEqual([sumOf(reversed, ':pending'), sumOf(reversed, ':fees'), sumOf(reversed, ':receivable')], [0n, 0n, 0n]);
      assert.ok(reversed.some((e) => e.event === 'reversal') && reversed.some((e) => e.event === 'fee_refund'));
    });

    it('concurrent sales: every currency sums to zero and every balance is the sum of its entries', async () => {
      await Promise.all(Array.from({ length: 30 }, (_, i) => sale(gw, { order_amount: `${1 + i}.37`, ...(i % 5 === 0 ? { card_exp_month: '02' } : {}) })));
      for (const [currency, sum] of await currencySums(gw.store.db)) assert.equal(sum, 0n, currency);
      assert.deepEqual(await balanceMismatches(gw.store.db), []);
    });
  });
}
