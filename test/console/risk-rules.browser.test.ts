/**
 * The console's risk rules editor, lists and backtest in a real browser (issue 26), on one store (browserStores). A merchant has
 * three approved SALEs (10, 150 and 300 USD). In the rules editor an operator writes two rules for it; the API's
 * problems (an amount that is no decimal, a window out of range) show at their fields; fixed, the set saves as
 * version 1 (read back over the admin API, audited), its order shown after the platform's rules; a rule turned off
 * saves as version 2. The draft is backtested: it would have blocked the two large SALEs (the approved volume lost
 * as the API answers it). In the lists, a block entry is refused with its problem at the value, then added, found
 * by search, and removed (the API's lists and the audit log agree). The fraud-dispute feed is turned on in the lists
 * screen; a fraud chargeback's card and e-mail then show there. A payment's IP and e-mail domain are listed from its
 * page in one action. axe: nothing serious or critical on each screen at 1440 and at 390 px.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { adminClient } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { ensureConsoleBuilt } from './support.ts';
import { WIDTHS, assertAccessible, signIn, signedIn } from './pages/console.ts';
import { RiskBacktestPage, RiskListsPage, RiskRulesPage } from './pages/risk.ts';

const ADMIN_TOKEN = 'console-risk-rules-admin-token';
const EMAIL = 'risk-rules@example.com';
const PASSWORD = 'console risk rules password 2026';

/** axe at the desktop width and at the phone's. */
async function accessibleAtBothWidths(page: Page, screen: string): Promise<void> {
  await page.setViewportSize(WIDTHS.phone);
  await assertAccessible(page, `${screen} at 390 px`);
  await page.setViewportSize(WIDTHS.desktop);
  await assertAccessible(page, `${screen} at 1440 px`);
}

for (const { kind, skip } of await browserStores()) {
  describe(`console risk rules, lists and backtest in the browser (${kind})`, { skip: skip || browserUnavailable(), timeout: 300_000 }, () => {
    let t: TestGateway;
    let browser: Browser;
    let admin: ReturnType<typeof adminClient>;
    let m: TestMerchant;
    const paid: string[] = [];

    before(async () => {
      ensureConsoleBuilt();
      t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN });
      admin = adminClient(t.baseUrl, ADMIN_TOKEN);
      const created = await admin('POST', '/admin/v1/users', { email: EMAIL, role: 'admin', password: PASSWORD, name: 'Risk editor' });
      assert.equal(created.status, 201, created.text);
      m = await t.addMerchant({ notificationUrl: 'http://127.0.0.1:9/callbacks' });
      for (const amount of ['10.00', '150.00', '300.00']) {
        const res = await sale(t, { order_amount: amount }, m);
        assert.equal(res.body.status, 'SETTLED', res.text);
        paid.push(res.body.trans_id as string);
      }
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    const auditActions = async (objectId: string): Promise<string[]> => {
      const res = await admin('GET', `/admin/v1/audit-log?object_id=${objectId}`);
      assert.equal(res.status, 200, res.text);
      return (res.body.entries as { action: string }[]).map((e) => e.action);
    };

    it('edits, saves, turns off and backtests rules; problems at their fields; passes axe', async () => {
      const { context, page } = await signIn(browser, t.baseUrl, EMAIL, PASSWORD);
      const rules = await new RiskRulesPage(page).open(t.baseUrl, m.id);
      await accessibleAtBothWidths(page, 'risk rules editor, empty');

      const first = await rules.addRule();
      await rules.field(1, 'Rule 1 name').fill('Large orders');
      await rules.field(1, 'Rule 1 mode').selectOption('active');
      await rules.field(1, 'Rule 1 outcome').selectOption('block');
      await rules.field(1, 'Amount from').fill('lots');
      await rules.addRule();
      await rules.field(2, 'Rule 2 name').fill('Many declines per e-mail');
      await rules.rule(2).getByRole('button', { name: 'Add a velocity test to rule 2' }).click();
      const velocity = rules.rule(2).getByRole('group', { name: 'velocity test 1 of rule 2' });
      await velocity.getByLabel('Per', { exact: true }).selectOption('email');
      await velocity.getByLabel('Window (minutes)').fill('99999');
      await rules.save();
      assert.match(await rules.problemsAt(rules.field(1, 'Amount from')), /valid|match/i);
      assert.match(await rules.problemsAt(velocity.getByLabel('Window (minutes)')), /43200/);
      await accessibleAtBothWidths(page, 'risk rules editor with problems');
      assert.equal((await admin('GET', `/admin/v1/risk/rules/${m.id}`)).body.version, 0, 'nothing saved while the set has problems');

      await rules.field(1, 'Amount from').fill('100.00');
      await velocity.getByLabel('Window (minutes)').fill('60');
      await rules.save();
      await rules.waitSaved(1);
      const saved = (await admin('GET', `/admin/v1/risk/rules/${m.id}`)).body;
      assert.equal(saved.version, 1);
      assert.deepEqual(saved.rules.rules, [
        { name: 'Large orders', mode: 'active', when: { amount: { min: '100.00' } }, then: { action: 'block' } },
        { name: 'Many declines per e-mail', mode: 'shadow', when: { velocity: [{ measure: 'declines', by: 'email', window_minutes: 60, more_than: 5 }] }, then: { action: 'review' } },
      ]);
      // The order: the platform's five card-testing rules first, then the merchant's, numbered on.
      const platform = await rules.overview('Platform rules (run first)');
      assert.equal(platform.length, 5);
      assert.deepEqual(await rules.overview(/^This merchant's rules/), [['6', 'Large orders', 'active'], ['7', 'Many declines per e-mail', 'shadow']]);

      await rules.field(2, 'Rule 2 mode').selectOption('off');
      await rules.save();
      await rules.waitSaved(2);
      const off = (await admin('GET', `/admin/v1/risk/rules/${m.id}`)).body;
      assert.deepEqual([off.version, off.rules.rules[1].mode], [2, 'off']);
      const audit = await admin('GET', `/admin/v1/audit-log?object_id=${m.id}&action=risk.rules`);
      assert.deepEqual((audit.body.entries as { after: { version: number } }[]).map((e) => e.after.version), [2, 1]);
      await accessibleAtBothWidths(page, 'risk rules editor, saved');
      assert.ok(await first.isVisible());

      // The draft (a third rule, unsaved) backtested over the merchant's payments.
      await rules.addRule();
      await rules.field(3, 'Rule 3 name').fill('Draft: huge');
      await rules.field(3, 'Rule 3 mode').selectOption('active');
      await rules.field(3, 'Amount from').fill('1000.00');
      await page.getByRole('button', { name: 'Backtest this draft' }).click();
      const backtest = new RiskBacktestPage(page);
      await backtest.run(7);
      const draft = { rules: [...off.rules.rules, { name: 'Draft: huge', mode: 'active', when: { amount: { min: '1000.00' } }, then: { action: 'review' } }] };
      const api = await admin('POST', `/admin/v1/risk/rules/${m.id}/backtest`, { days: 7, rules: draft });
      assert.equal(api.status, 200, api.text);
      assert.deepEqual([api.body.payments, api.body.counts.block, api.body.lost_approved.count, api.body.lost_approved.volume], [3, 2, 2, { USD: '450.00' }]);
      assert.deepEqual([await backtest.figure('Allowed'), await backtest.figure('Blocked'), await backtest.figure('Held for review')], ['1', '2', '0']);
      assert.match(await backtest.figure('Approved payments lost'), /^2 \(.*450\.00/);
      assert.equal(await backtest.examples('Would have blocked').count(), 2);
      await accessibleAtBothWidths(page, 'risk backtest with a result');
      assert.equal((await admin('GET', `/admin/v1/risk/rules/${m.id}`)).body.version, 2, 'a backtest saves nothing');
      await context.close();
    });

    it('adds, finds and removes list entries on a phone; problems at their fields; passes axe', async () => {
      const { context, page } = await signedIn(browser, t.baseUrl, EMAIL, PASSWORD, 'phone');
      const lists = await new RiskListsPage(page).open(t.baseUrl, m.id);
      await page.getByText('No entry in these lists.').waitFor();
      await lists.add({ kind: 'IP or CIDR', value: 'not an address', reason: 'card testing' });
      const form = page.getByRole('form', { name: 'Add an entry' });
      await form.getByLabel('Value', { exact: true }).and(page.locator('[aria-invalid="true"]')).waitFor();
      assert.match((await form.locator('.field-error').textContent()) ?? '', /IP address or CIDR/);
      await accessibleAtBothWidths(page, 'risk lists with a problem');

      await lists.add({ kind: 'IP or CIDR', value: '203.0.113.0/24', reason: 'card testing' });
      // The form empties itself when an entry is added: the next one is typed after that.
      await page.getByRole('status').filter({ hasText: '203.0.113.0/24' }).waitFor();
      await lists.add({ kind: 'E-mail', value: 'Fraudster@Example.com', reason: 'chargeback: fraud' });
      await page.getByRole('status').filter({ hasText: 'fraudster@example.com' }).waitFor();
      await lists.rows().filter({ hasText: 'fraudster@example.com' }).waitFor();
      assert.equal(await lists.rows().count(), 2);
      const entries = (await admin('GET', `/admin/v1/risk/lists/${m.id}`)).body as { kind: string; value: string; list: string }[];
      assert.deepEqual(entries.map((e) => [e.list, e.kind, e.value]), [['block', 'ip', '203.0.113.0/24'], ['block', 'email', 'fraudster@example.com']]);

      await lists.search('FRAUD');
      await page.waitForFunction(() => document.querySelectorAll('[aria-label="List entries, oldest first"] tbody tr').length === 1);
      assert.match((await lists.rows().first().textContent()) ?? '', /fraudster@example\.com/);
      await accessibleAtBothWidths(page, 'risk lists searched');
      await lists.search('nobody@nowhere');
      await page.getByText('No entry matches.').waitFor();
      await lists.search('');
      await lists.rows().nth(1).waitFor();

      await lists.remove('fraudster@example.com');
      await page.waitForFunction(() => document.querySelectorAll('[aria-label="List entries, oldest first"] tbody tr').length === 1);
      const left = (await admin('GET', `/admin/v1/risk/lists/${m.id}`)).body as { value: string }[];
      assert.deepEqual(left.map((e) => e.value), ['203.0.113.0/24']);
      const actions = await auditActions(m.id);
      assert.deepEqual(actions.filter((a) => a.startsWith('risk.list')), ['risk.list.remove', 'risk.list.add', 'risk.list.add']);

      // The fraud-dispute feed, turned on here: a fraud chargeback's card and e-mail then show in the merchant's lists.
      const feed = page.getByRole('form', { name: 'Fraud chargebacks' });
      await feed.getByText('Never saved: off.').waitFor();
      await feed.getByLabel('List the values of fraud chargebacks').check();
      await feed.getByLabel('Entries expire after (days)').fill('0');
      await feed.getByRole('button', { name: 'Save the fraud chargeback setting' }).click();
      await feed.getByLabel('Entries expire after (days)').and(page.locator('[aria-invalid="true"]')).waitFor();
      await feed.getByLabel('Entries expire after (days)').fill('90');
      await feed.getByRole('button', { name: 'Save the fraud chargeback setting' }).click();
      await feed.getByText(new RegExp(`^Version 1, saved .* by ${EMAIL.replace('.', '\\.')}\\.$`)).waitFor();
      const setting = (await admin('GET', '/admin/v1/risk/dispute-feed')).body;
      assert.deepEqual([setting.enabled, setting.kinds, setting.scope, setting.expires_days], [true, ['card', 'email'], 'platform', 90]);
      assert.deepEqual((await admin('GET', '/admin/v1/audit-log?action=risk.dispute_feed')).body.entries.map((e: { user: { name: string } }) => e.user.name), [EMAIL]);
      const dispute = await admin('POST', `/admin/v1/payments/${paid[0]}/disputes`, { event: 'chargeback', reason_code: '10.4' });
      assert.equal(dispute.status, 201, dispute.text);
      await lists.open(t.baseUrl, m.id);
      await lists.search('fraud chargeback');
      await page.waitForFunction(() => document.querySelectorAll('[aria-label="List entries, oldest first"] tbody tr').length === 2);
      const fed = (await lists.rows().allTextContents()).join('\n');
      assert.match(fed, new RegExp(`fraud chargeback 10\\.4 \\(dispute ${dispute.body.id}`));
      const listedKinds = ((await admin('GET', `/admin/v1/risk/lists/${m.id}?q=${dispute.body.id}`)).body as { kind: string }[]).map((e) => e.kind).sort();
      assert.deepEqual(listedKinds, ['card', 'email'], 'a sandbox merchant\'s dispute feeds its own lists');
      await accessibleAtBothWidths(page, 'risk lists with the fraud chargeback setting');

      // A payment's values listed in one action from its page: its IP and e-mail domain on the platform's block list.
      await page.goto(`${t.baseUrl}/admin/payments/${paid[1]}`);
      await page.getByRole('button', { name: 'Add to a list…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Card (its fingerprint)').uncheck();
      await dialog.getByLabel('E-mail', { exact: true }).uncheck();
      await dialog.getByLabel('IP', { exact: true }).check();
      await dialog.getByLabel('E-mail domain', { exact: true }).check();
      await dialog.getByLabel('Reason').fill('seen in a fraud ring');
      await dialog.getByRole('button', { name: 'Add to the list' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await page.getByRole('status').filter({ hasText: /^Listed: / }).waitFor();
      const ring = (await admin('GET', `/admin/v1/risk/lists/platform?q=${encodeURIComponent('fraud ring')}`)).body as { kind: string; list: string }[];
      assert.deepEqual(ring.map((e) => `${e.list} ${e.kind}`).sort(), ['block email_domain', 'block ip']);
      await accessibleAtBothWidths(page, 'payment page after listing its values');
      await context.close();
    });
  });
}
