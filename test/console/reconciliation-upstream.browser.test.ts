/**
 * The console's import of the platform-family upstream's report in a real browser (issue 28), on one store (browserStores): our
 * gateway's `akurateco` MID against a second Portcullis as the upstream (as the connector tests chain them), two
 * sales and a refund through it, then an operator picks the MID and the day on the reconciliation screen and clicks
 * Import from the upstream: the answer names the batch and its rows by outcome (the batch is the API's, in the
 * upstream_transactions layout); the same day asked again changes nothing. A MID whose connector has no lookup (the sandbox) is not offered. axe-core
 * checks the screen (no critical or serious violation).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { followUp, sale } from '../s2s-card/support.ts';
import { ourPayment, startChain, waitUntil, type Chain } from '../connectors/support.ts';
import { assertNoSeriousAxeViolations as assertAccessible, ensureConsoleBuilt, signInConsole } from './support.ts';
import { dayAwayFromMidnight } from '../support/utc-day.ts';

const PASSWORD = 'recon upstream console password 2026';

for (const { kind, skip } of await browserStores()) {
  describe(`console: the upstream's report imported from the reconciliation screen (${kind})`, { skip: skip || browserUnavailable(), timeout: 300_000 }, () => {
    let chain: Chain;
    let browser: Browser;
    let admin: AdminCall;
    const token = `recon-upstream-browser-${kind}`;
    const email = `recon-upstream-${kind}@example.com`;
    const csp: string[] = [];
    const ids: string[] = [];
    /** The UTC day of the payments, the day the test imports. */
    let today = '';

    before(async () => {
      ensureConsoleBuilt();
      chain = await startChain(kind, { ours: { adminToken: token } });
      admin = adminClient(chain.ours.baseUrl, token);
      assert.equal((await admin('POST', '/admin/v1/users', { email, role: 'operator', password: PASSWORD, name: 'Recon operator' })).status, 201);
      today = await dayAwayFromMidnight(90_000); // the payments and the import of their day on one UTC day
      const from = new Date(Date.now() - 60_000);
      for (const amount of ['12.00', '8.50']) {
        const res = await sale(chain.ours, { order_amount: amount, order_currency: 'USD' });
        assert.equal(res.body.status, 'SETTLED', res.text);
        ids.push(res.body.trans_id as string);
      }
      const refund = await followUp(chain.ours, 'CREDITVOID', ids[0]!, { amount: '2.00' });
      assert.equal(refund.body.result, 'ACCEPTED', refund.text);
      await waitUntil('the refund applied', async () => ((await ourPayment(chain.ours, ids[0]!)).pendingOperation === null ? true : undefined), 20_000);
      const profile = await admin('PUT', `/admin/v1/reconciliation/mids/${chain.midId}/profile`, { settlement_days: 0, reconcile_from: from.toISOString() });
      assert.equal(profile.status, 200, profile.text);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await chain?.close();
    });

    it('an operator imports the upstream\'s report of today for the akurateco MID: the batch and its rows by outcome', async () => {
      const { context, page } = await signInConsole(browser, chain.ours.baseUrl, email, PASSWORD, csp);
      await page.goto(`${chain.ours.baseUrl}/admin/reconciliation/imports`);
      const form = page.getByRole('form', { name: 'Import the upstream\'s report' });
      const mid = form.getByLabel('Upstream MID');
      await mid.locator(`option[value="${chain.midId}"]`).waitFor({ state: 'attached' });
      assert.equal(await mid.locator('option').count(), 2, 'the akurateco MID only, after the prompt');
      await mid.selectOption(chain.midId);
      assert.equal(await form.getByLabel('From day').inputValue(), today);
      assert.equal(await form.getByLabel('To day (included)').inputValue(), today);
      await form.getByRole('button', { name: 'Import from the upstream' }).click();
      const status = form.getByRole('status');
      await status.waitFor();
      const said = await status.innerText();
      assert.match(said, /^Imported batch akurateco:\S+: 3 rows \(3 matched\)\.$/, said);
      // The imports list follows the Keys switch (test or live); the chain's merchant is live: the API shows the batch.
      const listed = (await admin('GET', `/admin/v1/reconciliation/batches?mid_id=${chain.midId}`)).body as { layout: string; counts: Record<string, number> }[];
      assert.deepEqual(listed.map((b) => [b.layout, b.counts]), [['upstream_transactions', { matched: 3 }]]);
      await assertAccessible(page, 'imports with the upstream form');

      await form.getByRole('button', { name: 'Import from the upstream' }).click();
      await form.getByRole('status').filter({ hasText: 'nothing changed' }).waitFor();
      await context.close();
      assert.deepEqual(csp, [], 'no Content-Security-Policy violation');
    });
  });
}
