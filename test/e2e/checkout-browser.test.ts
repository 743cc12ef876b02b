/**
 * The walking skeleton in a real browser: a merchant opens a session, the payer pays on the hosted page
 * in Debian's chromium (success card, 3-D Secure through the ACS page, decline card), lands back on the
 * merchant's site with a signed query, and the merchant's listener receives the signed callback.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener } from '../support/merchant.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { controlPageClock, receiptMovesOn } from '../support/payer-pages.ts';

/** The merchant's shop: success, cancel and error pages that show what the payer came back with. */
async function startShop(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Shop ${new URL(req.url ?? '/', 'http://x').pathname}</h1>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

const browserSkip = browserUnavailable() ?? false;

for (const { kind, skip } of await browserStores()) {
  describe(`hosted Checkout in a real browser (${kind})`, { skip: skip || browserSkip }, () => {
    let t: TestGateway;
    let listener: Listener;
    let shop: Awaited<ReturnType<typeof startShop>>;
    let browser: Browser;

    before(async () => {
      listener = await startListener();
      shop = await startShop();
      // The platform's behaviour: a decline goes straight to the merchant (payer-experience tests cover the retries).
      t = await startTestGateway(kind, { workers: true, notificationUrl: listener.url, settings: { payerRetries: false } });
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await listener?.close();
      await shop?.close();
    });

    async function openSession(number: string, amount = '25.00') {
      const order = { number, amount, currency: 'EUR', description: 'Browser order' };
      const res = await t.postJson('/api/v1/session', {
        merchant_key: t.merchant.key,
        operation: 'purchase',
        methods: ['card'],
        order,
        success_url: `${shop.url}/success`,
        cancel_url: `${shop.url}/cancel`,
        error_url: `${shop.url}/error`,
        customer: { name: 'Jane Roe', email: 'success@gmail.com' },
        hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description),
      });
      assert.equal(res.status, 200, res.text);
      return { redirectUrl: res.body.redirect_url as string, order };
    }

    /** A decline with no tries left says so and stays until the payer chooses to go back (issue 31 item 12). */
    async function returnToShop(page: Page) {
      await page.getByRole('heading', { name: 'Payment declined' }).waitFor();
      await page.getByRole('link', { name: 'Return to the shop' }).click();
    }

    async function payInBrowser(redirectUrl: string, expiry: string) {
      const page = await browser.newPage();
      await controlPageClock(page);
      await page.goto(redirectUrl);
      await page.fill('[name=card_number]', '4111111111111111');
      await page.fill('[name=card_expiry]', expiry);
      await page.fill('[name=card_cvv]', '123');
      await page.fill('[name=card_holder]', 'Jane Roe');
      const billing = await page.$('[name=billing_country]');
      if (billing && (await billing.isVisible())) {
        await page.selectOption('[name=billing_country]', 'DE');
        await page.fill('[name=billing_city]', 'Berlin');
        await page.fill('[name=billing_address]', 'Unter den Linden 1');
        await page.fill('[name=billing_zip]', '10117');
      }
      await page.click('button[type=submit]');
      return page;
    }

    /** Checks the query the payer brought back, as the merchant re-computes it from its stored order. */
    function assertSignedReturn(landed: URL, order: { number: string; amount: string; currency: string; description: string }) {
      const paymentId = landed.searchParams.get('payment_id') ?? '';
      assert.match(paymentId, /^[0-9a-f-]{36}$/);
      assert.equal(landed.searchParams.get('order_id'), order.number);
      assert.ok(landed.searchParams.get('trans_id'));
      assert.equal(landed.searchParams.get('hash'), checkoutHash(t.merchant.password, paymentId, order.number, order.amount, order.currency, order.description));
      return paymentId;
    }

    async function signedCallback(number: string, orderStatus: string) {
      const [cb] = await listener.waitForMatching((c) => c.fields.order_number === number && c.fields.order_status === orderStatus, 1);
      assert.ok(cb);
      const f = cb.fields;
      assert.equal(f.hash, checkoutHash(t.merchant.password, f.id!, f.order_number!, f.order_amount!, f.order_currency!, f.order_description!));
      return f;
    }

    it('pays with the success card and returns to success_url with a signed query', async () => {
      const { redirectUrl, order } = await openSession(`b-ok-${Date.now()}`);
      const page = await payInBrowser(redirectUrl, '01/38');
      await receiptMovesOn(page);
      await page.waitForURL(`${shop.url}/success?**`);
      const paymentId = assertSignedReturn(new URL(page.url()), order);
      const cb = await signedCallback(order.number, 'settled');
      assert.equal(cb.id, paymentId);
      assert.equal(cb.status, 'success');
      await page.close();
    });

    it('passes 3-D Secure on the ACS page, then returns to success_url', async () => {
      const { redirectUrl, order } = await openSession(`b-3ds-${Date.now()}`);
      const page = await payInBrowser(redirectUrl, '05/38');
      await page.waitForURL(/\/sandbox\/acs\//);
      await page.fill('[name=otp]', '123456');
      await page.click('button[name=decision][value=submit]');
      await receiptMovesOn(page);
      await page.waitForURL(`${shop.url}/success?**`);
      assertSignedReturn(new URL(page.url()), order);
      await signedCallback(order.number, 'settled');
      await page.close();
    });

    it('declines with the decline card and returns to error_url with a signed query', async () => {
      const { redirectUrl, order } = await openSession(`b-no-${Date.now()}`);
      const page = await payInBrowser(redirectUrl, '02/38');
      await returnToShop(page);
      await page.waitForURL(`${shop.url}/error?**`);
      assertSignedReturn(new URL(page.url()), order);
      const cb = await signedCallback(order.number, 'decline');
      assert.equal(cb.status, 'fail');
      assert.equal(cb.reason, 'Declined by processing');
      await page.close();
    });

    it('fails 3-D Secure with card month 06 and returns to error_url', async () => {
      const { redirectUrl, order } = await openSession(`b-3dsno-${Date.now()}`);
      const page = await payInBrowser(redirectUrl, '06/38');
      await page.waitForURL(/\/sandbox\/acs\//);
      await page.fill('[name=otp]', '000000');
      await page.click('button[name=decision][value=submit]');
      await returnToShop(page);
      await page.waitForURL(`${shop.url}/error?**`);
      await signedCallback(order.number, 'decline');
      await page.close();
    });

    it('walks the redirect flow (card month 12) through the provider page', async () => {
      const { redirectUrl, order } = await openSession(`b-redir-${Date.now()}`);
      const page = await payInBrowser(redirectUrl, '12/38');
      await page.waitForURL(/\/sandbox\/provider\//);
      await page.click('button[name=decision][value=approve]');
      await receiptMovesOn(page);
      await page.waitForURL(`${shop.url}/success?**`);
      await signedCallback(order.number, 'settled');
      await page.close();
    });

    it('cancels back to cancel_url', async () => {
      const { redirectUrl, order } = await openSession(`b-cancel-${Date.now()}`);
      const page = await browser.newPage();
      await page.goto(redirectUrl);
      await page.click('#cancel-link'); // a POST, not a link a preview could follow (issue 25 item 17)
      await page.waitForURL(`${shop.url}/cancel?**`);
      assertSignedReturn(new URL(page.url()), order);
      await page.close();
    });
  });
}
