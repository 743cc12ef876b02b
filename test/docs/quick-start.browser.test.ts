/**
 * The README's quick start on an empty store, through what `npm start` runs (startGateway, src/start.ts): the
 * welcome's curl opens a session (HTTP, as pasted), the payer pays in the browser and lands on the sandbox merchant
 * inbox, where the payment's callback shows with its hash and webhook-signature verified. The first start's
 * credentials are also in DATA_DIR (mode 0600) until the admin changes the console password; on a terminal the
 * welcome is printed again after start-up.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type StartedGateway } from '../../src/start.ts';
import { browserUnavailable, launchBrowser } from '../support/browser.ts';
import { assertAccessible, payerContext } from '../support/payer-pages.ts';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('README quick start: npm start, pay, a verified callback in the sandbox merchant inbox', { skip: browserUnavailable() }, () => {
  let dataDir: string;
  let started: StartedGateway;
  let browser: Browser;
  let baseUrl: string;
  const printed: string[] = [];

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'quick-start-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // npm start's configuration: nothing but where to listen (and a quiet log); the embedded store, empty.
    const config = loadConfig({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', BASE_URL: baseUrl, LOG_LEVEL: 'warn' });
    started = await startGateway(config, { logger: createLogger('warn'), print: (text) => printed.push(text), terminal: true, reprintAfterMs: 20, passwordPollMs: 100 });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await started?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the welcome\'s curl, the payment in the browser, the callback verified in the inbox', async () => {
    const welcome = started.welcome;
    // The session request as printed: curl ... -d '<json>'; its return URLs are the inbox.
    const body = /curl -s -X POST (\S+) -H 'Content-Type: application\/json' -d '(.+)'$/m.exec(welcome);
    assert.ok(body, welcome);
    assert.equal(body[1], `${baseUrl}/api/v1/session`);
    const session = await fetch(body[1]!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body[2] });
    const opened = await session.json() as { redirect_url: string };
    assert.equal(session.status, 200, JSON.stringify(opened));
    assert.equal(JSON.parse(body[2]!).success_url, `${baseUrl}/sandbox/inbox?result=success`);

    const context = await payerContext(browser, { locale: 'en', viewport: 'phone' });
    const page = await context.newPage();
    await page.goto(opened.redirect_url);
    await page.fill('[name=card_number]', '4111111111111111');
    await page.fill('[name=card_expiry]', '01/38');
    await page.fill('[name=card_cvv]', '123');
    await page.fill('[name=card_holder]', 'John Doe');
    await page.click('button[type=submit]');
    await page.waitForURL(`${baseUrl}/sandbox/inbox?**`, { timeout: 30_000 });
    const paymentId = new URL(page.url()).searchParams.get('payment_id');
    assert.match(paymentId ?? '', /^[0-9a-f-]{36}$/);
    await page.locator('#inbox-returned[data-result=success]').waitFor();
    // The callback follows within seconds: the inbox's own Refresh link, as a developer would.
    const verified = page.locator(`.inbox-callback[data-payment="${paymentId}"]`).filter({ has: page.locator('[data-check=hash][data-result=verified]') })
      .filter({ has: page.locator('[data-check=webhook-signature][data-result=verified]') });
    for (let i = 0; i < 60 && (await verified.count()) === 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      await page.click('a[href="/sandbox/inbox"]');
    }
    assert.ok((await verified.count()) > 0, await page.locator('main').innerText());
    await assertAccessible(page, 'sandbox merchant inbox');
    await context.close();

    const json = await (await fetch(`${baseUrl}/sandbox/inbox/callbacks`)).json() as { callbacks: { paymentId: string; protocol: string; hash: { result: string }; signature: { result: string } }[] };
    const mine = json.callbacks.filter((c) => c.paymentId === paymentId);
    assert.ok(mine.length > 0 && mine.every((c) => c.protocol === 'checkout' && c.hash.result === 'verified' && c.signature.result === 'verified'), JSON.stringify(mine));
  });

  it('/docs is signed for this demo merchant: its session and S2S SALE examples succeed as they are', async () => {
    const demo = started.demo!;
    for (const url of [`${baseUrl}/docs/json`, `${baseUrl}/docs/json?section=merchant`]) {
      const text = await (await fetch(url)).text();
      assert.ok(!text.includes(demo.password), `${url}: the password itself is never in the document`);
      const spec = JSON.parse(text) as { paths: Record<string, { post: { requestBody: { content: Record<string, { example?: Record<string, unknown>; examples?: Record<string, { value: Record<string, unknown> }> }> } } }> };
      const session = spec.paths['/api/v1/session']!.post.requestBody.content['application/json']!.example!;
      assert.equal(session.merchant_key, demo.key);
      const opened = await fetch(`${baseUrl}/api/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(session) });
      assert.equal(opened.status, 200, await opened.text());
      const sale = spec.paths['/post']!.post.requestBody.content['application/x-www-form-urlencoded']!.examples!.SALE!.value;
      const paid = await fetch(`${baseUrl}/post`, { method: 'POST', body: new URLSearchParams(Object.entries(sale).map(([k, v]) => [k, String(v)])) });
      const answer = await paid.json() as { result?: string };
      assert.equal(paid.status, 200, JSON.stringify(answer));
      assert.notEqual(answer.result, 'ERROR', JSON.stringify(answer));
    }
  });

  it('refuses a forged callback: the inbox shows its hash and signature as not verifying', async () => {
    const [real] = (await (await fetch(`${baseUrl}/sandbox/inbox/callbacks`)).json() as { callbacks: { fields: Record<string, string> }[] }).callbacks;
    assert.ok(real);
    const forged = new URLSearchParams({ ...real.fields, order_status: 'settled', hash: 'f'.repeat(40) }).toString();
    const res = await fetch(`${baseUrl}/sandbox/inbox`, {
      method: 'POST', body: forged,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'webhook-id': 'forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
    });
    assert.equal(res.status, 200);
    // Found by its id, not as the newest: the previous test's payments may still be calling back.
    const shown = (await (await fetch(`${baseUrl}/sandbox/inbox/callbacks`)).json() as { callbacks: { callbackId: string; hash: { result: string }; signature: { result: string } }[] }).callbacks;
    const received = shown.find((c) => c.callbackId === 'forged');
    assert.deepEqual([received?.callbackId, received?.hash.result, received?.signature.result], ['forged', 'mismatch', 'mismatch']);
  });

  it('keeps the first start\'s credentials in DATA_DIR (0600) until the admin changes the password; reprints the welcome', async () => {
    assert.ok(printed.length >= 2 && printed.every((p) => p === started.welcome), 'printed at start and again after start-up on a terminal');
    const file = started.credentialsFile!;
    assert.equal(path.dirname(file), dataDir);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const text = readFileSync(file, 'utf8');
    const token = /API token \(Authorization: Bearer\): (\S+)/.exec(text)?.[1];
    const password = /sign in as admin@localhost with the password: (\S+)/.exec(text)?.[1];
    assert.ok(token && password && text.includes(`merchant_key ${started.demo!.key}, password ${started.demo!.password}`), text);
    assert.ok(started.welcome.includes(token) && started.welcome.includes(password), 'the same credentials as the welcome');

    const me = await (await fetch(`${baseUrl}/admin/v1/me`, { headers: { authorization: `Bearer ${token}` } })).json() as { user: { id: string } };
    const changed = await fetch(`${baseUrl}/admin/v1/users/${me.user.id}`, {
      method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ password: 'a new passphrase of mine 42' }),
    });
    assert.equal(changed.status, 200, await changed.text());
    for (let i = 0; i < 100 && existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(existsSync(file), false, 'deleted once the password changed');
  });
});
