/**
 * Page objects of the operator console (issue 31): signing in, the shared checks every screen passes (axe: no
 * serious or critical violation; a screenshot), the two widths every screen is looked at. One browser per test file;
 * each test opens its own context from it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

export const WIDTHS = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } } as const;
export type Width = keyof typeof WIDTHS;

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** Screenshots the issue asks for live in docs/screenshots/console/ (committed). */
export const DOC_SHOTS = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../docs/screenshots/console');

export interface SignedIn {
  context: BrowserContext;
  page: Page;
}

/** A console user signed in through the sign-in form, in a context of its own. */
export async function signIn(browser: Browser, baseUrl: string, email: string, password: string, width: Width = 'desktop'): Promise<SignedIn> {
  const context = await browser.newContext({ viewport: WIDTHS[width], timezoneId: 'UTC', locale: 'en-GB' });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${baseUrl}/admin/`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return { context, page };
}

/**
 * A context signed in as the user, with one session per browser, gateway and user: a test need not sign in through
 * the form (a page load of the console and its home, and a scrypt check, each time) when the form is not what it
 * tests; one test per file still does (signIn). The session is made once through the admin API, as the console's
 * form makes it (POST /admin/v1/session from the console's own origin), and its cookie is put in each new context.
 * The page starts blank: the test opens its screen. A test that ends the session (signs out, changes the user's
 * role or password) signs in on its own.
 */
export async function signedIn(browser: Browser, baseUrl: string, email: string, password: string, width: Width = 'desktop'): Promise<SignedIn> {
  const context = await sessionContext(browser, baseUrl, email, password, { viewport: WIDTHS[width], timezoneId: 'UTC', locale: 'en-GB' });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  return { context, page };
}

/** A new context of the browser (with these options) holding the session of signedIn(). */
export async function sessionContext(browser: Browser, baseUrl: string, email: string, password: string, options: BrowserContextOptions): Promise<BrowserContext> {
  return browser.newContext({ ...options, storageState: await sessionOf(browser, baseUrl, email, password) });
}

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;
const sessions = new WeakMap<Browser, Map<string, Promise<StorageState>>>();

function sessionOf(browser: Browser, baseUrl: string, email: string, password: string): Promise<StorageState> {
  const ofBrowser = sessions.get(browser) ?? new Map<string, Promise<StorageState>>();
  sessions.set(browser, ofBrowser);
  const key = `${baseUrl} ${email}`;
  let state = ofBrowser.get(key);
  if (!state) {
    state = (async () => {
      const context = await browser.newContext();
      try {
        const answer = await context.request.post(`${baseUrl}/admin/v1/session`, { data: { email, password }, headers: { origin: baseUrl } });
        assert.equal(answer.status(), 201, `sign-in of ${email}: ${await answer.text()}`);
        return await context.storageState();
      } finally {
        await context.close();
      }
    })();
    // A failed sign-in is not kept: the next test tries again (and fails on its own account).
    state.catch(() => ofBrowser.delete(key));
    ofBrowser.set(key, state);
  }
  return state;
}

/** axe-core in the page (through the debugging protocol, so the console's CSP is not loosened for it). */
export async function assertAccessible(page: Page, screen: string): Promise<void> {
  await page.evaluate(`${AXE};0`);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  const bad = violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
  assert.deepEqual(bad, [], `${screen}: ${JSON.stringify(bad)}`);
}

/** No part of the page wider than the window (a phone scrolls down, never sideways). */
export async function assertFitsWidth(page: Page, screen: string): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  assert.ok(scroll <= client + 1, `${screen}: ${scroll} px wide in a ${client} px window`);
}
