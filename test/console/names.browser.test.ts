/**
 * Names, not ids (issue 31 item 4), in a real browser on one store (browserStores): the payments and callbacks lists show each
 * row's merchant by name; the merchant picker finds a merchant by part of its name and filters by its id; a
 * payment id is shortened and copied whole; the audit log names the merchant an entry changed. axe finds nothing
 * serious at 1440 and 390 px on the lists.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { ensureConsoleBuilt } from './support.ts';
import { assertAccessible, signIn, signedIn, type Width } from './pages/console.ts';
import { CallbacksList, PaymentsList } from './pages/lists.ts';

const ADMIN_TOKEN = 'console-names-admin-token';
const EMAIL = 'names-admin@example.com';
const PASSWORD = 'console names password 2026';

for (const { kind, skip } of await browserStores()) {
  describe(`console names, not ids (${kind})`, { skip: skip || browserUnavailable(), timeout: 300_000 }, () => {
    let t: TestGateway;
    let browser: Browser;
    let listener: Listener;
    let admin: AdminCall;
    let beta: TestMerchant;
    let alphaPayment: string;

    before(async () => {
      ensureConsoleBuilt();
      listener = await startListener();
      t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN, notificationUrl: listener.url, workers: true });
      admin = adminClient(t.baseUrl, ADMIN_TOKEN);
      assert.equal((await admin('POST', '/admin/v1/users', { email: EMAIL, role: 'admin', password: PASSWORD, name: 'Names admin' })).status, 201);
      beta = await t.addMerchant();
      assert.equal((await admin('PATCH', `/admin/v1/merchants/${t.merchant.id}`, { name: 'Alpha Books' })).status, 200);
      assert.equal((await admin('PATCH', `/admin/v1/merchants/${beta.id}`, { name: 'Beta Bikes' })).status, 200);
      alphaPayment = (await sale(t, { order_id: `ALPHA-${kind}` })).body.trans_id;
      assert.ok(alphaPayment);
      assert.equal((await sale(t, { order_id: `BETA-${kind}` }, beta)).body.status, 'SETTLED');
      await listener.waitForMatching((c) => c.fields.order_id === `ALPHA-${kind}`, 1, 20_000);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await listener?.close();
    });

    it('names the merchant of each payment and filters by a merchant found by name', async () => {
      const { context, page } = await signIn(browser, t.baseUrl, EMAIL, PASSWORD);
      const payments = await new PaymentsList(page).open(t.baseUrl);
      await payments.row(`ALPHA-${kind}`).getByRole('link', { name: 'Alpha Books' }).waitFor();
      await payments.row(`BETA-${kind}`).getByRole('link', { name: 'Beta Bikes' }).waitFor();
      await payments.filterByMerchant('bikes', beta.id);
      // The list is replaced when the filter's answer comes: wait for Alpha's row to go, then Beta's must be there.
      await payments.row(`ALPHA-${kind}`).waitFor({ state: 'detached' });
      await payments.row(`BETA-${kind}`).waitFor();
      assert.equal(await payments.row(`ALPHA-${kind}`).count(), 0, 'only Beta Bikes\' payments are listed');
      await context.close();
    });

    it('shows a callback\'s merchant by name and its payment id short, copied whole', async () => {
      const { context, page } = await signedIn(browser, t.baseUrl, EMAIL, PASSWORD);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
      const callbacks = await new CallbacksList(page).open(t.baseUrl, `merchant_id=${t.merchant.id}`);
      const row = callbacks.rows().filter({ has: page.getByRole('link', { name: 'Alpha Books' }) }).first();
      await row.waitFor();
      assert.equal(await row.getByRole('link', { name: alphaPayment.slice(0, 8), exact: false }).count(), 1);
      await row.getByRole('button', { name: `Copy the whole id ${alphaPayment}` }).click();
      await row.getByRole('button', { name: `Copy the whole id ${alphaPayment}` }).getByText('Copied').waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), alphaPayment);
      await context.close();
    });

    it('names the merchant an audit entry changed', async () => {
      const { context, page } = await signedIn(browser, t.baseUrl, EMAIL, PASSWORD);
      await page.goto(`${t.baseUrl}/admin/audit?object_id=${beta.id}`);
      await page.getByRole('region', { name: 'Audit entries, newest first' }).getByRole('link', { name: 'Beta Bikes' }).first().waitFor();
      await context.close();
    });

    for (const width of ['desktop', 'phone'] as Width[]) {
      it(`passes axe on the payments and callbacks lists at ${width} width`, async () => {
        const { context, page } = await signedIn(browser, t.baseUrl, EMAIL, PASSWORD, width);
        await new PaymentsList(page).open(t.baseUrl);
        await page.getByRole('region', { name: 'Payments found' }).waitFor();
        await assertAccessible(page, `payments at ${width}`);
        await (await new CallbacksList(page).open(t.baseUrl)).rows().first().waitFor();
        await assertAccessible(page, `callbacks at ${width}`);
        await context.close();
      });
    }
  });
}
