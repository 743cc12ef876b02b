import { it } from 'node:test';
import { startTestGateway } from '/work/main/test/support/gateway.ts';
import { checkoutHash } from '/work/main/test/support/merchant.ts';
import { launchBrowser } from '/work/main/test/support/browser.ts';
it('debug', async () => {
  const t = await startTestGateway('pglite');
  const browser = await launchBrowser();
  for (const key of ['country-fields', 'otp-confirmation']) {
    const order = { number: `dbg-${key}`, amount: '25.00', currency: 'EUR', description: 'x' };
    const res = await t.postJson('/api/v1/session', { merchant_key: t.merchant.key, operation: 'purchase', methods: ['card', key], order, success_url: 'http://127.0.0.1:1/s', cancel_url: 'http://127.0.0.1:1/c',
      customer: { name: 'Jane Roe', email: 'success@gmail.com' }, hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description) });
    const page = await browser.newPage();
    page.on('console', (m) => console.log('console', m.text()));
    page.on('pageerror', (e) => console.log('pageerror', e.message));
    await page.goto(res.body.redirect_url);
    await page.locator(`input[name=method][value="${key}"]`).check();
    await page.click('#pay-button');
    await page.waitForTimeout(1000);
    console.log(page.url());
    console.log((await page.content()).replace(/<svg[^]*?<\/svg>/g, '').slice(0, 6000));
    if (key === 'otp-confirmation') {
      await page.fill('input[type=tel] >> nth=0', '+381641234567');
      await page.click('#apm-continue');
      await page.waitForTimeout(1000);
      console.log(page.url());
      console.log((await page.content()).replace(/<svg[^]*?<\/svg>/g, '').slice(0, 5000));
    }
  }
  await browser.close(); await t.close();
});
