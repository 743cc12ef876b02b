/**
 * Settlement over HTTP (issue 27): a day's S2S sales and a refund, settled T+1 into one statement (gross, fees,
 * reserve, net payable) by two gateways on one store running the settlement worker at once; the statement as
 * CSV; marked paid once with the bank's reference; the reserve released once, after its days, by both at once.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { followUp, sale } from '../s2s-card/support.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`settlement: statements, payouts and the reserve, once across nodes (${kind})`, { skip }, () => {
    let a: TestGateway;
    let b: TestGateway;
    let admin: AdminCall;
    const clock = new ManualClock('2030-04-01T10:00:00Z');
    const token = `settle-${kind}`;
    before(async () => {
      a = await startTestGateway(kind, { clock, adminToken: token });
      b = await startTestGateway(kind, { clock, store: a.store });
      admin = adminClient(a.baseUrl, token);
    });
    after(async () => {
      await b?.gateway.close();
      await a?.close();
    });
    const both = () => Promise.all([a.gateway.settlement.runOnce(), b.gateway.settlement.runOnce(), a.gateway.settlement.runOnce(), b.gateway.settlement.runOnce()]);
    const balances = async () => (await admin('GET', `/admin/v1/merchants/${a.merchant.id}/balances`)).body.balances[0];

    it('settles a day T+1 into one statement, whichever node runs it', async () => {
      const m = a.merchant.id;
      assert.equal((await admin('PUT', `/admin/v1/merchants/${m}/money/terms`, { settlement_delay_days: 1, reserve_percent: '10', reserve_days: 30 })).status, 200);
      const fees = await admin('POST', '/admin/v1/money/fee-schedules', { merchant_id: m, effective_from: clock.now().toISOString(), rows: [{ operation: 'sale', percent: '1' }] });
      assert.equal(fees.status, 201, fees.text);
      const ids: string[] = [];
      for (const amount of ['10.00', '20.00', '30.00']) ids.push((await sale(a, { order_amount: amount })).body.trans_id);
      assert.equal((await followUp(a, 'CREDITVOID', ids[2]!, { amount: '5.00' })).body.result, 'ACCEPTED');
      await both();
      assert.deepEqual((await admin('GET', `/admin/v1/money/statements?merchant_id=${m}`)).body, [], 'nothing is due on the day itself');

      clock.set(new Date('2030-04-03T00:20:00Z'));
      const runs = await both();
      assert.equal(runs.reduce((n, r) => n + r.statements, 0), 1, 'one statement made in all');
      const listed = (await admin('GET', `/admin/v1/money/statements?merchant_id=${m}`)).body;
      assert.equal(listed.length, 1);
      const s = listed[0];
      // 60.00 captured less 5.00 refunded; fees 1 % of each sale (0.10 + 0.20 + 0.30); reserve 10 % of 55.00.
      assert.deepEqual([s.gross, s.fees, s.reserve_held, s.net_payable, s.transactions], ['55.00', '0.60', '5.50', '48.90', 4]);
      assert.equal(s.period_to, '2030-04-02T00:00:00.000Z');
      assert.deepEqual(await balances(), { currency: 'USD', pending: '0.00', available: '48.90', reserve: '5.50', fees: '0.00', total: '54.40' });

      const csv = await fetch(`${a.baseUrl}/admin/v1/money/statements/${s.id}/csv`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
      const text = await csv.text();
      assert.match(text, /^created_at,ref,payment_id,event,account,amount,currency\n/);
      for (const id of ids) assert.ok(text.includes(id), id);
      assert.match(text, /,total:net_payable,,,,48\.90,USD\n$/);
      const detail = await admin('GET', `/admin/v1/money/statements/${s.id}`);
      assert.equal(detail.body.lines.length, text.trim().split('\n').length - 1 - 4, 'the view and the CSV have the same lines');
    });

    it('the merchant\'s own reads: statements, one statement, its CSV, a payment\'s fee, scoped to the merchant; the payment detail has the fee and entries', async () => {
      const m = a.merchant.id;
      const other = await a.addMerchant();
      const [s] = (await admin('GET', `/admin/v1/merchants/${m}/money/statements`)).body;
      assert.equal(s.net_payable, '48.90');
      assert.deepEqual((await admin('GET', `/admin/v1/merchants/${other.id}/money/statements`)).body, []);
      const one = await admin('GET', `/admin/v1/merchants/${m}/money/statements/${s.id}`);
      assert.equal(one.status, 200, one.text);
      assert.equal(one.body.lines.length, (await admin('GET', `/admin/v1/money/statements/${s.id}`)).body.lines.length);
      assert.equal((await admin('GET', `/admin/v1/merchants/${other.id}/money/statements/${s.id}`)).status, 404, 'another merchant\'s statement is not found');
      const csv = await fetch(`${a.baseUrl}/admin/v1/merchants/${m}/money/statements/${s.id}/csv`, { headers: { authorization: `Bearer ${token}` } });
      assert.match(await csv.text(), /,total:net_payable,,,,48\.90,USD\n$/);
      assert.equal((await fetch(`${a.baseUrl}/admin/v1/merchants/${other.id}/money/statements/${s.id}/csv`, { headers: { authorization: `Bearer ${token}` } })).status, 404);

      const payment = one.body.lines.find((l: { event: string }) => l.event === 'sale').payment_id as string;
      const fee = await admin('GET', `/admin/v1/merchants/${m}/money/payments/${payment}`);
      assert.equal(fee.status, 200, fee.text);
      assert.equal((await admin('GET', `/admin/v1/merchants/${other.id}/money/payments/${payment}`)).status, 404);
      const detail = await admin('GET', `/admin/v1/payments/${payment}`);
      assert.equal(detail.status, 200, detail.text);
      assert.deepEqual(detail.body.money, { fee: fee.body.fee, net_amount: fee.body.net_amount, entries: fee.body.entries });
      assert.deepEqual(detail.body.money, (({ fee: f, net_amount, entries }) => ({ fee: f, net_amount, entries }))((await admin('GET', `/admin/v1/payments/${payment}/ledger`)).body));
      // 1 % of the sale's amount; the merchant is owed the rest.
      const amount = BigInt(detail.body.payment.amount.replace('.', ''));
      assert.equal(BigInt(fee.body.fee.replace('.', '')), amount / 100n);
      assert.equal(BigInt(fee.body.net_amount.replace('.', '')), amount - amount / 100n);
    });

    it('marks the statement paid once, with the bank\'s reference', async () => {
      const [s] = (await admin('GET', '/admin/v1/money/statements?unpaid=true')).body;
      const due = await fetch(`${a.baseUrl}/admin/v1/money/payouts/csv`, { headers: { authorization: `Bearer ${token}` } });
      assert.match(await due.text(), new RegExp(`${s.id},${a.merchant.id},USD,48\\.90,`));
      const paid = await admin('POST', `/admin/v1/money/statements/${s.id}/paid`, { bank_reference: 'SEPA-000123' });
      assert.equal(paid.status, 200, paid.text);
      assert.equal(paid.body.payout.bank_reference, 'SEPA-000123');
      const again = await admin('POST', `/admin/v1/money/statements/${s.id}/paid`, { bank_reference: 'SEPA-000124' });
      assert.equal(again.status, 400);
      assert.equal((await balances()).available, '0.00');
    });

    it('releases the reserve once after its days, whichever node runs it', async () => {
      clock.set(new Date('2030-05-01T23:00:00Z'));
      assert.equal((await both()).reduce((n, r) => n + r.released, 0), 0, 'not before its day');
      clock.set(new Date('2030-05-02T00:30:00Z'));
      assert.equal((await both()).reduce((n, r) => n + r.released, 0), 1);
      assert.deepEqual(await balances(), { currency: 'USD', pending: '0.00', available: '5.50', reserve: '0.00', fees: '0.00', total: '5.50' });
      assert.equal((await admin('GET', '/admin/v1/money/ledger-check')).body.balanced, true);
    });
  });
}
