/**
 * The console's dispute screens in a real browser (issue 29), on one store (browserStores), one gateway and one browser: an
 * operator enters a dispute from a bank letter on the payment's page, defends it (a file of the wrong type is
 * refused with the API's words, a PDF and a text taken, the defence submitted), finds it with the list's filters,
 * raises a sandbox chargeback on a sandbox payment and sees it due soon on the merchant's test clock, refuses an
 * event the table does not allow, accepts it, and sets a merchant's own ratio threshold. axe-core: no serious or
 * critical violation on any of the screens.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { assertNoSeriousAxeViolations, ensureConsoleBuilt } from './support.ts';

const PASSWORD = 'disputes console 2026';

for (const { kind, skip } of await browserStores()) {
  describe(`console: disputes in the browser (${kind})`, { skip: skip || browserUnavailable(), timeout: 600_000 }, () => {
    let t: TestGateway;
    let browser: Browser;
    let page: Page;
    let admin: AdminCall;
    const email = `disputes-${kind}@example.com`;

    before(async () => {
      ensureConsoleBuilt();
      t = await startTestGateway(kind, { adminToken: `console-disputes-${kind}`, workers: true });
      admin = adminClient(t.baseUrl, `console-disputes-${kind}`);
      const user = await admin('POST', '/admin/v1/users', { email, role: 'admin', password: PASSWORD, name: 'Dispute desk' });
      assert.equal(user.status, 201, user.text);
      browser = await launchBrowser();
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(`${t.baseUrl}/admin/`);
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    const paid = async (amount: string) => {
      const res = await sale(t, { order_amount: amount, order_currency: 'EUR' });
      assert.equal(res.body.status, 'SETTLED', res.text);
      return res.body.trans_id as string;
    };
    const statusHeading = (status: string) => page.getByRole('heading', { level: 1, name: `Dispute ${status}` });

    it('enters a dispute from a bank letter on the payment page, defends it and finds it with the filters', async () => {
      const id = await paid('40.00');
      await page.goto(`${t.baseUrl}/admin/payments/${id}`);
      await page.getByRole('heading', { name: 'Disputes' }).waitFor();
      await page.getByText('No dispute on this payment.').waitFor();
      await page.getByRole('button', { name: 'Enter a dispute from a bank letter' }).click();
      await page.getByLabel('Amount (EUR)').fill('25.00');
      await page.getByLabel('Reason code').fill('10.4');
      await page.getByLabel('Raised by the bank on').fill('2030-02-27');
      await page.getByLabel("Note (the letter's reference)").fill('letter 114');
      await page.getByRole('button', { name: 'Enter dispute' }).click();
      await statusHeading('evidence_required').waitFor();
      await page.getByRole('link', { name: id }).waitFor();
      const disputeId = page.url().split('/').pop()!;
      assert.equal((await admin('GET', `/admin/v1/disputes/${disputeId}`)).body.amount, '25.00');
      await assertNoSeriousAxeViolations(page, 'dispute page');

      // A file that is no PDF, PNG or JPEG: the API's words shown, nothing stored.
      const upload = page.getByLabel('Evidence file (PDF, PNG or JPEG, at most 2 MB)');
      await upload.setInputFiles({ name: 'notes.txt', mimeType: 'application/pdf', buffer: Buffer.from('just text') });
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByRole('alert').filter({ hasText: 'application/pdf, image/png, image/jpeg' }).waitFor();
      await upload.setInputFiles({ name: 'delivery.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n% proof of delivery\n') });
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByRole('link', { name: 'delivery.pdf' }).waitFor();
      await page.getByRole('textbox', { name: 'Defence text', exact: true }).fill('Delivered on 2030-02-20, signed for by the cardholder.');
      await page.getByRole('button', { name: 'Add the text' }).click();
      await page.getByRole('link', { name: 'Defence text' }).waitFor();
      const evidence = (await admin('GET', `/admin/v1/disputes/${disputeId}/evidence`)).body;
      assert.deepEqual(evidence.map((e: { content_type: string }) => e.content_type).sort(), ['application/pdf', 'text/plain; charset=utf-8']);

      await page.getByLabel('Submission note').fill('acquirer portal case 4471');
      await page.getByRole('button', { name: 'Submit the defence…' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Submit' }).click();
      await statusHeading('evidence_submitted').waitFor();
      await page.getByRole('cell', { name: 'information_supplied' }).waitFor();

      await page.getByRole('navigation').getByRole('link', { name: 'Disputes', exact: true }).click();
      await page.getByLabel('Status').selectOption('evidence_submitted');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/status=evidence_submitted/);
      await page.getByRole('link', { name: `…${disputeId.slice(-8)}` }).waitFor();
      await assertNoSeriousAxeViolations(page, 'disputes list');
      await page.getByLabel('Stage').selectOption('inquiry');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('No dispute matches.').waitFor();
    });

    it('raises a sandbox chargeback from the payment page; due soon on the test clock; refuses a disallowed event; accepts it', async () => {
      const id = await paid('12.00');
      await page.goto(`${t.baseUrl}/admin/payments/${id}`);
      await page.getByRole('button', { name: 'Raise a sandbox chargeback…' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Raise it' }).click();
      await statusHeading('evidence_required').waitFor();
      const disputeId = page.url().split('/').pop()!;
      const dispute = (await admin('GET', `/admin/v1/disputes/${disputeId}`)).body;
      assert.deepEqual([dispute.source, dispute.amount, dispute.deadline], ['sandbox', '12.00', 'later']);

      // The merchant moves its test clock five of the seven days: the deadline is due soon on its clock.
      const advanced = await t.postJson('/sandbox/test-clock/advance', { merchant_key: t.merchant.key, days: 5, hash: checkoutHash(t.merchant.password, t.merchant.key, '5', '') });
      assert.equal(advanced.status, 200, advanced.text);
      await page.reload();
      await page.getByText('The deadline passes within 3 days').waitFor();
      await page.goto(`${t.baseUrl}/admin/disputes`);
      await page.getByLabel('Due within 3 days or overdue').check();
      await page.getByRole('button', { name: 'Filter' }).click();
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: `…${disputeId.slice(-8)}` }) });
      await row.getByText('due_soon').waitFor();

      await row.getByRole('link', { name: `…${disputeId.slice(-8)}` }).click();
      await page.getByLabel('The acquirer says').selectOption('second_chargeback');
      await page.getByRole('button', { name: 'Record' }).click();
      await page.getByRole('alert').waitFor();
      assert.equal((await admin('GET', `/admin/v1/disputes/${disputeId}`)).body.status, 'evidence_required', 'the refused event changed nothing');
      await page.getByRole('button', { name: 'Accept the dispute…' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Accept' }).click();
      await statusHeading('accepted').waitFor();
    });

    it("shows the month's ratios per merchant and MID and sets a merchant's own threshold", async () => {
      await page.getByRole('navigation').getByRole('link', { name: 'Disputes', exact: true }).click();
      await page.getByRole('link', { name: 'Monthly ratios and thresholds' }).click();
      const table = page.getByRole('region', { name: /Dispute ratios of/ });
      const mine = table.getByRole('row').filter({ has: page.getByRole('link', { name: `…${t.merchant.id.slice(-8)}` }) });
      await mine.getByRole('cell', { name: '0.90 % / 100' }).waitFor();
      await mine.getByRole('link', { name: `…${t.merchant.id.slice(-8)}` }).click();
      const own = page.getByRole('group', { name: `Threshold of merchant ${t.merchant.id}` });
      await own.getByText("(the default's)").waitFor();
      await own.getByLabel('Ratio (% of settled)').fill('0.5');
      await own.getByLabel('Minimum disputes a month').fill('1');
      await own.getByRole('button', { name: 'Save' }).click();
      await own.getByText('0.50 % and 1 disputes (its own)').waitFor();
      await mine.getByRole('cell', { name: '0.50 % / 1' }).waitFor();
      await mine.getByText('over', { exact: true }).waitFor();
      assert.equal((await admin('GET', `/admin/v1/merchants/${t.merchant.id}/dispute-threshold`)).body.source, 'merchant');
      await assertNoSeriousAxeViolations(page, 'dispute ratios');
    });
  });
}
