/**
 * The portal's Reports screen in a real browser (issue 30), on one store (browserStores): a finance user exports the fees now,
 * schedules a daily payments report e-mailed as a link and a weekly fees report kept for download; after the day
 * ends the report worker makes the payments report, and the e-mailed link opens the screen with it marked; the user
 * downloads it (the export of that day), as CSV and as XLSX, and deletes a schedule. At 1440 px and 390 px: axe finds no serious or
 * critical problem (screenshots into docs/merchants/portal-screenshots/). No page may break its CSP.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { adminClient } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { ensureConsoleBuilt } from '../console/support.ts';
import { PortalReports } from '../console/pages/portal-reports.ts';
import { sheetRows } from '../support/unzip.ts';
import { PORTAL_PASSWORD, invitedUser, portalClient, portalSignIn, request } from './support.ts';
import { saveScreenshot } from '../support/screenshots.ts';

const ADMIN_TOKEN = 'portal-reports-browser-token';
const SHOTS = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../docs/merchants/portal-screenshots');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WIDTHS = [{ name: 'desktop', width: 1440, height: 900 }, { name: 'phone', width: 390, height: 844 }] as const;

async function assertAccessible(page: Page, screen: string): Promise<void> {
  await page.evaluate(`${AXE};0`);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  const bad = violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
  assert.deepEqual(bad, [], `${screen}: ${JSON.stringify(bad)}`);
}

for (const [index, { kind, skip }] of (await browserStores()).entries()) {
  describe(`portal Reports screen in the browser (${kind})`, { skip: skip || browserUnavailable(), timeout: 300_000 }, () => {
    const clock = new ManualClock('2030-04-01T10:00:00Z');
    const cspViolations: string[] = [];
    let t: TestGateway;
    let browser: Browser;
    let context: BrowserContext | undefined;
    let page: Page;
    let email = '';

    /** A fresh browser session signed in (the clock moves past the session's idle limit between steps). */
    async function signIn(width: (typeof WIDTHS)[number] = WIDTHS[0]): Promise<PortalReports> {
      await context?.close();
      context = await browser.newContext({ viewport: width, timezoneId: 'UTC', locale: 'en-GB', acceptDownloads: true });
      page = await context.newPage();
      page.setDefaultTimeout(20_000);
      page.on('console', (m) => { if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text()); });
      await page.goto(`${t.baseUrl}/portal/`);
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password').fill(PORTAL_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      return new PortalReports(page, t.baseUrl);
    }

    before(async () => {
      ensureConsoleBuilt();
      mkdirSync(SHOTS, { recursive: true });
      t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN, clock });
      const admin = adminClient(t.baseUrl, ADMIN_TOKEN);
      assert.equal((await admin('POST', '/admin/v1/money/fee-schedules', { merchant_id: t.merchant.id, effective_from: clock.now().toISOString(), rows: [{ operation: 'sale', percent: '1' }] })).status, 201);
      for (const [i, amount] of ['10.00', '25.00'].entries()) {
        clock.set(new Date(Date.parse('2030-04-01T10:00:00Z') + i * 60_000));
        assert.equal((await sale(t, { order_amount: amount, order_currency: 'EUR', order_id: `REPORT-${i}` })).body.status, 'SETTLED');
      }
      email = (await invitedUser(t, ADMIN_TOKEN, { role: 'finance', email: `reports-${kind}@shop.example` })).email;
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it('exports the fees now and schedules two reports from the screen', async () => {
      const reports = await signIn();
      await page.getByRole('link', { name: 'Reports' }).click();
      await page.getByRole('heading', { name: 'Reports', exact: true }).waitFor();
      const now = page.getByRole('form', { name: 'Export now' });
      await now.getByLabel('What').selectOption({ label: 'Fees' });
      await now.getByLabel('Created from').fill('2030-04-01');
      const fees = await reports.download(/^Download CSV$/);
      const feeText = readFileSync((await fees.path())!, 'utf8');
      assert.match(feeText, /^"created_at","merchant_id","payment_id"/);
      assert.equal(feeText.trim().split('\r\n').length, 3, 'the two sales\' fees');
      await page.getByText('No report yet').waitFor();

      await reports.schedule({ report: 'Payments', every: 'Daily (each UTC day)', delivery: 'E-mail me a link' });
      await reports.schedule({ report: 'Fees', every: 'Weekly (Monday to Sunday)', delivery: 'Keep it here for download', keepDays: '7' });
      await reports.scheduled.filter({ hasText: 'Fees' }).filter({ hasText: 'download, kept 7 days' }).waitFor();
      await reports.scheduled.filter({ hasText: 'Payments' }).filter({ hasText: 'e-mailed link' }).waitFor();
      assert.deepEqual(cspViolations, []);
    });

    it('the e-mailed link opens the report made after the day ended; it downloads as the day\'s export; a schedule is deleted', async () => {
      clock.set(new Date('2030-04-02T00:20:00Z'));
      const { produced } = await t.gateway.reports.runOnce();
      assert.equal(produced.length, 1);
      const mail = (await request(t.baseUrl, 'GET', `/sandbox/outbox/messages?to=${encodeURIComponent(email)}`)).body.messages.find((m: { subject: string }) => m.subject.includes('report'));
      assert.equal(mail.subject, 'Your daily payments report, 2030-04-01');
      const link = new URL(mail.link as string);
      const reports = await signIn();
      await reports.open(link.search);
      const row = reports.ready.filter({ hasText: '(from your e-mail)' });
      await row.waitFor();
      assert.equal(await row.getAttribute('aria-current'), 'true');
      assert.match((await row.textContent())!, /2030-04-01/);
      const file = await reports.download('Download CSV (Payments, daily, 2030-04-01)');
      const text = readFileSync((await file.path())!, 'utf8');
      const api = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, email));
      assert.equal(text, (await api('GET', '/portal/v1/payments/export?created_from=2030-04-01&created_to=2030-04-02')).text);
      assert.equal(text.trim().split('\r\n').length, 3);
      // The same report as a workbook: the header and the day's two payments, their amounts as numbers.
      const book = sheetRows(readFileSync((await (await reports.download('Download XLSX (Payments, daily, 2030-04-01)')).path())!));
      assert.equal(book.length, 3);
      assert.deepEqual(book.slice(1).map((r) => r[book[0]!.indexOf('amount')]).sort(), [10, 25]);

      for (const width of WIDTHS) {
        await page.setViewportSize(width);
        await reports.open(link.search);
        await reports.ready.filter({ hasText: '(from your e-mail)' }).waitFor();
        await assertAccessible(page, `reports at ${width.name}`);
        if (index === 0) await saveScreenshot(page, path.join(SHOTS, `reports-${width.name}.png`), { fullPage: true });
      }
      await page.setViewportSize(WIDTHS[0]);

      await page.getByRole('button', { name: 'Delete: Fees, weekly' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: 'Delete: Fees, weekly' }).waitFor({ state: 'detached' });
      await reports.scheduled.filter({ hasText: 'Payments' }).waitFor();
      assert.equal((await api('GET', '/portal/v1/report-subscriptions')).body.subscriptions.length, 1);
      assert.deepEqual(cspViolations, []);
    });
  });
}
