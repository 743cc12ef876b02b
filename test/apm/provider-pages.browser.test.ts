/**
 * The provider kinds' own payer pages in a real browser (chromium), on one store (browserStores): the voucher partner's
 * data-mismatch pop-up, whose Continue link takes the payer to DeclineUrl (the gateway's payer page, which asks the
 * partner and declines with "Transaction does not exist"), and the card-by-bank provider's account list, where the
 * payer enters the beneficiary details, picks an account and pays.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { operatorWithRole, type AdminCall } from '../admin/support.ts';
import { followUp, sale } from './support.ts';
import { merchantWithProvider } from './provider-support.ts';

const browserSkip = browserUnavailable() ?? false;

for (const { kind, skip } of await browserStores()) {
  describe(`provider kinds' payer pages in a real browser (${kind})`, { skip: skip || browserSkip }, () => {
    let gw: TestGateway;
    let admin: AdminCall;
    let browser: Browser;
    before(async () => {
      gw = await startTestGateway(kind);
      admin = (await operatorWithRole(gw, 'admin')).call;
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await gw?.close();
    });

    it('voucher partner: the data-mismatch pop-up, then DeclineUrl, where the payment is declined', async () => {
      const m = await merchantWithProvider(gw, admin, 'voucher-partner', { settings: { language: 'en' } });
      const payer = { PayerId: `u-${Date.now()}`, PayerFirstName: 'Jane', PayerLastName: 'Roe', PayerBirthDate: '1990-04-01', voucher_pin: '1234' };
      const first = await sale(gw, 'voucher-partner', { parameters: payer }, m);
      assert.equal(first.body.result, 'REDIRECT', first.text);
      const res = await sale(gw, 'voucher-partner', { parameters: { ...payer, PayerBirthDate: '1991-04-01' } }, m);
      const page = await browser.newPage();
      try {
        await page.goto(res.body.redirect_url);
        const dialog = page.getByRole('alertdialog', { name: 'Data mismatch' });
        assert.ok(await dialog.isVisible());
        await dialog.getByRole('link', { name: 'Continue' }).click();
        await page.waitForURL(`**/pay/${res.body.trans_id}**`);
        const status = await followUp(gw, 'GET_TRANS_STATUS', res.body.trans_id, {}, m);
        assert.deepEqual([status.body.status, status.body.decline_reason], ['DECLINED', 'Transaction does not exist']);
      } finally {
        await page.close();
      }
    });

    it('card by bank: the payer enters the beneficiary details, picks an account and pays', async () => {
      const m = await merchantWithProvider(gw, admin, 'card-by-bank');
      const res = await sale(gw, 'card-by-bank', {}, m);
      const page = await browser.newPage();
      try {
        await page.goto(res.body.redirect_url);
        assert.equal(await page.getByRole('radio').count(), 3);
        await page.getByLabel('Beneficiary details').fill('Jane Roe');
        await page.getByRole('radio', { name: /Savings account/ }).check();
        await page.getByRole('button', { name: 'Pay' }).click();
        await page.waitForURL(`**/pay/${res.body.trans_id}**`);
        const status = await followUp(gw, 'GET_TRANS_STATUS', res.body.trans_id, {}, m);
        assert.equal(status.body.status, 'SETTLED');
      } finally {
        await page.close();
      }
    });
  });
}
