/**
 * Hosted payment fields in a real browser (Debian's chromium), on one store (browserStores): a merchant page on another
 * origin embeds the three gateway fields with the documented HostedFields API; the payer types a card; the page
 * calls collectIframesData(), its backend calls processing/purchase/card; a 3-D Secure card goes through the
 * ACS page back to return_url; the signed callback arrives. The shop never receives card data, and messages
 * from anything but the gateway's frames are ignored.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener } from '../support/merchant.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { startDemoShop, type DemoShop } from './demo-shop.ts';
import { callbackHashOk, spyOnConnector } from './support.ts';

const browserSkip = browserUnavailable() ?? false;

for (const { kind, skip } of await browserStores()) {
  describe(`hosted payment fields in a real browser (${kind})`, { skip: skip || browserSkip }, () => {
    let t: TestGateway;
    let listener: Listener;
    let shop: DemoShop;
    let browser: Browser;
    let calls: ReturnType<typeof spyOnConnector>;

    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true, notificationUrl: listener.url });
      calls = spyOnConnector(t);
      shop = await startDemoShop(t);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await shop?.close();
      await listener?.close();
    });

    const field = (page: Page, name: 'card' | 'expiry' | 'cvv') => page.frameLocator(`#${name} iframe`).locator('input');

    async function openShop(query = ''): Promise<Page> {
      const page = await (await browser.newContext()).newPage();
      const failures: string[] = [];
      // Console errors (a CSP violation, a script error) and failed requests, the shop's favicon aside.
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) failures.push(m.text());
      });
      page.on('pageerror', (err) => failures.push(err.message));
      page.on('response', (r) => {
        if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) failures.push(`${r.status()} ${r.url()}`);
      });
      await page.goto(`${shop.origin}/${query}`);
      await page.waitForFunction(() => !(document.getElementById('pay') as HTMLButtonElement).disabled);
      (page as Page & { failures?: string[] }).failures = failures;
      return page;
    }

    async function typeCard(page: Page, card: { number: string; expiry: string; cvv: string }) {
      await field(page, 'card').pressSequentially(card.number, { delay: 5 });
      await field(page, 'expiry').pressSequentially(card.expiry, { delay: 5 });
      await field(page, 'cvv').pressSequentially(card.cvv, { delay: 5 });
      await field(page, 'cvv').blur();
    }

    const tokenOf = (page: Page) => page.evaluate(() => (window as unknown as { token: string }).token);

    it('types a card into the fields, collects, pays from the backend, and gets the signed callback', async () => {
      const page = await openShop();
      const token = await tokenOf(page);
      const order = shop.orders.get(token);
      assert.ok(order);

      // The merchant's style reached the field (filtered: no url()), the placeholder too.
      const card = field(page, 'card');
      assert.equal(await card.evaluate((el) => getComputedStyle(el).color), 'rgb(17, 34, 51)');
      assert.equal(await card.evaluate((el) => getComputedStyle(el).backgroundImage), 'none');
      assert.equal(await card.getAttribute('placeholder'), 'Card number');

      await typeCard(page, { number: '4111111111111111', expiry: '0138', cvv: '123' });
      assert.equal(await card.inputValue(), '4111 1111 1111 1111', 'grouped as typed');
      assert.equal(await field(page, 'expiry').inputValue(), '01/38');
      const events = await page.evaluate(() => (window as unknown as { hfEvents: { field: string; event: string; valid: boolean }[] }).hfEvents);
      assert.ok(events.some((e) => e.field === 'card' && e.event === 'focus'));
      assert.ok(events.some((e) => e.field === 'card' && e.event === 'input' && e.valid === false), 'invalid while incomplete');
      for (const name of ['card', 'expiry', 'cvv']) {
        const last = events.filter((e) => e.field === name && e.event === 'input').at(-1);
        assert.equal(last?.valid, true, `${name} valid at the end`);
      }
      assert.ok(events.some((e) => e.field === 'cvv' && e.event === 'blur'));
      // The merchant page cannot read the field.
      assert.equal(await page.evaluate(() => {
        try {
          return (document.querySelector('#card iframe') as HTMLIFrameElement).contentDocument?.querySelector('input')?.value ?? 'blocked';
        } catch {
          return 'blocked';
        }
      }), 'blocked');

      const before = calls.length;
      const collection = page.waitForRequest((r) => r.url().endsWith('/hosted-fields/collect'));
      await page.click('#pay');
      // The card frame posts the payer's device id (risk engine): the SDK keeps it in the shop page's storage.
      const deviceId = (JSON.parse((await collection).postData() ?? '{}') as { device_id?: string }).device_id;
      assert.match(deviceId ?? '', /^[A-Za-z0-9_-]{22}$/);
      assert.equal(await page.evaluate(() => localStorage.getItem('portcullis.device')), deviceId);
      await page.locator('#result', { hasText: 'success' }).waitFor();
      const results = await page.evaluate(() => (window as unknown as { submitResults: unknown[] }).submitResults);
      assert.deepEqual(results, [{ result: 'success', message: 'Card data collected successfully', card: { brand: 'visa', last4: '1111', expiry: '01/2038' } }]);
      const answer = await page.evaluate(() => (window as unknown as { payAnswer: Record<string, any> }).payAnswer);
      assert.equal(answer.result, 'success');
      assert.equal(answer.return_url_query_params.hash, checkoutHash(t.merchant.password, answer.public_id, order.number, order.amount, order.currency, order.description));
      assert.equal(calls[before]?.card.cvv, '123', 'the CVV typed reached the connector');
      assert.match(calls[before]?.browser?.acceptHeaders ?? '', /\*\/\*|json|html/);

      const [cb] = await listener.waitForMatching((c) => c.fields.order_number === order.number, 1);
      assert.ok(cb);
      assert.ok(callbackHashOk(t.merchant, cb.fields));
      assert.equal(cb.fields.order_status, 'settled');
      assert.equal(cb.fields.card, '411111****1111');
      assert.equal(cb.fields.customer_name, 'Jane Roe');

      // The card never passed through the shop.
      for (const r of shop.received) {
        assert.doesNotMatch(r.body + r.url, /4111|1111 1111|"123"|01\/38/, `${r.method} ${r.url}`);
      }
      assert.deepEqual((page as Page & { failures?: string[] }).failures, []);
      await page.close();
    });

    it('a 3-D Secure card: redirect, the ACS page, back to return_url with a signed query, then the callback', async () => {
      const page = await openShop('?amount=42.00');
      const order = shop.orders.get(await tokenOf(page));
      assert.ok(order);
      await typeCard(page, { number: '4111 1111 1111 1111', expiry: '05/38', cvv: '321' });
      await page.click('#pay');
      await page.waitForURL(`${t.baseUrl}/sandbox/acs/**`);
      await page.fill('[name=otp]', '123456');
      await page.click('button[name=decision][value=submit]');
      await page.waitForURL(`${shop.origin}/return?**`);
      await page.locator('#returned').waitFor();
      const back = new URL(page.url());
      const paymentId = back.searchParams.get('payment_id') ?? '';
      assert.match(paymentId, /^[0-9a-f-]{36}$/);
      assert.equal(back.searchParams.get('order_id'), order.number);
      assert.equal(back.searchParams.get('hash'), checkoutHash(t.merchant.password, paymentId, order.number, '42.00', order.currency, order.description));
      const [cb] = await listener.waitForMatching((c) => c.fields.order_number === order.number && c.fields.order_status === 'settled', 1);
      assert.ok(cb && callbackHashOk(t.merchant, cb.fields));
      assert.equal(cb.fields.threeDSServerTransID, undefined, '3-D Secure attributes only when Protocol Mapping enables them');
      await page.close();
    });

    it('reports invalid fields to onSubmitResult without sending anything', async () => {
      const page = await openShop();
      await typeCard(page, { number: '4111111111111112', expiry: '01/38', cvv: '12' });
      const received = shop.received.length;
      await page.click('#pay');
      await page.locator('#result', { hasText: 'error' }).waitFor();
      const [result] = await page.evaluate(() => (window as unknown as { submitResults: { result: string; errors: { field: string }[] }[] }).submitResults);
      assert.equal(result?.result, 'error');
      assert.deepEqual(result?.errors.map((e) => e.field), ['card', 'cvv']);
      assert.equal(shop.received.length, received, 'no backend call');
      await page.close();
    });

    it('ignores messages that do not come from the gateway\'s own frames', async () => {
      const page = await openShop();
      await typeCard(page, { number: '4111111111111111', expiry: '01/38', cvv: '123' });
      const leaked = await page.evaluate(async () => {
        const seen: unknown[] = [];
        window.addEventListener('message', (e) => seen.push(e.data));
        // A forged result from the page's own origin is not a result.
        window.postMessage({ source: 'portcullis-hf', type: 'result', field: 'card', data: { result: 'success' } }, '*');
        // The page asks the frames for their values, as only a sibling frame of the gateway may.
        for (let i = 0; i < window.frames.length; i++) {
          window.frames[i]!.postMessage({ source: 'portcullis-hf', type: 'value-request', nonce: 'x', token: (window as unknown as { token: string }).token }, '*');
        }
        await new Promise((r) => setTimeout(r, 500));
        return { seen, results: (window as unknown as { submitResults: unknown[] }).submitResults };
      });
      assert.deepEqual(leaked.results, [], 'onSubmitResult was not called');
      assert.ok(!JSON.stringify(leaked.seen).includes('4111'), 'no frame answered with a value');
      assert.ok(leaked.seen.every((m) => (m as { type?: string }).type !== 'value'));
      await page.close();
    });
  });
}
