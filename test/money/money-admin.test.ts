/**
 * The merchant's money for operators over HTTP (issue 27): a fee schedule version (and each bad row named),
 * money terms, balances after real S2S sales, a payment's fee and entries, adjustments (admins only, with a
 * reason, in a currency the merchant has an account in, audited) and the ledger's self-check.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { sale } from '../s2s-card/support.ts';
import { adminClient, D3_FORBIDDEN, fieldErrors, operatorWithRole, type AdminCall } from '../admin/support.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`admin: fees, balances, entries, adjustments (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let admin: AdminCall;
    const clock = new ManualClock('2030-03-01T09:00:00Z');
    before(async () => {
      gw = await startTestGateway(kind, { clock, adminToken: `money-${kind}` });
      admin = adminClient(gw.baseUrl, `money-${kind}`);
    });
    after(() => gw?.close());

    it('refuses a schedule with overlapping rows, a negative percentage and a minimum above the maximum, naming each', async () => {
      const res = await admin('POST', '/admin/v1/money/fee-schedules', {
        merchant_id: gw.merchant.id, effective_from: '2030-03-01T09:00:00Z',
        rows: [
          { operation: 'sale', currency: 'USD', percent: '2' },
          { operation: 'sale', currency: 'USD', percent: '3' },
          { operation: 'refund', percent: '-1' },
          { operation: 'sale', currency: 'USD', method: 'visa', min: '2.00', max: '1.00' },
        ],
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.errors.map((e: { error_message: string }) => e.error_message.split(':')[0]), ['rows[1].operation', 'rows[2].percent', 'rows[3].min']);
    });

    it('a merchant\'s schedule prices its sales; balances, the payment\'s fee and entries follow', async () => {
      const created = await admin('POST', '/admin/v1/money/fee-schedules', {
        merchant_id: gw.merchant.id, effective_from: '2030-03-01T09:00:00Z',
        rows: [{ operation: 'sale', currency: 'USD', percent: '2.5', fixed: '0.10', min: '0.20' }],
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.rows[0].percent, '2.5');
      const listed = await admin('GET', `/admin/v1/money/fee-schedules?merchant_id=${gw.merchant.id}`);
      assert.deepEqual(listed.body.map((s: { id: string }) => s.id), [created.body.id]);

      const a = await sale(gw, { order_amount: '10.00' }); // 0.25 + 0.10 = 0.35
      const b = await sale(gw, { order_amount: '1.00' }); // 0.025 -> 0.03 + 0.10 = 0.13, below the minimum: 0.20
      const ledger = await admin('GET', `/admin/v1/payments/${a.body.trans_id}/ledger`);
      assert.equal(ledger.status, 200, ledger.text);
      assert.equal(ledger.body.fee, '0.35');
      assert.equal(ledger.body.net_amount, '9.65');
      assert.equal(ledger.body.entries.length, 4);
      assert.equal((await admin('GET', `/admin/v1/payments/${b.body.trans_id}/ledger`)).body.fee, '0.20');

      const balances = await admin('GET', `/admin/v1/merchants/${gw.merchant.id}/balances`);
      assert.deepEqual(balances.body.balances, [{ currency: 'USD', pending: '11.00', available: '0.00', reserve: '0.00', fees: '0.55', total: '10.45' }]);
    });

    it('adjustments: admins only, with a reason, in a currency with an account; audited', async () => {
      const operator = await operatorWithRole(gw, 'operator');
      const body = { currency: 'USD', amount: '5.00', direction: 'credit', reason: 'Goodwill, ticket 4711' };
      const forbidden = await operator.call('POST', `/admin/v1/merchants/${gw.merchant.id}/adjustments`, body);
      assert.deepEqual([forbidden.status, forbidden.body], [403, D3_FORBIDDEN]);
      const refused = await admin('POST', `/admin/v1/merchants/${gw.merchant.id}/adjustments`, { ...body, currency: 'EUR', reason: '' });
      assert.equal(refused.status, 400);
      assert.deepEqual(fieldErrors(refused.body).map((m) => m.split(':')[0]), ['reason', 'currency']);
      const done = await admin('POST', `/admin/v1/merchants/${gw.merchant.id}/adjustments`, body);
      assert.equal(done.status, 201, done.text);
      assert.equal(done.body.balances[0].available, '5.00');
      const audit = await admin('GET', '/admin/v1/audit-log');
      const entry = audit.body.entries.find((e: { action: string }) => e.action === 'merchant.adjustment');
      assert.equal(entry?.details?.reason, 'Goodwill, ticket 4711', audit.text);
      const check = await admin('GET', '/admin/v1/money/ledger-check');
      assert.equal(check.body.balanced, true, check.text);
    });

    it('money terms: read, replace (a bad country named)', async () => {
      const bad = await admin('PUT', `/admin/v1/merchants/${gw.merchant.id}/money/terms`, { country: 'XX' });
      assert.equal(bad.status, 400);
      const put = await admin('PUT', `/admin/v1/merchants/${gw.merchant.id}/money/terms`, { country: 'DE', settlement_delay_days: 3, reserve_percent: '10', reserve_days: 90 });
      assert.equal(put.status, 200, put.text);
      assert.deepEqual((await admin('GET', `/admin/v1/merchants/${gw.merchant.id}/money/terms`)).body, {
        merchant_id: gw.merchant.id, country: 'DE', settlement_delay_days: 3, settlement_frequency: 'daily', settlement_cutoff_weekday: 1, reserve_percent: '10', reserve_days: 90,
        payout_account: { name: null, iban: null, bic: null },
      });
    });

    it('money terms: weekly settlement and the payout account; a bad IBAN, BIC, frequency and weekday named', async () => {
      const m = gw.merchant.id;
      const bad = await admin('PUT', `/admin/v1/merchants/${m}/money/terms`, {
        settlement_frequency: 'monthly', settlement_cutoff_weekday: 8, payout_account: { iban: 'DE89 3704 0044 0532 0130 01', bic: 'COBA' },
      });
      assert.equal(bad.status, 400, bad.text);
      assert.deepEqual(fieldErrors(bad.body).map((e) => e.split(':')[0]), ['settlement_frequency', 'settlement_cutoff_weekday', 'payout_account.iban', 'payout_account.bic', 'payout_account.name']);
      const put = await admin('PUT', `/admin/v1/merchants/${m}/money/terms`, {
        settlement_frequency: 'weekly', settlement_cutoff_weekday: 5, payout_account: { name: 'Muster Shop GmbH', iban: 'de89 3704 0044 0532 0130 00', bic: 'cobadeffxxx' },
      });
      assert.equal(put.status, 200, put.text);
      assert.deepEqual([put.body.settlement_frequency, put.body.settlement_cutoff_weekday, put.body.payout_account], ['weekly', 5, { name: 'Muster Shop GmbH', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' }]);
    });

    it('a query string\'s integer (limit) is read as a number; text or a value out of range is refused by name', async () => {
      for (const path of ['/admin/v1/money/statements?limit=2', `/admin/v1/merchants/${gw.merchant.id}/money/statements?limit=500`, '/admin/v1/risk/reviews?limit=5']) {
        const res = await admin('GET', path);
        assert.equal(res.status, 200, `${path}: ${res.text}`);
      }
      for (const limit of ['x', '0', '501', '2.5', '1e3']) {
        const res = await admin('GET', `/admin/v1/money/statements?limit=${limit}`);
        assert.equal(res.status, 400, `limit=${limit}: ${res.text}`);
        assert.ok(fieldErrors(res.body).some((m) => m.startsWith('limit')), res.text);
      }
    });
  });
}
