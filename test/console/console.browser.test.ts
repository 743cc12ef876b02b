/**
 * The operator console in a real browser (issue 14), on both stores: signs in and walks each screen's main task
 * as an operator would. Find a payment by last 4 and refund part of it; create a merchant and a MID and take a
 * payment for it through the merchant API; switch a Protocol Mapping field and see it in the next callback;
 * resend a failing callback; a support user sees no configuration actions. axe-core checks every screen (no
 * critical or serious violation) and every screen is photographed at desktop and phone width into
 * test-output/console-screenshots/ (git-ignored). No page may break its Content-Security-Policy.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { browserUnavailable, launchBrowser } from '../support/browser.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { ensureConsoleBuilt } from './support.ts';

const ADMIN_TOKEN = 'console-browser-admin-token';
const PASSWORD = 'console password 2026';
const SHOTS = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../test-output/console-screenshots');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** axe-core in the page (through the debugging protocol, so the console's CSP is not loosened for it). */
async function assertAccessible(page: Page, screen: string): Promise<void> {
  await page.evaluate(`${AXE};0`);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  const bad = violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
  assert.deepEqual(bad, [], `${screen}: ${JSON.stringify(bad)}`);
}

for (const { kind, skip } of await storeKinds()) {
  const noBrowser = browserUnavailable();
  describe(`console in the browser (${kind})`, { skip: skip ?? noBrowser, timeout: 600_000 }, () => {
    let t: TestGateway;
    let browser: Browser;
    let admin: AdminCall;
    let listener: Listener;
    let failing: Listener;
    const cspViolations: string[] = [];
    const emails = { admin: `admin-${kind}@example.com`, support: `support-${kind}@example.com` };
    const ids: Record<string, string> = {};
    let created: TestMerchant | undefined;

    before(async () => {
      ensureConsoleBuilt();
      mkdirSync(SHOTS, { recursive: true });
      listener = await startListener();
      failing = await startListener('NOT OK');
      t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN, notificationUrl: listener.url, workers: true });
      admin = adminClient(t.baseUrl, ADMIN_TOKEN);
      for (const [role, email] of [['admin', emails.admin], ['support', emails.support]] as const) {
        const res = await admin('POST', '/admin/v1/users', { email, role, password: PASSWORD, name: `${role} person` });
        assert.equal(res.status, 201, res.text);
      }
      const paid = await sale(t, { order_id: `REFUND-ME-${kind}`, order_amount: '10.00', order_currency: 'EUR' });
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      ids.refundable = paid.body.trans_id;
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await listener?.close();
      await failing?.close();
    });

    async function signedIn(email: string, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
      const context = await browser.newContext({ viewport, timezoneId: 'Europe/Berlin', locale: 'de-DE' });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      page.on('console', (m) => { if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text()); });
      await page.goto(`${t.baseUrl}/admin/`);
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      return { context, page };
    }

    it('finds a payment by last 4 and refunds part of it, after confirming', async () => {
      const { context, page } = await signedIn(emails.admin);
      await page.getByRole('link', { name: 'Payments' }).click();
      await page.getByLabel('Card last 4').fill('1111');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/card_last4=1111/);
      await page.getByRole('link', { name: `REFUND-ME-${kind}` }).click();
      await page.getByRole('heading', { name: new RegExp(`Payment REFUND-ME-${kind}`) }).waitFor();
      await page.getByRole('button', { name: 'Refund…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Amount to refund (EUR)').fill('2.50');
      await dialog.getByRole('button', { name: 'Refund', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      const refunded = await until('the refund', async () => {
        const res = await admin('GET', `/admin/v1/payments/${ids.refundable}`);
        return res.body.payment.refunded_amount === '2.50' ? res.body : undefined;
      });
      assert.equal(refunded.payment.status, 'settled');
      assert.ok(refunded.audit.some((a: any) => a.action === 'payment.refund' && a.user_name === emails.admin), JSON.stringify(refunded.audit));
      await page.getByText('2,50 €').first().waitFor(); // de-DE format of the refunded amount
      await context.close();
    });

    it('creates a merchant (password shown once) and a MID, then takes a payment for it through the merchant API', async () => {
      const { context, page } = await signedIn(emails.admin);
      await page.goto(`${t.baseUrl}/admin/merchants`);
      const form = page.getByRole('region', { name: 'New merchant' }).or(page.locator('section[aria-labelledby="new-merchant"]'));
      await form.getByLabel('Name', { exact: true }).fill(`Console Shop ${kind}`);
      await form.getByLabel('Notification URL').fill(listener.url);
      await form.getByLabel('Hash algorithm').selectOption('md5');
      await form.getByRole('button', { name: 'Create merchant' }).click();
      const key = await page.getByTestId('merchant-key').textContent();
      const password = await page.getByTestId('shown-once').textContent();
      assert.ok(key && password, 'key and password shown');
      await page.getByRole('link', { name: `Console Shop ${kind}` }).first().click();
      await page.waitForURL(/\/admin\/merchants\/[0-9a-f-]{36}$/);
      const merchantId = page.url().split('/').pop()!;
      created = { id: merchantId, key, password };
      await page.getByRole('link', { name: 'MIDs' }).click();
      await page.getByText('No MID yet').waitFor();
      await page.getByRole('button', { name: 'New MID' }).click();
      await page.getByLabel('Connector', { exact: true }).selectOption('sandbox-card');
      await page.getByLabel('Payment mode').selectOption('SMS');
      await page.getByRole('button', { name: 'Create MID' }).click();
      await page.getByRole('cell', { name: 'sandbox-card' }).first().waitFor();
      const paid = await sale(t, { order_id: `NEW-SHOP-1-${kind}`, order_amount: '4.00', order_currency: 'EUR' }, created);
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      await context.close();
    });

    it('switches a Protocol Mapping field and sees it in the next callback', async () => {
      assert.ok(created, 'the merchant of the previous test');
      const catalog = await admin('GET', '/admin/v1/protocol-mapping');
      const field = 'merchant_name';
      const wire: string[] = catalog.body.optional_fields.find((f: any) => f.name === field).wire;
      const before = await listener.waitForMatching((c) => c.fields.order_id === `NEW-SHOP-1-${kind}`, 1, 20_000);
      for (const name of wire) assert.equal(before[0]!.fields[name], undefined, `${name} not sent before the switch`);

      const { context, page } = await signedIn(emails.admin);
      await page.goto(`${t.baseUrl}/admin/merchants/${created.id}`);
      const toggle = page.getByRole('switch', { name: `${field} in callbacks` });
      await toggle.check();
      await page.getByRole('button', { name: 'Save Protocol Mapping' }).click();
      await page.getByText('Saved.').waitFor();
      const paid = await sale(t, { order_id: `NEW-SHOP-2-${kind}`, order_amount: '5.00', order_currency: 'EUR' }, created);
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      const after = await listener.waitForMatching((c) => c.fields.order_id === `NEW-SHOP-2-${kind}`, 1, 20_000);
      assert.ok(wire.some((name) => after[0]!.fields[name] === `Console Shop ${kind}`), `${field} in the callback: ${after[0]!.raw}`);
      await context.close();
    });

    it('resends a failing callback from the event log', async () => {
      const m = await t.addMerchant({ notificationUrl: failing.url });
      const paid = await sale(t, { order_id: `FAILING-${kind}`, order_amount: '3.00', order_currency: 'EUR' }, m);
      ids.failingPayment = paid.body.trans_id;
      ids.failingMerchant = m.id;
      const callback = await until('a failed attempt', async () => {
        const res = await admin('GET', `/admin/v1/callbacks?merchant_id=${m.id}`);
        const c = res.body.callbacks[0];
        return c && c.attempts >= 1 && c.last_error ? c : undefined;
      });
      const { context, page } = await signedIn(emails.admin);
      await page.goto(`${t.baseUrl}/admin/callbacks`);
      await page.getByLabel('Merchant id').fill(m.id);
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(new RegExp(`merchant_id=${m.id}`));
      await page.getByRole('row', { name: /FAILING|pending|failed/ }).first().getByRole('button', { name: 'Resend' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Resend' }).click();
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      const audit = await until('the resend in the audit log', async () => {
        const res = await admin('GET', `/admin/v1/audit-log?action=callback.resend&object_id=${callback.id}`);
        return res.body.entries[0];
      });
      assert.equal(audit.user.name, emails.admin);
      await until('the resend at the receiver', async () => (failing.received.length >= 2 ? true : undefined));
      await context.close();
    });

    it('a support user sees no configuration or money action', async () => {
      assert.ok(created);
      const { context, page } = await signedIn(emails.support);
      const nav = page.getByRole('navigation', { name: 'Console' });
      assert.equal(await nav.getByRole('link', { name: 'Users and tokens' }).count(), 0);
      await page.goto(`${t.baseUrl}/admin/merchants`);
      await page.getByRole('table', { name: /Merchants/ }).or(page.getByRole('region', { name: 'Merchants' })).first().waitFor();
      assert.equal(await page.getByRole('button', { name: 'Create merchant' }).count(), 0);
      await page.goto(`${t.baseUrl}/admin/merchants/${created.id}`);
      await page.getByRole('heading', { name: 'Protocol Mapping' }).waitFor();
      for (const name of ['Save', 'Save Protocol Mapping', 'Rotate password…', 'Disable…']) {
        assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, name);
      }
      assert.ok(await page.getByRole('switch', { name: 'card in callbacks' }).isDisabled());
      await page.getByRole('link', { name: 'MIDs' }).click();
      await page.getByRole('cell', { name: 'sandbox-card' }).first().waitFor();
      assert.equal(await page.getByRole('button', { name: /New MID|Edit|Disable/ }).count(), 0);
      await page.goto(`${t.baseUrl}/admin/payments/${ids.refundable}`);
      await page.getByRole('heading', { name: 'Transactions' }).waitFor();
      assert.equal(await page.getByRole('button', { name: /Refund|Capture|Void/ }).count(), 0);
      await page.goto(`${t.baseUrl}/admin/callbacks`);
      await page.getByRole('heading', { name: 'Callbacks' }).waitFor();
      assert.equal(await page.getByRole('heading', { name: 'Unblock a callback URL' }).count(), 0);
      await context.close();
    });

    it('every screen passes axe (no critical or serious violation) and is photographed at desktop and phone width', async () => {
      assert.ok(created);
      const screens: [string, string, string][] = [
        ['home', '/admin/', 'Today'],
        ['payments', '/admin/payments?card_last4=1111', 'Payments'],
        ['payment', `/admin/payments/${ids.refundable}`, 'Transactions'],
        ['needs-attention', '/admin/attention', 'Needs attention'],
        ['merchants', '/admin/merchants', 'Merchants'],
        ['merchant-settings', `/admin/merchants/${created.id}`, 'Protocol Mapping'],
        ['merchant-mids', `/admin/merchants/${created.id}/mids`, 'sandbox-card'],
        ['merchant-wallets', `/admin/merchants/${created.id}/wallets`, 'Google Pay'],
        ['callbacks', `/admin/callbacks?merchant_id=${ids.failingMerchant}`, 'Callbacks'],
        ['users', '/admin/users', 'Users and tokens'],
        ['audit-log', '/admin/audit', 'Audit log'],
      ];
      for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
        const { context, page } = await signedIn(emails.admin, viewport);
        for (const [name, url, text] of screens) {
          await page.goto(t.baseUrl + url);
          await page.locator('main').getByText(text).first().waitFor();
          await page.locator('[role="status"]').filter({ hasText: 'Loading' }).waitFor({ state: 'detached' }).catch(() => undefined);
          await assertAccessible(page, `${name} (${width})`);
          await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
        }
        await context.close();
      }
      const context = await browser.newContext({ viewport: PHONE });
      const page = await context.newPage();
      await page.goto(`${t.baseUrl}/admin/`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await assertAccessible(page, 'sign-in');
      await page.screenshot({ path: path.join(SHOTS, 'sign-in-phone.png') });
      await page.setViewportSize(DESKTOP);
      await page.screenshot({ path: path.join(SHOTS, 'sign-in-desktop.png') });
      await context.close();
      assert.deepEqual(cspViolations, [], 'no Content-Security-Policy violation on any page');
    });
  });
}
