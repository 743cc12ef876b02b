/**
 * The console's reconciliation screens in a real browser (issue 28), on one store (browserStores), one gateway and one browser
 * for the file: three USD sales through the gateway, then an operator uploads an Adyen Settlement details report
 * (published layout, those payments' references) with deliberate differences: a wrong amount, a missing payment,
 * an unknown row. A file with bad lines imports nothing and the console lists each line. The exception queue shows
 * the three exceptions, filters them, shows one row beside our payment, and resolves them (accept with a note,
 * link the unknown row to a payment, write off), each audited; the exceptions export as CSV; the home page shows
 * the open exceptions per acquirer and day. axe-core checks every screen (no critical or serious violation).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { adyenReport, type AdyenLine } from '../reconciliation/support.ts';
import { assertNoSeriousAxeViolations as assertAccessible, ensureConsoleBuilt, signInConsole, signedInConsole } from './support.ts';

const TOKEN = 'recon-browser-admin-token';
const PASSWORD = 'recon console password 2026';

for (const { kind, skip } of await browserStores()) {
  describe(`console reconciliation screens in the browser (${kind})`, { skip: skip || browserUnavailable(), timeout: 300_000 }, () => {
    let t: TestGateway;
    let browser: Browser;
    let admin: AdminCall;
    const midId = crypto.randomUUID();
    const clock = new ManualClock('2030-06-01T09:00:00Z');
    const email = `recon-operator-${kind}@example.com`;
    const csp: string[] = [];
    const pays: { id: string; psp: string }[] = [];
    let lines: AdyenLine[] = [];

    before(async () => {
      ensureConsoleBuilt();
      t = await startTestGateway(kind, { clock, adminToken: TOKEN, mids: [{ id: midId, paymentMode: 'SMS/DMS' }] });
      admin = adminClient(t.baseUrl, TOKEN);
      await t.store.db.query("UPDATE mids SET currencies = ARRAY['USD'] WHERE id = $1", [midId]);
      t.gateway.ctx.merchants.invalidate();
      assert.equal((await admin('POST', '/admin/v1/users', { email, role: 'operator', password: PASSWORD, name: 'Recon operator' })).status, 201);
      for (const amount of ['10.00', '20.00', '30.00']) {
        const res = await sale(t, { order_amount: amount, order_currency: 'USD' });
        assert.equal(res.body.status, 'SETTLED', res.text);
        const [p] = await t.store.db.query<{ psp: string }>("SELECT details->>'connectorRef' AS psp FROM payments WHERE id = $1", [res.body.trans_id]);
        pays.push({ id: res.body.trans_id, psp: p!.psp });
      }
      clock.set('2030-06-05T12:00:00Z');
      const profile = await admin('PUT', `/admin/v1/reconciliation/mids/${midId}/profile`, { settlement_days: 3, window_days: 2, reconcile_from: '2030-05-01T00:00:00Z' });
      assert.equal(profile.status, 200, profile.text);
      // P1 as recorded, P2 at 22.00 (recorded 20.00), P3 absent (missing), an unknown payment of 5.00.
      lines = [
        { psp: pays[0]!.psp, ref: pays[0]!.id, type: 'Settled', gross: '10.00', at: '2030-06-04 10:00:00' },
        { psp: pays[1]!.psp, ref: pays[1]!.id, type: 'Settled', gross: '22.00', at: '2030-06-04 10:01:00' },
        { psp: '9915893240009999', ref: 'someone-else', type: 'Settled', gross: '5.00', at: '2030-06-04 10:03:00' },
      ];
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    async function uploadInConsole(page: Page, name: string, csv: string): Promise<void> {
      await page.goto(`${t.baseUrl}/admin/reconciliation/imports`);
      const form = page.getByRole('form', { name: 'Upload a settlement report' });
      await form.getByLabel('Acquirer MID').selectOption(midId);
      await form.getByLabel('Report file (CSV)').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await form.getByRole('button', { name: 'Import' }).click();
    }

    it('uploads a report: a bad file names each line and imports nothing; the good one lists its batch', async () => {
      const { context, page } = await signInConsole(browser, t.baseUrl, email, PASSWORD, csp);
      await uploadInConsole(page, 'bad.csv', adyenReport([lines[0]!, { ...lines[1]!, gross: '2O.00' }, { ...lines[2]!, at: '04/06/2030' }], { batch: '41', payout: false }));
      const alert = page.getByRole('form', { name: 'Upload a settlement report' }).getByRole('alert');
      await alert.waitFor();
      const text = await alert.innerText();
      assert.match(text, /Nothing was imported/);
      assert.match(text, /line 3: Gross Credit \(GC\) "2O\.00" is not an amount in USD/);
      assert.match(text, /line 4: Creation Date/);
      assert.equal((await admin('GET', '/admin/v1/reconciliation/batches')).body.length, 0, 'nothing imported');
      await assertAccessible(page, 'import problems');

      await uploadInConsole(page, 'settlement_detail_report_batch_42.csv', adyenReport(lines, { batch: '42', payout: true }));
      await page.getByRole('status').filter({ hasText: 'Imported batch 42' }).waitFor();
      const batch = page.getByRole('region', { name: 'Imported batches' }).getByRole('row').filter({ hasText: 'settlement_detail_report_batch_42.csv' });
      await batch.waitFor();
      assert.match(await batch.innerText(), /1 matched/);
      assert.match(await batch.innerText(), /1 mismatched/);
      await assertAccessible(page, 'imports');
      await context.close();
    });

    it('the exception queue: filters, one row beside our payment, accept with a note, link, write off, CSV', async () => {
      const { context, page } = await signedInConsole(browser, t.baseUrl, email, PASSWORD, csp);
      await page.goto(`${t.baseUrl}/admin/`);
      await page.getByRole('link', { name: 'Reconciliation' }).click();
      const queue = page.getByRole('region', { name: 'Exceptions', exact: true });
      await queue.getByRole('row').nth(3).waitFor(); // a header and three open exceptions
      assert.equal(await queue.locator('tbody tr').count(), 3);
      await assertAccessible(page, 'exception queue');

      const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
      const exported = readFileSync((await csv.path())!, 'utf8').trim().split(/\r?\n/);
      assert.equal(exported.length, 4, 'a header and the three open exceptions');
      assert.ok(exported.some((l) => l.includes('9915893240009999') && l.includes('unexpected')));

      await page.getByLabel('Outcome').selectOption('mismatched');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/outcome=mismatched/);
      await queue.locator('tbody tr').nth(1).waitFor({ state: 'detached' });
      assert.equal(await queue.locator('tbody tr').count(), 1);
      assert.match(await queue.locator('tbody tr').innerText(), /amount: ours 20\.00, theirs 22\.00/);
      await queue.getByRole('link', { name: pays[1]!.psp }).click();

      // The row beside our payment, then accepted with a note.
      const report = page.getByRole('region', { name: 'The report says' });
      const ours = page.getByRole('region', { name: 'Our payment' });
      await report.getByText('$22.00').first().waitFor();
      await ours.getByText('$20.00').first().waitFor();
      await page.getByText('Differs in amount: ours 20.00, theirs 22.00.').waitFor();
      await assertAccessible(page, 'exception detail');
      const resolve = page.getByRole('form', { name: 'Resolve' });
      await resolve.getByRole('button', { name: 'Resolve' }).click();
      await resolve.getByRole('alert').waitFor(); // the note is required
      await resolve.getByLabel('Note (kept in the audit log)').fill('Adyen confirmed the surcharge (case 4711)');
      await resolve.getByRole('button', { name: 'Resolve' }).click();
      await page.getByText(/Resolved \(accepted\)/).waitFor();

      // The unknown row is our third payment after all; the missing record is written off.
      const rows = (await admin('GET', `/admin/v1/reconciliation/rows?mid_id=${midId}&open=true`)).body.rows as { id: string; outcome: string }[];
      const unexpected = rows.find((r) => r.outcome === 'unexpected')!;
      const missing = rows.find((r) => r.outcome === 'missing')!;
      await page.goto(`${t.baseUrl}/admin/reconciliation/rows/${unexpected.id}`);
      await page.getByText('No payment of ours matches this row.').waitFor();
      await resolve.getByLabel('Link to one of our payments').check();
      await resolve.getByLabel('Payment id').fill(pays[2]!.id);
      await resolve.getByLabel('Note (kept in the audit log)').fill('Booked under a retry');
      await resolve.getByRole('button', { name: 'Resolve' }).click();
      await page.getByText(/Resolved \(linked\)/).waitFor();
      await page.goto(`${t.baseUrl}/admin/reconciliation/rows/${missing.id}`);
      await resolve.getByLabel('Write off (nothing is posted)').check();
      await resolve.getByLabel('Note (kept in the audit log)').fill('Never settled: refunded by phone');
      await resolve.getByRole('button', { name: 'Resolve' }).click();
      await page.getByText(/Resolved \(written_off\)/).waitFor();

      const open = (await admin('GET', `/admin/v1/reconciliation/rows?mid_id=${midId}&open=true`)).body.rows;
      assert.deepEqual(open, [], 'every exception resolved');
      const audit = (await admin('GET', '/admin/v1/audit-log')).body.entries as { action: string; user: { name: string } }[];
      for (const action of ['reconciliation.accept', 'reconciliation.link', 'reconciliation.write_off']) {
        assert.ok(audit.some((a) => a.action === action && a.user.name === email), `${action} audited: ${JSON.stringify(audit.map((a) => a.action))}`);
      }
      await page.getByRole('navigation', { name: 'Reconciliation sections' }).getByRole('link', { name: 'Exceptions' }).click();
      await page.getByText('No row matches: nothing to reconcile here.').waitFor();
      assert.deepEqual(csp, [], 'no Content-Security-Policy violation');
      await context.close();
    });

    it('the home page shows the open exceptions per acquirer and day', async () => {
      const report = adyenReport([{ psp: '9915893240007777', ref: 'unknown-2', type: 'Settled', gross: '7.00', at: '2030-06-04 11:00:00' }], { batch: '43', payout: true });
      const imported = await fetch(`${t.baseUrl}/admin/v1/reconciliation/imports?mid_id=${midId}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/csv' }, body: report });
      assert.equal(imported.status, 200, await imported.text());
      const summary = (await admin('GET', '/admin/v1/reconciliation/summary')).body as { day: string; outcome: string; rows: number; amount: string }[];
      assert.ok(summary.length > 0, 'something is open');
      const { context, page } = await signedInConsole(browser, t.baseUrl, email, PASSWORD, csp);
      await page.goto(`${t.baseUrl}/admin/`);
      const table = page.getByRole('region', { name: 'Open exceptions per acquirer and day' });
      for (const s of summary) {
        const row = table.getByRole('row').filter({ hasText: s.day }).filter({ hasText: s.outcome });
        await row.waitFor();
        assert.match(await row.innerText(), new RegExp(s.amount.replace('.', '\\.')));
      }
      await assertAccessible(page, 'home');
      await table.getByRole('row').filter({ hasText: 'unexpected' }).getByRole('link').click();
      await page.waitForURL(/reconciliation\?mid_id=.*outcome=unexpected/);
      await page.getByRole('region', { name: 'Exceptions', exact: true }).getByRole('link', { name: '9915893240007777' }).waitFor();
      await context.close();
    });
  });
}
