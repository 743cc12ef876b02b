/**
 * Reconciliation with real parts (issue 28): payments made by the `adyen` connector against the mock of Adyen's
 * API description (prism serving CheckoutService-v71.json, as test/connectors/adyen-mock.test.ts starts it), then
 * the Settlement details report Adyen would send for them, written in its published layout with the pspReferences
 * those payments got and deliberate differences (a wrong amount, a missing row, an unknown row, an unexpected fee),
 * imported through the admin API. The mock answers every payment with its example's one pspReference, so the
 * Merchant Reference (our payment id) tells the payments apart, as the matcher's tie-break does.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { sale } from '../s2s-card/support.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { prismUnavailable, startAdyenMock, type AdyenMock } from '../connectors/adyen-support.ts';
import { adyenReport } from './support.ts';

const unavailable = prismUnavailable();
const HMAC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';

for (const { kind, skip } of await storeKinds()) {
  describe(`reconciliation of payments made through the adyen connector against the mock (${kind})`, { skip: skip || unavailable || false }, () => {
    let mock: AdyenMock;
    let gw: TestGateway;
    let admin: AdminCall;
    const midId = crypto.randomUUID();
    before(async () => {
      mock = await startAdyenMock();
      gw = await startTestGateway(kind, {
        adminToken: `recon-adyen-${kind}`, sandbox: false,
        mids: [{ id: midId, paymentMode: 'SMS', connector: 'adyen', settings: { baseUrl: mock.url, merchantAccount: 'PortcullisECOM', environment: 'test', timeoutMs: 10_000 }, credentials: { apiKey: 'test-api-key', hmacKey: HMAC_KEY } }],
      });
      admin = adminClient(gw.baseUrl, `recon-adyen-${kind}`);
    });
    after(async () => {
      await gw?.close();
      await mock?.close();
    });

    it('matches the report by pspReference, names the wrong amount and the unexpected fee, finds the missing and the unknown rows, posts the matched', async () => {
      mock.scenario.set('/payments', 'on-demand-top-up-visa');
      const pays: { id: string; psp: string; at: Date }[] = [];
      for (const amount of ['10.00', '20.00', '30.00', '40.00']) {
        const res = await sale(gw, { order_amount: amount, order_currency: 'USD' });
        assert.equal(res.body.status, 'SETTLED', res.text);
        const [p] = await gw.store.db.query<{ psp: string; at: Date }>("SELECT details->>'connectorRef' AS psp, created_at AS at FROM payments WHERE id = $1", [res.body.trans_id]);
        pays.push({ id: res.body.trans_id, psp: p!.psp, at: new Date(p!.at) });
      }
      assert.deepEqual(mock.refused, [], 'every request matched Adyen\'s description');
      assert.match(pays[0]!.psp, /^[A-Z0-9]{16}$/, 'a pspReference as Adyen gives it');
      const profile = await admin('PUT', `/admin/v1/reconciliation/mids/${midId}/profile`, {
        buy_rates: { mode: 'interchange_plus_plus', rows: [{ operation: 'sale', method: 'visa', percent: '0.6', currency: 'USD', fixed: '0.10' }] },
        settlement_days: 0, reconcile_from: new Date(pays[0]!.at.getTime() - 60_000).toISOString(),
      });
      assert.equal(profile.status, 200, profile.text);
      // Booked a little after the payments, in Adyen's "YYYY-MM-DD hh:mm:ss" and the account's zone (UTC here).
      const at = new Date(Date.now() + 60_000).toISOString().slice(0, 19).replace('T', ' ');
      // interchange++: the contract's markup is 0.10 + 0.6 % (0.16 on 10.00); the report's fee is interchange (half),
      // scheme fees (a tenth) and markup (the rest): 0.40 is 0.20 + 0.04 + 0.16, as contracted.
      const csv = adyenReport([
        { psp: pays[0]!.psp, ref: pays[0]!.id, type: 'Settled', gross: '10.00', fee: '0.40', at },
        { psp: pays[1]!.psp, ref: pays[1]!.id, type: 'Settled', gross: '22.00', fee: '0.00', at },
        { psp: pays[2]!.psp, ref: pays[2]!.id, type: 'Settled', gross: '30.00', fee: '2.00', at }, // contract: 0.28 + 1.00 + 0.20
        { psp: '9913140798220028', ref: 'not-ours', type: 'Settled', gross: '5.00', fee: '0.00', at },
      ], { batch: '7', payout: true });
      const res = await fetch(`${gw.baseUrl}/admin/v1/reconciliation/imports?mid_id=${midId}`, { method: 'POST', headers: { authorization: `Bearer recon-adyen-${kind}`, 'content-type': 'text/csv' }, body: csv });
      const body = await res.json() as any;
      assert.equal(res.status, 200, JSON.stringify(body));
      const rows = (await admin('GET', `/admin/v1/reconciliation/rows?batch_id=${body.batch.id}`)).body.rows as any[];
      const of = (id: string) => rows.find((r) => r.payment_id === id);
      assert.equal(of(pays[0]!.id).outcome, 'matched', JSON.stringify(of(pays[0]!.id)));
      assert.equal(of(pays[0]!.id).matched_by, 'acquirer_ref');
      assert.deepEqual(of(pays[1]!.id).differences.map((d: { field: string }) => d.field), ['amount', 'fee']);
      assert.deepEqual(of(pays[1]!.id).differences[0], { field: 'amount', ours: '20.00', theirs: '22.00' });
      assert.deepEqual(of(pays[2]!.id).differences, [{ field: 'fee', ours: '1.48', theirs: '2.00' }]);
      assert.equal(of(pays[3]!.id).outcome, 'missing');
      assert.equal(rows.find((r) => r.merchant_ref === 'not-ours').outcome, 'unexpected');
      const ledger = (await admin('GET', `/admin/v1/payments/${pays[0]!.id}/ledger`)).body.entries.map((e: { event: string; account: string; amount: string }) => `${e.event} ${e.account} ${e.amount}`);
      assert.ok(ledger.includes(`acquirer_settlement acquirer:${midId}:receivable -10.00`), ledger.join('\n'));
      assert.equal((await admin('GET', '/admin/v1/money/ledger-check')).body.balanced, true);
    });
  });
}
