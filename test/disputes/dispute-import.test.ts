/**
 * An acquirer's daily dispute file (issue 29) imported with a mapping profile: a file with problems imports
 * nothing and names each line (D3 errors); a good file opens and moves disputes as the acquirer's notices would,
 * keeps a row for no payment of the MID as unmatched (with the MID and its mode, listed by MID and by mode), and
 * imports once however often it is sent.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { sale } from '../s2s-card/support.ts';
import { adminClient, fieldErrors, type AdminCall } from '../admin/support.ts';

const PROFILE = {
  columns: { payment_reference: 'Merchant Ref', dispute_reference: 'Case ID', event: 'Stage', amount: 'Amount', currency: 'Currency', reason_code: 'Reason', due_date: 'Respond By', bank_date: 'Raised' },
  events: { RFI: 'request_for_information', CB1: 'chargeback', WON: 'won' },
  decimal: 'comma', date_format: 'DD.MM.YYYY', time_zone: 'UTC', separator: ';',
};
const HEADER = 'Merchant Ref;Case ID;Stage;Amount;Currency;Reason;Respond By;Raised';

for (const { kind, skip } of await storeKinds()) {
  describe(`disputes: CSV import of a daily dispute file (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let admin: AdminCall;
    let midId: string;
    let a: string, b: string;
    before(async () => {
      gw = await startTestGateway(kind, { adminToken: `import-${kind}` });
      admin = adminClient(gw.baseUrl, `import-${kind}`);
      a = (await sale(gw, { order_amount: '40.00' })).body.trans_id;
      b = (await sale(gw, { order_amount: '10.00' })).body.trans_id;
      const [row] = await gw.store.db.query<{ mid_id: string; currency: string }>('SELECT mid_id, currency FROM payments WHERE id = $1', [a]);
      midId = row!.mid_id;
      assert.equal(row!.currency, 'USD');
    });
    after(() => gw?.close());

    const importFile = (content: string) => admin('POST', '/admin/v1/disputes/imports', { mid_id: midId, file_name: 'disputes.csv', profile: PROFILE, content });
    const disputesOf = async (paymentId: string) => (await admin('GET', '/admin/v1/disputes?limit=500')).body.filter((d: { payment_id: string }) => d.payment_id === paymentId);

    it('a file with problems imports nothing and names each line', async () => {
      const res = await importFile([
        HEADER,
        `${a};CASE-A;CB1;25,00;USD;10.4;20.03.2030;27.02.2030`,
        `${b};CASE-B;CB9;5,00;USD;13.1;20.03.2030;27.02.2030`,
        `${b};CASE-B;RFI;5.00;USD;13.1;2030-03-20;27.02.2030`,
        `${a};CASE-A;CB1;25,00;USD;10.4;20.03.2030;27.02.2030`,
      ].join('\n'));
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(fieldErrors(res.body), [
        'line 3: Stage "CB9" is not an event the profile maps.',
        'line 4: Amount "5.00" is not a positive amount (comma) in USD.',
        'line 4: Respond By "2030-03-20" is not a date (DD.MM.YYYY).',
        'line 5: duplicates line 2.',
      ]);
      assert.deepEqual(await disputesOf(a), [], 'nothing of the file is imported');
      const header = await importFile('Merchant Ref;Stage\nx;CB1\n');
      assert.equal(header.status, 400);
      assert.match(fieldErrors(header.body)[0]!, /^line 1: the header lacks the profile's columns: Case ID, Amount, Currency, Reason, Respond By, Raised\.$/);
      const profile = await admin('POST', '/admin/v1/disputes/imports', { mid_id: midId, profile: { ...PROFILE, events: { X: 'explode' } }, content: HEADER });
      assert.equal(profile.status, 400);
      assert.ok(fieldErrors(profile.body).some((m) => m.startsWith('profile.events.X: should be one of')), profile.text);
    });

    it('opens and moves disputes, keeps unknown payments as unmatched, imports each row once', async () => {
      const day1 = [
        HEADER,
        `${a};CASE-A;CB1;25,00;USD;10.4;20.03.2030;27.02.2030`,
        `${b};CASE-B;RFI;10,00;USD;13.1;25.03.2030;`,
        `${crypto.randomUUID()};CASE-X;CB1;9,00;USD;10.4;;`,
      ].join('\r\n');
      const first = await importFile(day1);
      assert.equal(first.status, 200, first.text);
      assert.deepEqual({ rows: first.body.rows, applied: first.body.applied, unchanged: first.body.unchanged, unmatched: first.body.unmatched }, { rows: 3, applied: 2, unchanged: 0, unmatched: 1 });
      const [da] = await disputesOf(a);
      assert.deepEqual({ source: da.source, stage: da.stage, status: da.status, amount: da.amount, external_ref: da.external_ref, due_at: da.due_at, bank_date: da.bank_date, category: da.category },
        { source: 'csv_import', stage: 'first_chargeback', status: 'evidence_required', amount: '25.00', external_ref: 'CASE-A', due_at: '2030-03-20T00:00:00.000Z', bank_date: '2030-02-27', category: 'fraud' });
      assert.equal((await admin('GET', `/admin/v1/payments/${a}`)).body.payment.status, 'chargeback');
      assert.equal((await disputesOf(b))[0].stage, 'inquiry');
      assert.ok((await admin('GET', '/admin/v1/disputes/unmatched')).body.some((n: { source: string; event: string }) => n.source === 'csv_import' && n.event === 'CB1'));

      const again = await importFile(day1);
      assert.deepEqual({ applied: again.body.applied, unchanged: again.body.unchanged }, { applied: 0, unchanged: 2 }, 'the same file twice imports once');
      assert.equal((await admin('GET', `/admin/v1/disputes/${da.id}`)).body.history.length, 1);

      const day2 = await importFile(`${HEADER}\n${a};CASE-A;WON;25,00;USD;10.4;;\n`);
      assert.equal(day2.body.applied, 1, day2.text);
      assert.equal((await admin('GET', `/admin/v1/disputes/${da.id}`)).body.status, 'won');
      assert.equal((await admin('GET', `/admin/v1/payments/${a}`)).body.payment.status, 'settled');
    });

    it('an unmatched row records the MID it was imported for, with its name and mode; the list filters by MID and mode', async () => {
      const liveMid = crypto.randomUUID();
      await gw.addMerchant({ sandbox: false, mids: [{ id: liveMid, paymentMode: 'SMS' }] });
      const stray = crypto.randomUUID();
      const res = await admin('POST', '/admin/v1/disputes/imports', { mid_id: liveMid, profile: PROFILE, content: `${HEADER}\n${stray};CASE-L;CB1;9,00;USD;10.4;;\n` });
      assert.equal(res.body.unmatched, 1, res.text);
      type Listed = { payment_ref: string; source: string; mid_id: string | null; mid_name: string | null; mode: string | null };
      const list = async (query: string): Promise<Listed[]> => {
        const r = await admin('GET', `/admin/v1/disputes/unmatched${query}`);
        assert.equal(r.status, 200, r.text);
        return r.body;
      };
      const fields = (n: Listed | undefined) => n && { mid_id: n.mid_id, mid_name: n.mid_name, mode: n.mode };
      const all = await list('');
      assert.deepEqual(fields(all.find((n) => n.payment_ref === stray)), { mid_id: liveMid, mid_name: 'MID SMS', mode: 'live' });
      const sandboxRow = all.find((n) => n.source === 'csv_import' && n.payment_ref !== stray);
      assert.deepEqual(fields(sandboxRow), { mid_id: midId, mid_name: 'MID SMS/DMS', mode: 'test' }, 'the test gateway\'s merchant is a sandbox one');

      const live = await list('?mode=live');
      assert.ok(live.length > 0 && live.every((n) => n.mode === 'live' && n.mid_id === liveMid), JSON.stringify(live));
      const test = await list('?mode=test');
      assert.ok(test.some((n) => n.payment_ref === sandboxRow!.payment_ref) && test.every((n) => n.mode === 'test'), JSON.stringify(test));
      const byMid = await list(`?mid_id=${midId}`);
      assert.ok(byMid.length > 0 && byMid.every((n) => n.mid_id === midId));
      assert.deepEqual(await list(`?mid_id=${midId}&mode=live`), [], 'a test MID has no live notices');
      assert.deepEqual((await list('?limit=1')).map((n) => n.payment_ref), [stray], 'newest first, one');

      for (const [query, field] of [['mid_id=nope', 'mid_id'], [`mid_id=${crypto.randomUUID()}`, 'mid_id'], ['mode=demo', 'mode'], ['limit=0', 'limit'], ['limit=501', 'limit']] as const) {
        const bad = await admin('GET', `/admin/v1/disputes/unmatched?${query}`);
        assert.equal(bad.status, 400, `${query}: ${bad.text}`);
        assert.ok(fieldErrors(bad.body).some((m) => m.startsWith(field)), `${query}: ${bad.text}`);
      }
    });
  });
}
