/**
 * The API description pages in Debian's chromium: /docs (the merchant-facing API) and /docs/admin (the operator
 * API) each render every one of their operations (Swagger UI 5.34 stops rendering, silently, past about 120 open
 * operations: the defect this guards), together they are the whole of /docs/json, and axe-core finds no critical
 * or serious violation, neither as they open nor with an operation and a schema expanded. The document does not
 * depend on the store: one store kind is enough.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser } from '../support/browser.ts';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface Violation { id: string; impact: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] }

export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Violation[] }> } }).axe.run(document, { resultTypes: ['violations'] });
    return result.violations;
  }) as Violation[];
  return violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)).join(' ')}`);
}

type Spec = { paths: Record<string, Record<string, { tags?: string[] }>>; webhooks?: Record<string, Record<string, { tags?: string[] }>> };
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);
const operations = (spec: Spec) => [...Object.values(spec.paths), ...Object.values(spec.webhooks ?? {})].flatMap((item) => Object.entries(item).filter(([m]) => METHODS.has(m)).map(([, op]) => op));

/** Opens a docs page and waits until it shows `expected` operations; answers how long that took. */
async function renderAll(page: Page, url: string, expected: number): Promise<number> {
  const started = Date.now();
  await page.goto(url);
  await page.waitForFunction((n) => document.querySelectorAll('.opblock').length >= n, expected, { timeout: 90_000 });
  return Date.now() - started;
}

describe('/docs and /docs/admin in the browser', { skip: browserUnavailable() }, () => {
  let gw: TestGateway;
  let browser: Browser;
  before(async () => {
    gw = await startTestGateway('pglite');
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  it('each page renders all its operations, both together are /docs/json whole, and axe finds nothing serious', async () => {
    const whole = operations(await (await fetch(`${gw.baseUrl}/docs/json`)).json() as Spec);
    const admin = whole.filter((op) => op.tags?.[0] === 'Admin').length;
    const merchant = whole.length - admin;
    assert.ok(admin >= 70 && merchant >= 60, `${admin} admin and ${merchant} merchant operations (webhooks included) in /docs/json`);
    assert.equal(operations(await (await fetch(`${gw.baseUrl}/docs/admin/json`)).json() as Spec).length, admin);

    const page = await browser.newPage();
    const merchantMs = await renderAll(page, `${gw.baseUrl}/docs`, merchant);
    assert.equal(await page.locator('.opblock').count(), merchant);
    assert.equal(await page.locator('h3.opblock-tag[data-tag="Admin"]').count(), 0);
    await page.locator('a[href="/docs/admin"]').first().waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    // A JSON operation (Checkout session) and a form operation with one example per action (S2S CARD).
    await page.locator('#operations-Checkout-post_api_v1_session .opblock-summary-control').click();
    await page.locator('#operations-Checkout-post_api_v1_session .opblock-body').waitFor({ timeout: 10_000 });
    await page.locator('[id^="operations-S2S_CARD-post_post"] .opblock-summary-control').first().click();
    await page.locator('[id^="operations-S2S_CARD-post_post"] .opblock-body select[aria-label]').first().waitFor({ timeout: 10_000 });
    assert.match(await page.locator('[id^="operations-S2S_CARD-post_post"] .opblock-body').first().innerText(), /Formula 1|client_key/);
    assert.deepEqual(await seriousViolations(page), []);

    const adminMs = await renderAll(page, `${gw.baseUrl}/docs/admin`, admin);
    assert.equal(await page.locator('.opblock').count(), admin);
    assert.equal(await page.locator('h3.opblock-tag').count(), 1);
    assert.deepEqual(await seriousViolations(page), []);
    console.log(`/docs rendered its ${merchant} operations in ${merchantMs} ms, /docs/admin its ${admin} in ${adminMs} ms`);
    await page.close();
  });

  it('fits a phone: /docs at 390 px wide scrolls only vertically', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(`${gw.baseUrl}/docs`);
    await page.locator('#operations-Checkout-post_api_v1_session').waitFor({ timeout: 90_000 });
    await page.locator('#operations-Checkout-post_api_v1_session .opblock-summary-control').click();
    await page.locator('#operations-Checkout-post_api_v1_session .opblock-body').waitFor({ timeout: 10_000 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the page is ${overflow} px wider than the phone`);
    await context.close();
  });
});
