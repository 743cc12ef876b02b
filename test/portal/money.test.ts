/**
 * The merchant's money in the portal (issue 30: the home's balance and next payout, statements): a day's sales
 * settled T+1 into a statement; a finance user reads the balances, the payout awaiting transfer and the next
 * statement's date, the statement, its lines and its CSV; a viewer is refused (money.read); another merchant's owner
 * finds neither the statement nor the merchant; after the operator pays it, nothing awaits payout.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { sale } from '../s2s-card/support.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { invitedUser, portalClient, portalSignIn, request } from './support.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`portal: balances, next payout and statements (${kind})`, { skip }, () => {
    let t: TestGateway;
    let admin: AdminCall;
    const clock = new ManualClock('2030-04-01T10:00:00Z');
    const token = `portal-money-${kind}`;
    before(async () => {
      t = await startTestGateway(kind, { clock, adminToken: token });
      admin = adminClient(t.baseUrl, token);
    });
    after(async () => t?.close());

    it('shows the balances, the payout awaiting transfer and the next statement; statements scoped to the merchant', async () => {
      const m = t.merchant.id;
      assert.equal((await admin('PUT', `/admin/v1/merchants/${m}/money/terms`, { settlement_delay_days: 1, reserve_percent: '10', reserve_days: 30 })).status, 200);
      assert.equal((await admin('POST', '/admin/v1/money/fee-schedules', { merchant_id: m, effective_from: clock.now().toISOString(), rows: [{ operation: 'sale', percent: '1' }] })).status, 201);
      for (const amount of ['10.00', '20.00']) assert.equal((await sale(t, { order_amount: amount })).body.status, 'SETTLED');
      clock.set(new Date('2030-04-03T00:20:00Z'));
      await t.gateway.settlement.runOnce();
      assert.equal((await sale(t, { order_amount: '5.00' })).body.status, 'SETTLED', 'a sale after the period: pending');

      const finance = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, token, { role: 'finance' })).email));
      const viewer = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, token, { role: 'viewer' })).email));
      const other = await t.addMerchant();
      const stranger = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, token, { role: 'owner', merchantId: other.id })).email));

      const money = await finance('GET', '/portal/v1/money');
      assert.equal(money.status, 200, money.text);
      assert.equal(money.body.merchants.length, 1);
      const [mine] = money.body.merchants;
      assert.equal(mine.merchant_id, m);
      // 30.00 settled: fees 0.30, reserve 3.00, net 26.70 available; 5.00 pending with its 0.05 fee.
      assert.deepEqual(mine.balances, [{ currency: 'USD', pending: '5.00', available: '26.70', reserve: '3.00', fees: '0.05', total: '34.65' }]);
      assert.deepEqual(mine.payouts, [{ currency: 'USD', awaiting_payout: '26.70', awaiting_statements: 1, awaiting_since: '2030-04-02T00:00:00.000Z' }]);
      // Daily, T+1: the 2 April captures are in the statement ending 3 April, made from 4 April 00:10.
      assert.deepEqual(mine.settlement, { frequency: 'daily', delay_days: 1, next_period_to: '2030-04-03T00:00:00.000Z', next_statement_at: '2030-04-04T00:10:00.000Z' });

      const list = await finance('GET', '/portal/v1/statements?limit=10');
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.statements.length, 1);
      const s = list.body.statements[0];
      assert.deepEqual([s.merchant_id, s.gross, s.fees, s.reserve_held, s.net_payable, s.payout], [m, '30.00', '0.30', '3.00', '26.70', null]);
      const one = await finance('GET', `/portal/v1/statements/${s.id}`);
      assert.equal(one.status, 200, one.text);
      assert.ok(one.body.lines.some((l: { event: string }) => l.event === 'sale'), one.text);
      const csv = await finance('GET', `/portal/v1/statements/${s.id}/csv`);
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
      assert.match(csv.text, /,total:net_payable,,,,26\.70,USD\n$/);

      for (const path of ['/portal/v1/money', '/portal/v1/statements', `/portal/v1/statements/${s.id}`, `/portal/v1/statements/${s.id}/csv`]) {
        assert.equal((await viewer('GET', path)).status, 403, `viewer ${path}`);
        assert.equal((await request(t.baseUrl, 'GET', path)).status, 401, `anonymous ${path}`);
      }
      assert.equal((await stranger('GET', `/portal/v1/statements/${s.id}`)).status, 404);
      assert.equal((await stranger('GET', `/portal/v1/statements/${s.id}/csv`)).status, 404);
      assert.equal((await stranger('GET', `/portal/v1/money?merchant_id=${m}`)).status, 404);
      assert.deepEqual((await stranger('GET', '/portal/v1/statements')).body.statements, []);
      assert.deepEqual((await stranger('GET', '/portal/v1/money')).body.merchants.map((x: { merchant_id: string }) => x.merchant_id), [other.id]);

      assert.equal((await admin('POST', `/admin/v1/money/statements/${s.id}/paid`, { bank_reference: 'SEPA-TEST-0001' })).status, 200);
      const paid = (await finance('GET', '/portal/v1/money')).body.merchants[0];
      assert.deepEqual(paid.payouts, [{ currency: 'USD', awaiting_payout: '0.00', awaiting_statements: 0, awaiting_since: null }]);
      assert.equal(paid.balances[0].available, '0.00');
      assert.equal((await finance('GET', '/portal/v1/statements?unpaid=true')).body.statements.length, 0);
    });
  });
}
