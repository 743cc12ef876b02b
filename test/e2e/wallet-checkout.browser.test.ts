/**
 * The hosted Checkout page's wallet buttons in a real browser (Debian's chromium through playwright-core): a payer
 * picks Google Pay or Apple Pay, the sandbox's wallet simulator sheet opens, and its token (genuinely encrypted and
 * signed with the sandbox's test roots, the same on every node) pays the session through the wallet flow rules:
 * decrypted for a merchant whose Wallets tab holds the keys, virtual for one without. The page runs under the strict
 * CSP (nothing loads from outside); a live merchant's page instead names Google's script in its CSP and carries the
 * PaymentDataRequest for the real PaymentsClient.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { controlPageClock, lookAt, payerContext, receiptMovesOn } from '../support/payer-pages.ts';
import { adminCall, tokenFor } from '../admin/config-support.ts';
import { APPLE_MERCHANT_ID, TOKEN_CARD, configureWallets, walletKit, type WalletKit } from '../s2s-card/wallet-support.ts';
import type { AuthorizeRequest, CardConnector } from '../../src/connectors/types.ts';
import type { MerchantSessionRequest } from '../../src/services/wallets/apple-merchant-validation.ts';
import { findPaymentsByOrder } from '../../src/store/payments-repo.ts';
import { CONTENT_SECURITY_POLICY } from '../../src/web/pages.ts';

async function startShop(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1 id="shop">Shop ${new URL(req.url ?? '/', 'http://x').pathname}</h1>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

const browserSkip = browserUnavailable() ?? false;
let orders = 0;

for (const { kind, skip } of await browserStores()) {
  describe(`hosted Checkout wallet buttons in a real browser (${kind})`, { skip: skip || browserSkip }, () => {
    let t: TestGateway;
    let shop: Awaited<ReturnType<typeof startShop>>;
    let browser: Browser;
    let kit: WalletKit;
    let decrypting: TestMerchant;
    let virtual: TestMerchant;
    const outside: string[] = [];

    before(async () => {
      shop = await startShop();
      t = await startTestGateway(kind, { settings: { payerRetries: false } });
      kit = await walletKit(t);
      // Only the sandbox's own roots: the simulator's tokens must verify without the test issuers' roots.
      t.gateway.ctx.walletTrust = undefined;
      const operator = await tokenFor(t, 'operator');
      decrypting = t.merchant;
      virtual = await t.addMerchant({ settings: { payerRetries: false } });
      await configureWallets(t, operator, decrypting.id, kit, true);
      await configureWallets(t, operator, virtual.id, kit, false);
      // The return URL names the method (Checkout Payment Method option, return parameters).
      const settings = await adminCall(t.baseUrl, 'PATCH', `/admin/v1/merchants/${decrypting.id}/settings`, operator, { checkout_payment_method: true, return_params: ['payment_method'] });
      assert.equal(settings.status, 200, settings.text);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await shop?.close();
    });

    async function openSession(m: TestMerchant, methods: string[]) {
      const order = { number: `WALLET-${process.pid}-${++orders}`, amount: '12.50', currency: 'EUR', description: 'Wallet order' };
      const res = await t.postJson('/api/v1/session', {
        merchant_key: m.key, operation: 'purchase', methods, order,
        success_url: `${shop.url}/success`, cancel_url: `${shop.url}/cancel`, error_url: `${shop.url}/error`,
        customer: { name: 'Jane Roe', email: 'jane@example.com' },
        hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
      });
      assert.equal(res.status, 200, res.text);
      return { redirectUrl: res.body.redirect_url as string, order };
    }

    async function newPage(): Promise<Page> {
      const page = await browser.newPage();
      await controlPageClock(page);
      // Anything the page asks of another origin than the gateway's and the shop's is recorded (the CSP forbids it).
      page.on('request', (r) => {
        const origin = new URL(r.url()).origin;
        if (origin !== new URL(t.baseUrl).origin && origin !== shop.url && !r.url().startsWith('data:')) outside.push(r.url());
      });
      return page;
    }

    async function payWithSheet(page: Page, card: 'success' | 'decline') {
      const sheet = page.locator('#wallet-sheet');
      await sheet.waitFor({ state: 'visible' });
      await page.selectOption('#wallet-sheet-card', card);
      await page.click('#wallet-sheet-pay');
      // A paid one shows its receipt a few seconds first: the page's clock is run through them.
      if (card === 'success') await receiptMovesOn(page, 15_000);
      // A decline with no tries left stays on the page until the payer chooses to go back (issue 31 item 12).
      else await page.getByRole('link', { name: 'Return to the shop' }).click({ timeout: 15_000 });
      await page.waitForURL((url) => url.toString().startsWith(shop.url), { timeout: 15_000 });
    }

    it('Google Pay button, decrypted flow: the simulator\'s sheet pays, the card is stored masked', async () => {
      const { redirectUrl, order } = await openSession(decrypting, ['card', 'googlepay', 'applepay']);
      const page = await newPage();
      const response = await page.goto(redirectUrl);
      assert.equal(response?.headers()['content-security-policy'], CONTENT_SECURITY_POLICY, 'the strict CSP');
      // The wallets are buttons at the top, above the card form, and not among the form's methods (issue 31 item 13).
      assert.equal(await page.locator('label.method-option:has(input[value=googlepay])').count(), 0);
      assert.ok(await page.locator('#express').evaluate((e) => Boolean(e.compareDocumentPosition(document.getElementById('pay-form')!) & Node.DOCUMENT_POSITION_FOLLOWING)), 'the wallets come before the card form');
      assert.equal(await page.locator('#pay-button').count(), 1, 'one Pay button');
      assert.equal(await page.getAttribute('#wallet-button-googlepay', 'data-mode'), 'simulator');
      await page.click('#wallet-button-googlepay');
      assert.match(await page.textContent('#wallet-sheet-title') ?? '', /Google Pay/);
      await payWithSheet(page, 'success');
      assert.match(page.url(), /\/success\?/);
      const back = new URL(page.url()).searchParams;
      assert.equal(back.get('checkout_payment_method'), 'googlepay');
      assert.equal(back.get('payment_method'), 'googlepay');
      const [payment] = await findPaymentsByOrder(t.store.db, decrypting.id, order.number, 1);
      assert.equal(payment?.status, 'settled');
      assert.deepEqual(payment?.details.wallet, { name: 'googlepay', flow: 'decrypted', authMethod: 'CRYPTOGRAM_3DS' });
      assert.equal(payment?.details.cardMask, '411111****1111');
      await page.close();
    });

    it('Apple Pay alone, virtual flow: its button is the page\'s one Pay button, the sheet\'s token is passed on', async () => {
      const { redirectUrl, order } = await openSession(virtual, ['applepay']);
      const page = await newPage();
      await page.goto(redirectUrl);
      assert.equal(await page.locator('#pay-button').count(), 0, 'no second Pay button beside the wallet\'s');
      await page.click('#wallet-button-applepay');
      assert.match(await page.textContent('#wallet-sheet-title') ?? '', /Apple Pay/);
      await payWithSheet(page, 'success');
      assert.match(page.url(), /\/success\?/);
      const [payment] = await findPaymentsByOrder(t.store.db, virtual.id, order.number, 1);
      assert.equal(payment?.status, 'settled');
      assert.deepEqual(payment?.details.wallet, { name: 'applepay', flow: 'virtual' });
      assert.equal(payment?.vaultId, null);
      await page.close();
    });

    it('the sheet\'s declining card ends at the merchant\'s error URL with a declined payment', async () => {
      const { redirectUrl, order } = await openSession(decrypting, ['applepay']);
      const page = await newPage();
      await page.goto(redirectUrl);
      await page.click('#wallet-button-applepay');
      await payWithSheet(page, 'decline');
      assert.match(page.url(), /\/error\?/);
      const [payment] = await findPaymentsByOrder(t.store.db, decrypting.id, order.number, 1);
      assert.equal(payment?.status, 'decline');
      await page.close();
    });

    it('the Google Pay payment-page variant asks the billing address the request lacked, then runs the sheet', async () => {
      const { redirectUrl, order } = await openSession(virtual, ['card', 'googlepay-page']);
      const page = await newPage();
      await page.goto(redirectUrl);
      await page.click('#wallet-button-googlepay-page');
      assert.equal(await page.isVisible('#wallet-sheet'), false, 'the required fields come first');
      await page.selectOption('#googlepay-page-billing_country', 'DE');
      await page.fill('#googlepay-page-billing_city', 'Berlin');
      await page.fill('#googlepay-page-billing_address', 'Unter den Linden 1');
      await page.fill('#googlepay-page-billing_zip', '10117');
      assert.equal(await page.locator('#googlepay-page-customer_email').count(), 0, 'the request gave the e-mail');
      await page.click('#wallet-button-googlepay-page');
      await payWithSheet(page, 'success');
      assert.match(page.url(), /\/success\?/);
      const [payment] = await findPaymentsByOrder(t.store.db, virtual.id, order.number, 1);
      assert.equal(payment?.status, 'settled');
      assert.deepEqual(payment?.details.wallet, { name: 'googlepay', flow: 'virtual' });
      assert.deepEqual([payment?.payer.country, payment?.payer.city, payment?.payer.address, payment?.payer.zip], ['DE', 'Berlin', 'Unter den Linden 1', '10117']);
      await page.close();
    });

    it('a payment-page variant refuses a token posted without the fields it must ask (422, no payment)', async () => {
      const { redirectUrl, order } = await openSession(decrypting, ['applepay-page']);
      const res = await fetch(`${redirectUrl}/wallet`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ method: 'applepay-page', wallet: 'applepay', payment_token: await kit.appleToken(), billing_city: 'B' }).toString(),
      });
      assert.equal(res.status, 422);
      assert.match(await res.text(), /Enter the city/);
      const [payment] = await findPaymentsByOrder(t.store.db, decrypting.id, order.number, 1);
      assert.equal(payment?.status, 'prepare');
    });

    it('the wallet panel, a page variant\'s fields and the open simulator sheet have no critical or serious axe violation', async () => {
      const { redirectUrl } = await openSession(decrypting, ['card', 'applepay', 'googlepay-page']);
      const context = await payerContext(browser, { locale: 'en-GB', viewport: 'phone' });
      const page = await context.newPage();
      await page.goto(redirectUrl);
      await lookAt(page, 'wallet-page-variant', process.env.SCREENSHOTS === '1');
      await page.click('#wallet-button-applepay');
      await page.locator('#wallet-sheet').waitFor({ state: 'visible' });
      await lookAt(page, 'wallet-simulator-sheet', process.env.SCREENSHOTS === '1');
      await context.close();
    });

    it('loaded nothing from outside the gateway and the shop', () => {
      assert.deepEqual(outside, []);
    });

    it('without JavaScript the form\'s Pay button says the wallet needs its button (no payment made)', async () => {
      const { redirectUrl, order } = await openSession(decrypting, ['googlepay']);
      const sessionPath = new URL(redirectUrl).pathname;
      const res = await fetch(`${t.baseUrl}${sessionPath}/pay`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'method=googlepay' });
      assert.equal(res.status, 422);
      assert.match(await res.text(), /payment sheet with JavaScript/);
      const [payment] = await findPaymentsByOrder(t.store.db, decrypting.id, order.number, 1);
      assert.equal(payment?.status, 'prepare');
    });

    it('a live merchant\'s page: Google\'s script allowed by its CSP, the PaymentDataRequest for PaymentsClient', async () => {
      const live = await t.addMerchant({ sandbox: false, mids: [{ paymentMode: 'SMS/DMS', connector: 'akurateco' }] });
      await configureWallets(t, await tokenFor(t, 'operator'), live.id, kit, true);
      const { redirectUrl } = await openSession(live, ['googlepay']);
      const res = await fetch(redirectUrl);
      const html = await res.text();
      assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self' https:\/\/pay\.google\.com/);
      assert.match(html, /data-mode="live"/);
      const config = JSON.parse(html.match(/<script type="application\/json" id="config">([\s\S]*?)<\/script>/)![1]!.replace(/\\u003c/g, '<'));
      const request = config.wallets[0].request;
      assert.equal(request.environment, 'TEST');
      assert.equal(request.allowedPaymentMethods[0].tokenizationSpecification.type, 'DIRECT', 'the merchant holds the key: tokens for the merchant');
      assert.equal(request.transactionInfo.totalPrice, '12.50');
      // The simulator is not there for a live merchant.
      const sim = await fetch(`${t.baseUrl}/sandbox/wallets/${new URL(redirectUrl).pathname.split('/').pop()}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'wallet=googlepay' });
      assert.equal(sim.status, 404);
    });

    /** A live merchant on an acquirer that takes decrypted wallet cards (a stand-in: no live acquirer here does yet). */
    async function liveMerchant(): Promise<{ m: TestMerchant; seen: AuthorizeRequest[] }> {
      const seen: AuthorizeRequest[] = [];
      const sandbox = t.gateway.ctx.connectors.get('sandbox-card')!;
      const stub: CardConnector = {
        name: 'live-wallets', walletTokens: true, decryptedWalletCards: true,
        authorize: async (req) => { seen.push(req); return { kind: 'approved', reference: `live_${seen.length}` }; },
        complete: sandbox.complete.bind(sandbox), capture: sandbox.capture.bind(sandbox), refund: sandbox.refund.bind(sandbox),
        reverse: sandbox.reverse.bind(sandbox), void: sandbox.void.bind(sandbox), inquire: sandbox.inquire.bind(sandbox),
      };
      (t.gateway.ctx.connectors as Map<string, CardConnector>).set(stub.name, stub);
      const m = await t.addMerchant({ sandbox: false, settings: { payerRetries: false }, mids: [{ paymentMode: 'SMS/DMS', connector: stub.name }] });
      await configureWallets(t, await tokenFor(t, 'operator'), m.id, kit, true);
      // A live merchant trusts the configured roots only: here the test issuers' (Apple's and Google's in production).
      t.gateway.ctx.walletTrust = { googleRootKeys: { TEST: kit.google.rootKeys, PRODUCTION: [] }, appleRootCertificates: [kit.apple.rootCertificate] };
      return { m, seen };
    }

    it('live Apple Pay: ApplePaySession runs with the page\'s request, the merchant is validated through the gateway, the token pays', async () => {
      const { m, seen } = await liveMerchant();
      const validations: MerchantSessionRequest[] = [];
      t.gateway.ctx.appleSessionPort = async (req) => {
        validations.push(req);
        return { status: 200, body: JSON.stringify({ merchantSessionIdentifier: 'SSH-TEST', signature: 'opaque' }) };
      };
      const { redirectUrl, order } = await openSession(m, ['applepay']);
      const context = await browser.newContext();
      const page = await context.newPage();
      // Safari's ApplePaySession, as a stand-in: it asks for merchant validation, then authorizes with a real token.
      // (A script as text: the page runs it as written, not as this file's compiler rewrote a class.)
      await page.addInitScript(`(() => {
        const token = ${JSON.stringify(await kit.appleToken())};
        function FakeSession(version, request) { window.appleRequest = { version: version, request: request }; }
        FakeSession.STATUS_SUCCESS = 0;
        FakeSession.canMakePayments = function () { return true; };
        FakeSession.prototype.begin = function () { this.onvalidatemerchant({ validationURL: 'https://apple-pay-gateway-cert.apple.com/paymentservices/startSession' }); };
        FakeSession.prototype.completeMerchantValidation = function (session) { window.merchantSession = session; this.onpaymentauthorized({ payment: { token: JSON.parse(token) } }); };
        FakeSession.prototype.completePayment = function (status) { window.completed = status; };
        FakeSession.prototype.abort = function () { window.aborted = true; };
        window.ApplePaySession = FakeSession;
      })();`);
      await page.goto(redirectUrl);
      assert.equal(await page.getAttribute('#wallet-button-applepay', 'data-mode'), 'live');
      await page.click('#wallet-button-applepay');
      await page.waitForURL((url) => url.toString().startsWith(shop.url), { timeout: 15_000 });
      assert.match(page.url(), /\/success\?/);
      assert.equal(validations.length, 1);
      assert.equal(validations[0]!.url.hostname, 'apple-pay-gateway-cert.apple.com');
      assert.equal(validations[0]!.certificatePem, kit.identity.certificatePem, 'the merchant identity certificate from the Wallets tab');
      assert.deepEqual(JSON.parse(validations[0]!.body), { merchantIdentifier: APPLE_MERCHANT_ID, displayName: 'Wallet Shop', initiative: 'web', initiativeContext: '127.0.0.1' });
      assert.equal(validations[0]!.keyPem, kit.identity.privateKeyPem, 'and its key');
      assert.equal(seen.length, 1);
      assert.equal(seen[0]!.wallet?.cryptogram, TOKEN_CARD.cryptogram, 'the decrypted token\'s cryptogram went to the acquirer');
      const [payment] = await findPaymentsByOrder(t.store.db, m.id, order.number, 1);
      assert.deepEqual(payment?.details.wallet, { name: 'applepay', flow: 'decrypted', authMethod: 'CRYPTOGRAM_3DS' });
      await context.close();
    });

    it('live Google Pay: PaymentsClient (Google\'s script, allowed by the page\'s CSP) gets the PaymentDataRequest, its token pays', async () => {
      const { m, seen } = await liveMerchant();
      const { redirectUrl, order } = await openSession(m, ['googlepay']);
      const context = await browser.newContext();
      const page = await context.newPage();
      // Google's pay.js, as a stand-in served at its own address (the page's CSP must let it run).
      const token = kit.googleToken();
      await page.route('https://pay.google.com/gp/p/js/pay.js', (route) => route.fulfill({
        contentType: 'text/javascript',
        body: `window.google = { payments: { api: { PaymentsClient: function (options) {
          window.googleOptions = options;
          this.isReadyToPay = function () { return Promise.resolve({ result: true }); };
          this.loadPaymentData = function (request) { window.googleRequest = request; return Promise.resolve({ paymentMethodData: { tokenizationData: { type: 'DIRECT', token: ${JSON.stringify(token)} } } }); };
        } } } };`,
      }));
      await page.goto(redirectUrl);
      await page.waitForFunction(() => !(document.getElementById('wallet-button-googlepay') as HTMLButtonElement).disabled);
      await page.click('#wallet-button-googlepay');
      await page.waitForURL((url) => url.toString().startsWith(shop.url), { timeout: 15_000 });
      assert.match(page.url(), /\/success\?/);
      assert.equal(seen.length, 1);
      assert.equal(seen[0]!.card.pan, TOKEN_CARD.pan);
      const [payment] = await findPaymentsByOrder(t.store.db, m.id, order.number, 1);
      assert.deepEqual(payment?.details.wallet, { name: 'googlepay', flow: 'decrypted', authMethod: 'CRYPTOGRAM_3DS' });
      await context.close();
    });

    it('Apple Pay merchant validation goes only to Apple\'s hosts', async () => {
      const { redirectUrl } = await openSession(decrypting, ['applepay']);
      const res = await fetch(`${redirectUrl}/applepay/validate`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `validation_url=${encodeURIComponent('https://169.254.169.254/latest/meta-data')}` });
      assert.equal(res.status, 400);
      assert.match(await res.text(), /validation_url: This value is not a valid URL\./);
    });
  });
}
