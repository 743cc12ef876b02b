/**
 * The console's money screens in a real browser (issue 27), on one store (browserStores), one gateway and one browser for the
 * file: a day's EUR sales settled T+1 into a statement by the settlement worker, then an admin edits the fee
 * schedule (each bad row named in words, then saved), reads the balances and posts an adjustment, opens the
 * statement, downloads its CSV, exports the payouts (CSV, SEPA) and marks it paid with the bank's reference, and
 * sees a payment's fee and ledger entries. axe-core checks every screen (no critical or serious violation).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { assertNoSeriousAxeViolations as assertAccessible, ensureConsoleBuilt, signInConsole, signedInConsole } from './support.ts';

const TOKEN = 'money-browser-admin-token';
const PASSWORD = 'money console password 2026';

for (const { kind, skip } of await browserStores()) {
  describe(`console money screens in the browser (${kind})`, { skip: skip || browserUnavailable(), timeout: 300_000 }, () => {
    let t: TestGateway;
    let browser: Browser;
    let admin: AdminCall;
    const clock = new ManualClock('2030-04-01T10:00:00Z');
    const email = `money-admin-${kind}@example.com`;
    const csp: string[] = [];
    const sales: string[] = [];
    let statementId = '';

    before(async () => {
      ensureConsoleBuilt();
      t = await startTestGateway(kind, { clock, adminToken: TOKEN });
      admin = adminClient(t.baseUrl, TOKEN);
      const m = t.merchant.id;
      assert.equal((await admin('POST', '/admin/v1/users', { email, role: 'admin', password: PASSWORD, name: 'Money admin' })).status, 201);
      const terms = await admin('PUT', `/admin/v1/merchants/${m}/money/terms`, {
        settlement_delay_days: 1, payout_account: { name: 'Muster Shop GmbH', iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX' },
      });
      assert.equal(terms.status, 200, terms.text);
      const fees = await admin('POST', '/admin/v1/money/fee-schedules', { merchant_id: m, effective_from: clock.now().toISOString(), rows: [{ operation: 'sale', percent: '1' }] });
      assert.equal(fees.status, 201, fees.text);
      for (const amount of ['10.00', '20.00']) {
        const paid = await sale(t, { order_amount: amount, order_currency: 'EUR', order_id: `MONEY-${amount}-${kind}` });
        assert.equal(paid.body.status, 'SETTLED', paid.text);
        sales.push(paid.body.trans_id);
      }
      clock.set(new Date('2030-04-03T00:20:00Z'));
      await t.gateway.settlement.runOnce();
      const [statement] = (await admin('GET', `/admin/v1/money/statements?merchant_id=${m}`)).body;
      assert.equal(statement?.net_payable, '29.70', 'the statement the screens show: 30.00 less 1 % fees');
      statementId = statement.id;
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it('edits the fee schedule: bad rows named in words, then a new version from its date', async () => {
      const { context, page } = await signInConsole(browser, t.baseUrl, email, PASSWORD, csp);
      await page.getByRole('link', { name: 'Money' }).click();
      await page.getByRole('link', { name: 'Fee schedules' }).click();
      await page.getByLabel('Schedule of').selectOption(t.merchant.id);
      await page.getByRole('region', { name: /Fee rows from/ }).getByRole('cell', { name: '1 %' }).waitFor();
      await assertAccessible(page, 'fee schedules');
      const editor = page.getByRole('form', { name: 'New version' });
      await editor.getByLabel('Effective from').fill('2030-05-01T00:00');
      await editor.getByRole('button', { name: 'Add row' }).click();
      const row2 = editor.getByRole('group', { name: 'Row 2' });
      await row2.getByLabel('Operation').selectOption('refund');
      await row2.getByLabel('Percent').fill('-1');
      await row2.getByLabel('Minimum').fill('2.00');
      await row2.getByLabel('Maximum (empty: none)').fill('1.00');
      await editor.getByRole('button', { name: 'Save version' }).click();
      // The API's D3 errors, each beside its field, in words.
      const percentError = row2.locator('.field-error').first();
      await percentError.waitFor();
      assert.match(await row2.innerText(), /percent|negative/i);
      assert.equal(await row2.getByLabel('Percent').getAttribute('aria-invalid'), 'true');
      await assertAccessible(page, 'fee schedule errors');
      await row2.getByLabel('Percent').fill('0.5');
      await row2.getByLabel('Minimum').fill('0');
      await row2.getByLabel('Currency (* any)').fill('EUR'); // a fixed maximum needs its currency
      await editor.getByRole('button', { name: 'Save version' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved: the new version is listed above.' }).waitFor();
      const versions = (await admin('GET', `/admin/v1/money/fee-schedules?merchant_id=${t.merchant.id}`)).body.filter((s: { merchant_id: string }) => s.merchant_id === t.merchant.id);
      assert.equal(versions.length, 2);
      const latest = versions.find((s: { effective_from: string }) => s.effective_from.startsWith('2030-05-01'));
      assert.deepEqual(latest.rows.map((r: { operation: string; percent: string; max: string | null }) => [r.operation, r.percent, r.max]), [['sale', '1', null], ['refund', '0.5', '1.00']]);
      await page.getByRole('heading', { name: /From/ }).nth(1).waitFor();
      await context.close();
    });

    it('shows the balances and posts an adjustment with a reason (refused without one)', async () => {
      const { context, page } = await signedInConsole(browser, t.baseUrl, email, PASSWORD, csp);
      await page.goto(`${t.baseUrl}/admin/money?merchant_id=${t.merchant.id}`);
      const table = page.getByRole('region', { name: 'Balances per currency' });
      const available = table.locator('td[data-label="Available"]');
      await available.filter({ hasText: '€29.70' }).waitFor();
      await assertAccessible(page, 'balances');
      // The merchant's fees as CSV (issue 30): each fee line of its ledger, the 1 % of its sales.
      const [fees] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export fees CSV' }).click()]);
      const feeCsv = readFileSync((await fees.path())!, 'utf8');
      assert.match(feeCsv, /^"created_at","merchant_id","payment_id","order_id","transaction_id","transaction_type","transaction_amount","event","fee","currency"\r\n/);
      assert.ok(feeCsv.split('\r\n').slice(1).some((l) => l.includes(`"${t.merchant.id}"`) && l.includes('"fee"') && l.includes('"EUR"')), feeCsv);
      const form = page.getByRole('form', { name: 'Manual adjustment' });
      await form.getByLabel('Currency').fill('EUR');
      await form.getByLabel('Amount').fill('5.00');
      await form.getByRole('button', { name: 'Post adjustment' }).click();
      await form.getByRole('alert').waitFor();
      assert.equal(await form.getByLabel('Reason').getAttribute('aria-invalid'), 'true', 'the missing reason is named at its field');
      await form.getByLabel('Reason').fill('Goodwill, ticket 4711');
      await form.getByRole('button', { name: 'Post adjustment' }).click();
      await form.getByRole('status').filter({ hasText: 'Posted.' }).waitFor();
      await available.filter({ hasText: '€34.70' }).waitFor();
      const balances = (await admin('GET', `/admin/v1/merchants/${t.merchant.id}/balances`)).body.balances;
      assert.equal(balances[0].available, '34.70');
      await context.close();
    });

    it('opens the statement, downloads its CSV, exports the payouts and marks it paid', async () => {
      const { context, page } = await signedInConsole(browser, t.baseUrl, email, PASSWORD, csp);
      await page.goto(`${t.baseUrl}/admin/money/payouts`);
      const [payouts] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export payouts CSV' }).click()]);
      assert.match(readFileSync((await payouts.path())!, 'utf8'), new RegExp(statementId));
      const sepa = page.getByRole('form', { name: 'SEPA credit transfer file' });
      await sepa.getByLabel('Debtor name').fill('Portcullis Payments Ltd');
      await sepa.getByLabel('Debtor IBAN').fill('DE00 0000 0000 0000 0000 00');
      await sepa.getByLabel('Debtor BIC').fill('COBADEFFXXX');
      await sepa.getByRole('button', { name: 'Export SEPA file' }).click();
      await sepa.getByRole('alert').waitFor(); // a bad IBAN named, no file
      assert.match(await sepa.getByRole('alert').innerText(), /iban/i);
      await sepa.getByLabel('Debtor IBAN').fill('DE89 3704 0044 0532 0130 00');
      const [xml] = await Promise.all([page.waitForEvent('download'), sepa.getByRole('button', { name: 'Export SEPA file' }).click()]);
      const file = readFileSync((await xml.path())!, 'utf8');
      assert.match(file, /pain\.001\.001\.09/);
      assert.match(file, /<InstdAmt Ccy="EUR">29\.70<\/InstdAmt>/);
      await sepa.getByRole('status').filter({ hasText: '1 transfer(s)' }).waitFor();
      await assertAccessible(page, 'payouts');

      await page.getByRole('link', { name: 'Statements' }).click();
      await page.getByRole('link', { name: 'to 2030-04-02 EUR' }).click();
      await page.getByRole('heading', { name: /Statement to 2030-04-02 EUR/ }).waitFor();
      for (const id of sales) await page.getByRole('link', { name: id }).first().waitFor();
      await assertAccessible(page, 'statement');
      const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
      const text = readFileSync((await csv.path())!, 'utf8');
      for (const id of sales) assert.ok(text.includes(id), `${id} in the statement CSV`);
      assert.match(text, /total:net_payable,,,,29\.70,EUR/);
      await page.getByRole('button', { name: 'Mark paid…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Bank reference').fill('SEPA-2030-04-03-0001');
      await dialog.getByRole('button', { name: 'Mark paid', exact: true }).click();
      await page.getByText('SEPA-2030-04-03-0001').first().waitFor();
      const paid = (await admin('GET', `/admin/v1/money/statements/${statementId}`)).body;
      assert.equal(paid.payout?.bank_reference, 'SEPA-2030-04-03-0001');
      await context.close();
    });

    it('shows a payment\'s fee and ledger entries on its page', async () => {
      const { context, page } = await signedInConsole(browser, t.baseUrl, email, PASSWORD, csp);
      await page.goto(`${t.baseUrl}/admin/payments/${sales[1]}`);
      const section = page.locator('section[aria-labelledby="money"]');
      await section.getByText('€0.20').first().waitFor(); // 1 % of 20.00
      await section.getByText('€19.80').first().waitFor();
      const ledger = (await admin('GET', `/admin/v1/payments/${sales[1]}/ledger`)).body;
      assert.equal(await section.getByRole('region', { name: 'Ledger entries' }).locator('tbody tr').count(), ledger.entries.length);
      assert.ok(ledger.entries.length >= 2);
      await assertAccessible(page, 'payment with its fee');
      assert.deepEqual(csp, [], 'no Content-Security-Policy violation');
      await context.close();
    });
  });
}
