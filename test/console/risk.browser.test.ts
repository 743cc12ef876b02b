/**
 * The console's Risk screen in a real browser (issue 26), on one store (browserStores): three S2S SALEs held for review are in
 * the queue; one is approved from its row with a note (it goes on to the acquirer: settled), the two others
 * declined together with one note (declined by risk management); axe finds nothing serious on the screen. The
 * home's risk widget counts them, by rule too; a payment's timeline tells its screen (rules matched).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { adminClient } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { ensureConsoleBuilt } from './support.ts';
import { assertAccessible, signIn } from './pages/console.ts';
import { RiskPage } from './pages/risk.ts';
import { newOrder, openToken, processing, processingBody } from '../hosted-fields/support.ts';

const ADMIN_TOKEN = 'console-risk-admin-token';
const EMAIL = 'risk-operator@example.com';
const PASSWORD = 'console risk password 2026';

for (const { kind, skip } of await browserStores()) {
  describe(`console risk screen in the browser (${kind})`, { skip: skip || browserUnavailable(), timeout: 300_000 }, () => {
    let t: TestGateway;
    let browser: Browser;
    let admin: ReturnType<typeof adminClient>;
    const held: { id: string; order: string }[] = [];
    let merchant: TestMerchant;

    before(async () => {
      ensureConsoleBuilt();
      t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN });
      admin = adminClient(t.baseUrl, ADMIN_TOKEN);
      const created = await admin('POST', '/admin/v1/users', { email: EMAIL, role: 'operator', password: PASSWORD, name: 'Risk operator' });
      assert.equal(created.status, 201, created.text);
      const m = await t.addMerchant({ notificationUrl: 'http://127.0.0.1:9/callbacks' });
      merchant = m;
      const rules = await admin('PUT', `/admin/v1/risk/rules/${m.id}`, { version: 0, rules: { rules: [{ name: 'large order', mode: 'active', when: { amount: { min: '100.00' } }, then: { action: 'review' } }] } });
      assert.equal(rules.status, 200, rules.text);
      for (const n of [1, 2, 3]) {
        const order = `held-${kind}-${n}`;
        const res = await sale(t, { order_id: order, order_amount: '150.00' }, m);
        assert.equal(res.body.status, 'PREPARE', res.text);
        held.push({ id: res.body.trans_id, order });
      }
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    const statusOf = async (id: string) => (await admin('GET', `/admin/v1/payments/${id}`)).body.payment.status as string;

    it('approves one from its row and declines two together, each with a note; passes axe', async () => {
      const { context, page } = await signIn(browser, t.baseUrl, EMAIL, PASSWORD);
      const risk = await new RiskPage(page).open(t.baseUrl);
      await risk.row(held[2]!.order).waitFor();
      assert.equal(await risk.rows().count(), 3);
      await assertAccessible(page, 'risk review queue');
      await risk.decide(risk.row(held[0]!.order), 'Approve', 'known customer');
      await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 2);
      assert.equal(await statusOf(held[0]!.id), 'settled');
      await risk.select(held[1]!.order);
      await risk.select(held[2]!.order);
      await risk.decide(page, 'Decline selected', 'card-testing pattern');
      await page.getByText('No payment waits for a review.').waitFor();
      assert.deepEqual([await statusOf(held[1]!.id), await statusOf(held[2]!.id)], ['decline', 'decline']);
      // The home's risk widget: the three screened, all reviewed, none waiting any more.
      await page.goto(`${t.baseUrl}/admin/`);
      const widget = page.getByRole('region', { name: 'Risk, last 24 hours' });
      await widget.getByText('Reviewed').waitFor();
      const figure = (name: string) => widget.locator('div', { has: page.getByText(name, { exact: true }) }).locator('dd').textContent();
      assert.deepEqual([await figure('Screened'), await figure('Reviewed'), await figure('Blocked'), await figure('Reviews waiting')], ['3', '3', '0', '0']);
      // By rule: the rule that sent the three to review.
      const byRule = widget.getByRole('table', { name: 'By rule' }).getByRole('row', { name: /large order/ });
      assert.deepEqual(await byRule.getByRole('cell').allTextContents(), ['0', '3', '0', '0']);
      await assertAccessible(page, 'home with the risk widget');

      // A payment whose page posted the payer's device id: the payment view's risk section shows it.
      const device = 'console-device-id-0000001';
      const token = await openToken(t, newOrder('console-device'), {}, merchant);
      const collected = await t.postJson('/hosted-fields/collect', { card_number: '4111111111111111', card_expiry: '01/38', card_cvv: '123', device_id: device }, { origin: t.baseUrl, token });
      assert.equal(collected.status, 200, collected.text);
      const paid = await processing(t, token, 'purchase', processingBody());
      assert.equal(paid.status, 200, paid.text);
      await page.goto(`${t.baseUrl}/admin/payments/${paid.body.public_id}`);
      const section = page.locator('section', { has: page.getByRole('heading', { name: 'Risk evaluation' }) });
      const deviceShown = section.locator('div', { has: page.getByText('Device', { exact: true }) }).locator('dd');
      await deviceShown.waitFor();
      assert.equal(await deviceShown.textContent(), device);
      // The payment's timeline tells the screen as a step: its outcome, score and the rules matched.
      await page.goto(`${t.baseUrl}/admin/payments/${held[0]!.id}`);
      await page.getByRole('list', { name: 'Timeline steps' }).locator('li.step').filter({ hasText: 'Risk screen: review (merchant rule: large order; score 0); rules matched: large order (merchant, review)' }).first().waitFor();
      await context.close();
    });
  });
}
