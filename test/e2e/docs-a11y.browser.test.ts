/**
 * The API description page (/docs, Swagger UI) in Debian's chromium, checked with axe-core: no critical or
 * serious violation, neither on the page as it opens nor with an operation and a schema expanded.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser } from '../support/browser.ts';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface Violation { id: string; impact: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] }

async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Violation[] }> } }).axe.run(document, { resultTypes: ['violations'] });
    return result.violations;
  }) as Violation[];
  return violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)).join(' ')}`);
}

for (const { kind, skip } of await storeKinds()) {
  describe(`/docs accessibility (${kind})`, { skip: browserUnavailable() ?? skip }, () => {
    let gw: TestGateway;
    let browser: Browser;
    before(async () => {
      gw = await startTestGateway(kind);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await gw?.close();
    });

    it('has no critical or serious axe violation, closed and with an operation open', async () => {
      const page = await browser.newPage();
      await page.goto(`${gw.baseUrl}/docs`);
      await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
      assert.deepEqual(await seriousViolations(page), []);
      // A JSON operation (Checkout session) and a form operation with one example per action (S2S CARD).
      await page.locator('#operations-Checkout-post_api_v1_session .opblock-summary-control').click();
      await page.locator('#operations-Checkout-post_api_v1_session .opblock-body').waitFor({ timeout: 10_000 });
      assert.deepEqual(await seriousViolations(page), []);
      await page.locator('[id^="operations-S2S_CARD-post_post"] .opblock-summary-control').first().click();
      await page.locator('[id^="operations-S2S_CARD-post_post"] .opblock-body select').first().waitFor({ timeout: 10_000 });
      assert.match(await page.locator('[id^="operations-S2S_CARD-post_post"] .opblock-body').first().innerText(), /Formula 1|client_key/);
      assert.deepEqual(await seriousViolations(page), []);
      await page.close();
    });
  });
}
