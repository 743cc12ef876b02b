/**
 * Reconciliation over HTTP (issue 28), both stores: real S2S sales through the gateway, then an Adyen Settlement
 * details report written in the published layout with those payments' references and deliberate differences (a
 * wrong amount, a missing row, an unknown row, an unexpected fee), imported through the admin API as a stream.
 * Outcomes, the ledger's postings, idempotency (the same file twice), a corrected file superseding, a bad file
 * importing nothing with each problem's line, the batch's payout against the bank credit, the exception actions
 * (audited), the CSV export, the summary per acquirer and day, /metrics, and the permissions.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { sale } from '../s2s-card/support.ts';
import { adminClient, D3_FORBIDDEN, fieldErrors, operatorWithRole, type AdminCall } from '../admin/support.ts';
import { adyenReport, type AdyenLine } from './support.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`reconciliation: import, match, post, exceptions (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let admin: AdminCall;
    const midId = crypto.randomUUID();
    const clock = new ManualClock('2030-06-01T09:00:00Z');
    const pays: { id: string; psp: string }[] = [];
    let firstImport = '';
    let liveImport = '';
    let lines: AdyenLine[] = [];
    const upload = (csv: string, query = '') => fetch(`${gw.baseUrl}/admin/v1/reconciliation/imports?mid_id=${midId}${query}`, {
      method: 'POST', headers: { authorization: `Bearer recon-${kind}`, 'content-type': 'text/csv' }, body: csv,
    }).then(async (r) => ({ status: r.status, body: await r.json() as any }));

    before(async () => {
      gw = await startTestGateway(kind, { clock, adminToken: `recon-${kind}`, mids: [{ id: midId, paymentMode: 'SMS/DMS' }] });
      admin = adminClient(gw.baseUrl, `recon-${kind}`);
      await gw.store.db.query("UPDATE mids SET currencies = ARRAY['USD'] WHERE id = $1", [midId]);
      gw.gateway.ctx.merchants.invalidate();
      for (const amount of ['10.00', '20.00', '30.00', '40.00']) {
        const res = await sale(gw, { order_amount: amount, order_currency: 'USD' });
        assert.equal(res.body.status, 'SETTLED', res.text);
        const [p] = await gw.store.db.query<{ psp: string }>("SELECT details->>'connectorRef' AS psp FROM payments WHERE id = $1", [res.body.trans_id]);
        assert.ok(p?.psp, 'the acquirer\'s reference');
        pays.push({ id: res.body.trans_id, psp: p.psp });
      }
      clock.set('2030-06-05T12:00:00Z');
      const profile = await admin('PUT', `/admin/v1/reconciliation/mids/${midId}/profile`, {
        buy_rates: { mode: 'blended', rows: [{ operation: 'sale', currency: 'USD', percent: '2.9', fixed: '0.30' }] },
        settlement_days: 3, window_days: 2, reconcile_from: '2030-05-01T00:00:00Z',
      });
      assert.equal(profile.status, 200, profile.text);
      // The report: P1 as recorded, P2 with a wrong amount, P3 with a fee above the contract, P4 absent (missing),
      // an unknown payment, a batch fee, and the payout of the batch's net.
      lines = [
        { psp: pays[0]!.psp, ref: pays[0]!.id, type: 'Settled', gross: '10.00', fee: '0.59', at: '2030-06-04 10:00:00' },
        { psp: pays[1]!.psp, ref: pays[1]!.id, type: 'Settled', gross: '22.00', fee: '0.94', at: '2030-06-04 10:01:00' },
        { psp: pays[2]!.psp, ref: pays[2]!.id, type: 'Settled', gross: '30.00', fee: '1.50', at: '2030-06-04 10:02:00' },
        { psp: '9915893240009999', ref: 'someone-else', type: 'Settled', gross: '5.00', fee: '0.00', at: '2030-06-04 10:03:00' },
        { type: 'Fee', net: '-1.00', at: '2030-06-04 23:00:00' },
      ];
    });
    after(() => gw?.close());

    it('imports the report: each outcome, differences named, the fee checked, the batch agreeing with its payout', async () => {
      const res = await upload(adyenReport(lines, { batch: '42', payout: true }), '&file_name=settlement_detail_report_batch_42.csv');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const b = res.body.batch;
      firstImport = liveImport = b.id;
      assert.equal(res.body.unchanged, false);
      assert.equal(b.layout, 'adyen_settlement_details');
      assert.equal(b.batch, '42');
      assert.deepEqual(b.counts, { matched: 1, mismatched: 2, unexpected: 1, missing: 1, booking: 2 });
      assert.deepEqual(b.totals, [{ currency: 'USD', net: '62.97', fees: '4.03', payout: '62.97', bank_credit: null, rows: 6 }]);
      assert.equal(b.flagged, false, JSON.stringify(b.flags));

      const listed = await admin('GET', `/admin/v1/reconciliation/rows?batch_id=${b.id}&limit=50`);
      assert.equal(listed.status, 200, listed.text);
      const rows = listed.body.rows as any[];
      const byRef = (id: string) => rows.find((r) => r.payment_id === id && r.line !== null);
      assert.equal(byRef(pays[0]!.id).outcome, 'matched');
      assert.equal(byRef(pays[0]!.id).matched_by, 'acquirer_ref');
      assert.deepEqual(byRef(pays[1]!.id).differences, [{ field: 'amount', ours: '20.00', theirs: '22.00' }]);
      assert.deepEqual(byRef(pays[2]!.id).differences, [{ field: 'fee', ours: '1.17', theirs: '1.50' }]);
      assert.equal(byRef(pays[2]!.id).expected_fee, '1.17');
      const missing = rows.find((r) => r.outcome === 'missing');
      assert.equal(missing.payment_id, pays[3]!.id);
      assert.equal(missing.line, null);
      assert.equal(rows.find((r) => r.outcome === 'unexpected').acquirer_ref, '9915893240009999');
    });

    it('posts the matched row to the ledger once: the receivable settled, the acquirer\'s fee; the batch fee; the ledger balanced', async () => {
      const ledger = await admin('GET', `/admin/v1/payments/${pays[0]!.id}/ledger`);
      const events = ledger.body.entries.map((e: { event: string; account: string; amount: string }) => `${e.event} ${e.account} ${e.amount}`);
      assert.ok(events.includes(`acquirer_settlement acquirer:${midId}:settled 10.00`), events.join('\n'));
      assert.ok(events.includes(`acquirer_settlement acquirer:${midId}:receivable -10.00`));
      assert.ok(events.includes('acquirer_fee platform:acquirer_fees 0.59'));
      const unposted = await admin('GET', `/admin/v1/payments/${pays[1]!.id}/ledger`);
      assert.ok(!unposted.body.entries.some((e: { event: string }) => e.event.startsWith('acquirer_')), 'a mismatched row waits for the operator');
      const [fee] = await gw.store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM ledger_entries WHERE event = 'acquirer_fee' AND payment_id IS NULL");
      assert.equal(fee!.n, 2, 'the batch fee row: one debit, one credit');
      assert.equal((await admin('GET', '/admin/v1/money/ledger-check')).body.balanced, true);
    });

    it('the same file twice changes nothing; a corrected file for the batch supersedes it and posts nothing twice', async () => {
      const again = await upload(adyenReport(lines, { batch: '42', payout: true }));
      assert.equal(again.status, 200);
      assert.equal(again.body.unchanged, true);
      assert.equal(again.body.batch.id, firstImport);
      const fixed = lines.map((l, i) => (i === 1 ? { ...l, gross: '20.00', fee: '0.88' } : l));
      const corrected = await upload(adyenReport(fixed, { batch: '42', payout: true }));
      assert.equal(corrected.status, 200, JSON.stringify(corrected.body));
      assert.equal(corrected.body.superseded, firstImport);
      liveImport = corrected.body.batch.id;
      assert.deepEqual(corrected.body.batch.counts, { matched: 2, mismatched: 1, unexpected: 1, missing: 1, booking: 2 });
      const batches = (await admin('GET', `/admin/v1/reconciliation/batches?mid_id=${midId}`)).body;
      assert.deepEqual(batches.map((x: { live: boolean }) => x.live), [true, false]);
      const [n] = await gw.store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM ledger_entries WHERE ref = $1", [`recon:${(await gw.store.db.query<{ k: string }>("SELECT record_key AS k FROM recon_rows WHERE payment_id = $1 AND outcome = 'matched' AND live", [pays[0]!.id]))[0]!.k}`]);
      assert.equal(n!.n, 4, 'P1 posted once though two files carried it');
      assert.equal((await admin('GET', '/admin/v1/money/ledger-check')).body.balanced, true);
    });

    it('a file with problems imports nothing and names each line; an unknown layout is named', async () => {
      const bad = adyenReport([
        ...lines.slice(0, 2),
        { ...lines[2]!, gross: '3O.00' },
        { ...lines[0]! },
        { ...lines[3]!, at: '04/06/2030' },
        { ...lines[3]!, currency: 'EUR', psp: '9915893240008888' },
      ], { batch: '43', payout: false });
      const res = await upload(bad);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      const problems = fieldErrors(res.body);
      assert.ok(problems.some((p) => /^line 4: Gross Credit \(GC\) "3O.00" is not an amount in USD/.test(p)), problems.join('\n'));
      assert.ok(problems.some((p) => /^line 6: Creation Date/.test(p)), problems.join('\n'));
      assert.ok(problems.some((p) => /^line 7: currency EUR: the MID does not carry it/.test(p)), problems.join('\n'));
      const dup = await upload(adyenReport([...lines.slice(0, 1), lines[0]!], { batch: '44', payout: false }));
      assert.deepEqual(fieldErrors(dup.body), ['line 3: duplicates line 2.']);
      const unknown = await upload('Date;Amount;Ref\n2030-06-04;10,00;x\n');
      assert.equal(unknown.status, 400);
      assert.match(fieldErrors(unknown.body)[0]!, /^line 1: .*unknown layout/);
      const batches = (await admin('GET', `/admin/v1/reconciliation/batches?mid_id=${midId}`)).body;
      assert.equal(batches.length, 2, 'nothing imported');
    });

    it('the bank credit is checked against the announced payout', async () => {
      const res = await admin('POST', `/admin/v1/reconciliation/batches/${liveImport}/bank-credit`, { currency: 'USD', amount: '63.00' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.flagged, true);
      assert.deepEqual(res.body.flags, ['USD: the bank credited 63.00, the announced payout is 61.03 (difference 1.97).']);
    });

    it('exception actions: accept with a note (posts), link, write off; each audited; a resolved row is not open again', async () => {
      const open = (await admin('GET', `/admin/v1/reconciliation/rows?mid_id=${midId}&open=true`)).body.rows as any[];
      assert.deepEqual(open.map((r) => r.outcome).sort(), ['mismatched', 'missing', 'unexpected']);
      const fee = open.find((r) => r.outcome === 'mismatched');
      const noNote = await admin('POST', `/admin/v1/reconciliation/rows/${fee.id}/actions`, { action: 'accept', note: '' });
      assert.equal(noNote.status, 400);
      const accepted = await admin('POST', `/admin/v1/reconciliation/rows/${fee.id}/actions`, { action: 'accept', note: 'Adyen confirmed the surcharge' });
      assert.equal(accepted.status, 200, accepted.text);
      assert.equal(accepted.body.resolution, 'accepted');
      const entries = (await admin('GET', `/admin/v1/payments/${pays[2]!.id}/ledger`)).body.entries.map((e: { event: string; amount: string; account: string }) => `${e.event} ${e.account} ${e.amount}`);
      assert.ok(entries.includes('acquirer_fee platform:acquirer_fees 1.50'), entries.join('\n'));
      const twice = await admin('POST', `/admin/v1/reconciliation/rows/${fee.id}/actions`, { action: 'write_off', note: 'again' });
      assert.equal(twice.status, 409, twice.text);
      assert.match(twice.body.error_message, /resolved meanwhile/);
      const unexpected = open.find((r) => r.outcome === 'unexpected');
      const wrongMid = await admin('POST', `/admin/v1/reconciliation/rows/${unexpected.id}/actions`, { action: 'link', note: 'x', payment_id: crypto.randomUUID() });
      assert.equal(wrongMid.status, 400);
      const linked = await admin('POST', `/admin/v1/reconciliation/rows/${unexpected.id}/actions`, { action: 'link', note: 'The retry of order 7', payment_id: pays[3]!.id });
      assert.equal(linked.body.resolution, 'linked', linked.text);
      const missing = open.find((r) => r.outcome === 'missing');
      const off = await admin('POST', `/admin/v1/reconciliation/rows/${missing.id}/actions`, { action: 'write_off', note: 'Settled outside the batch' });
      assert.equal(off.body.resolution, 'written_off');
      const audit = (await admin('GET', '/admin/v1/audit-log')).body.entries.map((e: { action: string }) => e.action);
      for (const a of ['reconciliation.accept', 'reconciliation.link', 'reconciliation.write_off', 'reconciliation.import', 'reconciliation.profile', 'reconciliation.bank_credit']) assert.ok(audit.includes(a), a);
      assert.deepEqual((await admin('GET', `/admin/v1/reconciliation/rows?mid_id=${midId}&open=true`)).body.rows, []);
      assert.equal((await admin('GET', '/admin/v1/money/ledger-check')).body.balanced, true);
    });

    it('exports exceptions as CSV, sums the open ones per acquirer and day, and shows them on /metrics', async () => {
      const csv = await fetch(`${gw.baseUrl}/admin/v1/reconciliation/exceptions.csv?mid_id=${midId}&open=false`, { headers: { authorization: `Bearer recon-${kind}` } });
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get('content-type') ?? '', /text\/csv/);
      const text = await csv.text();
      const csvLines = text.trim().split('\r\n');
      assert.equal(csvLines[0], 'id,batch_id,mid_id,line,outcome,type,acquirer_ref,merchant_ref,currency,amount,fee,expected_fee,booked_at,payment_id,differences,resolution,resolution_note');
      assert.equal(csvLines.length, 1 + 3, text);
      assert.ok(csvLines.some((l) => l.includes('fee: ours 1.17, theirs 1.50') && l.includes('accepted')), text);
      // A new exception: a report of the next batch with one unknown row.
      const next = await upload(adyenReport([{ psp: '9915893240007777', ref: 'nobody', type: 'Refunded', gross: '7.00', fee: '0.00', at: '2030-06-05 09:00:00' }], { batch: '45', payout: false }));
      assert.equal(next.status, 200, JSON.stringify(next.body));
      const summary = await admin('GET', '/admin/v1/reconciliation/summary');
      assert.deepEqual(summary.body.filter((s: { mid_id: string }) => s.mid_id === midId), [{ mid_id: midId, day: '2030-06-05', currency: 'USD', outcome: 'unexpected', rows: 1, amount: '7.00' }]);
      const metrics = await (await fetch(`${gw.baseUrl}/metrics`)).text();
      assert.match(metrics, new RegExp(`portcullis_reconciliation_unreconciled_rows\\{mid="${midId}",currency="USD",mode="test"\\} 1`));
      assert.match(metrics, new RegExp(`portcullis_reconciliation_unreconciled_amount_minor\\{mid="${midId}",currency="USD",mode="test"\\} 700`));
    });

    it('a chargeback in the report that we never recorded: the operator opens the dispute from the row', async () => {
      const res = await upload(adyenReport([{ psp: pays[0]!.psp, ref: pays[0]!.id, type: 'Chargeback', gross: '10.00', fee: '0.00', at: '2030-06-06 09:00:00' }], { batch: '46', payout: false }));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.batch.counts, { unexpected: 1 });
      assert.deepEqual(res.body.batch.flags, ['USD: the report announces no payout (net -10.00).']);
      const [row] = (await admin('GET', `/admin/v1/reconciliation/rows?batch_id=${res.body.batch.id}`)).body.rows;
      const noPayment = await admin('POST', `/admin/v1/reconciliation/rows/${row.id}/actions`, { action: 'dispute', note: 'Chargeback notice never reached us' });
      assert.equal(noPayment.status, 400, 'the row names no payment of ours: say which');
      const disputed = await admin('POST', `/admin/v1/reconciliation/rows/${row.id}/actions`, { action: 'dispute', note: 'Chargeback notice never reached us', payment_id: pays[0]!.id });
      assert.equal(disputed.status, 200, disputed.text);
      assert.equal(disputed.body.resolution, 'disputed');
      assert.equal(disputed.body.payment_id, pays[0]!.id);
      const disputes = await admin('GET', `/admin/v1/disputes?merchant_id=${gw.merchant.id}`);
      assert.equal(disputes.status, 200, disputes.text);
      assert.ok(JSON.stringify(disputes.body).includes(pays[0]!.id), disputes.text);
      assert.equal((await admin('GET', '/admin/v1/money/ledger-check')).body.balanced, true);
    });

    it('two operators acting on one exception at once: one wins, the other gets a D3 409; one dispute, one posting', async () => {
      // Two unexpected chargebacks (P2 and P3) and a fee row for P2 the report overcharges (a mismatch to accept).
      const res = await upload(adyenReport([
        { psp: pays[1]!.psp, ref: pays[1]!.id, type: 'Chargeback', gross: '20.00', fee: '0.00', at: '2030-06-07 09:00:00' },
        { psp: pays[2]!.psp, ref: pays[2]!.id, type: 'Chargeback', gross: '30.00', fee: '0.00', at: '2030-06-07 09:01:00' },
      ], { batch: '47', payout: false }));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const rows = (await admin('GET', `/admin/v1/reconciliation/rows?batch_id=${res.body.batch.id}`)).body.rows as { id: string; outcome: string; merchant_ref: string }[];
      assert.equal(rows.length, 2, JSON.stringify(rows));
      const act = (rowId: string, body: Record<string, unknown>) => admin('POST', `/admin/v1/reconciliation/rows/${rowId}/actions`, body);
      const disputesOf = async (paymentId: string) => (await gw.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM disputes WHERE payment_id = $1', [paymentId]))[0]!.n;

      // Two disputes at once on one row: one dispute opened, one 409.
      const [first, second] = rows;
      const both = await Promise.all([
        act(first!.id, { action: 'dispute', note: 'operator A', payment_id: pays[1]!.id }),
        act(first!.id, { action: 'dispute', note: 'operator B', payment_id: pays[1]!.id }),
      ]);
      assert.deepEqual(both.map((r) => r.status).sort(), [200, 409], both.map((r) => r.text).join('\n'));
      const loser = both.find((r) => r.status === 409)!;
      assert.deepEqual([loser.body.http_code, loser.body.error_code, loser.body.error_message], [409, '100000', 'The exception was resolved meanwhile (another operator acted on it): read it again.']);
      assert.equal(await disputesOf(pays[1]!.id), 1, 'one dispute, not two');

      // A dispute and a write-off at once on the other row: whichever wins, the row and the disputes agree.
      const ledgerBefore = (await gw.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger_entries'))[0]!.n;
      const raced = await Promise.all([
        act(second!.id, { action: 'dispute', note: 'operator A', payment_id: pays[2]!.id }),
        act(second!.id, { action: 'write_off', note: 'operator B' }),
      ]);
      assert.deepEqual(raced.map((r) => r.status).sort(), [200, 409], raced.map((r) => r.text).join('\n'));
      const winner = raced.find((r) => r.status === 200)!;
      assert.equal(await disputesOf(pays[2]!.id), winner.body.resolution === 'disputed' ? 1 : 0, `resolution ${winner.body.resolution}`);
      if (winner.body.resolution === 'written_off') {
        assert.equal((await gw.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger_entries'))[0]!.n, ledgerBefore, 'a write-off posts nothing, the lost dispute nothing');
      }
      const audits = (await admin('GET', `/admin/v1/audit-log?object_id=${second!.id}`)).body.entries as { action: string }[];
      assert.equal(audits.filter((e) => e.action.startsWith('reconciliation.')).length, 1, 'one action recorded');
      assert.equal((await admin('GET', '/admin/v1/money/ledger-check')).body.balanced, true);
    });

    it('viewers read, only operators and admins import and act', async () => {
      const viewer = await operatorWithRole(gw, 'viewer');
      assert.equal((await viewer.call('GET', '/admin/v1/reconciliation/batches')).status, 200);
      const res = await fetch(`${gw.baseUrl}/admin/v1/reconciliation/imports?mid_id=${midId}`, { method: 'POST', headers: { authorization: `Bearer ${viewer.token}`, 'content-type': 'text/csv' }, body: 'x' });
      assert.deepEqual([res.status, await res.json()], [403, D3_FORBIDDEN]);
      assert.equal((await admin('GET', `/admin/v1/reconciliation/rows/${'9'.repeat(12)}`)).status, 404);
      assert.equal((await admin('POST', `/admin/v1/reconciliation/imports?mid_id=${crypto.randomUUID()}`, 'a,b', { 'content-type': 'text/csv' })).status, 404);
    });
  });
}
