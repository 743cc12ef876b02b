/**
 * End to end, on one store (browserStores), in a real browser: a 3DS SALE answers REDIRECT; the merchant's page posts
 * redirect_params to the gateway's ACS page; the payer completes the challenge; the browser lands on
 * term_url_3ds; the final callback arrives signed with Formula 2.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { CARD, EMAIL, f2, followUp, sale, startListener, type Listener } from './support.ts';
import { merchantSite, type MerchantSite } from '../support/merchant-site.ts';

const unavailable = browserUnavailable();

/** The first callback of a payment at a listener, once it arrives. */
async function callbackFor(listener: Listener, transId: string): Promise<Record<string, string>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = listener.received.find((c) => c.fields.trans_id === transId);
    if (found) return found.fields;
    if (Date.now() > deadline) throw new Error(`no callback for ${transId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const { kind, skip } of await browserStores()) {
  describe(`S2S CARD 3DS SALE in a browser (${kind})`, { skip: skip || unavailable || false }, () => {
    let gw: TestGateway;
    let callbacks: Listener;
    let site: Awaited<ReturnType<typeof merchantSite>>;
    let browser: Browser;
    before(async () => {
      callbacks = await startListener('OK');
      site = await merchantSite();
      gw = await startTestGateway(kind, { workers: true, notificationUrl: callbacks.url });
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await gw?.close();
      await site?.close();
      await callbacks?.close();
    });

    it('REDIRECT, ACS page, back to term_url_3ds, final callback with F2', async () => {
      const res = await sale(gw, { card_exp_month: '05', term_url_3ds: `${site.origin}/return?order=42` });
      assert.equal(res.body.result, 'REDIRECT', res.text);
      assert.equal(res.body.status, '3DS');
      assert.equal(res.body.redirect_method, 'POST');
      const id = res.body.trans_id as string;
      site.redirect = { url: res.body.redirect_url, params: res.body.redirect_params };

      const page = await (await browser.newContext()).newPage();
      await page.goto(`${site.origin}/pay`);
      await page.waitForURL(`${gw.baseUrl}/sandbox/acs/${id}`);
      assert.equal(await page.locator(`input[name="MD"]`).getAttribute('value'), id, 'the ACS page carries the posted MD');
      await page.fill('input[name="otp"]', '123456');
      await page.click('button[value="submit"]');
      await page.waitForURL(`${site.origin}/return?order=42`);
      await page.locator('#returned').waitFor();
      assert.deepEqual(site.returns, ['/return?order=42']);

      const final = await callbackFor(callbacks, id);
      assert.equal(final.action, 'SALE');
      assert.equal(final.result, 'SUCCESS');
      assert.equal(final.status, 'SETTLED');
      assert.equal(final.hash, f2(EMAIL, gw.merchant.password, id, CARD));
      assert.equal((await followUp(gw, 'GET_TRANS_STATUS', id)).body.status, 'SETTLED');
    });

    it('a declined challenge (expiry month 06) returns the payer and reports DECLINED', async () => {
      const res = await sale(gw, { card_exp_month: '06', term_url_3ds: `${site.origin}/return?order=43` });
      const id = res.body.trans_id as string;
      site.redirect = { url: res.body.redirect_url, params: res.body.redirect_params };
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${site.origin}/pay`);
      await page.waitForURL(`${gw.baseUrl}/sandbox/acs/${id}`);
      await page.fill('input[name="otp"]', '000000');
      await page.click('button[value="submit"]');
      await page.waitForURL(`${site.origin}/return?order=43`);
      const cb = await callbackFor(callbacks, id);
      assert.equal(cb.result, 'DECLINED');
      assert.equal(cb.status, 'DECLINED');
      assert.equal(cb.hash, f2(EMAIL, gw.merchant.password, id, CARD));
    });
  });
}
