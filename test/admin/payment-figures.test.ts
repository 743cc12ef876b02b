/**
 * The console's home figures (issue 31 item 5, GET /admin/v1/stats/figures) over HTTP on both stores: a Hosted
 * Checkout payment declined once and then approved counts as one approved payment (approval per payment, not per
 * try); days that ended more than a day ago are read from the rollup filled on first read, and reading again counts
 * nothing twice; the previous period beside the range; groups per merchant, MID and connector; one merchant's
 * scope; declines by reason; bad ranges answer D3 400.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutTries } from '../support/checkout-tries.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { adminClient, type AdminCall } from './support.ts';
import { sale } from '../s2s-card/support.ts';
import { DECLINE_REASON } from '../../src/sandbox/acquirer/test-cards.ts';

const ADMIN = 'admin-figures-token';

for (const { kind, skip } of await storeKinds()) {
  describe(`admin: payment figures (${kind})`, { skip }, () => {
    const clock = new ManualClock('2030-01-10T12:00:00Z');
    let t: TestGateway;
    let admin: AdminCall;
    let other: TestMerchant;

    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN, clock });
      admin = adminClient(t.baseUrl, ADMIN);
      other = await t.addMerchant();
      // 10 January: the demo merchant's checkout payment declined once then approved, one S2S decline; the other merchant one sale.
      await checkoutTries(t, t.merchant, ['02/38', '01/38']);
      assert.equal((await sale(t, { card_exp_month: '02', order_amount: '5.00', order_currency: 'EUR' })).body.status, 'DECLINED');
      assert.equal((await sale(t, { order_amount: '3.00', order_currency: 'USD' }, other)).body.status, 'SETTLED');
      // 15 January (today): one approved S2S sale of the demo merchant.
      clock.set('2030-01-15T09:00:00Z');
      assert.equal((await sale(t, { order_amount: '7.50', order_currency: 'EUR' })).body.status, 'SETTLED');
    });
    after(async () => { await t?.close(); });

    const figures = async (query: string) => {
      const res = await admin('GET', `/admin/v1/stats/figures?${query}`);
      assert.equal(res.status, 200, res.text);
      return res.body;
    };

    it('counts a checkout payment declined then approved as one approved payment, in the previous period beside the range', async () => {
      const f = await figures('from=2030-01-12&to=2030-01-15');
      assert.deepEqual([f.from, f.to, f.previous_from, f.previous_to], ['2030-01-12', '2030-01-15', '2030-01-08', '2030-01-11']);
      assert.deepEqual(f.totals.current, { payments: 1, approved: 1, declined: 0, approval_rate: 1, volume: [{ currency: 'EUR', amount: '7.50', payments: 1 }] });
      // Previous: checkout (approved after a decline: one payment), S2S decline, the other merchant's sale.
      assert.equal(f.totals.previous.payments, 3);
      assert.equal(f.totals.previous.approved, 2);
      assert.equal(f.totals.previous.declined, 1);
      assert.equal(f.totals.previous.approval_rate, 0.6667);
      assert.deepEqual(f.totals.previous.volume.map((v: { currency: string; amount: string }) => `${v.amount} ${v.currency}`).sort(), ['10.00 EUR', '3.00 USD']);
      assert.equal(f.daily.length, 4);
      assert.deepEqual(f.daily.map((d: { day: string; previous_day: string }) => `${d.day}/${d.previous_day}`), ['2030-01-12/2030-01-08', '2030-01-13/2030-01-09', '2030-01-14/2030-01-10', '2030-01-15/2030-01-11']);
      assert.equal(f.daily[2].previous.payments, 3, '10 January sits beside 14 January');
      assert.equal(f.daily[3].current.approved, 1);
      const demo = f.groups.find((g: { key: string }) => g.key === t.merchant.id);
      assert.equal(demo.name, 'Test Shop');
      assert.deepEqual([demo.current.payments, demo.previous.payments, demo.previous.approval_rate], [1, 2, 0.5]);
      assert.deepEqual(f.declines, [{ reason: DECLINE_REASON, current: 0, previous: 1 }]);
    });

    it('GET /admin/v1/stats counts per payment too (a decline then an approval in one checkout is one approved payment)', async () => {
      const res = await admin('GET', '/admin/v1/stats?since=2030-01-10T00:00:00Z');
      assert.equal(res.status, 200, res.text);
      const demo = res.body.merchants.find((m: { merchant_id: string }) => m.merchant_id === t.merchant.id);
      assert.deepEqual([demo.payments, demo.approved, demo.declined, demo.approval_rate], [3, 2, 1, 0.6667]);
    });

    it('reads the rolled-up days again without counting them twice', async () => {
      const first = await figures('from=2030-01-06&to=2030-01-11');
      const again = await figures('from=2030-01-06&to=2030-01-11');
      assert.deepEqual(again, first);
      assert.equal(first.totals.current.payments, 3);
    });

    it('groups by MID and by connector, and scopes to one merchant', async () => {
      const byMid = await figures('from=2030-01-10&to=2030-01-15&by=mid');
      assert.ok(byMid.groups.every((g: { name: string }) => g.name.startsWith('MID ')), JSON.stringify(byMid.groups));
      assert.equal(byMid.groups.reduce((n: number, g: { current: { payments: number } }) => n + g.current.payments, 0), 4);
      const byConnector = await figures('from=2030-01-10&to=2030-01-15&by=connector');
      assert.deepEqual(byConnector.groups.map((g: { key: string; current: { payments: number } }) => [g.key, g.current.payments]), [['sandbox-card', 4]]);
      const scoped = await figures(`from=2030-01-10&to=2030-01-15&merchant_id=${other.id}`);
      assert.deepEqual([scoped.totals.current.payments, scoped.groups.length, scoped.groups[0].key], [1, 1, other.id]);
    });

    it('answers bad ranges with a D3 400 naming the field', async () => {
      for (const [query, field] of [['from=2030-02-30', 'from'], ['from=2030-01-15&to=2030-01-14', 'to'], ['from=2028-01-01&to=2030-01-14', 'to'], ['to=15.01.2030', 'to'], ['by=country', 'by']] as const) {
        const res = await admin('GET', `/admin/v1/stats/figures?${query}`);
        assert.equal(res.status, 400, `${query}: ${res.text}`);
        assert.match(res.text, new RegExp(field), query);
      }
    });
  });
}
