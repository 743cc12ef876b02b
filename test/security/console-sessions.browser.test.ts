/**
 * Issue 25, items 9, 10, 11 (and 15's console) in the browser: a page of another site cannot sign the browser into the console
 * (login CSRF); disabling a user ends its console session at once and enabling it again revives no old cookie;
 * in production the session cookie is Secure though the browser spoke plain HTTP to the node (TLS ends at the
 * operator's proxy). The console lists each API token's expiry and issues tokens that expire (item 15).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser } from '../support/browser.ts';
import { adminClient } from '../admin/support.ts';
import { ensureConsoleBuilt } from '../console/support.ts';

const ADMIN = 'console-sessions-browser-admin';
const PASSWORD = 'a sturdy console phrase 2026';

describe('console sessions in the browser (issue 25, items 9, 10, 11)', { skip: browserUnavailable(), timeout: 300_000 }, () => {
  let t: TestGateway;
  let production: TestGateway;
  let browser: Browser;
  let attacker: Server;
  let attackerUrl: string;

  before(async () => {
    ensureConsoleBuilt();
    t = await startTestGateway('pglite', { adminToken: ADMIN });
    production = await startTestGateway('pglite', { adminToken: ADMIN, production: true });
    for (const [g, email, role] of [[t, 'ops@example.com', 'operator'], [t, 'attacker@example.com', 'operator'], [t, 'boss@example.com', 'admin'], [production, 'ops@example.com', 'operator']] as const) {
      const res = await adminClient(g.baseUrl, ADMIN)('POST', '/admin/v1/users', { email, role, password: PASSWORD });
      assert.equal(res.status, 201, res.text);
    }
    // Another site (localhost, not 127.0.0.1) whose page posts the attacker's credentials to the console's sign-in.
    attacker = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<form id="f" method="post" action="${t.baseUrl}/admin/v1/session">
        <input name="email" value="attacker@example.com"><input name="password" value="${PASSWORD}"></form>
        <script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://localhost:${(attacker.address() as { port: number }).port}/`;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    attacker?.close();
    await t?.close();
    await production?.close();
  });

  async function signIn(g: TestGateway, email: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${g.baseUrl}/admin/`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    return { context, page };
  }

  const sessionCookie = async (context: BrowserContext, g: TestGateway) =>
    (await context.cookies(`${g.baseUrl}/admin/`)).find((c) => c.name === 'portcullis_session');

  it('item 9: another site\'s form cannot sign the browser in', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const answered = page.waitForResponse((r) => r.url() === `${t.baseUrl}/admin/v1/session`);
    await page.goto(attackerUrl);
    const answer = await answered;
    assert.equal(answer.status(), 403);
    assert.match(await answer.text(), /Sign-in from another site is not allowed/);
    assert.equal(await sessionCookie(context, t), undefined, 'no session cookie from a cross-site sign-in');
    await context.close();
  });

  it('item 10: disabling a user ends its open console at once; enabling it again revives no old cookie', async () => {
    const { context, page } = await signIn(t, 'ops@example.com');
    const users = await adminClient(t.baseUrl, ADMIN)('GET', '/admin/v1/users');
    const id = users.body.users.find((u: { email: string }) => u.email === 'ops@example.com').id as string;
    // GET /admin/v1/me: unlike GET /admin/v1/session, it leaves the cookie in the browser whatever it answers,
    // so the same cookie is asked again after the user is enabled.
    const sessionStatus = () => page.evaluate(async () => (await fetch('/admin/v1/me')).status);
    assert.equal(await sessionStatus(), 200);
    assert.equal((await adminClient(t.baseUrl, ADMIN)('PATCH', `/admin/v1/users/${id}`, { disabled: true })).status, 200);
    assert.equal(await sessionStatus(), 401, 'the disabled user\'s session ended');
    assert.equal((await adminClient(t.baseUrl, ADMIN)('PATCH', `/admin/v1/users/${id}`, { disabled: false })).status, 200);
    assert.equal(await sessionStatus(), 401, 'enabling the user again does not revive the old cookie');
    await page.reload();
    await page.getByLabel('E-mail').waitFor();
    await context.close();
  });

  it('item 11: in production the session cookie is Secure, whatever the connection', async () => {
    const { context } = await signIn(production, 'ops@example.com');
    const cookie = await sessionCookie(context, production);
    assert.ok(cookie, 'signed in');
    assert.equal(cookie.secure, true);
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    await context.close();
  });

  it('item 15: the console issues a token that expires and lists each token\'s expiry', async () => {
    const { context, page } = await signIn(t, 'boss@example.com');
    await page.goto(`${t.baseUrl}/admin/users`);
    await page.getByRole('row').filter({ hasText: 'attacker@example.com' }).getByRole('button', { name: 'Tokens' }).click();
    const form = page.getByRole('form', { name: 'New token for attacker@example.com' });
    await form.getByLabel('Token name').fill('short-lived');
    await form.getByLabel('Expires (optional)').fill('2099-12-31');
    await form.getByRole('button', { name: 'New token' }).click();
    const item = page.getByRole('listitem').filter({ hasText: 'short-lived' });
    await item.getByText('expires').waitFor();
    await item.locator('time[datetime^="2099-12-31"], time[datetime^="2100-01-01"]').last().waitFor();
    const users = await adminClient(t.baseUrl, ADMIN)('GET', '/admin/v1/users');
    const id = users.body.users.find((u: { email: string }) => u.email === 'attacker@example.com').id as string;
    const tokens = await adminClient(t.baseUrl, ADMIN)('GET', `/admin/v1/users/${id}/tokens`);
    assert.match(tokens.body.tokens.find((x: { name: string }) => x.name === 'short-lived').expires_at, /^(2099-12-31|2100-01-01)T/);
    await context.close();
  });
});
