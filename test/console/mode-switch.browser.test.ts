/**
 * The console's test/live switch in a real browser (issue 25, item 26), one gateway and one browser for the file:
 * a sandbox merchant (a test key) and a live merchant each pay once; the header's Keys switch filters the
 * payments list (Live only: the live key's payment alone; Test only: the test key's alone), stays chosen after a
 * reload (kept in the browser) and filters the audit log, the callbacks and the merchants the same way; each key
 * also has a chargeback due soon, a refund waiting for an operator and a settlement report on its MID, and the
 * switch reaches the home (its figures, charts, today's table and the unreconciled summary), Needs attention, the
 * disputes due soon, the dispute notices for no known payment (each MID's dispute file names one) and
 * Reconciliation (exceptions and imports). axe at 1440 and 390 px.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { saleFields, signedSale } from '../s2s-card/support.ts';
import { ensureConsoleBuilt } from './support.ts';
import { assertAccessible, assertFitsWidth, signIn, signedIn } from './pages/console.ts';
import { CallbacksList, PaymentsList } from './pages/lists.ts';
import { ModeSwitch } from './pages/mode.ts';
import { HomePage } from './pages/home.ts';
import { flagForOperator, getPayment } from '../../src/store/payments-repo.ts';
import { adyenReport } from '../reconciliation/support.ts';

const TOKEN = 'mode-switch-admin-token';
const PASSWORD = 'mode switch password 2026';

for (const { kind, skip } of await browserStores()) {
  describe(`console test/live switch in the browser (${kind})`, { skip: skip || browserUnavailable(), timeout: 240_000 }, () => {
    let t: TestGateway;
    let browser: Browser;
    let admin: AdminCall;
    let live: TestMerchant;
    const email = `mode-operator-${kind}@example.com`;
    const orders = { test: `TEST-ORDER-${kind}`, live: `LIVE-ORDER-${kind}` };
    const held = { test: `TEST-HELD-${kind}`, live: `LIVE-HELD-${kind}` };
    /** Each key's chargeback, told apart on screen by its reason code. */
    const reasons = { test: '10.4', live: '13.1' };
    const mids = { test: crypto.randomUUID(), live: crypto.randomUUID() };

    before(async () => {
      ensureConsoleBuilt();
      t = await startTestGateway(kind, { adminToken: TOKEN, mids: [{ id: mids.test, paymentMode: 'SMS/DMS' }] });
      admin = adminClient(t.baseUrl, TOKEN);
      live = await t.addMerchant({
        sandbox: false,
        mids: [{ id: mids.live, paymentMode: 'SMS/DMS', connector: 'akurateco', settings: { endpoint: `${t.baseUrl}/post` }, credentials: { client_key: t.merchant.key, password: t.merchant.password } }],
      });
      for (const id of [t.merchant.id, live.id]) {
        const which = id === live.id ? 'live' : 'test';
        const set = await admin('PATCH', `/admin/v1/merchants/${id}`, { name: `Shop ${which} ${kind}`, notification_url: `https://${which}-shop.example/callbacks` });
        assert.equal(set.status, 200, set.text);
      }
      const dueAt = new Date(Date.now() + 86_400_000).toISOString();
      for (const mode of ['test', 'live'] as const) {
        const m = mode === 'live' ? live : t.merchant;
        const res = await t.postForm('/post', signedSale(m, saleFields({ order_id: orders[mode] })));
        assert.equal(res.body.status, 'SETTLED', res.text);
        const disputed = await admin('POST', `/admin/v1/payments/${res.body.trans_id}/disputes`, { event: 'chargeback', amount: '1.00', reason_code: reasons[mode], due_at: dueAt });
        assert.equal(disputed.status, 201, disputed.text);
        // A refund whose answer was lost, handed to an operator as the re-check worker does.
        const toHold = await t.postForm('/post', signedSale(m, saleFields({ order_id: held[mode] })));
        assert.equal(toHold.body.status, 'SETTLED', toHold.text);
        const connector = t.gateway.ctx.connectors.get(mode === 'live' ? 'akurateco' : 'sandbox-card')!;
        const refund = connector.refund;
        connector.refund = async () => { throw new Error('connection reset'); };
        try {
          assert.equal((await admin('POST', `/admin/v1/payments/${toHold.body.trans_id}/refund`, { amount: '1.00' })).status, 200);
        } finally {
          connector.refund = refund;
        }
        assert.ok(await flagForOperator(t.store.db, (await getPayment(t.store.db, toHold.body.trans_id))!, new Date()));
        // The MID's settlement report, with an unknown row: an open exception.
        assert.equal((await admin('PUT', `/admin/v1/reconciliation/mids/${mids[mode]}/profile`, { settlement_days: 3, window_days: 1, reconcile_from: '2030-05-01T00:00:00Z' })).status, 200);
        const csv = adyenReport([{ psp: `99${mode === 'test' ? 1 : 2}5893240009999`, ref: `unknown-${mode}`, type: 'Settled', gross: '5.00', fee: '0.00', at: '2030-06-04 10:03:00' }], { batch: `B-${mode}-${kind}`, payout: false });
        const imported = await fetch(`${t.baseUrl}/admin/v1/reconciliation/imports?mid_id=${mids[mode]}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/csv' }, body: csv });
        assert.equal(imported.status, 200, await imported.text());
        // The MID's dispute file names a payment we do not have: a notice kept as unmatched, for this MID.
        const stray = await admin('POST', '/admin/v1/disputes/imports', {
          mid_id: mids[mode], profile: { columns: { payment_reference: 'Ref', dispute_reference: 'Case', event: 'Stage', amount: 'Amount', currency: 'Currency' }, events: { CB: 'chargeback' }, decimal: 'point', date_format: 'YYYY-MM-DD' },
          content: `Ref,Case,Stage,Amount,Currency\nSTRAY-${mode}-${kind},C-${mode},CB,1.00,EUR\n`,
        });
        assert.equal(stray.body.unmatched, 1, stray.text);
      }
      assert.equal((await admin('POST', '/admin/v1/users', { email, role: 'operator', password: PASSWORD, name: 'Mode operator' })).status, 201);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it('Live only and Test only filter the payments list, the audit log, the callbacks and the merchants; the choice stays after a reload', async () => {
      const { context, page } = await signIn(browser, t.baseUrl, email, PASSWORD);
      const payments = await new PaymentsList(page).open(t.baseUrl);
      const modes = new ModeSwitch(page);
      assert.equal(await modes.chosen(), 'Test and live');
      await payments.row(orders.test).waitFor();
      await payments.row(orders.live).waitFor();

      await modes.choose('Live only');
      await payments.row(orders.test).waitFor({ state: 'detached' });
      await payments.row(orders.live).waitFor();
      await assertAccessible(page, 'payments, live only');

      await page.reload();
      await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
      assert.equal(await modes.chosen(), 'Live only', 'kept in this browser');
      await payments.row(orders.live).waitFor();
      assert.equal(await payments.row(orders.test).count(), 0);

      await modes.choose('Test only');
      await payments.row(orders.live).waitFor({ state: 'detached' });
      await payments.row(orders.test).waitFor();

      // The audit log: the test merchant's rename listed, the live one's not.
      await page.goto(`${t.baseUrl}/admin/audit`);
      await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
      const entries = page.getByRole('region', { name: 'Audit entries, newest first' });
      await entries.getByRole('row').filter({ hasText: `Shop test ${kind}` }).first().waitFor();
      assert.equal(await entries.getByRole('row').filter({ hasText: `Shop live ${kind}` }).count(), 0);
      await modes.choose('Live only');
      await entries.getByRole('row').filter({ hasText: `Shop live ${kind}` }).first().waitFor();
      assert.equal(await entries.getByRole('row').filter({ hasText: `Shop test ${kind}` }).count(), 0);
      await assertAccessible(page, 'audit log, live only');

      // The callbacks: Live only lists the live shop's, not the test shop's.
      const callbacks = await new CallbacksList(page).open(t.baseUrl);
      await callbacks.rows().filter({ hasText: `Shop live ${kind}` }).first().waitFor();
      assert.equal(await callbacks.rows().filter({ hasText: `Shop test ${kind}` }).count(), 0);

      // The merchants: Live only lists the live shop, not the test shop.
      await page.goto(`${t.baseUrl}/admin/merchants`);
      await page.getByRole('heading', { name: 'Merchants', level: 1 }).waitFor();
      const main = page.getByRole('main');
      await main.getByRole('row').filter({ hasText: `Shop live ${kind}` }).first().waitFor();
      assert.equal(await main.getByRole('row').filter({ hasText: `Shop test ${kind}` }).count(), 0);
      await context.close();
    });

    it('the switch reaches the home\'s figures and summaries, Needs attention, the disputes due soon and unmatched notices, and Reconciliation', async () => {
      const { context, page } = await signedIn(browser, t.baseUrl, email, PASSWORD);
      const modes = new ModeSwitch(page);
      const shops = { test: `Shop test ${kind}`, live: `Shop live ${kind}` };
      const home = await new HomePage(page).open(t.baseUrl);
      const today = page.getByRole('region', { name: 'Today\'s figures per merchant' });
      const unreconciled = page.getByRole('region', { name: 'Open exceptions per acquirer and day' });
      // A summary row names its MID's merchant once the MIDs are read, its MID id before.
      const summaryRow = (mode: 'test' | 'live') => unreconciled.getByRole('row').filter({ hasText: new RegExp(`${shops[mode]}|${mids[mode]}`) }).first();
      // Test and live: both shops everywhere.
      for (const mode of ['test', 'live'] as const) {
        await home.groupRow(shops[mode]).waitFor();
        await today.getByRole('row').filter({ hasText: shops[mode] }).waitFor();
        await summaryRow(mode).waitFor();
      }
      await modes.choose('Live only');
      // Live only: the live shop's figures, today's row and open exceptions; never the test shop's.
      await home.groupRow(shops.test).waitFor({ state: 'detached' });
      await today.getByRole('row').filter({ hasText: shops.test }).waitFor({ state: 'detached' });
      await summaryRow('test').waitFor({ state: 'detached' });
      await home.groupRow(shops.live).waitFor();
      await today.getByRole('row').filter({ hasText: shops.live }).waitFor();
      await summaryRow('live').waitFor();
      assert.equal(await home.groupRow(shops.test).count(), 0);
      await modes.choose('Test only');
      await home.groupRow(shops.live).waitFor({ state: 'detached' });
      await today.getByRole('row').filter({ hasText: shops.live }).waitFor({ state: 'detached' });
      await summaryRow('live').waitFor({ state: 'detached' });
      await home.groupRow(shops.test).waitFor();
      await summaryRow('test').waitFor();
      await assertAccessible(page, 'home, test only');

      // Needs attention: the live key's held refund under Live only, the test key's under Test only.
      await page.goto(`${t.baseUrl}/admin/attention`);
      const waiting = page.getByRole('region', { name: 'Payments waiting for an operator' });
      await waiting.getByRole('link', { name: held.test, exact: true }).waitFor();
      assert.equal(await waiting.getByRole('link', { name: held.live, exact: true }).count(), 0);
      await modes.choose('Live only');
      await waiting.getByRole('link', { name: held.live, exact: true }).waitFor();
      await waiting.getByRole('link', { name: held.test, exact: true }).waitFor({ state: 'detached' });

      // The disputes due soon: the live key's chargeback alone.
      await page.goto(`${t.baseUrl}/admin/disputes?due_soon=yes`);
      const disputes = page.getByRole('region', { name: 'Disputes, newest first' });
      await disputes.getByRole('row').filter({ hasText: `${reasons.live} (` }).waitFor();
      assert.equal(await disputes.getByRole('row').filter({ hasText: `${reasons.test} (` }).count(), 0);
      // The notices for no known payment: the live MID's alone, named with its mode.
      const unmatched = page.getByRole('region', { name: 'Unmatched dispute notices, newest first' });
      await unmatched.getByRole('row').filter({ hasText: `STRAY-live-${kind}` }).filter({ hasText: 'MID SMS/DMS (live)' }).waitFor();
      assert.equal(await unmatched.getByRole('row').filter({ hasText: `STRAY-test-${kind}` }).count(), 0);

      // Reconciliation: the exceptions and the imports of the live key's MID alone.
      await page.goto(`${t.baseUrl}/admin/reconciliation`);
      const exceptions = page.getByRole('region', { name: 'Exceptions', exact: true });
      await exceptions.getByRole('row').filter({ hasText: shops.live }).first().waitFor();
      assert.equal(await exceptions.getByRole('row').filter({ hasText: new RegExp(`${shops.test}|${mids.test}`) }).count(), 0);
      await page.getByRole('navigation', { name: 'Reconciliation sections' }).getByRole('link', { name: 'Imports', exact: true }).click();
      const imports = page.getByRole('region', { name: 'Imported batches' });
      await imports.getByRole('link', { name: `B-live-${kind}` }).waitFor();
      assert.equal(await imports.getByRole('link', { name: `B-test-${kind}` }).count(), 0);
      await modes.choose('Test only');
      await imports.getByRole('link', { name: `B-test-${kind}` }).waitFor();
      await imports.getByRole('link', { name: `B-live-${kind}` }).waitFor({ state: 'detached' });
      // The import's MID picker offers the test key's MIDs alone, then the live key's.
      const picker = page.getByLabel('Acquirer MID');
      const group = (mode: 'test' | 'live') => picker.locator(`optgroup[label="${shops[mode]}"]`);
      await group('test').waitFor({ state: 'attached' });
      assert.equal(await group('live').count(), 0, 'no live MID offered under Test only');
      await assertAccessible(page, 'reconciliation imports, test only');
      await modes.choose('Live only');
      await group('live').waitFor({ state: 'attached' });
      await group('test').waitFor({ state: 'detached' });
      await context.close();
    });

    it('the switch at 390 px: the header wraps, nothing scrolls sideways', async () => {
      const { context, page } = await signedIn(browser, t.baseUrl, email, PASSWORD, 'phone');
      await new PaymentsList(page).open(t.baseUrl);
      await new ModeSwitch(page).choose('Live only');
      await new PaymentsList(page).row(orders.live).waitFor();
      await assertFitsWidth(page, 'payments at 390 px');
      await assertAccessible(page, 'payments at 390 px');
      await context.close();
    });
  });
}
