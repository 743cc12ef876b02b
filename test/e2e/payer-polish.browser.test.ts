/**
 * Issue 31 items 12 to 14 in a real browser (Debian chromium), one gateway and one browser per store: after a decline
 * the payer's e-mail and billing address are still filled in (only the card is typed anew); the wallets are buttons
 * at the top, above the card form, with the form's one Pay button below; the 3-D Secure page and the receipt show the
 * order number and a short payment reference rather than the payment's UUID, and a merchant who turned it on has the
 * receipt e-mailed to the payer (once). Every state is audited with axe (no serious or critical) at 1440 and 390 px.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { assertAccessible, controlPageClock } from '../support/payer-pages.ts';
import { adminCall, tokenFor } from '../admin/config-support.ts';
import { configureWallets, walletKit } from '../s2s-card/wallet-support.ts';
import { findPaymentsByOrder } from '../../src/store/payments-repo.ts';
import { shortReference } from '../../src/domain/ids.ts';
import { receiptMailOf } from '../../src/store/receipt-mails-repo.ts';
import { saveScreenshot } from '../support/screenshots.ts';

async function startShop(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html lang="en"><title>Shop</title><h1>Shop ${new URL(req.url ?? '/', 'http://x').pathname}</h1>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

const WIDTHS = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } } as const;
/** Screenshots the docs show (docs/merchants/checkout.md), written by the first store's run. */
const SHOTS = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../docs/merchants/payer-screenshots');
const browserSkip = browserUnavailable() ?? false;
let n = 0;

for (const [index, { kind, skip }] of (await browserStores()).entries()) {
  const shot = async (page: Page, name: string) => {
    if (index !== 0) return;
    mkdirSync(SHOTS, { recursive: true });
    await saveScreenshot(page, path.join(SHOTS, `${name}.png`), { fullPage: true });
  };
  describe(`payer pages after issue 31 (${kind})`, { skip: skip || browserSkip }, () => {
    let t: TestGateway;
    let shop: Awaited<ReturnType<typeof startShop>>;
    let browser: Browser;
    let billing: TestMerchant;

    before(async () => {
      shop = await startShop();
      t = await startTestGateway(kind);
      // A merchant whose Protocol Mapping requires the billing address: the card form asks it.
      billing = await t.addMerchant({ settings: { requiredPayerFields: ['payer_country', 'payer_city', 'payer_address', 'payer_zip'] } });
      const operator = await tokenFor(t, 'operator');
      await configureWallets(t, operator, t.merchant.id, await walletKit(t), false);
      const on = await adminCall(t.baseUrl, 'PATCH', `/admin/v1/merchants/${t.merchant.id}/settings`, operator, { receipt_email: true });
      assert.equal(on.status, 200, on.text);
      assert.equal(on.body.receipt_email, true);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await shop?.close();
    });

    async function openSession(m: TestMerchant, methods: string[], customer: Record<string, string>) {
      const order = { number: `PP-${process.pid}-${++n}`, amount: '42.00', currency: 'EUR', description: 'Polish order' };
      const res = await t.postJson('/api/v1/session', {
        merchant_key: m.key, operation: 'purchase', methods, order, customer,
        success_url: `${shop.url}/success`, cancel_url: `${shop.url}/cancel`, error_url: `${shop.url}/error`,
        hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
      });
      assert.equal(res.status, 200, res.text);
      return { url: res.body.redirect_url as string, order };
    }

    async function pageAt(width: keyof typeof WIDTHS): Promise<Page> {
      const context = await browser.newContext({ locale: 'en-GB', viewport: WIDTHS[width], bypassCSP: true });
      const page = await context.newPage();
      await controlPageClock(page);
      return page;
    }

    async function fillCard(page: Page, expiry: string) {
      await page.fill('#card_number', '4111111111111111');
      await page.fill('#card_expiry', expiry);
      await page.fill('#card_cvv', '123');
      await page.fill('#card_holder', 'Jane Roe');
    }

    it('after a decline the e-mail and billing address the payer typed are still there; only the card is typed again', async () => {
      const { url } = await openSession(billing, ['card'], { name: 'Jane Roe' });
      const page = await pageAt('desktop');
      await page.goto(url);
      await page.fill('#email', 'jane.roe@example.com');
      await page.selectOption('#billing_country', 'DE');
      await page.fill('#billing_address', 'Unter den Linden 1');
      await page.fill('#billing_city', 'Berlin');
      await page.fill('#billing_zip', '10117');
      await fillCard(page, '02/38');
      await page.click('#pay-button');
      await page.locator('#error-summary[data-decline]').waitFor();
      assert.equal(await page.inputValue('#email'), 'jane.roe@example.com');
      assert.equal(await page.inputValue('#billing_country'), 'DE');
      assert.equal(await page.inputValue('#billing_address'), 'Unter den Linden 1');
      assert.equal(await page.inputValue('#billing_city'), 'Berlin');
      assert.equal(await page.inputValue('#billing_zip'), '10117');
      assert.equal(await page.inputValue('#card_number'), '', 'the card number is never shown again');
      await assertAccessible(page, 'declined, fields kept, 1440');
      await shot(page, 'declined-fields-kept-desktop');
      await page.setViewportSize(WIDTHS.phone);
      await assertAccessible(page, 'declined, fields kept, 390');
      // The next try needs only a card.
      await fillCard(page, '01/38');
      await page.click('#pay-button');
      await page.locator('#receipt').waitFor();
      await page.context().close();
    });

    it('wallets are buttons at the top, above the card form; the form has one Pay button', async () => {
      const { url } = await openSession(t.merchant, ['card', 'googlepay', 'applepay'], { name: 'Jane Roe', email: 'jane@example.com' });
      for (const width of ['desktop', 'phone'] as const) {
        const page = await pageAt(width);
        await page.goto(url);
        const order = await page.evaluate(() => [...document.querySelectorAll('#wallet-button-googlepay, #wallet-button-applepay, #card_number, #pay-button')].map((e) => e.id));
        assert.deepEqual(order, ['wallet-button-googlepay', 'wallet-button-applepay', 'card_number', 'pay-button']);
        assert.equal(await page.locator('button[type=submit].btn--pay, #pay-button').count(), 1);
        assert.equal(await page.locator('#pay-form input[name=method]').count(), 1, 'the card is the form\'s only method: the wallets are not radio choices');
        assert.equal((await page.locator('.express-or').innerText()).trim().toLowerCase(), 'or pay by card');
        await assertAccessible(page, `wallets at the top, ${width}`);
        await shot(page, `wallets-at-top-${width}`);
        await page.context().close();
      }
    });

    it('the 3-D Secure page and the receipt show the order number and a short reference; the receipt is e-mailed once', async () => {
      const email = `receipt-${n}-${process.pid}@example.com`;
      const { url, order } = await openSession(t.merchant, ['card'], { name: 'Jane Roe', email });
      const page = await pageAt('desktop');
      await page.goto(url);
      await fillCard(page, '05/38'); // the sandbox's 3-D Secure challenge
      await page.click('#pay-button');
      await page.waitForURL(/\/sandbox\/acs\//);
      const [payment] = await findPaymentsByOrder(t.store.db, t.merchant.id, order.number, 1);
      const ref = shortReference(payment!.id);
      assert.match(ref, /^[0-9A-F]{4}-[0-9A-F]{4}$/);
      const acs = await page.locator('main .details').innerText();
      assert.ok(acs.includes(order.number) && acs.includes(ref), acs);
      assert.ok(!acs.includes(payment!.id), 'no raw UUID');
      await assertAccessible(page, '3-D Secure page, 1440');
      await shot(page, 'acs-reference-desktop');
      await page.setViewportSize(WIDTHS.phone);
      await assertAccessible(page, '3-D Secure page, 390');
      await page.fill('#otp', '1234');
      await page.click('button[name=decision][value=submit]');
      await page.locator('#receipt').waitFor();
      const receipt = await page.locator('#receipt').innerText();
      assert.ok(receipt.includes(order.number) && receipt.includes(ref), receipt);
      assert.ok(!receipt.includes(payment!.id), 'no raw UUID');
      await assertAccessible(page, 'receipt, 390');
      await shot(page, 'receipt-reference-phone');
      await page.setViewportSize(WIDTHS.desktop);
      await assertAccessible(page, 'receipt, 1440');
      await page.reload(); // the receipt page again: the mail is not sent twice
      type Outbox = { messages: { subject: string; body: string }[] };
      let box: Outbox = { messages: [] };
      for (const until = Date.now() + 15_000; box.messages.length === 0 && Date.now() < until;) {
        box = await (await fetch(`${t.baseUrl}/sandbox/outbox/messages?to=${encodeURIComponent(email)}`)).json() as Outbox;
        if (box.messages.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(box.messages.length, 1, JSON.stringify(box));
      assert.equal(box.messages[0]!.subject, `Your receipt from Test Shop (order ${order.number})`);
      for (const part of [order.number, ref, '€42.00', '411111']) assert.ok(box.messages[0]!.body.includes(part), `${part} in ${box.messages[0]!.body}`);
      assert.deepEqual(await receiptMailOf(t.store.db, payment!.id), { recipient: email, status: 'sent' });
      await page.context().close();
    });

    it('without receipt_email no receipt is mailed', async () => {
      const email = `none-${n}-${process.pid}@example.com`;
      const { url } = await openSession(billing, ['card'], { name: 'Jane Roe', email });
      const page = await pageAt('phone');
      await page.goto(url);
      await page.selectOption('#billing_country', 'DE');
      await page.fill('#billing_address', 'Unter den Linden 1');
      await page.fill('#billing_city', 'Berlin');
      await page.fill('#billing_zip', '10117');
      await fillCard(page, '01/38');
      await page.click('#pay-button');
      await page.locator('#receipt').waitFor();
      await new Promise((r) => setTimeout(r, 300));
      const box = await (await fetch(`${t.baseUrl}/sandbox/outbox/messages?to=${encodeURIComponent(email)}`)).json() as { messages: unknown[] };
      assert.equal(box.messages.length, 0);
      await page.context().close();
    });
  });
}
