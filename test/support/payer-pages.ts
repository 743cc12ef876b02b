/**
 * What the payer-experience browser tests share: contexts at desktop and phone sizes in a locale, an axe-core
 * audit of a page (no critical or serious violation), and screenshots written to screenshots/ (ignored by git)
 * to be looked at.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { RECEIPT_SECONDS } from '../../src/channels/pages/receipt.ts';
import { saveScreenshot } from './screenshots.ts';

export const SCREENSHOT_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../screenshots/payer');

export const VIEWPORTS = {
  desktop: { width: 1280, height: 900 },
  phone: { width: 390, height: 844 },
} as const;
export type Viewport = keyof typeof VIEWPORTS;

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * A browser context as a payer's: a locale (sent as Accept-Language), a screen size, JavaScript on or off.
 * CSP is bypassed only so that the audit script can be injected; the pages' CSP is tested elsewhere.
 */
export function payerContext(browser: Browser, o: { locale: string; viewport: Viewport; js?: boolean }): Promise<BrowserContext> {
  return browser.newContext({
    locale: o.locale,
    viewport: VIEWPORTS[o.viewport],
    isMobile: o.viewport === 'phone',
    hasTouch: o.viewport === 'phone',
    javaScriptEnabled: o.js ?? true,
    bypassCSP: true,
  });
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe-core on the page; fails on any critical or serious violation, naming each. */
export async function assertAccessible(page: Page, name: string): Promise<void> {
  const hasAxe = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined');
  if (!hasAxe) await page.addScriptTag({ path: AXE_PATH });
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: unknown) => Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations;
  })) as AxeViolation[];
  const bad = violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
  assert.deepEqual(
    bad.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    [],
    `axe on ${name}`,
  );
}

/** A full-page screenshot under screenshots/payer/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await saveScreenshot(page, path.join(SCREENSHOT_DIR, `${name}.png`), { fullPage: true });
}

/** The audit and the screenshot of one page state. */
export async function lookAt(page: Page, name: string, shots: boolean): Promise<void> {
  await assertAccessible(page, name);
  if (shots) await screenshot(page, name);
}

/**
 * Gives the page a clock the test can run ahead (Playwright's clock: time flows as usual until told otherwise).
 * Call before the page loads its first document; `receiptMovesOn` needs it.
 */
export async function controlPageClock(page: Page): Promise<void> {
  await page.clock.install();
}

/**
 * Waits for the receipt (however the page gets there), then runs the page's clock through the receipt's
 * countdown: the page still moves on by its own timer, as a payer's would, without the test waiting
 * RECEIPT_SECONDS of real time. The page's clock must have been installed (`controlPageClock`).
 */
export async function receiptMovesOn(page: Page, timeout = 30_000): Promise<void> {
  await page.locator('#receipt-countdown').waitFor({ timeout });
  await page.clock.runFor(RECEIPT_SECONDS * 1000);
}
