/**
 * The merchant portal in a real browser (issue 30), on one store (browserStores): an owner invited by an operator opens the
 * e-mailed link and sets a password, signs in, sets up two-factor sign-in (QR code, key typed from the page, code
 * computed here from RFC 6238) and signs in again with the next code; then walks every screen at 1440 px and 390 px
 * (axe: no serious or critical violation; screenshots into docs/merchants/portal-screenshots/), refunds part of a
 * payment with a reason, reveals the signing secret, sends a test callback and sees it delivered, saves a search as a
 * view and applies it, invites a teammate; signs out and in again (password, then the
 * code step) and opens the teammate's invitation at each width; then defends a dispute (a PDF, the defence text,
 * submitted) and accepts another. No page may break its CSP.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { adminClient } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { ensureConsoleBuilt } from '../console/support.ts';
import { PORTAL_PASSWORD, request, testClock, totp } from './support.ts';
import { saveScreenshot } from '../support/screenshots.ts';

const ADMIN_TOKEN = 'portal-browser-admin-token';
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
  const noBrowser = browserUnavailable();
  describe(`merchant portal in the browser (${kind})`, { skip: skip || noBrowser, timeout: 600_000 }, () => {
    const clock = testClock();
    const email = `owner-${kind}@shop.example`;
    const cspViolations: string[] = [];
    let t: TestGateway;
    let browser: Browser;
    let listener: Listener;
    let page: Page;
    let secret = '';
    let paymentId = '';

    /** Screens the first store photographs into the docs (the second checks them only). */
    async function check(screen: string, width: string): Promise<void> {
      await assertAccessible(page, `${screen} at ${width}`);
      if (index === 0) await saveScreenshot(page, path.join(SHOTS, `${screen}-${width}.png`), { fullPage: true });
    }

    async function signIn(): Promise<void> {
      await page.goto(`${t.baseUrl}/portal/`);
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password').fill(PORTAL_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      if (secret) {
        clock.advance(30_000); // a code is accepted once per 30-second step
        await page.getByLabel('Code from your authenticator app (or a recovery code)').fill(totp(secret, clock.now()));
        await page.getByRole('button', { name: 'Sign in' }).click();
      }
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
    }

    before(async () => {
      ensureConsoleBuilt();
      mkdirSync(SHOTS, { recursive: true });
      listener = await startListener();
      t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN, clock, notificationUrl: listener.url, workers: true });
      const paid = await sale(t, { order_id: `PORTAL-${kind}`, order_amount: '10.00', order_currency: 'EUR' });
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      paymentId = paid.body.trans_id;
      const invited = await adminClient(t.baseUrl, ADMIN_TOKEN)('POST', '/admin/v1/merchant-users', { email, name: 'Olga Owner', role: 'owner', merchant_id: t.merchant.id });
      assert.equal(invited.status, 201, invited.text);
      // The operator lets this merchant change its callback fields (issue 30 item 3); the rest stays read-only.
      const allowed = await adminClient(t.baseUrl, ADMIN_TOKEN)('PATCH', `/admin/v1/merchants/${t.merchant.id}/settings`, { portal_editable_settings: ['callback_fields'] });
      assert.equal(allowed.status, 200, allowed.text);
      browser = await launchBrowser();
      // An English-speaking browser (the portal follows the browser's language until the user picks one: languages.browser.test.ts).
      const context = await browser.newContext({ viewport: WIDTHS[0], timezoneId: 'Europe/Berlin', locale: 'en-GB' });
      page = await context.newPage();
      page.setDefaultTimeout(20_000);
      page.on('console', (m) => { if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text()); });
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await listener?.close();
    });

    it('sets the password through the invitation link, signs in, sets up two-factor sign-in and signs in with a code', async () => {
      const outbox = await request(t.baseUrl, 'GET', `/sandbox/outbox/messages?to=${encodeURIComponent(email)}`);
      const link = outbox.body.messages[0].link as string;
      assert.match(link, /\/portal\/invitation#token=/);
      await page.goto(link.replace(/^https?:\/\/[^/]+/, t.baseUrl));
      await page.getByLabel('New password').fill(PORTAL_PASSWORD);
      await page.getByLabel('The same password again').fill(PORTAL_PASSWORD);
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.getByText(`Sign in as ${email}`).waitFor();
      assert.ok(!page.url().includes('token='), 'the token leaves the address bar');

      await signIn();
      await page.getByRole('link', { name: 'Sign-in security' }).click();
      await page.getByRole('button', { name: 'Show the QR code' }).click();
      await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
      secret = (await page.getByTestId('totp-secret').textContent())!;
      await page.getByLabel('Code from the app').fill(totp(secret, clock.now()));
      await check('two-factor-set-up', 'desktop');
      await page.getByRole('button', { name: 'Turn on' }).click();
      const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
      await codes.first().waitFor();
      assert.equal(await codes.count(), 10);
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('heading', { name: 'Two-factor sign-in is on' }).waitFor();

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await signIn(); // password, then the next step's code
      await page.getByRole('heading', { name: 'Home' }).waitFor();
    });

    it('refunds part of a payment with a reason from its timeline', async () => {
      await page.goto(`${t.baseUrl}/portal/payments`);
      await page.getByLabel('Order id').fill(`PORTAL-${kind}`);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('link', { name: `PORTAL-${kind}` }).click();
      await page.getByRole('heading', { name: new RegExp(`Payment PORTAL-${kind}`) }).waitFor();
      await page.getByRole('button', { name: 'Refund…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Amount (EUR)').fill('4.00');
      await dialog.getByLabel('Reason (kept in your audit log)').fill('Damaged item');
      await dialog.getByRole('button', { name: 'Refund', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      const timeline = page.getByRole('region', { name: 'Transactions' });
      await timeline.getByRole('row').filter({ hasText: 'Damaged item' }).filter({ hasText: `merchant:${email}` }).waitFor();
      const detail = await adminClient(t.baseUrl, ADMIN_TOKEN)('GET', `/admin/v1/payments/${paymentId}`);
      assert.equal(detail.body.payment.refunded_amount, '4.00');
    });

    for (const width of WIDTHS) {
      it(`shows every screen at ${width.width} px (axe, screenshots)`, async () => {
        await page.setViewportSize(width);
        await page.goto(`${t.baseUrl}/portal/`);
        // Home: this merchant's one payment today, approved, 10.00 EUR (the refund does not change its count).
        const figures = page.getByRole('region', { name: 'Payment figures' });
        await figures.getByText('Payments per day').waitFor();
        assert.match((await figures.locator('dl.tiles > div').first().textContent())!, /^Payments\s*1\b/);
        assert.match((await figures.locator('dl.tiles').textContent())!, /Approval rate\s*100\.0\s?%/);
        // Balance and next payout: the 10.00 EUR captured less the 4.00 refunded waits in pending, no statement yet.
        const money = page.getByRole('region', { name: 'Balance and payouts' });
        const eur = money.getByRole('row').filter({ hasText: 'EUR' });
        await eur.waitFor();
        assert.match((await eur.textContent())!, /€6\.00/);
        assert.match((await eur.textContent())!, /Nothing awaiting transfer/);
        await money.getByText('No statements yet.').waitFor();
        await check('home', width.name);
        // A saved view: the search saved under a name, then applied from its link.
        await page.goto(`${t.baseUrl}/portal/payments?order_id=PORTAL-${kind}`);
        await page.getByRole('link', { name: `PORTAL-${kind}` }).waitFor();
        await page.getByLabel('Save this search as').fill(`Mine at ${width.name}`);
        await page.getByRole('button', { name: 'Save view' }).click();
        await page.getByRole('status').filter({ hasText: `Saved as Mine at ${width.name}.` }).waitFor();
        await page.goto(`${t.baseUrl}/portal/payments`);
        await page.getByRole('region', { name: 'Saved views' }).getByRole('link', { name: `Mine at ${width.name}` }).click();
        await page.waitForURL(/order_id=PORTAL-/);
        await page.getByRole('link', { name: `PORTAL-${kind}` }).waitFor();
        // The owner downloads the refunds (the one of 4.00 above) as CSV from the same screen.
        const refundsHref = await page.getByRole('link', { name: 'Refunds CSV' }).getAttribute('href');
        const refundsCsv = await page.evaluate(async (href) => (await fetch(href!)).text(), refundsHref);
        assert.match(refundsCsv, /"4\.00","EUR",.*Damaged item/);
        await check('payments', width.name);
        await page.goto(`${t.baseUrl}/portal/payments/${paymentId}`);
        await page.getByRole('heading', { name: 'Callbacks' }).waitFor();
        await check('payment', width.name);
        await page.goto(`${t.baseUrl}/portal/developers`);
        await page.getByText(t.merchant.key).waitFor();
        await page.getByText('Sandbox', { exact: true }).first().waitFor();
        const sources = width.name === 'desktop' ? '203.0.113.0/24' : '';
        await page.getByLabel('Allowed source addresses').fill(sources);
        await page.getByRole('button', { name: 'Save', exact: true }).click();
        await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
        await page.getByRole('button', { name: 'Rotate the password…' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Rotate', exact: true }).click();
        await page.getByText('The previous password still works until').waitFor();
        const settings = await adminClient(t.baseUrl, ADMIN_TOKEN)('GET', `/admin/v1/merchants/${t.merchant.id}/settings`);
        assert.deepEqual(settings.body.allowed_source_addresses, sources ? [sources] : []);
        // The callback fields the operator allows: ticked and saved; the return parameters are read-only.
        const mapping = page.getByRole('form', { name: 'Callback and status fields, return parameters' });
        await mapping.getByText('You change the callback fields; your payment provider sets the status fields.').waitFor();
        await mapping.getByRole('region', { name: 'Return parameters' }).getByText('Your payment provider sets these; ask it to change them.').waitFor();
        assert.equal(await mapping.getByLabel('payer_email in status answers').isDisabled(), true);
        assert.equal(await mapping.getByLabel('payment_method', { exact: true }).isDisabled(), true);
        await mapping.getByLabel('payer_email in callbacks').check();
        await mapping.getByRole('button', { name: 'Save fields and parameters' }).click();
        await mapping.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
        assert.deepEqual((await adminClient(t.baseUrl, ADMIN_TOKEN)('GET', `/admin/v1/merchants/${t.merchant.id}/settings`)).body.callback_fields, ['payer_email']);
        await page.getByRole('button', { name: 'Show the secret' }).click();
        await page.getByTestId('shown-once').filter({ hasText: /^whsec_/ }).waitFor();
        await page.getByRole('region', { name: 'Callbacks' }).getByRole('button', { name: 'Resend' }).first().waitFor();
        await page.getByRole('button', { name: 'Send a test callback' }).click();
        await page.getByRole('status').filter({ hasText: /Test callback delivered: your server answered HTTP 200/ }).waitFor({ timeout: 30_000 });
        await check('developers', width.name);
        await page.goto(`${t.baseUrl}/portal/team`);
        const invitee = `dev-${width.name}-${kind}@shop.example`;
        await page.getByLabel('E-mail', { exact: true }).fill(invitee);
        await page.getByLabel('Role', { exact: true }).selectOption('developer');
        await page.getByRole('button', { name: 'Send invitation' }).click();
        await page.getByRole('row').filter({ hasText: invitee }).getByText('invited, link valid until').waitFor();
        await page.getByRole('region', { name: 'Audit log' }).getByRole('cell', { name: 'payment.refund' }).first().waitFor();
        await check('team', width.name);
        await page.goto(`${t.baseUrl}/portal/security`);
        await page.getByRole('heading', { name: 'Two-factor sign-in is on' }).waitFor();
        await check('security', width.name);
        // Signing in at this width: the password, then the code step; and the invitee's link (the invitation screen).
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByLabel('E-mail').fill(email);
        await page.getByLabel('Password').fill(PORTAL_PASSWORD);
        await check('sign-in', width.name);
        await page.getByRole('button', { name: 'Sign in' }).click();
        const code = page.getByLabel('Code from your authenticator app (or a recovery code)');
        await code.waitFor();
        await check('sign-in-code', width.name);
        clock.advance(30_000);
        await code.fill(totp(secret, clock.now()));
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('button', { name: 'Sign out' }).waitFor();
        const invitation = await request(t.baseUrl, 'GET', `/sandbox/outbox/messages?to=${encodeURIComponent(invitee)}`);
        await page.goto((invitation.body.messages[0].link as string).replace(/^https?:\/\/[^/]+/, t.baseUrl));
        await page.getByLabel('New password').waitFor();
        await check('invitation', width.name);
        assert.deepEqual(cspViolations, []);
      });
    }

    it('defends a dispute (a PDF and the defence text, submitted) and accepts another, deadline shown (axe, screenshots)', async () => {
      const admin = adminClient(t.baseUrl, ADMIN_TOKEN);
      const due = new Date(clock.now().getTime() + 2 * 86_400_000).toISOString();
      const ids: string[] = [];
      for (const amount of ['2.00', '1.00']) {
        const opened = await admin('POST', `/admin/v1/payments/${paymentId}/disputes`, { event: 'chargeback', amount, reason_code: '13.1', due_at: due });
        assert.equal(opened.status, 201, opened.text);
        ids.push(opened.body.id);
      }
      await page.setViewportSize(WIDTHS[0]);
      await page.goto(`${t.baseUrl}/portal/disputes`);
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: ids[0]!.slice(-8) }) });
      await row.getByText('due_soon').waitFor();
      await check('disputes', 'desktop');
      await row.getByRole('link').click();
      await page.getByText('The deadline passes within 3 days').waitFor();
      await page.getByLabel('Evidence file (PDF, PNG or JPEG, at most 2 MB)').setInputFiles({ name: 'delivery.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n% proof of delivery\n') });
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByRole('link', { name: 'delivery.pdf' }).waitFor();
      await page.getByLabel('Defence text', { exact: true }).fill('Delivered and signed for by the cardholder.');
      await page.getByRole('button', { name: 'Add the text' }).click();
      await page.getByRole('link', { name: 'Defence text' }).waitFor();
      await check('dispute', 'desktop');
      await page.getByRole('button', { name: 'Submit the defence…' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Submit', exact: true }).click();
      await page.getByRole('heading', { name: /Dispute/ }).getByText('evidence_submitted').waitFor();
      await page.getByRole('row').filter({ hasText: 'information supplied' }).filter({ hasText: `merchant:${email}` }).waitFor();
      await page.goto(`${t.baseUrl}/portal/disputes/${ids[1]}`);
      await page.getByRole('button', { name: 'Accept the dispute…' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Accept', exact: true }).click();
      await page.getByRole('heading', { name: /Dispute/ }).getByText('accepted').waitFor();
      const [defended, accepted] = await Promise.all(ids.map(async (id) => (await admin('GET', `/admin/v1/disputes/${id}`)).body.status));
      assert.deepEqual([defended, accepted], ['evidence_submitted', 'accepted']);
      await page.setViewportSize(WIDTHS[1]);
      await page.goto(`${t.baseUrl}/portal/disputes`);
      await page.getByRole('link', { name: ids[1]!.slice(-8) }).waitFor();
      await check('disputes', 'phone');
      await page.goto(`${t.baseUrl}/portal/disputes/${ids[0]}`);
      await page.getByRole('link', { name: 'delivery.pdf' }).waitFor();
      await check('dispute', 'phone');
      assert.deepEqual(cspViolations, []);
    });
  });
}
