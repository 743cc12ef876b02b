/**
 * Webhook management in the console (issue 31 items 7 and 10), in a real browser on one store (browserStores): a callback waiting
 * behind an earlier failing one says so with that one's attempt count and a next attempt not in the past; ticked
 * callbacks and a filtered set are resent with a word on what happened; the list exports as CSV; a merchant's
 * Webhooks tab sends a test callback that arrives signed with the secret it reveals, and rotates the secret.
 * axe: no serious or critical violation at 1440 and 390 px.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { adminClient } from '../admin/support.ts';
import { ensureConsoleBuilt } from './support.ts';
import { assertAccessible, assertFitsWidth, signIn, signedIn, type Width } from './pages/console.ts';
import { CallbacksScreen, MerchantWebhooksTab, docShot } from './pages/webhooks.ts';

const ADMIN_TOKEN = 'console-webhooks-admin-token';
const EMAIL = 'webhooks-operator@example.com';
const PASSWORD = 'console webhooks password 2026';

for (const [index, { kind, skip }] of (await browserStores()).entries()) {
  describe(`console webhook management in the browser (${kind})`, { skip: skip || browserUnavailable(), timeout: 300_000 }, () => {
    let t: TestGateway;
    let browser: Browser;
    let listener: Listener;
    const paymentId = crypto.randomUUID();
    const first = crypto.randomUUID();
    const second = crypto.randomUUID();

    before(async () => {
      ensureConsoleBuilt();
      listener = await startListener();
      t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN, notificationUrl: listener.url, workers: true });
      const admin = adminClient(t.baseUrl, ADMIN_TOKEN);
      assert.equal((await admin('POST', '/admin/v1/users', { email: EMAIL, role: 'operator', password: PASSWORD, name: 'Webhooks operator' })).status, 201);
      // A sale callback failing (3 attempts, next in 10 minutes) and the refund callback behind it, scheduled a minute ago.
      const insert = `INSERT INTO callbacks (id, merchant_id, payment_id, url, protocol, fields, body, status, attempts, next_attempt_at, last_error, created_at)
        VALUES ($1, $2, $3, 'http://127.0.0.1:9/down', 'checkout', $4::text::jsonb, 'x=1', 'pending', $5, now() + $6::interval, $7, now() + $8::interval)`;
      await t.store.db.query(insert, [first, t.merchant.id, paymentId, JSON.stringify({ type: 'sale', status: 'success' }), 3, '10 minutes', 'HTTP 500', '-2 seconds']);
      await t.store.db.query(insert, [second, t.merchant.id, paymentId, JSON.stringify({ type: 'refund', status: 'success' }), 0, '-1 minute', null, '-1 second']);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await listener?.close();
    });

    it('says which callback waits behind which, resends ticked ones and a filtered set, and exports the list', async () => {
      const { context, page } = await signIn(browser, t.baseUrl, EMAIL, PASSWORD);
      const screen = await new CallbacksScreen(page).open(t.baseUrl, `payment_id=${paymentId}`);
      const waiting = screen.row(second);
      await waiting.getByText('Waiting behind an earlier callback').waitFor();
      await waiting.getByText(/3 attempts so far, last error HTTP 500/).waitFor();
      assert.equal(await waiting.getByRole('cell', { name: 'refund (success)' }).count(), 1);
      assert.doesNotMatch(await waiting.locator('td').nth(9).textContent() ?? '', /now/, 'not due before the one it waits behind');
      await assertAccessible(page, 'callbacks at desktop');
      if (index === 0) await docShot(page, 'callbacks-desktop');

      const csv = await screen.exportCsv();
      const lines = csv.split('\r\n');
      assert.match(lines[0]!, /^id,created_at,merchant_id,payment_id,event_type/);
      assert.equal(lines.length, 3);
      assert.ok(lines.some((l) => l.includes(second) && l.includes('"waiting_behind"')));

      await screen.select(first);
      await screen.select(second);
      assert.match(await screen.resendSelected(), /2 retrying callbacks due now/);

      await t.store.db.query(`UPDATE callbacks SET status = 'failed', locked_until = NULL, lease_token = NULL WHERE payment_id = $1`, [paymentId]);
      await page.reload();
      await screen.row(first).waitFor();
      assert.match(await screen.resendAllMatching(), /2 sent again from the start/);
      const audit = await adminClient(t.baseUrl, ADMIN_TOKEN)('GET', `/admin/v1/audit-log?action=callback.resend&object_id=${second}`);
      assert.equal(audit.body.entries.length, 2, audit.text);
      assert.equal(audit.body.entries[0].user.name, EMAIL);
      await t.store.db.query(`UPDATE callbacks SET status = 'failed', locked_until = NULL, lease_token = NULL WHERE payment_id = $1`, [paymentId]);
      await context.close();
    });

    it('filters by delivery state and event, resends the filtered set server-side, and loads the next page', async () => {
      const payment = crypto.randomUUID();
      const [failing, behind] = [crypto.randomUUID(), crypto.randomUUID()];
      const insert = `INSERT INTO callbacks (id, merchant_id, payment_id, url, protocol, fields, body, status, attempts, next_attempt_at, last_error, created_at)
        VALUES ($1, $2, $3, 'http://127.0.0.1:9/down', 'checkout', $4::text::jsonb, 'x=1', 'pending', $5, now() + $6::interval, $7, now() + $8::interval)`;
      await t.store.db.query(insert, [failing, t.merchant.id, payment, JSON.stringify({ type: 'sale', status: 'success' }), 2, '10 minutes', 'HTTP 502', '-2 seconds']);
      await t.store.db.query(insert, [behind, t.merchant.id, payment, JSON.stringify({ type: 'refund', status: 'success' }), 0, '-1 minute', null, '-1 second']);
      // 101 delivered sale callbacks of another payment: one page more than the screen's 100.
      const many = crypto.randomUUID();
      await t.store.db.query(`INSERT INTO callbacks (id, merchant_id, payment_id, url, protocol, fields, body, status, attempts, next_attempt_at, created_at, delivered_at)
        SELECT gen_random_uuid()::text, $1, $2, 'http://127.0.0.1:9/ok', 'checkout', '{"type":"sale","status":"success"}'::jsonb, 'x=1', 'delivered', 1, now(), now() - i * interval '1 second', now()
          FROM generate_series(1, 101) i`, [t.merchant.id, many]);

      const { context, page } = await signedIn(browser, t.baseUrl, EMAIL, PASSWORD);
      const screen = await new CallbacksScreen(page).open(t.baseUrl, `payment_id=${payment}`);
      await screen.row(failing).waitFor();
      await screen.filter({ state: 'waiting_behind', event: 'refund' });
      await page.waitForURL(/state=waiting_behind/);
      await screen.row(behind).waitFor();
      await screen.row(failing).waitFor({ state: 'detached' });
      assert.equal(await screen.rows().count(), 1);
      assert.match(await screen.resendAllMatching(), /^1 retrying callback due now\./);

      await screen.open(t.baseUrl, `payment_id=${many}`);
      await screen.rows().nth(99).waitFor();
      assert.equal(await screen.rows().count(), 100);
      await screen.loadMore();
      await screen.rows().nth(100).waitFor();
      assert.equal(await screen.rows().count(), 101);
      await page.getByRole('button', { name: 'Load more' }).waitFor({ state: 'detached' });
      await t.store.db.query(`UPDATE callbacks SET status = 'failed', locked_until = NULL, lease_token = NULL WHERE payment_id = $1`, [payment]);
      await context.close();
    });

    it('sends a test callback from the Webhooks tab, signed with the secret it reveals, and rotates the secret', async () => {
      const { context, page } = await signedIn(browser, t.baseUrl, EMAIL, PASSWORD);
      const tab = await new MerchantWebhooksTab(page).open(t.baseUrl, t.merchant.id);
      assert.match(await tab.sendTest(), /Test callback delivered: the receiver answered HTTP 200/);
      const [received] = await listener.waitForMatching((c) => c.fields.type === 'test', 1);
      const secret = await tab.revealSecret();
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      const signature = createHmac('sha256', key).update(`${received!.headers['webhook-id']}.${received!.headers['webhook-timestamp']}.${received!.raw}`).digest('base64');
      assert.ok(String(received!.headers['webhook-signature']).split(' ').includes(`v1,${signature}`), 'the revealed secret verifies the test callback');
      await assertAccessible(page, 'merchant webhooks at desktop');
      if (index === 0) await docShot(page, 'webhooks-desktop');
      const rotated = await tab.rotateSecret();
      assert.match(rotated, /^whsec_/);
      assert.notEqual(rotated, secret);
      await context.close();
    });

    for (const width of ['phone'] as Width[]) {
      it(`passes axe and fits the ${width} width on the callbacks list and the Webhooks tab`, async () => {
        const { context, page } = await signedIn(browser, t.baseUrl, EMAIL, PASSWORD, width);
        const screen = await new CallbacksScreen(page).open(t.baseUrl, `payment_id=${paymentId}`);
        await screen.row(second).waitFor();
        await assertAccessible(page, `callbacks at ${width}`);
        await assertFitsWidth(page, `callbacks at ${width}`);
        if (index === 0) await docShot(page, `callbacks-${width}`);
        await new MerchantWebhooksTab(page).open(t.baseUrl, t.merchant.id);
        await page.getByRole('region', { name: "The merchant's latest callbacks" }).waitFor();
        await assertAccessible(page, `merchant webhooks at ${width}`);
        await assertFitsWidth(page, `merchant webhooks at ${width}`);
        if (index === 0) await docShot(page, `webhooks-${width}`);
        await context.close();
      });
    }
  });
}
