/**
 * The payer's experience in a real browser (Debian chromium), at desktop and phone sizes, in several locales
 * (Arabic right to left among them): the language of every payer page, a decline that leaves the payer on the
 * page with tries left, the receipt before returning (with and without JavaScript), the lighter card form, the
 * expiry warning and the expired state. Every page state is audited with axe-core (no critical or serious
 * violation) and screenshotted to screenshots/payer/ (first store only).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { assertAccessible, controlPageClock, lookAt, payerContext, screenshot, type Viewport } from '../support/payer-pages.ts';
import { CATALOGS, translator } from '../../src/web/i18n.ts';
import { EXPIRED_SECONDS } from '../../src/channels/pages/checkout.ts';

async function startShop(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html lang="en"><title>Shop</title><h1>Shop ${new URL(req.url ?? '/', 'http://x').pathname}</h1>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

const browserSkip = browserUnavailable() ?? false;
let n = 0;

for (const [index, { kind, skip }] of (await browserStores()).entries()) {
  const shots = index === 0;
  describe(`payer experience in a real browser (${kind})`, { skip: skip || browserSkip }, () => {
    let t: TestGateway;
    let noRetries: TestMerchant;
    let shop: Awaited<ReturnType<typeof startShop>>;
    let browser: Browser;
    /** The gateway's clock runs this far ahead of the real one (the expiry test moves it). */
    let skewMs = 0;

    before(async () => {
      shop = await startShop();
      t = await startTestGateway(kind, { clock: { now: () => new Date(Date.now() + skewMs) } });
      noRetries = await t.addMerchant({ settings: { payerRetries: false } });
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await shop?.close();
    });

    interface SessionOptions {
      locale?: string;
      methods?: string[];
      billing?: Record<string, string>;
      expiryMinutes?: number;
      merchant?: TestMerchant;
      amount?: string;
    }

    async function openSession(o: SessionOptions = {}): Promise<string> {
      const m = o.merchant ?? t.merchant;
      const order = { number: `px-${Date.now()}-${++n}`, amount: o.amount ?? '1234.50', currency: 'EUR', description: 'Two concert tickets' };
      const res = await t.postJson('/api/v1/session', {
        merchant_key: m.key,
        operation: 'purchase',
        methods: o.methods ?? ['card'],
        order,
        success_url: `${shop.url}/success`,
        cancel_url: `${shop.url}/cancel`,
        error_url: `${shop.url}/error`,
        expiry_url: `${shop.url}/expired`,
        customer: { name: 'Jane Roe', email: 'success@gmail.com' },
        ...(o.billing ? { billing_address: o.billing } : {}),
        ...(o.locale ? { locale: o.locale } : {}),
        ...(o.expiryMinutes ? { session_expiry: o.expiryMinutes } : {}),
        hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
      });
      assert.equal(res.status, 200, res.text);
      return res.body.redirect_url as string;
    }

    async function payerPage(locale: string, viewport: Viewport, js = true): Promise<Page> {
      const context = await payerContext(browser, { locale, viewport, js });
      return context.newPage();
    }

    async function fillCard(page: Page, expiry: string, holder = 'Jane Roe', number = '4111111111111111') {
      await page.fill('[name=card_number]', number);
      await page.fill('[name=card_expiry]', expiry);
      await page.fill('[name=card_cvv]', '123');
      await page.fill('[name=card_holder]', holder);
    }

    const text = (page: Page, selector: string) => page.locator(selector).innerText();
    const close = (page: Page) => page.context().close();

    // --- 1. language -------------------------------------------------------------------------------

    it('speaks the browser language: Arabic right to left on a phone, amounts through Intl', async () => {
      const page = await payerPage('ar', 'phone');
      await page.goto(await openSession());
      assert.equal(await page.getAttribute('html', 'lang'), 'ar');
      assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
      const amount = translator('ar').money(123450n, 'EUR');
      assert.equal((await text(page, '.amount-value')).trim(), amount);
      assert.equal((await text(page, '#pay-button .btn-label')).trim(), `ادفع ${amount}`);
      assert.equal((await text(page, 'label[for=card_number]')).trim(), CATALOGS.ar['card.number']);
      await lookAt(page, 'checkout-ar-phone', shots);
      // The browser's own validation speaks Arabic too (messages from the page's catalog).
      await page.click('#pay-button');
      await page.locator('#error-summary:not([hidden])').waitFor();
      assert.equal((await text(page, '#card_number-error span')).trim(), CATALOGS.ar['form.cardNumberEmpty']);
      assert.equal(await page.locator('#error-summary li').count(), 4);
      await lookAt(page, 'checkout-ar-phone-errors', shots);
      // The summary keeps in step with the fields: a corrected field leaves it.
      await page.fill('#card_number', '4111111111111111');
      assert.equal(await page.locator('#error-summary li').count(), 3);
      assert.equal((await text(page, '#error-summary-title')).trim(), CATALOGS.ar['summary.many']!.replace('{count}', '3'));
      await close(page);
    });

    it('the session locale wins over the browser; ?lang= wins over both and is remembered', async () => {
      const page = await payerPage('en-US', 'desktop');
      const url = await openSession({ locale: 'pt-BR' });
      await page.goto(url);
      assert.equal(await page.getAttribute('html', 'lang'), 'pt-BR');
      assert.equal((await text(page, '.amount-value')).trim(), translator('pt-BR').money(123450n, 'EUR'));
      assert.match(await text(page, '#pay-button'), /^Pagar /);
      await lookAt(page, 'checkout-ptBR-desktop', shots);
      await page.click('.langs a[hreflang=tr]');
      await page.waitForURL(/lang=tr/);
      assert.equal(await page.getAttribute('html', 'lang'), 'tr');
      await page.goto(url); // no ?lang= now: the cookie remembers the payer's choice
      assert.equal(await page.getAttribute('html', 'lang'), 'tr');
      assert.match(await text(page, '#pay-button'), / öde$/);
      await lookAt(page, 'checkout-tr-desktop', shots);
      await close(page);
    });

    it('the method picker: payer-known names with icons, grouped, in the merchant order (German)', async () => {
      const page = await payerPage('de-DE', 'desktop');
      await page.goto(await openSession({ methods: ['card', 'link-mail', 'bank-details', 'crypto-fiat'] }));
      assert.equal(await page.getAttribute('html', 'lang'), 'de');
      const groups = await page.locator('.method-group').allInnerTexts();
      assert.deepEqual(groups.map((g) => g.trim().toLowerCase()), ['karten', 'bank', 'krypto'], 'the pay-by-link and the bank transfer are both bank methods');
      assert.equal(await page.locator('.method-option svg.icon').count(), 4);
      assert.deepEqual((await page.locator('.method-option').allInnerTexts()).map((l) => l.trim()), ['Karte', 'Zahlungslink per E-Mail', 'Banküberweisung', 'Mit Krypto zahlen']);
      await lookAt(page, 'checkout-methods-de-desktop', shots);
      await close(page);
    });

    // --- 2. a decline is not the end ---------------------------------------------------------------

    for (const [locale, viewport] of [['es-ES', 'desktop'], ['ar', 'phone']] as const) {
      it(`a declined card stays on the page in the payer's words (${locale}, ${viewport}); the next card pays and a receipt shows`, async () => {
        const lang = locale.split('-')[0] as 'es' | 'ar';
        const page = await payerPage(locale, viewport);
        const url = await openSession();
        await page.goto(url);
        await fillCard(page, '02/38');
        await page.click('#pay-button');
        await page.waitForURL(url);
        await page.locator('#error-summary[data-decline]').waitFor();
        assert.equal((await text(page, '#error-summary-title')).trim(), CATALOGS[lang]['decline.tryAnotherCard']);
        assert.match(await text(page, '#error-summary'), new RegExp(CATALOGS[lang]['decline.triesLeft']!.replace('{count}', '2')));
        await lookAt(page, `checkout-declined-${lang}-${viewport}`, shots);
        await fillCard(page, '01/38');
        await page.click('#pay-button');
        await page.locator('#receipt').waitFor();
        const receipt = await text(page, '#receipt');
        assert.match(receipt, /411111\*+1111/);
        assert.ok(receipt.includes(translator(lang).money(123450n, 'EUR')), receipt);
        assert.equal((await text(page, 'h1')).trim(), CATALOGS[lang]['receipt.title']);
        await lookAt(page, `receipt-${lang}-${viewport}`, shots);
        await page.click('#redirect-link');
        await page.waitForURL(`${shop.url}/success?**`);
        await close(page);
      });
    }

    it('after the last try the page says no tries are left and the payer leaves for error_url when they choose; so too without retries', async () => {
      const page = await payerPage('en-GB', 'desktop');
      const url = await openSession();
      await page.goto(url);
      for (let attempt = 1; attempt <= 2; attempt++) {
        await fillCard(page, '02/38');
        await page.click('#pay-button');
        await page.locator('#error-summary[data-decline]').waitFor();
        await page.waitForURL(url);
      }
      assert.match(await text(page, '#error-summary'), /This is your last try\./);
      await fillCard(page, '02/38');
      await page.click('#pay-button');
      await page.getByRole('heading', { name: 'Payment declined' }).waitFor();
      assert.match(await text(page, 'main'), /The payment was declined\. No tries are left for this payment\./);
      assert.doesNotMatch(await text(page, 'main'), /Try another card/);
      await page.waitForTimeout(1500); // the page stays: nothing leaves by itself (it left after 0.4 s before)
      assert.ok(!page.url().startsWith(shop.url), `still on the gateway's page, not ${page.url()}`);
      await assertAccessible(page, 'no tries left');
      await page.getByRole('link', { name: 'Return to the shop' }).click();
      await page.waitForURL(`${shop.url}/error?**`);
      // A fourth payment of the same session is refused even by a direct POST.
      const again = await fetch(`${url}/pay`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'method=card&card_number=4111111111111111&card_expiry=01%2F38&card_cvv=123&card_holder=Jane' });
      assert.equal(again.status, 400);

      await page.goto(await openSession({ merchant: noRetries }));
      await fillCard(page, '02/38');
      await page.click('#pay-button');
      await page.getByRole('heading', { name: 'Payment declined' }).waitFor();
      await page.getByRole('link', { name: 'Return to the shop' }).click();
      await page.waitForURL(`${shop.url}/error?**`);
      await close(page);
    });

    // --- 3. receipt ---------------------------------------------------------------------------------

    it('the receipt moves on by itself without JavaScript (meta refresh), as every flow works without it', async () => {
      const page = await payerPage('fr-FR', 'phone', false);
      await page.goto(await openSession());
      await fillCard(page, '01/38', 'Madonna');
      await page.click('#pay-button');
      await page.locator('#receipt').waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), 'fr');
      // axe needs JavaScript; the same receipt is audited in the tests with it on.
      if (shots) await screenshot(page, 'receipt-fr-phone-nojs');
      await page.waitForURL(`${shop.url}/success?**`, { timeout: 30_000 });
      await close(page);
    });

    // --- 4. a lighter card form ---------------------------------------------------------------------

    it('card form: one-word name, brand icon and grouping as typed, no billing unless needed, Pay in view on a phone', async () => {
      const page = await payerPage('en-US', 'phone');
      await page.goto(await openSession());
      assert.equal(await page.locator('fieldset.billing').count(), 0, 'no billing address asked by default');
      const payBox = await page.locator('#pay-button').boundingBox();
      assert.ok(payBox && payBox.y + payBox.height <= 844, `Pay is in view: ${JSON.stringify(payBox)}`);
      await page.locator('#card_number').pressSequentially('378282246310005');
      assert.equal(await page.inputValue('#card_number'), '3782 822463 10005');
      assert.equal(await page.getAttribute('#card-brand', 'data-brand'), 'Amex');
      assert.equal(await page.locator('#card-brand svg.brand-badge').count(), 1);
      await page.fill('#card_number', '');
      await page.locator('#card_number').pressSequentially('4111111111111111');
      assert.equal(await page.inputValue('#card_number'), '4111 1111 1111 1111');
      assert.equal(await page.getAttribute('#card-brand', 'data-brand'), 'Visa');
      await page.fill('[name=card_expiry]', '01/38');
      await page.fill('[name=card_cvv]', '123');
      await page.fill('[name=card_holder]', 'Suharto');
      await lookAt(page, 'checkout-card-en-phone', shots);
      await page.click('#pay-button');
      await page.locator('#receipt').waitFor();
      await close(page);
    });

    it('asks only the state when the merchant sent a US address without one', async () => {
      const page = await payerPage('en-US', 'desktop');
      await page.goto(await openSession({ billing: { country: 'US', city: 'Austin', address: '1 Main St', zip: '73301' } }));
      assert.equal(await page.locator('fieldset.billing').count(), 0);
      assert.match(await text(page, 'label[for=billing_state]'), /State or province \(United States\)/);
      await fillCard(page, '01/38');
      await page.click('#pay-button');
      await page.locator('#billing_state-error:not([hidden])').waitFor();
      await lookAt(page, 'checkout-state-only-en-desktop', shots);
      await fillCard(page, '01/38'); // the card number and CVV are never sent back to the page
      await page.fill('#billing_state', 'TX');
      await page.click('#pay-button');
      await page.locator('#receipt').waitFor();
      await close(page);
    });

    // --- 6. expiry ------------------------------------------------------------------------------------

    it('warns a minute before the session expires, then says it has expired (Turkish, phone)', async () => {
      const page = await payerPage('tr-TR', 'phone');
      const url = await openSession({ expiryMinutes: 1 });
      // The session has 30 seconds left on the gateway's clock: the warning shows (the last minute), and the
      // page's own countdown and the expired page's delay run on the page's clock, which the test runs ahead (the
      // pages still leave by their own timers, without the test waiting their seconds of real time).
      skewMs = 30_000;
      await controlPageClock(page);
      try {
        await page.goto(url);
        await page.locator('#expiry-warning:not([hidden])').waitFor();
        assert.equal((await text(page, '#expiry-warning-title')).trim(), CATALOGS.tr['expiry.warnTitle']);
        await lookAt(page, 'checkout-expiry-warning-tr-phone', shots);
        skewMs = 120_000;
        await page.clock.runFor(31_000);
        await page.waitForURL(/\/expired$/, { timeout: 20_000 });
        assert.equal((await text(page, 'h1')).trim(), CATALOGS.tr['expired.title']);
        await lookAt(page, 'checkout-expired-tr-phone', shots);
        await page.clock.runFor(EXPIRED_SECONDS * 1000);
        await page.waitForURL(`${shop.url}/expired**`, { timeout: 20_000 });
      } finally {
        skewMs = 0;
      }
      await close(page);
    });

    // --- 5. alternative methods ------------------------------------------------------------------------

    async function chooseMethod(page: Page, url: string, key: string) {
      await page.goto(url);
      const radio = page.locator(`input[name=method][value="${key}"]`);
      if (await radio.count()) await radio.check();
      await page.click('#pay-button');
    }

    it('payment details: copy buttons, a reference without `_`, and the crypto page names coin, network and amount (es, phone)', async () => {
      const page = await payerPage('es-ES', 'phone');
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await chooseMethod(page, await openSession({ methods: ['card', 'bank-details'], amount: '25.00' }), 'bank-details');
      // The method asks the payer's bank account first (its fields page), then shows where to transfer.
      await page.locator('#apm-fields-form').waitFor();
      await lookAt(page, 'apm-fields-es-phone', shots);
      for (const input of await page.locator('#apm-fields-form input:not([type=hidden])').all()) await input.fill('12345');
      await page.click('#apm-continue');
      await page.locator('#apm-details').waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), 'es');
      const details = await text(page, '#apm-details');
      assert.match(details, new RegExp(CATALOGS.es['detail.payment-reference']!));
      const reference = (await page.locator('#apm-details dd').last().locator('.copy-value').innerText()).trim();
      assert.match(reference, /^[A-Z0-9]+$/, `a transfer reference has letters and digits only: ${reference}`);
      const copy = page.locator('#apm-details [data-copy]').first();
      await copy.waitFor();
      await copy.click();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'Portcullis Sandbox Collections');
      await lookAt(page, 'apm-details-es-phone', shots);

      await chooseMethod(page, await openSession({ methods: ['card', 'crypto-fiat'], amount: '25.00' }), 'crypto-fiat');
      await page.locator('#apm-details').waitFor();
      const crypto = await text(page, '#apm-details');
      assert.match(crypto, /Tether \(USDT\)/);
      assert.match(crypto, /Tron \(TRC20\)/);
      assert.match(crypto, /27\.00 USDT/, 'the amount in the coin (sandbox rate 1.08 USDT per EUR)');
      await lookAt(page, 'apm-crypto-es-phone', shots);
      await close(page);
    });

    it('a QR code on a phone offers the bank app link; the bank app page speaks the payer language (ar)', async () => {
      const page = await payerPage('ar', 'phone');
      await chooseMethod(page, await openSession({ methods: ['card', 'ips'], amount: '25.00' }), 'ips');
      await page.locator('#apm-qr-image').waitFor();
      const link = page.locator('#apm-deeplink');
      assert.equal((await link.innerText()).trim(), CATALOGS.ar['wait.openBankApp']);
      const box = await link.boundingBox();
      assert.ok(box && box.y + box.height <= 844, 'the bank app link is on the first screen');
      await lookAt(page, 'apm-qr-ar-phone', shots);
      await link.click();
      await page.waitForURL(/\/sandbox\/apm\/[^/]+\/app$/);
      assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
      await lookAt(page, 'sandbox-bank-app-ar-phone', shots);
      await close(page);
    });

    it('a one-time code can be sent again, a limited number of times; texts without "the your" (en, desktop)', async () => {
      const page = await payerPage('en-GB', 'desktop');
      await chooseMethod(page, await openSession({ methods: ['card', 'otp-confirmation'], amount: '25.00' }), 'otp-confirmation');
      await page.locator('#apm-fields-form').waitFor();
      await lookAt(page, 'apm-fields-en-desktop', shots);
      // The server's own messages (the browser's bubbles stop an empty form first): the label leads.
      const action = new URL((await page.getAttribute('#apm-fields-form', 'action'))!, t.baseUrl).toString();
      const answer = await page.request.post(action, { form: {}, maxRedirects: 0 });
      assert.equal(answer.status(), 422);
      const body = await answer.text();
      assert.match(body, /Your phone number: enter a value/);
      assert.doesNotMatch(body, /the your/i);
      const phone = `+38164${String(Date.now()).slice(-7)}`;
      await page.fill('input[type=tel] >> nth=0', phone);
      await page.click('#apm-continue');
      await page.locator('#apm-code-form').waitFor();
      for (let left = 2; left >= 0; left--) {
        await page.click('#apm-resend');
        await page.waitForURL(/sent=1/);
        assert.match(await text(page, '.apm-notice'), /new code/);
        assert.match(await text(page, '.apm-resend'), left > 0 ? new RegExp(`${left} more times`) : /No more new codes/);
      }
      assert.equal(await page.locator('#apm-resend').isDisabled(), true);
      await lookAt(page, 'apm-code-en-desktop', shots);
      const sent = await t.store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM sandbox_outbox WHERE recipient = $1", [phone]);
      assert.equal(Number(sent[0]!.n), 4, 'the first code and three more');
      await close(page);
    });

    it('a declined alternative method brings the payer back to the method choice with the reason', async () => {
      const page = await payerPage('fr-FR', 'desktop');
      const res = await t.postJson('/api/v1/session', {
        merchant_key: t.merchant.key, operation: 'purchase', methods: ['card', 'installment-product'],
        order: { number: `px-apm-${++n}`, amount: '25.00', currency: 'EUR', description: 'Two concert tickets' },
        success_url: `${shop.url}/success`, cancel_url: `${shop.url}/cancel`, error_url: `${shop.url}/error`,
        customer: { name: 'Jane Roe', email: 'fail@gmail.com' },
        hash: checkoutHash(t.merchant.password, `px-apm-${n}`, '25.00', 'EUR', 'Two concert tickets'),
      });
      assert.equal(res.status, 200, res.text);
      const url = res.body.redirect_url as string;
      await chooseMethod(page, url, 'installment-product');
      await page.waitForURL(/\/sandbox\/apm\//);
      await lookAt(page, 'sandbox-provider-fr-desktop', shots);
      await page.click('button[name=decision][value=approve]');
      await page.waitForURL(url);
      await page.locator('#error-summary[data-decline]').waitFor();
      assert.equal((await text(page, '#error-summary-title')).trim(), CATALOGS.fr['decline.tryAnotherMethod']);
      await fillCard(page, '01/38');
      await page.click('#pay-button');
      await page.locator('#receipt').waitFor();
      await close(page);
    });

    // --- 7. embedding -----------------------------------------------------------------------------------

    it('/sandbox/shop shows the hosted page in an iframe and the hosted payment fields, both paying', async () => {
      const page = await payerPage('en-US', 'desktop');
      await page.goto(`${t.baseUrl}/sandbox/shop?merchant_key=${encodeURIComponent(t.merchant.key)}&target=_top`);
      const frame = page.frameLocator('#shop-frame');
      await frame.locator('#pay-button').waitFor();
      await page.locator('#shop-pay:not([disabled])').waitFor({ timeout: 20_000 });
      await lookAt(page, 'sandbox-shop-desktop', shots);
      // The hosted fields: each field is a gateway frame.
      await page.frameLocator('#shop-card iframe').locator('input').fill('4111111111111111');
      await page.frameLocator('#shop-expiry iframe').locator('input').fill('01/38');
      await page.frameLocator('#shop-cvv iframe').locator('input').fill('123');
      await page.click('#shop-pay');
      await page.locator('#shop-result[data-result=success]').waitFor({ timeout: 20_000 });
      assert.match(await text(page, '#shop-result'), /^Paid: /);
      // The hosted page in the frame: paid, the receipt's Continue leaves the frame for the top window (_top).
      await frame.locator('[name=card_number]').fill('4111111111111111');
      await frame.locator('[name=card_expiry]').fill('01/38');
      await frame.locator('[name=card_cvv]').fill('123');
      await frame.locator('[name=card_holder]').fill('Jane Roe');
      await frame.locator('#pay-button').click();
      await frame.locator('#receipt').waitFor();
      await frame.locator('#redirect-link').click();
      await page.waitForURL(/\/sandbox\/shop\/return\?result=success/);
      await close(page);

      const phone = await payerPage('ar', 'phone');
      await phone.goto(`${t.baseUrl}/sandbox/shop?merchant_key=${encodeURIComponent(t.merchant.key)}&target=_self`);
      await phone.frameLocator('#shop-frame').locator('#pay-button').waitFor();
      await lookAt(phone, 'sandbox-shop-ar-phone', shots);
      await close(phone);
    });

    // --- 3-D Secure and provider pages ---------------------------------------------------------------

    it('the sandbox ACS and provider pages speak the session language', async () => {
      const page = await payerPage('en-US', 'desktop');
      await page.goto(await openSession({ locale: 'ar' }));
      await fillCard(page, '05/38');
      await page.click('#pay-button');
      await page.waitForURL(/\/sandbox\/acs\//);
      assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
      assert.equal((await text(page, 'h1')).trim(), CATALOGS.ar['acs.title']);
      await lookAt(page, 'acs-ar-desktop', shots);
      await page.fill('[name=otp]', '123456');
      await page.click('button[name=decision][value=submit]');
      await page.locator('#receipt').waitFor();

      await page.goto(await openSession({ locale: 'de' }));
      await fillCard(page, '12/38');
      await page.click('#pay-button');
      await page.waitForURL(/\/sandbox\/provider\//);
      assert.equal((await text(page, 'h1')).trim(), CATALOGS.de['provider.title']);
      await lookAt(page, 'provider-de-desktop', shots);
      await close(page);
    });

    it('message pages are localised (an unknown payment link, Spanish)', async () => {
      const page = await payerPage('es', 'phone');
      const res = await page.goto(`${t.baseUrl}/checkout/does-not-exist`);
      assert.equal(res?.status(), 404);
      assert.equal((await text(page, 'h1')).trim(), CATALOGS.es['msg.notFound.title']);
      await lookAt(page, 'message-es-phone', shots);
      await close(page);
    });
  });
}
