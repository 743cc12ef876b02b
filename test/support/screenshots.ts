/**
 * Screenshots the browser tests take for people to look at (docs/…-screenshots/, committed; screenshots/ and
 * test-output/, ignored): written only when `SCREENSHOTS=1`, so a test run neither rewrites committed files nor
 * spends a full-page PNG encode on each (the checks around them run either way).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

export const SCREENSHOTS = process.env.SCREENSHOTS === '1';

export async function saveScreenshot(page: Page, file: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, ...options });
}
