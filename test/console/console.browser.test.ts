/**
 * The operator console in a real browser (issue 14), on one store (browserStores): signs in and walks each screen's main task
 * as an operator would. Find a payment by last 4 and refund part of it; create a merchant and a MID and take a
 * payment for it through the merchant API; switch a Protocol Mapping field and see it in the next callback;
 * resend a failing callback; a support user sees no configuration actions. axe-core checks every screen (no
 * critical or serious violation) and every screen is photographed at desktop and phone width into
 * test-output/console-screenshots/ (git-ignored). No page may break its Content-Security-Policy.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { followUp, sale } from '../s2s-card/support.ts';
import { flagForOperator, getPayment } from '../../src/store/payments-repo.ts';
import { ensureConsoleBuilt } from './support.ts';
import { sessionContext } from './pages/console.ts';
import { saveScreenshot } from '../support/screenshots.ts';

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

/** The accessible name of the focused element, as the tests name controls (its label, aria-label or text). */
async function focusedName(page: Page): Promise<{ name: string; outlined: boolean }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { name: '', outlined: false };
    const label = (el as HTMLInputElement).labels?.[0]?.textContent;
    const style = getComputedStyle(el);
    return { name: (el.getAttribute('aria-label') ?? label ?? el.textContent ?? '').trim(), outlined: style.outlineStyle !== 'none' && style.outlineWidth !== '0px' };
  });
}

/** Presses Tab (only) until the control named `name` has the focus, and checks the focus is visible. */
async function tabTo(page: Page, name: string, max = 150): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const focused = await focusedName(page);
    if (focused.name === name) {
      assert.ok(focused.outlined, `the keyboard focus on "${name}" is visible`);
      return;
    }
  }
  throw new Error(`Tab never reached "${name}"`);
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

for (const { kind, skip } of await browserStores()) {
  const noBrowser = browserUnavailable();
  describe(`console in the browser (${kind})`, { skip: skip || noBrowser, timeout: 600_000 }, () => {
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

    const contextOptions = (viewport: typeof DESKTOP) => ({ viewport, timezoneId: 'Europe/Berlin', locale: 'de-DE' });

    function watched(page: Page): Page {
      page.setDefaultTimeout(20_000);
      page.on('console', (m) => { if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text()); });
      return page;
    }

    /** Signed in through the console's form, on its home (the keyboard test signs in by keys alone). */
    async function signInThroughForm(email: string, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
      const context = await browser.newContext(contextOptions(viewport));
      const page = watched(await context.newPage());
      await page.goto(`${t.baseUrl}/admin/`);
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      return { context, page };
    }

    /** Signed in with the user's session made once for the file (pages/console.ts): a blank page, no form. */
    async function signedIn(email: string, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
      const context = await sessionContext(browser, t.baseUrl, email, PASSWORD, contextOptions(viewport));
      return { context, page: watched(await context.newPage()) };
    }

    /** The console's home, signed in. */
    async function home(page: Page): Promise<void> {
      await page.goto(`${t.baseUrl}/admin/`);
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
    }

    it('resolves a refund left in flight from Needs attention: why it waits, a note, the refund stands', async () => {
      const paid = await sale(t, { order_id: `STUCK-${kind}`, order_amount: '10.00', order_currency: 'EUR' });
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      const id = paid.body.trans_id as string;
      // The refund reaches the acquirer, whose answer is lost; the re-check hands it to an operator.
      const connector = t.gateway.ctx.connectors.get('sandbox-card')!;
      const original = connector.refund;
      connector.refund = async () => { throw new Error('connection reset'); };
      try {
        await followUp(t, 'CREDITVOID', id, { amount: '2.00' });
      } finally {
        connector.refund = original;
      }
      assert.ok(await flagForOperator(t.store.db, (await getPayment(t.store.db, id))!, new Date()));

      const { context, page } = await signedIn(emails.admin);
      await home(page);
      await page.getByRole('link', { name: 'Needs attention' }).click();
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: `STUCK-${kind}` }) });
      await row.getByRole('cell', { name: 'The acquirer\'s answer never came.' }).waitFor();
      await row.getByRole('button', { name: 'Resolve…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('The acquirer says the operation').selectOption('settled');
      await dialog.getByLabel('Note (who you checked with, their reference)').fill('Acquirer portal: refund 2.00 processed');
      await dialog.getByRole('button', { name: 'Resolve', exact: true }).click();
      await page.getByRole('link', { name: `STUCK-${kind}` }).waitFor({ state: 'detached' });
      const resolved = (await admin('GET', `/admin/v1/payments/${id}`)).body;
      assert.deepEqual([resolved.payment.refunded_amount, resolved.payment.pending_operation, resolved.payment.held], ['2.00', null, null]);
      const refund = resolved.transactions.find((x: any) => x.type === 'refund');
      assert.deepEqual([refund.status, refund.resolution, refund.note], ['success', 'settled', 'Acquirer portal: refund 2.00 processed']);
      assert.ok(resolved.audit.some((a: any) => a.action === 'payment.resolve' && a.user_name === emails.admin), JSON.stringify(resolved.audit));
      await context.close();
    });

    it('finds a payment by last 4 and refunds part of it, after confirming', async () => {
      const { context, page } = await signedIn(emails.admin);
      await home(page);
      await page.getByRole('link', { name: 'Payments' }).click();
      await page.getByLabel('Card last 4').fill('1111');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/card_last4=1111/);
      await page.getByRole('link', { name: `REFUND-ME-${kind}` }).waitFor();
      // The whole result as CSV: the filter applied to every row, one quoted cell per column.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
      const [header, ...rows] = readFileSync((await download.path())!, 'utf8').split('\r\n');
      const columns = header!.split(',');
      assert.ok(columns.includes('order_id') && columns.includes('card'), header);
      const cells = rows.map((r) => r.slice(1, -1).split('","'));
      assert.ok(cells.some((c) => c[columns.indexOf('order_id')] === `REFUND-ME-${kind}`), 'the payment is in the export');
      for (const c of cells) assert.match(c[columns.indexOf('card')]!, /1111$/, 'every exported payment matches the filter');
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
      // Times in the operator's zone (Europe/Berlin here), UTC on hover.
      const time = page.locator('main time').first();
      const instant = new Date((await time.getAttribute('datetime'))!);
      assert.equal(await time.textContent(), new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'Europe/Berlin' }).format(instant));
      assert.equal(await time.getAttribute('title'), `${instant.toISOString().replace('T', ' ').slice(0, 19)} UTC`);
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
      // Issue 30 item 3: the merchant may change its return parameters in the portal.
      await page.getByRole('group', { name: /changes in the portal/ }).getByLabel('Return additional parameters').check();
      await page.getByRole('button', { name: 'Save Protocol Mapping' }).click();
      await page.getByText('Saved.').waitFor();
      assert.deepEqual((await admin('GET', `/admin/v1/merchants/${created.id}/settings`)).body.portal_editable_settings, ['return_params']);
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
      await page.getByLabel('Find merchant').fill(m.id); // every test merchant is called Test Shop: found by its id
      await page.getByLabel('Merchant', { exact: true }).selectOption(m.id);
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

    it('walks a main task by keyboard only: signs in, finds a payment and refunds part of it with Tab, typing and Enter', async () => {
      const paid = await sale(t, { order_id: `KEYBOARD-${kind}`, order_amount: '8.00', order_currency: 'EUR' });
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      const context = await browser.newContext({ viewport: DESKTOP, timezoneId: 'Europe/Berlin', locale: 'de-DE' });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(`${t.baseUrl}/admin/`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await tabTo(page, 'E-mail');
      await page.keyboard.type(emails.admin);
      await tabTo(page, 'Password');
      await page.keyboard.type(PASSWORD);
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      await tabTo(page, 'Payments');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Payments' }).waitFor();
      await tabTo(page, 'Order id');
      await page.keyboard.type(`KEYBOARD-${kind}`);
      await page.keyboard.press('Enter');
      await page.waitForURL(/order_id=KEYBOARD-/);
      await page.getByRole('link', { name: `KEYBOARD-${kind}` }).waitFor();
      await tabTo(page, `KEYBOARD-${kind}`);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: new RegExp(`Payment KEYBOARD-${kind}`) }).waitFor();
      await tabTo(page, 'Refund…');
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      assert.equal((await focusedName(page)).name, 'Amount to refund (EUR)', 'the dialog takes the focus to its first field');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('3.00');
      await tabTo(page, 'Refund');
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'hidden' });
      const after = await until('the refund', async () => {
        const res = await admin('GET', `/admin/v1/payments/${paid.body.trans_id}`);
        return res.body.payment.refunded_amount === '3.00' ? res.body : undefined;
      });
      assert.deepEqual(after.payment.allowed_actions, [{ action: 'refund', max_amount: '5.00', partial: true }]);
      await page.getByRole('button', { name: 'Void…' }).waitFor({ state: 'detached' }); // nothing refunded any more: no void
      await context.close();
    });

    it('shows the actions the API lists for the payment\'s state: a held authorization offers capture and reversal, no void', async () => {
      const held = await sale(t, { order_id: `HELD-${kind}`, order_amount: '6.00', order_currency: 'EUR', auth: 'Y' });
      assert.equal(held.body.status, 'PENDING', held.text);
      const { context, page } = await signedIn(emails.admin);
      await page.goto(`${t.baseUrl}/admin/payments/${held.body.trans_id}`);
      await page.getByRole('heading', { name: 'Transactions' }).waitFor();
      const actions = page.getByRole('region', { name: 'Actions' });
      assert.deepEqual(await actions.getByRole('button').allTextContents(), ['Capture…', 'Reverse…']);
      await actions.getByRole('button', { name: 'Reverse…' }).click();
      await page.getByRole('dialog').getByText('The whole 6,00 € is released.').waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      await actions.getByRole('button', { name: 'Capture…' }).click();
      await page.getByRole('dialog').getByLabel('Amount to capture (EUR)').fill('4.00');
      await page.getByRole('dialog').getByRole('button', { name: 'Capture', exact: true }).click();
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: 'Refund…' }).waitFor();
      assert.deepEqual(await actions.getByRole('button').allTextContents(), ['Refund…', 'Void…']);
      await context.close();
    });

    it('edits routing rules: the API\'s errors show at their rule, the fixed rules save, and a dry run names the MID', async () => {
      assert.ok(created);
      const backup = await admin('POST', `/admin/v1/merchants/${created.id}/mids`, { connector: 'sandbox-card', name: 'Backup MID', payment_mode: 'SMS/DMS' });
      assert.equal(backup.status, 201, backup.text);
      const { context, page } = await signedIn(emails.admin);
      await page.goto(`${t.baseUrl}/admin/merchants/${created.id}`);
      await page.getByRole('link', { name: 'Routing' }).click();
      await page.getByText('No rule: payments go to the eligible MID of highest priority.').waitFor();
      await page.getByRole('button', { name: 'Add a rule' }).click();
      const rule = page.getByRole('region', { name: /^Rule 1/ });
      await rule.getByLabel('Rule 1 name').fill('EUR split');
      await rule.getByLabel('Currencies').fill('eur');
      await rule.getByLabel('Send the payment to').selectOption('split');
      await rule.getByLabel('Share 1 weight (%)').fill('70');
      await rule.getByLabel('Share 2 weight (%)').fill('20');
      await page.getByRole('button', { name: 'Save routing' }).click();
      await rule.getByText('The weights should add up to 100 (they add up to 90).').waitFor();
      assert.equal(await rule.getByLabel('Share 2 weight (%)').getAttribute('aria-invalid'), null, 'the sum is the shares\' error, not one weight\'s');
      await rule.getByLabel('Share 2 weight (%)').fill('30');
      await page.getByRole('button', { name: 'Save routing' }).click();
      await page.getByText('Saved.').waitFor();
      const saved = await admin('GET', `/admin/v1/merchants/${created.id}/routing`);
      assert.equal(saved.body.rules.length, 1, saved.text);
      assert.deepEqual(saved.body.rules[0].when, { currencies: ['EUR'] });
      assert.deepEqual(saved.body.rules[0].then.shares.map((x: any) => x.weight), [70, 30]);

      const dry = page.locator('form[aria-labelledby="dry-run"]');
      await dry.getByLabel('Currency').fill('EUR');
      await dry.getByRole('button', { name: 'Run the dry run' }).click();
      await dry.getByText('rule 1 "EUR split"').waitFor();
      await dry.getByLabel('Currency').fill('USD');
      await dry.getByRole('button', { name: 'Run the dry run' }).click();
      await dry.getByText('highest priority').waitFor();
      // A second rule ordering MIDs by their success rate.
      await page.getByRole('button', { name: 'Add a rule' }).click();
      const byRate = page.getByRole('region', { name: /^Rule 2/ });
      await byRate.getByLabel('Rule 2 name').fill('By rate');
      await byRate.getByLabel('Send the payment to').selectOption('success_rate');
      await byRate.getByLabel('Exploration (%)').fill('12.5');
      await page.getByRole('button', { name: 'Save routing' }).click();
      await until('the second rule saved', async () => {
        const r = await admin('GET', `/admin/v1/merchants/${created!.id}/routing`);
        return r.body.rules.length === 2 ? r.body.rules[1] : undefined;
      }).then((rule2) => {
        assert.equal(rule2.then.kind, 'success_rate');
        assert.equal(rule2.then.exploration_percent, 12.5);
        assert.equal(rule2.then.mid_ids.length, 2);
      });
      await dry.getByLabel('Amount').fill('1.2.3');
      await dry.getByRole('button', { name: 'Run the dry run' }).click();
      await dry.locator('.field-error').first().waitFor();
      assert.equal(await dry.getByLabel('Amount').getAttribute('aria-invalid'), 'true');

      // Another operator saves the rules meanwhile: this page's save, built on its older read (If-Match), is refused
      // with the API's words, and the other operator's rules stand.
      const path = `/admin/v1/merchants/${created.id}/routing`;
      const theirs = { ...(await admin('GET', path)).body, max_extra_attempts: 0 };
      assert.equal((await admin('PUT', path, theirs)).status, 200);
      await byRate.getByLabel('Rule 2 name').fill('By rate, renamed');
      await page.getByRole('button', { name: 'Save routing' }).click();
      await page.getByText('The configuration was saved by someone else since it was read').first().waitFor();
      const kept = await admin('GET', path);
      assert.deepEqual([kept.body.max_extra_attempts, kept.body.rules[1].name], [0, 'By rate']);
      await context.close();
    });

    it('reorders MIDs: moving one up makes it the first by priority', async () => {
      assert.ok(created);
      const { context, page } = await signedIn(emails.admin);
      await page.goto(`${t.baseUrl}/admin/merchants/${created.id}/mids`);
      const table = page.getByRole('region', { name: 'MIDs, highest priority first' });
      await table.getByRole('row').nth(2).waitFor();
      const second = (await table.getByRole('row').nth(2).getByRole('cell').nth(1).textContent())!;
      await table.getByRole('button', { name: `Move ${second} up` }).click();
      await until('the new order in the API', async () => {
        const mids = (await admin('GET', `/admin/v1/merchants/${created!.id}/mids`)).body.mids as { name: string; priority: number }[];
        const first = [...mids].sort((a, b) => b.priority - a.priority)[0];
        return first?.name === second && first.priority > mids.find((m) => m.name !== second)!.priority ? true : undefined;
      });
      await until('the table in the new order', async () => ((await table.getByRole('row').nth(1).getByRole('cell').nth(1).textContent()) === second ? true : undefined));
      await context.close();
    });

    it('keeps a routing output kind and a condition it does not know (a newer gateway\'s) as they are, edited as JSON', async () => {
      assert.ok(created);
      const mids = (await admin('GET', `/admin/v1/merchants/${created.id}/mids`)).body.mids;
      const unknown = {
        rules: [{ name: 'Capped', when: { currencies: ['EUR'], daily_window: { from: '08:00', to: '20:00' } }, then: { kind: 'daily_cap', mid_id: mids[0].id, cap: '1000.00', over_cap: { kind: 'mid', mid_id: mids[1].id } } }],
        max_extra_attempts: 2,
        success_half_life_minutes: 90,
      };
      const { context, page } = await signedIn(emails.admin);
      let put: any;
      await page.route(`**/admin/v1/merchants/${created.id}/routing`, async (route) => {
        if (route.request().method() === 'PUT') {
          put = route.request().postDataJSON();
          await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(put) });
        } else await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(unknown) });
      });
      await page.goto(`${t.baseUrl}/admin/merchants/${created.id}/routing`);
      const rule = page.getByRole('region', { name: /^Rule 1/ });
      await rule.getByLabel('Output "daily_cap" (JSON)').waitFor();
      await rule.getByLabel('Other conditions (JSON)').waitFor();
      assert.equal(await rule.getByLabel('Currencies').inputValue(), 'EUR');
      await rule.getByLabel('Rule 1 name').fill('Capped by day');
      await page.getByRole('button', { name: 'Save routing' }).click();
      await page.getByText('Saved.').waitFor();
      assert.deepEqual(put, { ...unknown, rules: [{ ...unknown.rules[0], name: 'Capped by day' }] }, 'nothing of the unknown parts lost');
      await context.close();
    });

    it('edits payer retries and connector options, with the API\'s errors at the field they name', async () => {
      assert.ok(created);
      const { context, page } = await signedIn(emails.admin);
      await page.goto(`${t.baseUrl}/admin/merchants/${created.id}`);
      const retries = page.locator('form[aria-labelledby="retries"]');
      await retries.getByLabel('Attempts per session').fill('25');
      await retries.getByRole('button', { name: 'Save payer retries' }).click();
      await retries.locator('.field-error').waitFor();
      assert.equal(await retries.getByLabel('Attempts per session').getAttribute('aria-invalid'), 'true');
      await retries.getByLabel('Attempts per session').fill('5');
      await retries.getByRole('button', { name: 'Save payer retries' }).click();
      await retries.getByText('Saved.').waitFor();

      const options = page.locator('form[aria-labelledby="options"]');
      await options.getByLabel('Mail payouts configured').check();
      await options.getByLabel('Account UUID').fill('not-a-uuid');
      await options.getByRole('button', { name: 'Save connector options' }).click();
      await options.locator('.field-error').waitFor();
      assert.equal(await options.getByLabel('Account UUID').getAttribute('aria-invalid'), 'true');
      await options.getByLabel('Account UUID').fill('2f1c7a4e-5b7d-4c1e-9a8b-3d2e1f0a9b8c');
      await options.getByLabel('Fee calculation').selectOption('transaction_level');
      await options.getByRole('button', { name: 'Save connector options' }).click();
      await options.getByText('Saved.').waitFor();
      const settings = await admin('GET', `/admin/v1/merchants/${created.id}/settings`);
      assert.deepEqual(settings.body.payer_retries, { max_attempts: 5 });
      assert.deepEqual(settings.body.connector_options.mail_payout, { account_uuid: '2f1c7a4e-5b7d-4c1e-9a8b-3d2e1f0a9b8c', fee_calculation_method: 'transaction_level' });
      await context.close();
    });

    it('lists the blocked callback URLs and unblocks one (audited as the signed-in user)', async () => {
      const url = `https://blocked-${kind}.example.com/callbacks`;
      await t.store.db.query(`INSERT INTO callback_url_health (url, timeouts, blocked_until) VALUES ($1, ARRAY[now(), now(), now(), now(), now()], now() + interval '15 minutes')`, [url]);
      const { context, page } = await signedIn(emails.admin);
      await page.goto(`${t.baseUrl}/admin/callbacks`);
      const row = page.getByRole('region', { name: 'Blocked callback URLs' }).getByRole('row', { name: new RegExp(url.replace(/\./g, '\\.')) });
      await row.waitFor();
      await row.getByRole('button', { name: 'Unblock' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Unblock' }).click();
      await page.getByText(`Unblocked ${url}`).waitFor();
      await page.getByText('No callback URL is blocked.').waitFor();
      const audit = await admin('GET', `/admin/v1/audit-log?action=callback_url.unblock&object_id=${encodeURIComponent(url)}`);
      assert.equal(audit.body.entries[0]?.user.name, emails.admin, audit.text);
      await context.close();
    });

    it('ends an idle session: the next click shows the sign-in form with a notice', async () => {
      // Its own session, through the form: this one ends (every session of the user idle as long would).
      const { context, page } = await signInThroughForm(emails.support);
      // The home page's own requests touch the session: let them finish first, or one could renew it after the UPDATE.
      await page.waitForLoadState('networkidle');
      await t.store.db.query("UPDATE console_sessions SET last_seen_at = now() - interval '31 minutes' WHERE user_id = (SELECT id FROM operator_users WHERE email = $1)", [emails.support]);
      // The next request ends it: the click's, or a refresh the home page makes first (then the link is gone).
      await page.getByRole('link', { name: 'Merchants' }).click({ timeout: 5_000 }).catch(() => undefined);
      await page.getByText('Your session ended (idle for too long, or signed out elsewhere). Sign in again.').waitFor();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await context.close();
    });

    it('uploads a Google Pay key from a file on the Wallets tab; only its fingerprint is shown again', async () => {
      assert.ok(created);
      const pem = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const file = path.join(SHOTS, `..`, `google-pay-key-${kind}.pem`);
      writeFileSync(file, pem);
      const { context, page } = await signedIn(emails.admin);
      await page.goto(`${t.baseUrl}/admin/merchants/${created.id}/wallets`);
      const form = page.locator('form[aria-labelledby="google"]');
      await form.getByLabel('Merchant identifier').fill('BCR2DN4T000000');
      await form.getByLabel('Gateway merchant id').fill('console-shop');
      await form.getByLabel('Private key from a file').setInputFiles(file);
      await until('the file read into the field', async () => ((await form.getByLabel('Private key', { exact: true }).inputValue()) === pem ? true : undefined));
      await form.getByRole('button', { name: 'Save Google Pay' }).click();
      await form.getByText('Saved.').waitFor();
      const wallets = await admin('GET', `/admin/v1/merchants/${created.id}/wallets`);
      const fingerprint = wallets.body.google_pay.private_key.fingerprint as string;
      assert.ok(fingerprint, wallets.text);
      assert.ok(!wallets.text.includes(pem.split('\n')[1]!), 'the key itself never comes back');
      await form.getByText(`Stored: ${fingerprint}`).waitFor();
      assert.equal(await form.getByLabel('Private key', { exact: true }).inputValue(), '', 'the field is emptied once stored');
      await context.close();
    });

    it("uploads Apple's domain-association file on the Wallets tab; the gateway serves it as-is at /.well-known/ (issue 25 item 22)", async () => {
      const merchant = await t.addMerchant();
      const fixtures = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../admin/fixtures');
      const content = `${'7b22'.repeat(900)}\n${kind} association `;
      const file = path.join(SHOTS, '..', `apple-developer-merchantid-domain-association-${kind}`);
      writeFileSync(file, content);
      const { context, page } = await signedIn(emails.admin);
      await page.goto(`${t.baseUrl}/admin/merchants/${merchant.id}/wallets`);
      const form = page.locator('form[aria-labelledby="apple"]');
      await form.getByLabel('Merchant identifier').fill('merchant.com.portcullis.test');
      await form.getByLabel('Country (ISO, 2 letters)').fill('GB');
      await form.getByLabel('Shop name').fill('Console Shop');
      await form.getByLabel('Merchant identity certificate from a file').setInputFiles(path.join(fixtures, 'wallet-test-only.cert.pem'));
      await form.getByLabel('Certificate private key from a file').setInputFiles(path.join(fixtures, 'wallet-test-only.key.pem'));
      await until('both PEMs read', async () => ((await form.getByLabel('Certificate private key', { exact: true }).inputValue()).includes('PRIVATE KEY') ? true : undefined));
      await form.getByLabel('Domain-association file').setInputFiles(file);
      await form.getByText('sent on save').waitFor();
      await form.getByRole('button', { name: 'Save Apple Pay' }).click();
      await form.getByText('Saved.').waitFor();
      const served = await fetch(`${t.baseUrl}/.well-known/apple-developer-merchantid-domain-association`);
      assert.equal(served.status, 200);
      assert.equal(await served.text(), content);
      const stored = (await admin('GET', `/admin/v1/merchants/${merchant.id}/wallets`)).body.apple_pay.domain_association;
      await form.getByText(stored.sha256, { exact: false }).waitFor();
      await context.close();
    });

    it('creates a MID with its connector\'s declared settings form: required fields marked, errors at their field, credentials masked', async () => {
      const m = await t.addMerchant();
      const { context, page } = await signedIn(emails.admin);
      await page.goto(`${t.baseUrl}/admin/merchants/${m.id}/mids`);
      await page.getByRole('button', { name: 'New MID' }).click();
      const form = page.getByRole('form', { name: 'New MID' });
      await form.getByLabel('Connector', { exact: true }).selectOption('adyen');
      await form.getByLabel('baseUrl (required)').fill('ftp://checkout.example');
      await form.getByLabel('merchantAccount (required)').fill('ConsoleShopECOM');
      await form.getByLabel('environment (required)').selectOption('test');
      await form.getByLabel('apiKey (required)').fill('AQE-console-secret-api-key');
      await form.getByLabel('hmacKey (required)').fill('not hex');
      await form.getByRole('button', { name: 'Create MID' }).click();
      await form.locator('.field-error').first().waitFor();
      assert.equal(await form.getByLabel('baseUrl (required)').getAttribute('aria-invalid'), 'true');
      assert.equal(await form.getByLabel('hmacKey (required)').getAttribute('aria-invalid'), 'true');
      assert.equal(await form.getByLabel('merchantAccount (required)').getAttribute('aria-invalid'), null);
      await form.getByLabel('baseUrl (required)').fill('https://checkout-test.adyen.com/v71');
      await form.getByLabel('hmacKey (required)').fill('00FF00FF');
      await form.getByRole('button', { name: 'Add a daily cap' }).click();
      await form.getByLabel('Cap 1 currency').fill('eur');
      await form.getByLabel('Cap 1 payments').fill('100');
      await form.getByLabel('Cap 1 amount').fill('5000.00');
      await form.getByRole('button', { name: 'Create MID' }).click();
      await page.getByRole('cell', { name: 'adyen' }).first().waitFor();
      const mids = await admin('GET', `/admin/v1/merchants/${m.id}/mids`);
      const adyen = mids.body.mids.find((x: any) => x.connector === 'adyen');
      assert.deepEqual(adyen.settings, { baseUrl: 'https://checkout-test.adyen.com/v71', merchantAccount: 'ConsoleShopECOM', environment: 'test' });
      assert.deepEqual(adyen.daily_caps, { EUR: { max_count: 100, max_amount: '5000.00' } });
      assert.ok(!mids.text.includes('AQE-console-secret-api-key'), 'credentials are never answered');
      const masked = Object.entries(adyen.credentials as Record<string, string>).map(([k, v]) => `${k} ${v}`).join(', ');
      assert.ok(masked.includes('apiKey') && masked.includes('hmacKey'), masked);
      await page.getByRole('cell', { name: masked }).waitFor(); // the masks, as the API gives them
      // The cap beside today's count, amounts in the browser's own currency format.
      const euros = (amount: string) => page.evaluate((a) => new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR' }).format(a as unknown as number), amount);
      await page.getByRole('cell', { name: `EUR: 0 of 100 payments, ${await euros('0')} of ${await euros('5000')} today`, exact: true }).waitFor();
      assert.ok(!(await page.content()).includes('AQE-console-secret-api-key'), 'nor shown');

      // Editing opens the MID as stored; another operator changes it meanwhile: this form's save, built on its read
      // (If-Match), is refused with the API's words; opened again, it shows their change and saves.
      const adyenRow = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'adyen', exact: true }) });
      await adyenRow.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('form', { name: /^Edit MID / });
      await edit.getByLabel('Descriptor').waitFor();
      const midPath = `/admin/v1/merchants/${m.id}/mids/${adyen.id}`;
      assert.equal((await admin('PATCH', midPath, { descriptor: 'THEIRS*SHOP' })).status, 200);
      await edit.getByLabel('Name').fill('Adyen EUR');
      await edit.getByRole('button', { name: 'Save MID' }).click();
      await edit.getByText('The configuration was saved by someone else since it was read').first().waitFor();
      assert.deepEqual((({ name, descriptor }) => [name, descriptor])((await admin('GET', midPath)).body), [adyen.name, 'THEIRS*SHOP']);
      await edit.getByRole('button', { name: 'Cancel' }).click();
      await adyenRow.getByRole('button', { name: 'Edit' }).click();
      assert.equal(await edit.getByLabel('Descriptor').inputValue(), 'THEIRS*SHOP');
      await edit.getByLabel('Name').fill('Adyen EUR');
      await edit.getByRole('button', { name: 'Save MID' }).click();
      await page.getByRole('cell', { name: 'Adyen EUR', exact: true }).waitFor();
      assert.equal((await admin('GET', midPath)).body.descriptor, 'THEIRS*SHOP');
      await context.close();
    });

    it('a support user sees no configuration or money action', async () => {
      assert.ok(created);
      const { context, page } = await signedIn(emails.support);
      await home(page);
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
      await page.getByRole('heading', { name: 'Blocked URLs' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Unblock' }).count(), 0);
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
        ['merchant-routing', `/admin/merchants/${created.id}/routing`, 'Dry run'],
        ['merchant-wallets', `/admin/merchants/${created.id}/wallets`, 'Google Pay'],
        ['callbacks', `/admin/callbacks?merchant_id=${ids.failingMerchant}`, 'Blocked URLs'],
        ['users', '/admin/users', 'Users and tokens'],
        ['audit-log', '/admin/audit', 'Audit log'],
        ['empty-state', '/admin/payments?order_id=NO-SUCH-ORDER', 'No payment matches these filters.'],
        ['error-state', '/admin/payments/00000000-0000-4000-8000-000000000000', 'Not found.'],
      ];
      for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
        const { context, page } = await signedIn(emails.admin, viewport);
        if (width === 'phone') {
          await home(page);
          const nav = page.getByRole('navigation', { name: 'Console' });
          assert.equal(await nav.isVisible(), false, 'at phone width the menu is folded');
          await page.getByRole('button', { name: 'Menu' }).click();
          await nav.getByRole('link', { name: 'Payments' }).click();
          await page.getByRole('heading', { name: 'Payments' }).waitFor();
          assert.equal(await nav.isVisible(), false, 'and folds again once a screen is chosen');
        }
        for (const [name, url, text] of screens) {
          await page.goto(t.baseUrl + url);
          await page.locator('main').getByText(text).first().waitFor();
          await page.locator('[role="status"]').filter({ hasText: 'Loading' }).waitFor({ state: 'detached' }).catch(() => undefined);
          await assertAccessible(page, `${name} (${width})`);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert.ok(overflow <= 0, `${name} (${width}): nothing wider than the screen (${overflow}px too wide); tables scroll in their own box`);
          if (width === 'phone') {
            // A phone folds each table row into a card: nothing scrolls sideways, and each value has its column's name.
            const tables = await page.locator('.table-wrap').evaluateAll((wraps) => wraps.map((w) => ({
              sideways: w.scrollWidth - w.clientWidth,
              unlabelled: Array.from(w.querySelectorAll('tbody td')).filter((td) => !td.hasAttribute('data-label') && (td as HTMLTableCellElement).colSpan === 1).length,
            })));
            for (const [i, t] of tables.entries()) {
              assert.ok(t.sideways <= 1, `${name} (phone): table ${i + 1} scrolls sideways by ${t.sideways}px`);
              assert.equal(t.unlabelled, 0, `${name} (phone): table ${i + 1} has cells without their column's name`);
            }
          }
          await saveScreenshot(page, path.join(SHOTS, `${name}-${width}.png`), { fullPage: true });
        }
        await context.close();
      }
      const context = await browser.newContext({ viewport: PHONE });
      const page = await context.newPage();
      await page.goto(`${t.baseUrl}/admin/`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await assertAccessible(page, 'sign-in');
      await saveScreenshot(page, path.join(SHOTS, 'sign-in-phone.png'));
      await page.setViewportSize(DESKTOP);
      await saveScreenshot(page, path.join(SHOTS, 'sign-in-desktop.png'));
      await context.close();
      assert.deepEqual(cspViolations, [], 'no Content-Security-Policy violation on any page');
    });
  });
}
