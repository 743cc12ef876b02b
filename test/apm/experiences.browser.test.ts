/**
 * Every payer experience of the alternative methods in a real browser (Debian's chromium), on one store (browserStores):
 * from the merchant's session, through the hosted Checkout page's method picker and the experience's own
 * page, acting as the payer at the sandbox provider (its page, app, bank or outbox), to the merchant's
 * success URL with a signed query and the signed callback. The QR code expires on the injected clock.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { ManualClock } from '../../src/domain/clock.ts';
import type { MethodEntry } from '../../src/domain/methods/catalog.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener } from '../support/merchant.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { controlPageClock, receiptMovesOn } from '../support/payer-pages.ts';
import { APM_POLL_MS } from '../../src/web/apm-pages.ts';
import { countryDependent, qrMethod, representative } from './support.ts';

async function startShop(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Shop ${new URL(req.url ?? '/', 'http://x').pathname}</h1>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

const browserSkip = browserUnavailable() ?? false;
const REDIRECT = representative('redirect', 'checkout');
const QR = qrMethod();
const DETAILS = representative('details', 'checkout');
const APP = representative('app_confirmation', 'checkout');
const FIELDS = representative('extra_fields', 'checkout');
const OTP = representative('otp', 'checkout', { pageFields: true });
const LINK = representative('link', 'checkout');
const BY_COUNTRY = countryDependent();
const LIFETIME_MS = Number(QR.experienceOptions?.qrLifetimeSeconds ?? 60) * 1000;

interface SessionOptions {
  email?: string;
  currency?: string;
  parameters?: Record<string, unknown>;
  billing?: Record<string, string>;
  methods?: string[];
}

for (const { kind, skip } of await browserStores()) {
  describe(`alternative-method payer experiences in a real browser (${kind})`, { skip: skip || browserSkip }, () => {
    let t: TestGateway;
    let listener: Listener;
    let shop: Awaited<ReturnType<typeof startShop>>;
    let browser: Browser;
    const clock = new ManualClock('2030-05-01T08:00:00Z');

    before(async () => {
      listener = await startListener();
      shop = await startShop();
      // The platform's behaviour (a decline goes straight to the merchant); payer-experience tests cover the retries.
      t = await startTestGateway(kind, { workers: true, clock, notificationUrl: listener.url, settings: { payerRetries: false } });
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await listener?.close();
      await shop?.close();
    });

    let n = 0;
    async function openSession(method: MethodEntry, o: SessionOptions = {}) {
      const order = { number: `apm-${kind}-${method.key}-${Date.now()}-${++n}`, amount: '25.00', currency: o.currency ?? 'EUR', description: `Order with ${method.label}` };
      const res = await t.postJson('/api/v1/session', {
        merchant_key: t.merchant.key,
        operation: 'purchase',
        methods: o.methods ?? ['card', method.key],
        order,
        success_url: `${shop.url}/success`,
        cancel_url: `${shop.url}/cancel`,
        error_url: `${shop.url}/error`,
        customer: { name: 'Jane Roe', email: o.email ?? 'success@gmail.com' },
        ...(o.billing ? { billing_address: o.billing } : {}),
        ...(o.parameters ? { parameters: { [method.key]: o.parameters } } : {}),
        hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description),
      });
      assert.equal(res.status, 200, res.text);
      return { redirectUrl: res.body.redirect_url as string, order };
    }

    /** On the Checkout page: pick the method in the picker and pay. */
    async function choose(redirectUrl: string, method: MethodEntry): Promise<Page> {
      const page = await browser.newPage();
      await controlPageClock(page);
      await page.goto(redirectUrl);
      const radio = page.locator(`input[name=method][value="${method.key}"]`);
      if (await radio.count()) await radio.check();
      await page.click('#pay-button');
      return page;
    }

    async function landsOnSuccess(page: Page, order: { number: string; amount: string; currency: string; description: string }) {
      // The receipt stays a few seconds before the page moves on: its clock is run through them.
      await receiptMovesOn(page);
      await page.waitForURL(`${shop.url}/success?**`, { timeout: 30_000 });
      const landed = new URL(page.url());
      const paymentId = landed.searchParams.get('payment_id') ?? '';
      assert.equal(landed.searchParams.get('order_id'), order.number);
      assert.equal(landed.searchParams.get('hash'), checkoutHash(t.merchant.password, paymentId, order.number, order.amount, order.currency, order.description));
      const [cb] = await settledCallback(order.number, paymentId);
      const f = cb!.fields;
      assert.equal(f.id, paymentId);
      assert.equal(f.status, 'success');
      assert.equal(f.hash, checkoutHash(t.merchant.password, f.id!, f.order_number!, f.order_amount!, f.order_currency!, f.order_description!));
      return f;
    }

    /** The settled callback; when it is late, the failure names the callback rows and their attempts (CI runs loaded). */
    async function settledCallback(orderNumber: string, paymentId: string) {
      try {
        return await listener.waitForMatching((c) => c.fields.order_number === orderNumber && c.fields.order_status === 'settled', 1, 30_000);
      } catch (err) {
        const rows = await t.store.db.query(
          `SELECT c.id, c.status, c.attempts, c.next_attempt_at, c.locked_until, c.last_error, c.fields->>'order_status' AS order_status,
                  (SELECT json_agg(a.outcome || ' ' || coalesce(a.error, '')) FROM callback_attempts a WHERE a.callback_id = c.id) AS tries
             FROM callbacks c WHERE c.payment_id = $1`,
          [paymentId],
        );
        throw new Error(`${(err as Error).message}; callbacks of ${paymentId} at ${clock.now().toISOString()}: ${JSON.stringify(rows)}`);
      }
    }

    /** A sandbox link the payer page offers testers, opened in a second tab (the payer's phone or bank). */
    async function openSandboxLink(page: Page, text: RegExp): Promise<Page> {
      const href = await page.getByRole('link', { name: text }).getAttribute('href');
      assert.ok(href, `no sandbox link ${text}`);
      const other = await browser.newPage();
      await other.goto(new URL(href, t.baseUrl).toString());
      return other;
    }

    /**
     * The payer acted elsewhere (the bank app, the provider, the outbox's link): the waiting page finds out at its
     * next poll, by its own timer, whose interval the page's clock is run through instead of waiting it in real time.
     */
    async function nextPoll(page: Page): Promise<void> {
      await page.clock.runFor(APM_POLL_MS);
    }

    it(`redirect (${REDIRECT.key}): the provider page and back to the merchant`, async () => {
      const { redirectUrl, order } = await openSession(REDIRECT);
      const page = await choose(redirectUrl, REDIRECT);
      await page.waitForURL(/\/sandbox\/apm\//);
      await page.getByRole('heading', { name: 'Approve the payment' }).waitFor();
      await page.click('button[name=decision][value=approve]');
      await landsOnSuccess(page, order);
      await page.close();
    });

    it(`redirect (${REDIRECT.key}): fail@gmail.com is declined, the page says so and stays until the payer goes to error_url`, async () => {
      const { redirectUrl, order } = await openSession(REDIRECT, { email: 'fail@gmail.com' });
      const page = await choose(redirectUrl, REDIRECT);
      await page.click('button[name=decision][value=approve]');
      // As the card page after its final decline (issue 31 item 12): no move by itself.
      await page.getByRole('heading', { name: 'Payment declined' }).waitFor();
      await page.waitForTimeout(1000);
      assert.ok(!page.url().startsWith(shop.url), 'the declined page stays');
      await page.getByRole('link', { name: 'Return to the shop' }).click();
      await page.waitForURL(`${shop.url}/error?**`);
      const [cb] = await listener.waitForMatching((c) => c.fields.order_number === order.number && c.fields.order_status === 'decline', 1);
      assert.equal(cb!.fields.reason, 'Declined by processing');
      await page.close();
    });

    it(`QR code (${QR.key}): shown with order, amount and description; paid in the bank app, the page moves on itself`, async () => {
      const { redirectUrl, order } = await openSession(QR);
      const page = await choose(redirectUrl, QR);
      await page.waitForURL(/\/pay\//);
      const image = page.locator('#apm-qr-image');
      await image.waitFor();
      assert.ok(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), 'the QR image renders');
      const text = await page.locator('main').innerText();
      for (const part of [order.number, '25.00', order.description]) assert.ok(text.includes(part), `page shows ${part}`);
      assert.match(await page.locator('#qr-time').innerText(), /^0[01]:\d\d$/);
      const bank = await openSandboxLink(page, /sandbox bank app/i);
      await bank.click('button[name=decision][value=approve]');
      await bank.getByRole('heading', { name: 'Payment confirmed' }).waitFor();
      await nextPoll(page);
      await landsOnSuccess(page, order);
      await bank.close();
      await page.close();
    });

    it(`QR code (${QR.key}): expires after its lifetime on the gateway clock; a new code can be paid`, async () => {
      const { redirectUrl, order } = await openSession(QR, { currency: 'RSD' });
      const page = await choose(redirectUrl, QR);
      await page.locator('#apm-qr-image').waitFor();
      clock.advance(LIFETIME_MS + 1000);
      // The page polls and shows the expiry by itself.
      await nextPoll(page);
      await page.getByRole('heading', { name: 'The QR code has expired' }).waitFor({ timeout: 15_000 });
      const [cb] = await listener.waitForMatching((c) => c.fields.order_number === order.number && c.fields.order_status === 'decline', 1);
      assert.equal(cb!.fields.reason, 'QR code expired');
      await page.click('#apm-new-code');
      await page.locator('#apm-qr-image').waitFor();
      const bank = await openSandboxLink(page, /sandbox bank app/i);
      await bank.click('button[name=decision][value=approve]');
      await bank.getByRole('heading', { name: 'Payment confirmed' }).waitFor();
      await nextPoll(page);
      await landsOnSuccess(page, order);
      await bank.close();
      await page.close();
    });

    it(`payment details (${DETAILS.key}): shown on the page, the transfer arrives, the page moves on`, async () => {
      const { redirectUrl, order } = await openSession(DETAILS);
      const page = await choose(redirectUrl, DETAILS);
      await page.locator('#apm-details').waitFor();
      assert.match(await page.locator('#apm-details').innerText(), /25\.00 EUR/);
      const bank = await openSandboxLink(page, /transfer/i);
      await bank.click('button[name=decision][value=approve]');
      await bank.getByRole('heading', { name: 'Payment confirmed' }).waitFor();
      await nextPoll(page);
      await landsOnSuccess(page, order);
      await bank.close();
      await page.close();
    });

    it(`confirmation in a mobile app (${APP.key}): the page waits and updates itself`, async () => {
      const { redirectUrl, order } = await openSession(APP, { billing: { country: 'GH', city: 'Accra', address: 'High St 1', zip: '00233', phone: '+233201234567' } });
      const page = await choose(redirectUrl, APP);
      await page.getByRole('heading', { name: 'Confirm the payment in your app' }).waitFor();
      assert.match(await page.locator('main').innerText(), /\*+4567/);
      const phone = await openSandboxLink(page, /sandbox app on the phone/i);
      await phone.click('button[name=decision][value=approve]');
      await phone.getByRole('heading', { name: 'Payment confirmed' }).waitFor();
      await nextPoll(page);
      await landsOnSuccess(page, order);
      // The app notification also sits in the outbox.
      const outbox = await t.store.db.query<{ channel: string }>('SELECT channel FROM sandbox_outbox WHERE recipient = $1', ['+233201234567']);
      assert.ok(outbox.some((m) => m.channel === 'push'));
      await phone.close();
      await page.close();
    });

    it(`extra fields (${FIELDS.key}): asked on the page only when the request lacks them`, async () => {
      const asked = FIELDS.params.filter((p) => p.collectOnPage);
      const { redirectUrl, order } = await openSession(FIELDS);
      const page = await choose(redirectUrl, FIELDS);
      await page.locator('#apm-fields-form').waitFor();
      // Nothing else is asked; an empty field does not get past the browser.
      assert.deepEqual(await page.locator('#apm-fields-form input:not([type=hidden])').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).name)), asked.map((p) => p.name));
      await page.click('#apm-continue');
      assert.equal(await page.locator(`[name="${asked[0]!.name}"]`).evaluate((e) => (e as HTMLInputElement).validity.valueMissing), true);
      for (const p of asked) await page.fill(`[name="${p.name}"]`, 'ABC12345');
      await page.click('#apm-continue');
      await landsOnSuccess(page, order);
      await page.close();

      const given = await openSession(FIELDS, { parameters: Object.fromEntries(asked.map((p) => [p.name, 'ABC12345'])) });
      const direct = await choose(given.redirectUrl, FIELDS);
      await landsOnSuccess(direct, given.order);
      await direct.close();
    });

    it(`one-time code (${OTP.key}): the code sent by SMS, read in the outbox, typed on the page`, async () => {
      const { redirectUrl, order } = await openSession(OTP);
      const page = await choose(redirectUrl, OTP);
      await page.locator('#apm-fields-form').waitFor();
      const phone = `+38164${String(Date.now()).slice(-7)}`;
      await page.fill('input[type=tel] >> nth=0', phone);
      await page.click('#apm-continue');
      await page.locator('#apm-code-form').waitFor();
      await page.fill('[name=code]', '000000');
      await page.click('#apm-pay');
      await page.locator('#code-error:not([hidden])').waitFor();
      assert.match(await page.locator('#code-error').innerText(), /not correct/);
      const outbox = await browser.newPage();
      await outbox.goto(`${t.baseUrl}/sandbox/outbox?to=${encodeURIComponent(phone)}`);
      const sms = await outbox.locator('.apm-message p', { hasText: 'Your code' }).first().innerText();
      const code = /(\d{6})/.exec(sms)?.[1];
      assert.ok(code, sms);
      await page.fill('[name=code]', code);
      await page.click('#apm-pay');
      await landsOnSuccess(page, order);
      await outbox.close();
      await page.close();
    });

    it(`link by e-mail (${LINK.key}): kept in the sandbox outbox, opened and paid; the page moves on`, async () => {
      const email = 'success@gmail.com';
      const { redirectUrl, order } = await openSession(LINK, { email });
      const page = await choose(redirectUrl, LINK);
      await page.getByRole('heading', { name: 'Open the link we sent you' }).waitFor();
      const outbox = await openSandboxLink(page, /outbox/i);
      await outbox.locator('.apm-message', { hasText: order.description }).first().getByRole('link', { name: 'Open the link' }).click();
      await outbox.click('button[name=decision][value=approve]');
      await outbox.getByRole('heading', { name: 'Payment confirmed' }).waitFor();
      await nextPoll(page);
      await landsOnSuccess(page, order);
      await outbox.close();
      await page.close();
    });

    it(`fields by billing country (${BY_COUNTRY.key}): the PIN is asked for Brazil, not for Germany`, async () => {
      const pin = BY_COUNTRY.params.find((p) => p.requiredIn)!;
      const { redirectUrl, order } = await openSession(BY_COUNTRY);
      const page = await choose(redirectUrl, BY_COUNTRY);
      await page.locator('#apm-fields-form').waitFor();
      const pinField = page.locator(`[name="${pin.name}"]`);
      assert.equal(await pinField.isVisible(), false, 'hidden until a country that needs it');
      await page.selectOption('[name="billing_address.country"]', 'BR');
      await pinField.waitFor({ state: 'visible' });
      await pinField.fill('12345678901');
      await page.click('#apm-continue');
      await landsOnSuccess(page, order);
      await page.close();

      const germany = await openSession(BY_COUNTRY, { billing: { country: 'DE', city: 'Berlin', address: 'Unter den Linden 1', zip: '10117' } });
      const direct = await choose(germany.redirectUrl, BY_COUNTRY);
      await landsOnSuccess(direct, germany.order);
      await direct.close();

      const chile = await openSession(BY_COUNTRY, { billing: { country: 'CL', city: 'Santiago', address: 'Alameda 1', zip: '8320000' } });
      const asked = await choose(chile.redirectUrl, BY_COUNTRY);
      await asked.locator(`[name="${pin.name}"]`).fill('123456789');
      await asked.click('#apm-continue');
      await landsOnSuccess(asked, chile.order);
      await asked.close();
    });
  });
}
