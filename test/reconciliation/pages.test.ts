/**
 * A report longer than one page (issue 28): the import reads, matches and writes 2,000 rows at a time, a page's
 * writes running while the next page is read. Three real sales, their rows in different pages with
 * 2,100 unknown rows between, over HTTP on both stores: every row has its outcome, each record is taken once, the
 * postings balance, and the batch's count is the file's.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { sale } from '../s2s-card/support.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { adyenReport, type AdyenLine } from './support.ts';
import { PAGE } from '../../src/services/reconciliation/import.ts';

const UNKNOWN = 2_100;

for (const { kind, skip } of await storeKinds()) {
  describe(`reconciliation: a report of several pages (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let admin: AdminCall;
    const midId = crypto.randomUUID();
    const clock = new ManualClock('2030-06-01T09:00:00Z');
    before(async () => {
      gw = await startTestGateway(kind, { clock, adminToken: `pages-${kind}`, mids: [{ id: midId, paymentMode: 'SMS/DMS' }] });
      admin = adminClient(gw.baseUrl, `pages-${kind}`);
    });
    after(() => gw?.close());

    it('rows in different pages each find their record once; the unknown rows between are unexpected', async () => {
      const pays: { id: string; psp: string }[] = [];
      for (const amount of ['10.00', '20.00', '30.00']) {
        const res = await sale(gw, { order_amount: amount, order_currency: 'USD' });
        assert.equal(res.body.status, 'SETTLED', res.text);
        const [p] = await gw.store.db.query<{ psp: string }>("SELECT details->>'connectorRef' AS psp FROM payments WHERE id = $1", [res.body.trans_id]);
        pays.push({ id: res.body.trans_id, psp: p!.psp });
      }
      clock.set('2030-06-03T12:00:00Z');
      assert.equal((await admin('PUT', `/admin/v1/reconciliation/mids/${midId}/profile`, { settlement_days: 3, window_days: 1, reconcile_from: '2030-05-01T00:00:00Z' })).status, 200);
      const at = '2030-06-02 10:00:00';
      const unknown: AdyenLine[] = Array.from({ length: UNKNOWN }, (_, i) => ({ psp: `99${String(i).padStart(14, '0')}`, ref: `elsewhere-${i}`, type: 'Settled', gross: `${1000 + i}.00`, at }));
      const lines: AdyenLine[] = [
        { psp: pays[0]!.psp, ref: pays[0]!.id, type: 'Settled', gross: '10.00', at },
        ...unknown,
        { psp: pays[1]!.psp, ref: pays[1]!.id, type: 'Settled', gross: '20.00', at },
        { psp: pays[2]!.psp, ref: pays[2]!.id, type: 'Settled', gross: '30.00', at },
      ];
      assert.ok(lines.length > PAGE, 'more than one page');
      const res = await fetch(`${gw.baseUrl}/admin/v1/reconciliation/imports?mid_id=${midId}`, { method: 'POST', headers: { authorization: `Bearer pages-${kind}`, 'content-type': 'text/csv' }, body: adyenReport(lines, { batch: 'pages', payout: true }) });
      const body = await res.json() as any;
      assert.equal(res.status, 200, JSON.stringify(body).slice(0, 2000));
      assert.equal(body.batch.rows, lines.length + 1, 'every line and the payout');
      assert.deepEqual(body.batch.counts, { matched: 3, unexpected: UNKNOWN, booking: 1 });
      const matched = (await admin('GET', `/admin/v1/reconciliation/rows?batch_id=${body.batch.id}&outcome=matched`)).body.rows as { payment_id: string; kind: string; line: number }[];
      assert.deepEqual(matched.map((r) => `${r.line} ${r.kind} ${r.payment_id}`).sort(), [
        `2 settled ${pays[0]!.id}`, `${UNKNOWN + 3} settled ${pays[1]!.id}`, `${UNKNOWN + 4} settled ${pays[2]!.id}`,
      ].sort());
      const ledger = (await admin('GET', `/admin/v1/payments/${pays[0]!.id}/ledger`)).body.entries as { event: string; account: string; amount: string }[];
      assert.equal(ledger.filter((e) => e.event === 'acquirer_settlement' && e.account === `acquirer:${midId}:receivable`).length, 1, 'the settlement posted once');
      assert.equal((await admin('GET', '/admin/v1/money/ledger-check')).body.balanced, true);
    });

    it('a record the last row of a page took is not taken again by the first row of the next (the pages are pipelined)', async () => {
      const res = await sale(gw, { order_amount: '40.00', order_currency: 'USD' });
      assert.equal(res.body.status, 'SETTLED', res.text);
      const id = res.body.trans_id as string;
      const [p] = await gw.store.db.query<{ psp: string }>("SELECT details->>'connectorRef' AS psp FROM payments WHERE id = $1", [id]);
      const at = '2030-06-03 10:00:00';
      // Lines 2 .. PAGE + 1 are the first page: the sale's row is its last, a second row naming it the next page's first.
      const filler: AdyenLine[] = Array.from({ length: PAGE - 1 }, (_, i) => ({ psp: `98${String(i).padStart(14, '0')}`, ref: `filler-${i}`, type: 'Settled', gross: `${2000 + i}.00`, at }));
      const lines: AdyenLine[] = [...filler, { psp: p!.psp, ref: id, type: 'Settled', gross: '40.00', at }, { psp: p!.psp, ref: id, type: 'Settled', gross: '41.00', at }];
      const imported = await fetch(`${gw.baseUrl}/admin/v1/reconciliation/imports?mid_id=${midId}`, { method: 'POST', headers: { authorization: `Bearer pages-${kind}`, 'content-type': 'text/csv' }, body: adyenReport(lines, { batch: 'pages-edge', payout: true }) });
      const body = await imported.json() as any;
      assert.equal(imported.status, 200, JSON.stringify(body).slice(0, 2000));
      const last = await gw.store.db.query<{ line: number; outcome: string; payment_id: string | null }>('SELECT line, outcome, payment_id FROM recon_rows WHERE import_id = $1 AND line BETWEEN $2 AND $2 + 1 ORDER BY line', [body.batch.id, PAGE + 1]);
      assert.deepEqual(last.map((r) => `${r.line} ${r.outcome} ${r.payment_id ?? '-'}`), [`${PAGE + 1} matched ${id}`, `${PAGE + 2} unexpected -`]);
      const ledger = (await admin('GET', `/admin/v1/payments/${id}/ledger`)).body.entries as { event: string; account: string }[];
      assert.equal(ledger.filter((e) => e.event === 'acquirer_settlement' && e.account === `acquirer:${midId}:receivable`).length, 1, 'the settlement posted once');
    });
  });
}
