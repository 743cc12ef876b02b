/**
 * The hosted pages in a real browser (Debian chromium through playwright-core), in isolation: a tiny
 * node:http server serves rendered pages and the assets under the production CSP and records form POSTs.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ASSETS } from '../../src/web/assets.ts';
import { COUNTRIES_BY_NAME } from '../../src/domain/countries.ts';
import { CONTENT_SECURITY_POLICY, renderCheckoutPage, renderRedirectPage } from '../../src/web/pages.ts';
import { renderAcsPage } from '../../src/sandbox/templates.ts';
import { CHECKOUT_FIELDS, type CheckoutPageView } from '../../src/web/views.ts';

// The payer's phone is asked only when the routed connector requires it (issue 25 item 24); these views route none.
const POSTED_FIELDS = CHECKOUT_FIELDS.filter((name) => name !== 'payer_phone');
import { browserUnavailable, launchBrowser } from '../support/browser.ts';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { SCREENSHOT_DIR } from '../support/payer-pages.ts';
import { SCREENSHOTS, saveScreenshot } from '../support/screenshots.ts';

mkdirSync(SCREENSHOT_DIR, { recursive: true });

interface Post {
  path: string;
  fields: [string, string][];
}

class PageServer {
  readonly posts: Post[] = [];
  private pages = new Map<string, { markup: string; csp: boolean }>();
  private servers: http.Server[] = [];
  private n = 0;
  origin = '';
  /** A second origin (other port), for cross-origin frame tests. */
  otherOrigin = '';

  async start(): Promise<void> {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => void this.handle(req, res);
    for (let i = 0; i < 2; i++) {
      const s = http.createServer(handler);
      await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
      this.servers.push(s);
    }
    this.origin = `http://127.0.0.1:${(this.servers[0]!.address() as AddressInfo).port}`;
    this.otherOrigin = `http://127.0.0.1:${(this.servers[1]!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const s of this.servers) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  }

  /** Serves the markup at a fresh path (under the pages' CSP unless told otherwise); returns the path. */
  serve(markup: string, csp = true): string {
    const path = `/p/${++this.n}`;
    this.pages.set(path, { markup, csp });
    return path;
  }

  postsTo(path: string): Post[] {
    return this.posts.filter((p) => p.path === path);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      this.posts.push({ path, fields: [...new URLSearchParams(Buffer.concat(chunks).toString('utf8'))] });
      if (path.startsWith('/slow')) await new Promise((r) => setTimeout(r, 1500));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Received</title><p id="received">received</p>');
      return;
    }
    if (path.startsWith('/assets/')) {
      const asset = ASSETS[path.slice('/assets/'.length)];
      if (!asset) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': asset.contentType, etag: asset.etag }).end(asset.body);
      return;
    }
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (path === '/expired') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Expired</title><p id="expired">expired</p>');
      return;
    }
    const page = this.pages.get(path);
    if (page === undefined) {
      res.writeHead(404).end();
      return;
    }
    res
      .writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        ...(page.csp ? { 'content-security-policy': CONTENT_SECURITY_POLICY } : {}),
      })
      .end(page.markup);
  }
}

function view(over: Partial<CheckoutPageView> = {}): CheckoutPageView {
  return {
    sessionId: 'sess_1',
    merchantName: 'Northwind Outfitters',
    order: { number: 'NW-2030-000187', amount: '149.90', currency: 'EUR', description: 'Alpine trail jacket, size M' },
    operation: 'purchase',
    methods: [{ key: 'card', label: 'Card' }],
    selectedMethod: 'card',
    actionUrl: '/pay',
    cancelUrl: '/cancel',
    expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
    now: new Date().toISOString(),
    expiredUrl: '/expired',
    billing: { required: true, values: { country: 'DE' } },
    email: { required: true },
    values: {},
    errors: {},
    countries: [...COUNTRIES_BY_NAME],
    sandbox: true,
    ...over,
  };
}

const skip = browserUnavailable();

describe('hosted pages in a browser', { timeout: 180_000 }, () => {
  if (skip) {
    // counted and shown as a skipped test, with the reason
    it('runs the browser tests', { skip }, () => undefined);
    return;
  }
  const server = new PageServer();
  let browser: Browser;
  let context: BrowserContext;
  /** Console errors and CSP violations seen by any page: each test ends with none. */
  const problems: string[] = [];

  before(async () => {
    await server.start();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000);
    context.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    context.on('weberror', (e) => problems.push(e.error().message));
  });

  after(async () => {
    await context?.close();
    await browser?.close();
    await server.stop();
  });

  async function open(markup: string, ctx: BrowserContext = context): Promise<Page> {
    const page = await ctx.newPage();
    await page.goto(server.origin + server.serve(markup));
    return page;
  }

  async function fillValid(page: Page, country = 'US'): Promise<void> {
    await page.fill('#email', 'jane@example.com');
    await page.fill('#card_number', '4111111111111111');
    await page.fill('#card_expiry', '12/35');
    await page.fill('#card_cvv', '123');
    await page.fill('#card_holder', 'Jane Doe');
    await page.selectOption('#billing_country', country);
    if (country === 'US') await page.fill('#billing_state', 'NY');
    await page.fill('#billing_address', '1 Main St');
    await page.fill('#billing_city', 'New York');
    await page.fill('#billing_zip', '10001');
    await page.fill('#billing_phone', '+1 212 555 0100');
  }

  /**
   * After the first submit, reports the buttons' state and tries to submit once more (as a second Enter
   * would). Resolves with what the page reported before it navigated away.
   */
  async function watchButtons(page: Page): Promise<{ report: Promise<{ disabled: boolean; text: string }[]> }> {
    let resolve!: (v: { disabled: boolean; text: string }[]) => void;
    const result = new Promise<{ disabled: boolean; text: string }[]>((r) => (resolve = r));
    await page.exposeFunction('reportButtons', (v: { disabled: boolean; text: string }[]) => resolve(v));
    await page.evaluate(() => {
      const form = document.querySelector('form')!;
      form.addEventListener(
        'submit',
        () =>
          setTimeout(() => {
            const buttons = [...form.querySelectorAll('button')].map((b) => ({ disabled: b.disabled, text: b.textContent ?? '' }));
            (window as unknown as { reportButtons(v: unknown): void }).reportButtons(buttons);
            form.requestSubmit();
          }, 50),
        { once: true },
      );
    });
    return { report: result }; // wrapped: an async function returning a promise would wait for it
  }

  function assertNoProblems(): void {
    assert.deepEqual(problems.splice(0), []);
  }

  it('shows an inline Luhn error, focuses the error summary and sends nothing', async () => {
    const page = await open(renderCheckoutPage(view({ actionUrl: '/pay-luhn' })));
    await fillValid(page);
    await page.fill('#card_number', '4111 1111 1111 1112');
    await page.click('#pay-button');
    const error = page.locator('#card_number-error');
    await error.waitFor({ state: 'visible' });
    assert.equal((await error.textContent())?.trim(), 'This card number is not valid. Check it and try again');
    assert.equal(await page.getAttribute('#card_number', 'aria-invalid'), 'true');
    assert.match((await page.getAttribute('#card_number', 'aria-describedby')) ?? '', /card_number-error/);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'error-summary');
    assert.match((await page.textContent('#error-summary')) ?? '', /Card number: This card number is not valid/);
    // the summary link takes the payer to the field
    await page.click('#error-summary a[data-focus="card_number"]');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'card_number');
    // fixing the number clears the error as the payer types
    await page.fill('#card_number', '4111111111111111');
    await error.waitFor({ state: 'hidden' });
    assert.equal(await page.getAttribute('#card_number', 'aria-invalid'), null);
    await page.waitForTimeout(200);
    assert.equal(server.postsTo('/pay-luhn').length, 0);
    assert.equal(await page.isDisabled('#pay-button'), false);
    await page.close();
    assertNoProblems();
  });

  it('shows the state field only for CA, US, JP, AU and IN', async () => {
    const page = await open(renderCheckoutPage(view()));
    const state = page.locator('#billing_state');
    assert.equal(await state.isVisible(), false, 'hidden for DE');
    await page.selectOption('#billing_country', 'US');
    assert.equal(await state.isVisible(), true);
    assert.equal(await state.evaluate((el: HTMLInputElement) => el.required), true);
    assert.equal(await page.locator('#billing_state-hint').isVisible(), false, 'the no-JS hint is hidden');
    await page.selectOption('#billing_country', 'FR');
    assert.equal(await state.isVisible(), false);
    assert.equal(await state.isDisabled(), true, 'a hidden state is not posted');
    for (const c of ['CA', 'JP', 'AU', 'IN']) {
      await page.selectOption('#billing_country', c);
      assert.equal(await state.isVisible(), true, c);
    }
    await page.close();
    assertNoProblems();
  });

  it('groups the card number in fours and formats the expiry as the payer types', async () => {
    const page = await open(renderCheckoutPage(view()));
    await page.click('#card_number');
    await page.keyboard.type('4111111111111111');
    assert.equal(await page.inputValue('#card_number'), '4111 1111 1111 1111');
    assert.equal((await page.textContent('#card-brand'))?.trim(), 'Visa');
    // editing in the middle keeps the caret beside the edited digit
    await page.keyboard.press('Home');
    for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Backspace');
    assert.equal(await page.inputValue('#card_number'), '4111 1111 1111 111');
    await page.keyboard.type('9');
    assert.equal(await page.inputValue('#card_number'), '4111 9111 1111 1111');
    // backspace over a group space removes the digit before it
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Backspace');
    assert.equal(await page.inputValue('#card_number'), '4111 9111 1111 111');
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).selectionStart), 8);
    await page.fill('#card_number', '');
    await page.click('#card_number');
    await page.keyboard.type('378282246310005');
    assert.equal(await page.inputValue('#card_number'), '3782 822463 10005', 'Amex groups 4-6-5');
    await page.click('#card_expiry');
    await page.keyboard.type('1235');
    assert.equal(await page.inputValue('#card_expiry'), '12/35');
    await page.fill('#card_expiry', '');
    await page.keyboard.type('4');
    assert.equal(await page.inputValue('#card_expiry'), '04/');
    await page.click('#card_cvv');
    await page.keyboard.type('12a34');
    assert.equal(await page.inputValue('#card_cvv'), '1234');
    await page.close();
    assertNoProblems();
  });

  it('posts exactly the documented field names once, and disables the Pay button meanwhile', async () => {
    const page = await open(renderCheckoutPage(view({ actionUrl: '/slow-pay' })));
    await fillValid(page, 'US');
    const seen = await watchButtons(page);
    // a double click, then one more submit (Enter) while the first POST is on its way
    await page.dblclick('#pay-button');
    await page.waitForSelector('#received');
    const state = await seen.report;
    assert.deepEqual(state.map((b) => b.disabled), [true, true], 'the Pay button and the cancel button (it posts its own form)');
    assert.match(state[0]!.text, /Processing/);
    const posts = server.postsTo('/slow-pay');
    assert.equal(posts.length, 1);
    const names = posts[0]!.fields.map(([k]) => k);
    assert.deepEqual([...names].sort(), [...POSTED_FIELDS].sort());
    const f = Object.fromEntries(posts[0]!.fields);
    assert.equal(f.method, 'card');
    assert.equal(f.card_number!.replace(/\s/g, ''), '4111111111111111');
    assert.equal(f.card_expiry, '12/35');
    assert.equal(f.billing_country, 'US');
    assert.equal(f.billing_state, 'NY');
    // The payer's device id (risk engine): made once, kept in the page origin's storage, posted with the card.
    assert.match(f.device_id ?? '', /^[A-Za-z0-9_-]{22}$/);
    assert.equal(await page.evaluate(() => localStorage.getItem('portcullis.device')), f.device_id);
    await page.close();
    assertNoProblems();
  });

  it('leaves the state out of the POST for a country without states', async () => {
    const page = await open(renderCheckoutPage(view({ actionUrl: '/pay-de' })));
    await fillValid(page, 'DE');
    await page.click('#pay-button');
    await page.waitForSelector('#received');
    const names = server.postsTo('/pay-de')[0]!.fields.map(([k]) => k);
    assert.ok(!names.includes('billing_state'));
    assert.equal(names.length, POSTED_FIELDS.length - 1);
    await page.close();
    assertNoProblems();
  });

  it('switches payment methods with the radio group; fields of other methods are not posted', async () => {
    const page = await open(
      renderCheckoutPage(view({ actionUrl: '/pay-apm', methods: [{ key: 'card', label: 'Card' }, { key: 'paypal', label: 'PayPal' }], billing: { required: false, values: {} }, email: undefined })),
    );
    assert.equal(await page.locator('#card_number').isVisible(), true);
    await page.focus('input[name="method"][value="card"]');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.isChecked('input[name="method"][value="paypal"]'), true);
    assert.equal(await page.locator('#card_number').isVisible(), false);
    assert.equal(await page.locator('#panel-paypal').isVisible(), true);
    await page.click('#pay-button');
    await page.waitForSelector('#received');
    // Only the method, and the payer's device id the page's form carries for every method (the risk engine's key).
    const posted = server.postsTo('/pay-apm')[0]!.fields;
    assert.deepEqual(posted.map(([name]) => name), ['device_id', 'method']);
    assert.match(posted[0]![1], /^[A-Za-z0-9_-]{22}$/);
    assert.equal(posted[1]![1], 'paypal');
    await page.close();
    assertNoProblems();
  });

  it('can be completed with the keyboard only, with a visible focus indicator', async () => {
    const page = await open(renderCheckoutPage(view({ actionUrl: '/pay-keys', billing: { required: false, values: {} } })));
    const typeInto = async (id: string, text: string) => {
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.id), id);
      const ring = await page.evaluate(() => {
        const s = getComputedStyle(document.activeElement as Element);
        return s.boxShadow !== 'none' || (s.outlineStyle !== 'none' && s.outlineWidth !== '0px');
      });
      assert.ok(ring, `focus ring on ${id}`);
      await page.keyboard.type(text);
    };
    await typeInto('email', 'jane@example.com');
    await typeInto('card_number', '4111111111111111');
    await typeInto('card_expiry', '1235');
    await typeInto('card_cvv', '737');
    await typeInto('card_holder', 'Jane Doe');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#received');
    const posted = Object.fromEntries(server.postsTo('/pay-keys')[0]!.fields);
    // The browser details the script filled in (hidden fields of the card panel) go with the card.
    assert.equal(posted.browser_javascript_enabled, 'true');
    assert.match(posted.browser_screen_width!, /^[0-9]+$/);
    const f = Object.fromEntries(Object.entries(posted).filter(([k]) => !k.startsWith('browser_')));
    assert.deepEqual(f, {
      email: 'jane@example.com',
      method: 'card',
      card_number: '4111 1111 1111 1111',
      card_expiry: '12/35',
      card_cvv: '737',
      card_holder: 'Jane Doe',
      device_id: posted.device_id,
    });
    await page.close();
    assertNoProblems();
  });

  it('tabs from the Pay button to the cancel button, which posts to the cancel URL and not the payment', async () => {
    const page = await open(renderCheckoutPage(view({ actionUrl: '/pay-never', billing: { required: false, values: {} }, email: undefined })));
    await page.focus('#card_holder');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'pay-button');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'cancel-link');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/cancel$/);
    assert.equal(server.postsTo('/cancel').length, 1);
    assert.deepEqual(server.postsTo('/cancel')[0]!.fields, [], 'no card field goes with it');
    assert.equal(server.postsTo('/pay-never').length, 0);
    await page.close();
    assertNoProblems();
  });

  it('fits a 360x640 phone without horizontal scrolling, even with long values and errors', async () => {
    const phone = await browser.newContext({ viewport: { width: 360, height: 640 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    phone.setDefaultTimeout(10_000);
    const long = 'X'.repeat(255);
    const page = await open(
      renderCheckoutPage(
        view({
          merchantName: `Northwind Outfitters International Trading ${long}`,
          order: { number: long, amount: '1,234,567,890.99', currency: 'EUR', description: `${long} ${long}` },
          errors: { '': 'Declined by processing', card_number: 'This card number is not valid. Check it and try again', billing_city: 'Enter the city (2 to 40 characters)' },
          billing: { required: true, values: { country: 'GS' } },
        }),
      ),
      phone,
    );
    const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, body: document.body.scrollWidth, inner: window.innerWidth }));
    assert.ok(widths.doc <= widths.inner && widths.body <= widths.inner, JSON.stringify(widths));
    const box = await page.locator('#pay-button').boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 360, 'pay button inside the viewport');
    assert.ok(box.height >= 44, 'touch target of at least 44px');
    await page.close();
    await phone.close();
    assertNoProblems();
  });

  it('counts down and goes to the expiry page when the session runs out', async () => {
    const page = await open(renderCheckoutPage(view({ expiresAt: new Date(Date.now() + 3_000).toISOString() })));
    assert.match((await page.textContent('#countdown')) ?? '', /Session expires in 00:0[0-3]/);
    await page.waitForURL(`${server.origin}/expired`, { timeout: 10_000 });
    await page.close();
    assertNoProblems();
  });

  it('corrects the countdown for a payer clock that is off, using the server time', async () => {
    // server says it is 10:00:00 and the session ends at 10:20:00: whatever the payer's clock says, ~20 min remain
    const page = await open(renderCheckoutPage(view({ now: '2030-01-15T10:00:00.000Z', expiresAt: '2030-01-15T10:20:00.000Z' })));
    assert.match((await page.textContent('#countdown-time')) ?? '', /^(20:00|19:5\d)$/);
    await page.close();
    assertNoProblems();
  });

  it('works without JavaScript: native validation and a plain form POST', async () => {
    const nojs = await browser.newContext({ javaScriptEnabled: false });
    nojs.setDefaultTimeout(10_000);
    const page = await open(renderCheckoutPage(view({ actionUrl: '/pay-nojs' })), nojs);
    assert.equal(await page.locator('#billing_state').isVisible(), true, 'state shown with its hint');
    assert.equal(await page.locator('#billing_state-hint').isVisible(), true);
    await page.click('#pay-button');
    await page.waitForTimeout(200);
    assert.equal(server.postsTo('/pay-nojs').length, 0, 'required fields stop an empty submit');
    await fillValid(page, 'DE');
    await page.fill('#card_number', '4111 1111 1111 1111');
    await page.click('#pay-button');
    await page.waitForSelector('#received');
    const names = server.postsTo('/pay-nojs')[0]!.fields.map(([k]) => k);
    assert.deepEqual([...names].sort(), [...POSTED_FIELDS].sort(), 'the server ignores the state for DE');
    await nojs.close();
    assertNoProblems();
  });

  it('ACS page posts the decision and the hidden fields once', async () => {
    const page = await open(
      renderAcsPage({ paymentId: 'pay_1', merchantName: 'Northwind', amount: '149.90', currency: 'EUR', maskedCard: '411111******1111', actionUrl: '/slow-acs', fields: { MD: 'md-1', PaReq: 'pareq-1' }, hint: 'Sandbox ACS: enter any code' }),
    );
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'otp');
    await page.keyboard.type('123456');
    const seen = await watchButtons(page);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#received');
    assert.deepEqual((await seen.report).map((b) => b.disabled), [true, true], 'both decisions disabled');
    const posts = server.postsTo('/slow-acs');
    assert.equal(posts.length, 1);
    assert.deepEqual(Object.fromEntries(posts[0]!.fields), { MD: 'md-1', PaReq: 'pareq-1', otp: '123456', decision: 'submit' });
    // Cancel needs no code
    const again = await open(
      renderAcsPage({ paymentId: 'pay_1', merchantName: 'Northwind', amount: '149.90', currency: 'EUR', maskedCard: '411111******1111', actionUrl: '/acs-cancel', fields: { MD: 'md-2' }, hint: 'x' }),
    );
    await again.click('button[value="cancel"]');
    await again.waitForSelector('#received');
    assert.deepEqual(Object.fromEntries(server.postsTo('/acs-cancel')[0]!.fields), { MD: 'md-2', otp: '', decision: 'cancel' });
    await page.close();
    await again.close();
    assertNoProblems();
  });

  it('redirect page posts the params automatically to the target', async () => {
    const page = await open(renderRedirectPage({ url: '/merchant-return', method: 'POST', params: { payment_id: 'p1', order_id: 'o&1' }, target: '_top', title: 'Returning', message: 'Taking you back' }));
    await page.waitForSelector('#received');
    assert.deepEqual(server.postsTo('/merchant-return')[0]!.fields, [
      ['payment_id', 'p1'],
      ['order_id', 'o&1'],
    ]);
    await page.close();
    assertNoProblems();
  });

  it('redirect page GET navigates with the params in the query', async () => {
    const page = await open(renderRedirectPage({ url: '/expired', method: 'GET', params: { a: '1 2' }, target: '_self', title: 'Returning', message: 'Taking you back' }));
    await page.waitForURL(`${server.origin}/expired?a=1+2`);
    await page.close();
    assertNoProblems();
  });

  it('in a cross-origin frame, a target leaving the frame shows Continue, which opens a new window', async () => {
    const inner = server.origin + server.serve(renderRedirectPage({ url: '/framed-return', method: 'POST', params: { payment_id: 'p9' }, target: '_top', title: 'Returning', message: 'Taking you back' }));
    const parentPath = server.serve(`<!doctype html><title>Merchant</title><iframe id="f" src="${inner}" width="500" height="500"></iframe>`, false);
    const page = await context.newPage();
    await page.goto(server.otherOrigin + parentPath);
    const frame = page.frameLocator('#f');
    await frame.locator('#redirect-window-note').waitFor({ state: 'visible' });
    assert.equal(await frame.locator('#redirect-form').evaluate((f: HTMLFormElement) => f.target), '_blank');
    await page.waitForTimeout(300);
    assert.equal(server.postsTo('/framed-return').length, 0, 'no automatic navigation out of the frame');
    const [popup] = await Promise.all([context.waitForEvent('page'), frame.locator('#redirect-continue').click()]);
    await popup.waitForSelector('#received');
    assert.deepEqual(server.postsTo('/framed-return')[0]!.fields, [['payment_id', 'p9']]);
    assert.equal(page.url(), server.otherOrigin + parentPath, 'the merchant page stays');
    await popup.close();
    await page.close();
    assertNoProblems();
  });

  it('screenshots at desktop and phone size', { skip: SCREENSHOTS ? false : 'writes screenshots only: run with SCREENSHOTS=1' }, async () => {
    for (const [name, vp] of [
      ['desktop', { width: 1280, height: 900 }],
      ['phone', { width: 360, height: 640 }],
    ] as const) {
      const ctx = await browser.newContext({ viewport: vp, deviceScaleFactor: name === 'phone' ? 2 : 1 });
      const page = await open(renderCheckoutPage(view()), ctx);
      await saveScreenshot(page, path.join(SCREENSHOT_DIR, `checkout-form-${name}.png`), { fullPage: true });
      await ctx.close();
    }
    assertNoProblems();
  });
});
