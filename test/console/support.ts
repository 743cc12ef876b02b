/** The console's build, for tests that load it: built once if missing (npm ci builds it; a fresh checkout may not have). */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import path from 'node:path';
import { consoleDir } from '../../src/channels/console/static.ts';
import { sessionContext } from './pages/console.ts';

export function ensureConsoleBuilt(): void {
  if (existsSync(path.join(consoleDir(), 'index.html'))) return;
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
  const result = spawnSync(process.execPath, [path.join(root, 'scripts/build-console.mjs')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('the console build failed (npm run build:console)');
}

/** axe-core run in the page (through the debugging protocol, so the console's CSP is not loosened): no serious or critical violation. */
export async function assertNoSeriousAxeViolations(page: import('playwright-core').Page, screen: string): Promise<void> {
  const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(`${axe};0`);
  const violations = await page.evaluate(async () => {
    const run = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await run.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  const bad = violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
  if (bad.length > 0) throw new Error(`${screen}: ${JSON.stringify(bad)}`);
}

const CONTEXT = { viewport: { width: 1280, height: 860 }, timezoneId: 'UTC', locale: 'en-GB', acceptDownloads: true } as const;

/** A page of a new context that collects what breaks the console's Content-Security-Policy. */
async function watchedPage(context: BrowserContext, cspViolations: string[]): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on('console', (m) => { if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text()); });
  return page;
}

/** A new browser context signed in to the console at `baseUrl` as `email` through its form; no page may break its Content-Security-Policy. */
export async function signInConsole(browser: Browser, baseUrl: string, email: string, password: string, cspViolations: string[]) {
  const context = await browser.newContext(CONTEXT);
  const page = await watchedPage(context, cspViolations);
  await page.goto(`${baseUrl}/admin/`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return { context, page };
}

/**
 * As signInConsole, with the session signedIn() (pages/console.ts) makes once for the browser, gateway and user: no
 * form, and the page starts blank (the test opens its screen).
 */
export async function signedInConsole(browser: Browser, baseUrl: string, email: string, password: string, cspViolations: string[]) {
  const context = await sessionContext(browser, baseUrl, email, password, CONTEXT);
  return { context, page: await watchedPage(context, cspViolations) };
}
