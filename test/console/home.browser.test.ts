/**
 * The console's home in a real browser (issue 31 item 5), on one store (browserStores): after a checkout payment declined once and
 * then approved, an approved S2S sale and a declined one, the home shows 3 payments at 66.7 % (per payment; per try
 * it was 2 of 4, 50 %), the approved volume, charts of the range beside the previous period with their figures as a
 * table, declines by reason, and a table per merchant and per MID. axe finds nothing serious at 1440 and 390 px, the
 * phone layout never scrolls sideways, and both widths are photographed into docs/screenshots/console/.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { checkoutTries } from '../support/checkout-tries.ts';
import { adminClient } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { DECLINE_REASON } from '../../src/sandbox/acquirer/test-cards.ts';
import { ensureConsoleBuilt } from './support.ts';
import { assertAccessible, assertFitsWidth, DOC_SHOTS, signIn, signedIn, type Width } from './pages/console.ts';
import { HomePage } from './pages/home.ts';
import { saveScreenshot } from '../support/screenshots.ts';
import { dayAwayFromMidnight } from '../support/utc-day.ts';

const ADMIN_TOKEN = 'console-home-admin-token';
const EMAIL = 'home-admin@example.com';
const PASSWORD = 'console home password 2026';

for (const [index, { kind, skip }] of (await browserStores()).entries()) {
  describe(`console home in the browser (${kind})`, { skip: skip || browserUnavailable(), timeout: 300_000 }, () => {
    let t: TestGateway;
    let browser: Browser;
    /** The UTC day of the payments, the row the figures table shows them on. */
    let today = '';

    before(async () => {
      ensureConsoleBuilt();
      t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN });
      const created = await adminClient(t.baseUrl, ADMIN_TOKEN)('POST', '/admin/v1/users', { email: EMAIL, role: 'admin', password: PASSWORD, name: 'Home admin' });
      assert.equal(created.status, 201, created.text);
      today = await dayAwayFromMidnight(90_000); // the payments and the home showing them on one UTC day
      await checkoutTries(t, t.merchant, ['02/38', '01/38'], { amount: '10.00', currency: 'EUR' });
      assert.equal((await sale(t, { order_amount: '5.00', order_currency: 'EUR' })).body.status, 'SETTLED');
      assert.equal((await sale(t, { order_amount: '7.00', order_currency: 'EUR', card_exp_month: '02' })).body.status, 'DECLINED');
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it('shows the figures per payment beside the previous period, per merchant and per MID', async () => {
      const { context, page } = await signIn(browser, t.baseUrl, EMAIL, PASSWORD);
      const home = await new HomePage(page).open(t.baseUrl);
      assert.deepEqual(await home.tile('Payments'), { current: '3', previous: 'previous 0 · new' });
      assert.equal((await home.tile('Approval rate')).current, '66.7 %');
      assert.equal((await home.tile('Approved volume, EUR')).current, '€15.00');
      const perDay = home.chart('Payments per day');
      assert.match((await perDay.locator('svg').getAttribute('aria-label'))!, /3 this period, 0 the previous/);
      await perDay.getByText('Figures as a table').click();
      await perDay.getByRole('row', { name: new RegExp(`^${today} 3 `) }).waitFor();
      await home.chart('Declined payments by reason').getByText(DECLINE_REASON).waitFor();
      await home.groupRow('Test Shop').getByText('66.7 %').waitFor();
      await home.splitBy('MID');
      await home.groupRow('MID SMS/DMS').getByRole('cell', { name: /^3 / }).waitFor();
      await context.close();
    });

    for (const width of ['desktop', 'phone'] as Width[]) {
      it(`passes axe and fits the screen at ${width} width (screenshot in docs/)`, async () => {
        const { context, page } = await signedIn(browser, t.baseUrl, EMAIL, PASSWORD, width);
        await new HomePage(page).open(t.baseUrl);
        await assertAccessible(page, `home at ${width} width`);
        await assertFitsWidth(page, `home at ${width} width`);
        if (index === 0) {
          mkdirSync(DOC_SHOTS, { recursive: true });
          await saveScreenshot(page, path.join(DOC_SHOTS, `home-${page.viewportSize()!.width}.png`), { fullPage: width === 'desktop' });
        }
        await context.close();
      });
    }
  });
}
