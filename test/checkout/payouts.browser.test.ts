/**
 * Checkout payouts (operation credit) end to end, on one store (browserStores), as a merchant and a payee live them (issue 17):
 * the session opened through the Checkout API with the platform's hash, the hosted page in a real browser asking
 * the payee for what the request lacks, the payout at the sandbox provider (the mail payout's e-mail in the
 * sandbox outbox, its link and security question), the callback of type credit received by a real HTTP
 * listener and checked byte for byte, and the status lookup. MID settings (account_uuid, fee_calculation_method)
 * are set through the admin API. A payout by card_token asks MM/YY only and uses what was typed; the request's
 * payee names win over the token's holder.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener, type ReceivedCallback } from '../support/merchant.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { assertAccessible, controlPageClock, payerContext, receiptMovesOn } from '../support/payer-pages.ts';

const ADMIN = 'pcop_issue17_payouts_admin_token_0000000000000';
const browserSkip = browserUnavailable() ?? false;

async function startShop(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Shop ${new URL(req.url ?? '/', 'http://x').pathname}</h1>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

interface Order {
  number: string;
  amount: string;
  currency: string;
  description: string;
}

for (const { kind, skip } of await browserStores()) {
  describe(`Checkout payouts to alternative methods and cards in a real browser (${kind})`, { skip: skip || browserSkip }, () => {
    let t: TestGateway;
    let listener: Listener;
    let shop: Awaited<ReturnType<typeof startShop>>;
    let browser: Browser;
    let admin: AdminCall;
    /** A merchant whose MID has no account_uuid. */
    let bare: TestMerchant;

    before(async () => {
      listener = await startListener();
      shop = await startShop();
      // A declined payout goes straight back to the merchant (the platform's behaviour).
      t = await startTestGateway(kind, { workers: true, adminToken: ADMIN, notificationUrl: listener.url, settings: { payerRetries: false } });
      bare = await t.addMerchant({ notificationUrl: listener.url, settings: { payerRetries: false } });
      admin = adminClient(t.baseUrl, ADMIN);
      // The operator sets the mail payout's account and fee option, and the Pix payout's source account, on the merchant's MID.
      const mids = await admin('GET', `/admin/v1/merchants/${t.merchant.id}/mids`);
      assert.equal(mids.status, 200, mids.text);
      const midId = mids.body.mids[0].id as string;
      const refused = await admin('PATCH', `/admin/v1/merchants/${t.merchant.id}/mids/${midId}`, { settings: { account_uuid: 'acc-7f3c', fee_calculation_method: 'per_item' } });
      assert.equal(refused.status, 400, refused.text);
      assert.ok(refused.text.includes('settings.fee_calculation_method: The value you selected is not a valid choice.'), refused.text);
      const set = await admin('PATCH', `/admin/v1/merchants/${t.merchant.id}/mids/${midId}`, { settings: { account_uuid: 'acc-7f3c', fee_calculation_method: 'transaction_level', source_account_number: '12345-6', branch_identifier: '0001' } });
      assert.equal(set.status, 200, set.text);
      assert.deepEqual(set.body.settings, { account_uuid: 'acc-7f3c', fee_calculation_method: 'transaction_level', source_account_number: '12345-6', branch_identifier: '0001' });
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await listener?.close();
      await shop?.close();
    });

    let n = 0;
    async function openSession(m: TestMerchant, body: Record<string, unknown>, currency = 'EUR'): Promise<{ redirectUrl: string; order: Order }> {
      const order = { number: `po-${kind}-${Date.now()}-${++n}`, amount: currency === 'XOF' ? '1500' : '25.00', currency, description: 'Winnings withdrawal' };
      const res = await t.postJson('/api/v1/session', {
        merchant_key: m.key,
        operation: 'credit',
        order,
        success_url: `${shop.url}/success`,
        error_url: `${shop.url}/error`,
        ...body,
        hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
      });
      assert.equal(res.status, 200, res.text);
      return { redirectUrl: res.body.redirect_url as string, order };
    }

    async function choose(redirectUrl: string, method?: string): Promise<Page> {
      const page = await browser.newPage();
      await controlPageClock(page);
      await page.goto(redirectUrl);
      if (method) await page.locator(`input[name=method][value="${method}"]`).check();
      await page.click('#pay-button');
      return page;
    }

    /** The callback as the merchant's endpoint received it: form-encoded bytes, signed with the platform's formula. */
    async function creditCallback(m: TestMerchant, order: Order, status: 'success' | 'fail'): Promise<Record<string, string>> {
      const [cb] = await listener.waitForMatching((c) => c.fields.order_number === order.number && c.fields.type === 'credit', 1, 20_000);
      const { raw, headers, fields: f } = cb as ReceivedCallback;
      assert.match(String(headers['content-type']), /^application\/x-www-form-urlencoded/);
      // The signed order fields lead, exactly as sent in the request, then the rest; the body is canonical form encoding.
      const enc = (v: string) => new URLSearchParams({ v }).toString().slice(2);
      assert.ok(raw.startsWith(`id=${f.id}&order_number=${enc(order.number)}&order_amount=${enc(order.amount)}&order_currency=${order.currency}&order_description=${enc(order.description)}&hash=`), raw);
      // Percent-encoded UTF-8 pairs only (spaces as +), each name once.
      assert.match(raw, /^([A-Za-z0-9_%.*~+-]+=[A-Za-z0-9_%.*~+-]*)(&[A-Za-z0-9_%.*~+-]+=[A-Za-z0-9_%.*~+-]*)*$/);
      assert.equal(new Set([...new URLSearchParams(raw).keys()]).size, raw.split('&').length);
      assert.equal(f.hash, checkoutHash(m.password, f.id!, order.number, order.amount, order.currency, order.description));
      assert.equal(f.type, 'credit');
      assert.equal(f.status, status);
      assert.equal(f.order_status, status === 'success' ? 'settled' : 'decline');
      assert.equal(f.payment_id, f.id);
      return f as Record<string, string>;
    }

    async function statusOf(m: TestMerchant, paymentId: string) {
      const res = await t.postJson('/api/v1/payment/status', { merchant_key: m.key, payment_id: paymentId, hash: checkoutHash(m.password, paymentId) });
      assert.equal(res.status, 200, res.text);
      return res.body;
    }

    async function landsOn(page: Page, where: 'success' | 'error', order: Order) {
      // A paid payout shows its receipt a few seconds before the page moves on: its clock is run through them.
      if (where === 'success') await receiptMovesOn(page);
      // A final decline stays on the page (issue 31 item 12) until the payer chooses to go back to the shop.
      if (where === 'error') await page.getByRole('link', { name: 'Return to the shop' }).click({ timeout: 30_000 });
      await page.waitForURL(`${shop.url}/${where}?**`, { timeout: 30_000 });
      assert.equal(new URL(page.url()).searchParams.get('order_id'), order.number);
    }

    it('mail payout: the page asks the security question, the e-mail carries the link, the recipient answers it, a credit callback follows', async () => {
      const { redirectUrl, order } = await openSession(t.merchant, {
        methods: ['mail-payout'],
        payee_first_name: 'Jane',
        payee_last_name: 'Roe',
        payee: { email: 'success@gmail.com' },
      });
      const page = await choose(redirectUrl);
      await page.waitForURL(/\/pay\//);
      assert.equal(await page.locator('.amount-label').innerText(), 'Payout from');
      // The payee's names and e-mail came with the request: only the question and its answer are asked.
      assert.deepEqual(await page.locator('#apm-fields-form input:not([type=hidden])').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).name)), ['SecurityQuestion', 'SecurityQuestionAnswer']);
      // The spec's limits, checked by the server (the browser's own checks switched off): a question of 10 to 40.
      await page.locator('#apm-fields-form').evaluate((f) => f.setAttribute('novalidate', ''));
      await page.fill('[name=SecurityQuestion]', 'Pet name?');
      await page.fill('[name=SecurityQuestionAnswer]', 'Rex');
      await page.click('#apm-continue');
      await page.locator('.field--invalid [name=SecurityQuestion]').waitFor();
      assert.equal(await page.locator('.field--invalid').count(), 1, 'only the question is refused');
      await page.fill('[name=SecurityQuestion]', 'Name of my first pet?');
      await page.fill('[name=SecurityQuestionAnswer]', 'Rex');
      await page.click('#apm-continue');
      await page.getByRole('heading', { name: 'Open the link we sent you' }).waitFor();

      // The recipient's mailbox: the provider's e-mail with the link.
      const mail = (await (await fetch(`${t.baseUrl}/sandbox/outbox/messages?to=success@gmail.com`)).json()) as { messages: { subject: string; body: string; link: string }[] };
      const message = mail.messages.find((mm) => mm.subject.includes('25.00 EUR'));
      assert.ok(message, JSON.stringify(mail));
      assert.match(message.body, /Hello Jane Roe/);
      assert.match(message.body, /answer the security question/);
      // The recipient opens it on a phone.
      const phone = await payerContext(browser, { locale: 'en-US', viewport: 'phone' });
      const inbox = await phone.newPage();
      await inbox.goto(message.link);
      assert.equal(await inbox.locator('#claim-question').innerText(), 'Name of my first pet?');
      // What the provider received from the MID the operator configured.
      assert.equal(await inbox.locator('#claim-account').innerText(), 'acc-7f3c');
      assert.equal(await inbox.locator('#claim-fees').innerText(), 'transaction_level');
      await assertAccessible(inbox, 'mail payout link page');
      await inbox.fill('[name=answer]', 'Felix');
      await inbox.click('#claim-submit');
      await inbox.getByText('Attempts left: 2').waitFor();
      await inbox.fill('[name=answer]', ' rex ');
      await inbox.click('#claim-submit');
      await inbox.getByRole('heading', { name: 'Payment confirmed' }).waitFor();
      await phone.close();

      // The payee's page moves on by itself.
      await landsOn(page, 'success', order);
      await page.close();
      const f = await creditCallback(t.merchant, order, 'success');
      assert.equal(f.customer_name, 'Jane Roe');
      assert.equal(f.customer_email, 'success@gmail.com');
      const status = await statusOf(t.merchant, f.id!);
      assert.equal(status.status, 'settled');
      assert.deepEqual(status.customer, { name: 'Jane Roe', email: 'success@gmail.com' });
    });

    it('mail payout: three wrong answers refuse it, and the merchant hears a failed credit', async () => {
      const { redirectUrl, order } = await openSession(t.merchant, {
        methods: ['mail-payout'],
        customer: { email: 'success@gmail.com' },
        payee_first_name: 'Ana',
        payee_last_name: 'Lima',
        parameters: { 'mail-payout': { SecurityQuestion: 'City where we first met?', SecurityQuestionAnswer: 'Lisbon' } },
      });
      const page = await choose(redirectUrl);
      // Everything came with the request: straight to the link.
      await page.getByRole('heading', { name: 'Open the link we sent you' }).waitFor();
      const mail = (await (await fetch(`${t.baseUrl}/sandbox/outbox/messages?to=success@gmail.com`)).json()) as { messages: { body: string; link: string }[] };
      const link = mail.messages.find((mm) => mm.body.includes('Hello Ana Lima'))!.link;
      const inbox = await browser.newPage();
      await inbox.goto(link);
      for (const wrong of ['Porto', 'Braga']) {
        await inbox.fill('[name=answer]', wrong);
        await inbox.click('#claim-submit');
        await inbox.locator('.field--invalid [name=answer]').waitFor();
      }
      await inbox.fill('[name=answer]', 'Faro');
      await inbox.click('#claim-submit');
      await inbox.getByRole('heading', { name: 'Payment not made' }).waitFor();
      await inbox.close();
      await landsOn(page, 'error', order);
      await page.close();
      const f = await creditCallback(t.merchant, order, 'fail');
      assert.equal(f.reason, 'Security question answered wrongly too many times');
      assert.equal((await statusOf(t.merchant, f.id!)).status, 'decline');
    });

    it('mail payout without the MID account_uuid: declined before the provider is asked', async () => {
      const { redirectUrl, order } = await openSession(bare, {
        methods: ['mail-payout'],
        payee_first_name: 'Jane',
        payee_last_name: 'Roe',
        payee: { email: 'success@gmail.com' },
        parameters: { 'mail-payout': { SecurityQuestion: 'Name of my first pet?', SecurityQuestionAnswer: 'Rex' } },
      });
      const page = await choose(redirectUrl);
      await landsOn(page, 'error', order);
      await page.close();
      const f = await creditCallback(bare, order, 'fail');
      assert.equal(f.reason, 'MID setting missing: account_uuid');
    });

    it('Pix payout picked among payout methods: the page asks for the Pix key, the payout is decided at once', async () => {
      const { redirectUrl, order } = await openSession(t.merchant, {
        methods: ['out-brazil', 'pix-payout'],
        customer: { name: 'Joao Silva', email: 'success@gmail.com' },
      }, 'EUR');
      const page = await choose(redirectUrl, 'pix-payout');
      await page.waitForURL(/\/pay\//);
      await page.fill('[name=key]', 'not a key!');
      await page.locator('#apm-fields-form').evaluate((form) => form.setAttribute('novalidate', ''));
      await page.click('#apm-continue');
      await page.locator('.field--invalid [name=key]').waitFor();
      await page.fill('[name=key]', '12345678901');
      await page.click('#apm-continue');
      await landsOn(page, 'success', order);
      await page.close();
      const f = await creditCallback(t.merchant, order, 'success');
      assert.equal(f.customer_name, 'Joao Silva');
      assert.equal((await statusOf(t.merchant, f.id!)).status, 'settled');
    });

    it('withdrawal by country with everything in the request, and a payee e-mail the sandbox declines', async () => {
      const { redirectUrl, order } = await openSession(t.merchant, {
        methods: ['out-brazil'],
        payee: { email: 'fail@gmail.com', first_name: 'Maria', last_name: 'Souza' },
        parameters: { 'out-brazil': { paymentMethod: 'CPF', cashAccount: '12345678901', taxNumber: '12345678901' } },
      });
      const page = await choose(redirectUrl);
      await landsOn(page, 'error', order);
      await page.close();
      const f = await creditCallback(t.merchant, order, 'fail');
      assert.equal(f.reason, 'Declined by processing');
      assert.equal(f.customer_name, 'Maria Souza');
      assert.equal((await statusOf(t.merchant, f.id!)).status, 'decline');
    });

    it('withdrawal via another provider and trading withdrawal: the page asks for the account, prefilled from the payee where it can', async () => {
      const other = await openSession(t.merchant, { methods: ['other-withdrawal'], payee_first_name: 'Lee', payee_last_name: 'Wong', payee: { email: 'success@gmail.com' } });
      const page = await choose(other.redirectUrl);
      await page.waitForURL(/\/pay\//);
      // The account holder's name came with the request; the account number did not.
      assert.deepEqual(await page.locator('#apm-fields-form input:not([type=hidden])').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).name)), ['ToAccountNumber']);
      await page.fill('[name=ToAccountNumber]', '0012345678');
      await page.click('#apm-continue');
      await landsOn(page, 'success', other.order);
      await page.close();
      assert.equal((await creditCallback(t.merchant, other.order, 'success')).customer_name, 'Lee Wong');

      const trading = await openSession(t.merchant, { methods: ['trading-withdrawal'], customer: { email: 'success@gmail.com' }, parameters: { 'trading-withdrawal': { withdrawCurrency: 'USDT' } } });
      const tpage = await choose(trading.redirectUrl);
      await tpage.waitForURL(/\/pay\//);
      await tpage.fill('[name=address]', 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE');
      await tpage.click('#apm-continue');
      await landsOn(tpage, 'success', trading.order);
      await tpage.close();
      await creditCallback(t.merchant, trading.order, 'success');
    });

    it('mobile-money payout on Checkout: the page asks the operator and the number; the payee fields of the request reach it', async () => {
      const { redirectUrl, order } = await openSession(t.merchant, {
        methods: ['mobile-money-payout'],
        payee_first_name: 'Kofi',
        payee_last_name: 'Mensah',
        payee: { email: 'success@gmail.com' },
      }, 'XOF');
      const page = await choose(redirectUrl);
      await page.waitForURL(/\/pay\//);
      assert.deepEqual(await page.locator('#apm-fields-form input:not([type=hidden])').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).name)), ['mobile_money_operator', 'mobile_number']);
      await page.fill('[name=mobile_money_operator]', 'mtn-ci');
      await page.fill('[name=mobile_number]', '+2250701020304');
      await page.click('#apm-continue');
      await landsOn(page, 'success', order);
      await page.close();
      const f = await creditCallback(t.merchant, order, 'success');
      assert.equal(f.order_amount, '1500');
      assert.equal(f.customer_name, 'Kofi Mensah');
    });

    it('card_token payout: the page asks MM/YY only and uses it; the request payee names win over the token holder', async () => {
      // A debit paid on the page stores the card (expiry 01/2030, holder Jane Roe) and gives its token.
      const debitOrder = { number: `debit-${kind}-${Date.now()}`, amount: '10.00', currency: 'EUR', description: 'Deposit' };
      const debit = await t.postJson('/api/v1/session', {
        merchant_key: t.merchant.key, operation: 'debit', methods: ['card'], order: debitOrder, success_url: `${shop.url}/success`,
        customer: { email: 'success@gmail.com' },
        hash: checkoutHash(t.merchant.password, debitOrder.number, debitOrder.amount, debitOrder.currency, debitOrder.description),
      });
      assert.equal(debit.status, 200, debit.text);
      const payPage = await browser.newPage();
      await controlPageClock(payPage);
      await payPage.goto(debit.body.redirect_url);
      await payPage.fill('[name=card_number]', '4111111111111111');
      await payPage.fill('[name=card_expiry]', '01/30');
      await payPage.fill('[name=card_cvv]', '123');
      await payPage.fill('[name=card_holder]', 'Jane Roe');
      await payPage.click('#pay-button');
      await receiptMovesOn(payPage);
      await payPage.waitForURL(`${shop.url}/success?**`, { timeout: 30_000 });
      await payPage.close();
      const [debitCb] = await listener.waitForMatching((c) => c.fields.order_number === debitOrder.number && c.fields.order_status === 'settled', 1);
      const cardToken = debitCb!.fields.card_token!;
      assert.match(cardToken, /^[0-9a-f]{64}$/);
      assert.equal(debitCb!.fields.card_expiration_date, '01/2030');

      const payout = async (body: Record<string, unknown>, expiry: string) => {
        const { redirectUrl, order } = await openSession(t.merchant, { methods: ['card'], card_token: cardToken, ...body });
        const page = await browser.newPage();
        await controlPageClock(page);
        await page.goto(redirectUrl);
        // MM/YY only: no card number, no CVV, no holder.
        assert.equal(await page.locator('[name=card_number], [name=card_cvv], [name=card_holder]').count(), 0);
        await page.fill('[name=card_expiry]', expiry);
        await page.click('#pay-button');
        await landsOn(page, 'success', order);
        await page.close();
        return creditCallback(t.merchant, order, 'success');
      };
      const named = await payout({ payee_first_name: 'Ana', payee_last_name: 'Lima', payee_billing_address: { country: 'PT', city: 'Lisboa' } }, '09/31');
      assert.equal(named.card_expiration_date, '09/2031', 'the typed expiry, not the vaulted 01/2030');
      assert.equal(named.card, '411111****1111');
      assert.equal(named.customer_name, 'Ana Lima');
      assert.equal(named.customer_country, 'PT');
      const status = await statusOf(t.merchant, named.id!);
      assert.equal(status.status, 'settled');
      assert.deepEqual(status.customer, { name: 'Ana Lima' });

      const fromToken = await payout({}, '11/32');
      assert.equal(fromToken.card_expiration_date, '11/2032');
      assert.equal(fromToken.customer_name, 'Jane Roe', 'without payee names the token holder names the payee');
    });
  });
}
