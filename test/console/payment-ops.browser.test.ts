/**
 * A payment's timeline, refund reasons, internal notes, bulk refunds and the audit log's CSV export in the console
 * (issue 31 items 6 and 10), in a real browser on one store (browserStores): the timeline groups the attempt's steps and says the
 * status in words; a partial refund with a reason and a note appear on it; two payments ticked in the list are
 * refunded together with one reason; the audit log exports those refunds with the reason. axe: no serious or
 * critical violation at 1440 and 390 px.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { ensureConsoleBuilt } from './support.ts';
import { assertAccessible, assertFitsWidth, signIn, signedIn } from './pages/console.ts';
import { AuditLogScreen, PaymentScreen, PaymentsBulk } from './pages/payment.ts';
import { docShot } from './pages/webhooks.ts';

const ADMIN_TOKEN = 'console-payment-ops-admin-token';
const EMAIL = 'payment-ops@example.com';
const PASSWORD = 'console payment ops password 2026';

for (const [index, { kind, skip }] of (await browserStores()).entries()) {
  describe(`console payment timeline, notes and bulk refunds in the browser (${kind})`, { skip: skip || browserUnavailable(), timeout: 300_000 }, () => {
    let t: TestGateway;
    let browser: Browser;
    let listener: Listener;
    let admin: AdminCall;
    const ids: Record<string, string> = {};

    before(async () => {
      ensureConsoleBuilt();
      listener = await startListener();
      t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN, notificationUrl: listener.url, workers: true });
      admin = adminClient(t.baseUrl, ADMIN_TOKEN);
      assert.equal((await admin('POST', '/admin/v1/users', { email: EMAIL, role: 'operator', password: PASSWORD, name: 'Payment ops' })).status, 201);
      for (const order of [`TIMELINE-${kind}`, `BULK-A-${kind}`, `BULK-B-${kind}`]) {
        const res = await sale(t, { order_id: order, order_amount: '8.00', order_currency: 'EUR' });
        assert.equal(res.body.status, 'SETTLED', res.text);
        ids[order] = res.body.trans_id;
      }
      await listener.waitForMatching((c) => c.fields.order_id === `TIMELINE-${kind}`, 1, 20_000);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await listener?.close();
    });

    it('shows the timeline with the attempt grouped and the status in words; a refund with a reason and a note join it', async () => {
      const { context, page } = await signIn(browser, t.baseUrl, EMAIL, PASSWORD);
      const screen = await new PaymentScreen(page).open(t.baseUrl, ids[`TIMELINE-${kind}`]!);
      assert.match(await screen.statusWords(), /^Paid\. 8\.00 EUR taken\./);
      await screen.timeline().getByRole('list', { name: 'Steps of attempt 1' }).getByText(/Acquirer approved/).waitFor();
      await screen.waitForStep(/delivery attempt 1: delivered \(HTTP 200/);
      await screen.refund('2.00', 'Customer request', 'parcel came back');
      await screen.waitForStep('Refund of 2.00 EUR: approved; reason: Customer request: parcel came back');
      assert.match(await screen.statusWords(), /^Partially refunded\. 2\.00 EUR of 8\.00 EUR refunded\./);
      await screen.resendCallback('sale (settled)');
      await page.getByText('Callback sent again from the start, with the same event id.').waitFor();
      await screen.addNote('Payer phoned; refund agreed.');
      await screen.waitForStep('Note: Payer phoned; refund agreed.');
      const steps = await screen.steps();
      assert.match(steps[0]!, /Created: purchase of 8\.00 EUR/);
      assert.match(steps.find((s) => s.includes('Note:'))!, new RegExp(`— ${EMAIL.replace('.', '\\.')}`));
      await assertAccessible(page, 'payment timeline at desktop');
      if (index === 0) {
        await screen.timeline().scrollIntoViewIfNeeded();
        await docShot(page, 'payment-timeline-desktop');
      }
      await context.close();
    });

    it('refunds two ticked payments with one reason in one bulk request and exports the audit log with it', async () => {
      const { context, page } = await signedIn(browser, t.baseUrl, EMAIL, PASSWORD);
      const list = await new PaymentsBulk(page).open(t.baseUrl, `order_id=BULK-A-${kind}`);
      await assertAccessible(page, 'payments with tick boxes at desktop');
      await list.open(t.baseUrl);
      await list.select(`BULK-A-${kind}`);
      await list.select(`BULK-B-${kind}`);
      // One request for both, not one per payment.
      const refundPosts: string[] = [];
      page.on('request', (r) => { if (r.method() === 'POST' && /\/admin\/v1\/payments\/.*refund/.test(r.url())) refundPosts.push(new URL(r.url()).pathname); });
      const summary = await list.refundSelected('Duplicate payment');
      assert.deepEqual(refundPosts, ['/admin/v1/payments/refund']);
      assert.match(summary, /2 of 2 refunded\./);
      assert.match(summary, new RegExp(`BULK-A-${kind}: refunded`));
      if (index === 0) await docShot(page, 'payments-bulk-refund-desktop');
      for (const order of [`BULK-A-${kind}`, `BULK-B-${kind}`]) {
        const detail = await admin('GET', `/admin/v1/payments/${ids[order]}`);
        assert.equal(detail.body.payment.status, 'refund', order);
        assert.equal(detail.body.transactions.find((x: any) => x.type === 'refund').reason_given, 'Duplicate payment');
      }
      const csv = await (await new AuditLogScreen(page).open(t.baseUrl, 'action=payment.refund')).exportCsv();
      const lines = csv.split('\r\n');
      assert.equal(lines[0], 'id,at,user_id,user_name,action,object_type,object_id,before,after,details');
      const bulk = lines.filter((l) => l.includes(ids[`BULK-A-${kind}`]!) || l.includes(ids[`BULK-B-${kind}`]!));
      assert.ok(bulk.length >= 4, `a requested and an approved entry for each: ${bulk.length}`);
      assert.ok(bulk.every((l) => l.includes(`"${EMAIL}"`) && l.includes('reason_given') && l.includes('Duplicate payment')));
      await assertAccessible(page, 'audit log at desktop');
      await context.close();
    });

    it('passes axe and fits the phone width on the payment page and the audit log', async () => {
      const { context, page } = await signedIn(browser, t.baseUrl, EMAIL, PASSWORD, 'phone');
      await new PaymentScreen(page).open(t.baseUrl, ids[`TIMELINE-${kind}`]!);
      await assertAccessible(page, 'payment timeline at phone');
      await assertFitsWidth(page, 'payment timeline at phone');
      if (index === 0) {
        await page.getByRole('region', { name: 'Timeline' }).scrollIntoViewIfNeeded();
        await docShot(page, 'payment-timeline-phone');
      }
      await new AuditLogScreen(page).open(t.baseUrl);
      await page.getByRole('region', { name: 'Audit entries, newest first' }).waitFor();
      await assertAccessible(page, 'audit log at phone');
      await assertFitsWidth(page, 'audit log at phone');
      await context.close();
    });
  });
}
