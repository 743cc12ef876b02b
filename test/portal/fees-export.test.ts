/**
 * The fees export (issue 30, reports): each fee a merchant's schedule charged (sales, a refund) and each fee given
 * back (a void's fee_refund) as one CSV line from the ledger, newest first, with its payment, order id and the
 * transaction it was charged on; cells quoted and formulas neutralised (a leading tab or carriage return too). The
 * portal's finance user and the admin API read the same lines; a viewer is refused (money.read), another merchant's
 * owner sees none of them; a window narrows it; keyset pages of 2 give the same text as one page.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { followUp, sale } from '../s2s-card/support.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { CsvNumber, csvCell, splitCsvLine } from '../../src/domain/csv.ts';
import { feesCsv } from '../../src/services/money/fee-lines.ts';
import { invitedUser, portalClient, portalSignIn, request } from './support.ts';

const rowsOf = (text: string) => text.split('\r\n').filter((l) => l !== '').map((l) => splitCsvLine(l)!);

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('fees export cells', () => {
  it('writes a signed amount as a number; anything else in a CsvNumber, and every text, neutralised', () => {
    assert.equal(csvCell(new CsvNumber('-0.08')), '"-0.08"');
    assert.equal(csvCell(new CsvNumber('12')), '"12"');
    assert.equal(csvCell(new CsvNumber('-1+2')), '"\'-1+2"');
    assert.equal(csvCell(new CsvNumber('=1')), '"\'=1"');
    for (const start of ['=', '+', '-', '@', '\t', '\r']) assert.equal(csvCell(`${start}0.08`), `"'${start}0.08"`);
  });
});

for (const { kind, skip } of kinds) {
  describe(`portal and admin: the fees export (${kind})`, { skip }, () => {
    let t: TestGateway;
    let admin: AdminCall;
    const clock = new ManualClock('2030-04-01T10:00:00Z');
    const token = `portal-fees-${kind}`;
    const at = (minute: number) => clock.set(new Date(Date.parse('2030-04-01T10:00:00Z') + minute * 60_000));
    before(async () => {
      t = await startTestGateway(kind, { clock, adminToken: token });
      admin = adminClient(t.baseUrl, token);
    });
    after(async () => t?.close());

    it('lists every fee charged and given back, newest first, to the merchant\'s users and operators alike', async () => {
      const m = t.merchant.id;
      const schedule = await admin('POST', '/admin/v1/money/fee-schedules', { merchant_id: m, effective_from: clock.now().toISOString(), rows: [{ operation: 'sale', currency: 'USD', percent: '1', fixed: '0.05' }, { operation: 'refund', currency: 'USD', fixed: '0.15' }] });
      assert.equal(schedule.status, 201, schedule.text);
      at(1);
      const a = (await sale(t, { order_amount: '10.00', order_id: '=HYPERLINK("http://x")' })).body.trans_id;
      at(2);
      const b = (await sale(t, { order_amount: '20.00', order_id: 'TAB' })).body.trans_id;
      await t.store.db.query('UPDATE payments SET order_id = $2 WHERE id = $1', [b, '\t=1+2']);
      at(3);
      assert.equal((await followUp(t, 'CREDITVOID', b, { amount: '5.00' })).body.result, 'ACCEPTED');
      at(4);
      const c = (await sale(t, { order_amount: '3.00', order_id: 'voided' })).body.trans_id;
      at(5);
      assert.equal((await followUp(t, 'VOID', c)).body.result, 'SUCCESS');
      const other = await t.addMerchant();
      await sale(t, { order_amount: '7.00', order_id: 'OUTSIDE' }, other);

      const finance = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, token, { role: 'finance' })).email));
      const csv = await finance('GET', '/portal/v1/fees/export');
      assert.equal(csv.status, 200, csv.text);
      assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
      assert.match(csv.headers.get('content-disposition') ?? '', /attachment; filename="fees-2030-04-01\.csv"/);
      const rows = rowsOf(csv.text);
      assert.deepEqual(rows[0], ['created_at', 'merchant_id', 'payment_id', 'order_id', 'transaction_id', 'transaction_type', 'transaction_amount', 'event', 'fee', 'currency']);
      // Newest first: the void's fee given back, the voided sale's fee, the refund's 0.15, then the two sales' 1 % + 0.05.
      assert.deepEqual(rows.slice(1).map((r) => [r[1], r[2], r[3], r[5], r[6], r[7], r[8], r[9]]), [
        [m, c, 'voided', 'void', '3.00', 'fee_refund', '-0.08', 'USD'],
        [m, c, 'voided', 'sale', '3.00', 'fee', '0.08', 'USD'],
        [m, b, '\'\t=1+2', 'refund', '5.00', 'fee', '0.15', 'USD'],
        [m, b, '\'\t=1+2', 'sale', '20.00', 'fee', '0.25', 'USD'],
        [m, a, '\'=HYPERLINK("http://x")', 'sale', '10.00', 'fee', '0.15', 'USD'],
      ]);
      assert.deepEqual(rows.slice(1).map((r) => r[0]), ['2030-04-01T10:05:00.000Z', '2030-04-01T10:04:00.000Z', '2030-04-01T10:03:00.000Z', '2030-04-01T10:02:00.000Z', '2030-04-01T10:01:00.000Z']);
      assert.ok(!csv.text.includes('OUTSIDE') && !csv.text.includes(other.id));
      // The transaction ids are the payments' own transactions.
      const txOfB = (await t.store.db.query<{ id: string; type: string }>('SELECT id, type FROM transactions WHERE payment_id = $1 ORDER BY created_at', [b])).map((r) => r.id);
      assert.deepEqual(rows.slice(3, 5).map((r) => r[4]).sort(), txOfB.sort());

      // A window: from the refund on (inclusive), before the void (exclusive).
      const window = await finance('GET', '/portal/v1/fees/export?created_from=2030-04-01T10:03:00Z&created_to=2030-04-01T10:05:00Z');
      assert.deepEqual(rowsOf(window.text).slice(1).map((r) => [r[2], r[7], r[8]]), [[c, 'fee', '0.08'], [b, 'fee', '0.15']]);
      assert.equal((await finance('GET', '/portal/v1/fees/export?created_from=tomorrow')).status, 400);

      // The admin API's export of the merchant is the same text; an unknown merchant is not found.
      const operator = await admin('GET', `/admin/v1/merchants/${m}/money/fees/csv`);
      assert.equal(operator.status, 200, operator.text);
      assert.equal(operator.text, csv.text);
      assert.equal((await admin('GET', '/admin/v1/merchants/0b7f2c1e-5d4a-4f3b-9e8d-7c6b5a4f3e2d/money/fees/csv')).status, 404);
      assert.equal((await admin('GET', `/admin/v1/merchants/${m}/money/fees/csv?created_to=2030-04-01T10:02:00Z`)).text.trim().split('\r\n').length, 2, 'the first sale\'s fee only');

      // Keyset pages of two give the same lines as one page.
      let paged = '';
      for await (const part of feesCsv(t.gateway.ctx, { merchantIds: [m] }, 2)) paged += part;
      assert.equal(paged, csv.text);

      // money.read: a viewer is refused; another merchant's owner finds neither the merchant nor its fees.
      const viewer = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, token, { role: 'viewer' })).email));
      assert.equal((await viewer('GET', '/portal/v1/fees/export')).status, 403);
      const stranger = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, token, { role: 'owner', merchantId: other.id })).email));
      assert.equal((await stranger('GET', `/portal/v1/fees/export?merchant_id=${m}`)).status, 404);
      const own = await stranger('GET', '/portal/v1/fees/export');
      assert.deepEqual(rowsOf(own.text).slice(1).map((r) => r[3]), []);
      assert.equal((await request(t.baseUrl, 'GET', '/portal/v1/fees/export')).status, 401);
    });
  });
}
