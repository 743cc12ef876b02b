/**
 * Issue 17 on the hosted Checkout page in Debian's chromium: the page's script fills the payer's browser details
 * (browser_* of the callback, what 3-D Secure asks of the browser), and a session with recurring_consent_required
 * shows the consent checkbox whose answer decides whether the chain starts (consent_id, consent_state) or the
 * payment is one-time (extended_data[consent_state]=ignored).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener } from '../support/merchant.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { newSchedule } from '../recurring/support.ts';

const browserSkip = browserUnavailable() ?? false;

for (const { kind, skip } of await browserStores()) {
  describe(`hosted page browser details and recurring consent in a real browser (${kind})`, { skip: skip || browserSkip }, () => {
    let t: TestGateway;
    let listener: Listener;
    let browser: Browser;
    let scheduleId: string;

    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true, notificationUrl: listener.url, settings: { callbackFields: ['browser'] } });
      browser = await launchBrowser();
      scheduleId = await newSchedule(t, { interval_length: '1', interval_unit: 'month', payments_count: '2' });
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await listener?.close();
    });

    async function openSession(extra: Record<string, unknown> = {}) {
      const order = { number: `sfb-${Date.now()}-${Math.random().toString(36).slice(2, 7)}`, amount: '9.00', currency: 'EUR', description: 'Browser fields' };
      const res = await t.postJson('/api/v1/session', {
        merchant_key: t.merchant.key, operation: 'purchase', methods: ['card'], order,
        success_url: 'https://shop.example/success', customer: { name: 'Jane Roe', email: 'success@gmail.com' },
        hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description),
        ...extra,
      });
      assert.equal(res.status, 200, res.text);
      return { url: res.body.redirect_url as string, number: order.number };
    }

    async function fillCard(page: Page) {
      await page.fill('[name=card_number]', '4111111111111111');
      await page.fill('[name=card_expiry]', '01/38');
      await page.fill('[name=card_cvv]', '123');
      await page.fill('[name=card_holder]', 'Jane Roe');
    }

    async function callbackFor(number: string) {
      const [cb] = await listener.waitForMatching((c) => c.fields.order_number === number && c.fields.type === 'sale', 1, 15_000);
      assert.ok(cb);
      assert.equal(cb.fields.hash, checkoutHash(t.merchant.password, cb.fields.id!, cb.fields.order_number!, cb.fields.order_amount!, cb.fields.order_currency!, cb.fields.order_description!));
      return cb;
    }

    it('posts what the browser says of itself; the callback carries it as browser_*', async () => {
      const page = await browser.newPage({ viewport: { width: 1024, height: 700 }, locale: 'de-DE', timezoneId: 'Asia/Tokyo' });
      const { url, number } = await openSession();
      await page.goto(url);
      const seen = await page.evaluate(() => ({ ua: navigator.userAgent, w: screen.width, h: screen.height, depth: screen.colorDepth, lang: navigator.language, platform: navigator.platform }));
      await fillCard(page);
      await page.click('#pay-button');
      const cb = (await callbackFor(number)).fields;
      assert.equal(cb.browser_javascript_enabled, 'true');
      assert.equal(cb.browser_java_enabled, 'false');
      assert.equal(cb.browser_screen_width, String(seen.w));
      assert.equal(cb.browser_screen_height, String(seen.h));
      assert.equal(cb.browser_color_depth, String(seen.depth));
      assert.equal(cb.browser_language, seen.lang);
      assert.equal(cb.browser_timezone_offset, '-540', 'Tokyo is UTC+9');
      assert.equal(cb.browser_user_agent, seen.ua);
      assert.equal(cb.browser_platform, seen.platform);
      assert.match(cb.browser_accept_headers!, /text\/html/);
      await page.close();
    });

    it('ticking the consent checkbox starts the chain; leaving it unticked pays once', async () => {
      const consent = { recurring_init: true, schedule_id: scheduleId, recurring_consent_required: true };
      const page = await browser.newPage();
      const ticked = await openSession(consent);
      await page.goto(ticked.url);
      const box = page.locator('#recurring_consent');
      assert.equal(await box.isVisible(), true);
      assert.equal(await box.isChecked(), false);
      await fillCard(page);
      await page.getByLabel(/I agree that Test Shop may charge this card again/).check();
      await page.click('#pay-button');
      const yes = (await callbackFor(ticked.number)).fields;
      assert.equal(yes.consent_state, 'active');
      assert.ok(yes.consent_id);
      assert.ok(yes.recurring_token);

      const unticked = await openSession(consent);
      await page.goto(unticked.url);
      await fillCard(page);
      await page.click('#pay-button');
      const no = await callbackFor(unticked.number);
      assert.match(no.raw, /(^|&)extended_data\[consent_state\]=ignored(&|$)/);
      assert.equal(no.fields.recurring_token, undefined);
      assert.equal(no.fields.consent_id, undefined);
      await page.close();
    });
  });
}
