/**
 * 3-D Secure across the chain, in a real browser: our SALE answers REDIRECT to the upstream's ACS page; the
 * merchant's page posts the payer there; the payer passes the challenge on the upstream; the upstream sends the
 * payer back to us (its term_url_3ds is our /connectors/return/{payment}); we ask the upstream for the outcome
 * and send the payer on to the merchant's term_url_3ds. Callbacks cross both gateways.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { browserUnavailable, launchBrowser, browserStores } from '../support/browser.ts';
import { CARD, EMAIL, f2, followUp, sale, startListener, type Listener } from '../s2s-card/support.ts';
import { startChain, upstreamPayments, waitUntil, type Chain } from './support.ts';
import { merchantSite, type MerchantSite } from '../support/merchant-site.ts';

const unavailable = browserUnavailable();

for (const { kind, skip } of await browserStores()) {
  describe(`akurateco 3DS SALE across two gateways in a browser (${kind})`, { skip: skip || unavailable || false }, () => {
    let chain: Chain;
    let callbacks: Listener;
    let site: MerchantSite;
    let browser: Browser;
    before(async () => {
      callbacks = await startListener('OK');
      site = await merchantSite();
      chain = await startChain(kind, { notificationUrl: callbacks.url });
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await chain?.close();
      await site?.close();
      await callbacks?.close();
    });

    async function walk(expMonth: string, otp: string, order: string) {
      const res = await sale(chain.ours, { card_exp_month: expMonth, term_url_3ds: `${site.origin}/return?order=${order}` });
      assert.equal(res.body.result, 'REDIRECT', res.text);
      assert.equal(res.body.status, '3DS');
      assert.equal(res.body.redirect_method, 'POST');
      const id = res.body.trans_id as string;
      const [up] = await upstreamPayments(chain, id);
      assert.equal(res.body.redirect_url, `${chain.upstream.baseUrl}/sandbox/acs/${up!.id}`, "the payer goes to the upstream's ACS");
      site.redirect = { url: res.body.redirect_url, params: res.body.redirect_params };
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${site.origin}/pay`);
      await page.waitForURL(`${chain.upstream.baseUrl}/sandbox/acs/${up!.id}`);
      await page.fill('input[name="otp"]', otp);
      await page.click('button[value="submit"]');
      await page.waitForURL(`${site.origin}/return?order=${order}`, { timeout: 20_000 });
      await page.locator('#returned').waitFor();
      return id;
    }

    it('REDIRECT to the upstream ACS, back through us to term_url_3ds, one final callback with our F2', async () => {
      const id = await walk('05', '123456', '42');
      const final = await waitUntil('our callback', async () => callbacks.received.find((c) => c.fields.trans_id === id)?.fields);
      assert.equal(final.action, 'SALE');
      assert.equal(final.result, 'SUCCESS');
      assert.equal(final.status, 'SETTLED');
      assert.equal(final.hash, f2(EMAIL, chain.ours.merchant.password, id, CARD));
      assert.equal((await followUp(chain.ours, 'GET_TRANS_STATUS', id)).body.status, 'SETTLED');
      // The upstream's callback for the same payment reaches us too and changes nothing.
      const [up] = await upstreamPayments(chain, id);
      await waitUntil('the upstream callbacks delivered', async () => {
        const rows = await chain.upstream.store.db.query<{ status: string }>('SELECT status FROM callbacks WHERE payment_id = $1', [up!.id]);
        return rows.length > 0 && rows.every((r) => r.status === 'delivered') ? true : undefined;
      });
      assert.equal(callbacks.received.filter((c) => c.fields.trans_id === id).length, 1);
    });

    it('a failed challenge upstream (expiry month 06) is DECLINED here', async () => {
      const id = await walk('06', '000000', '43');
      const cb = await waitUntil('our callback', async () => callbacks.received.find((c) => c.fields.trans_id === id)?.fields);
      assert.equal(cb.result, 'DECLINED');
      assert.equal(cb.decline_reason, '3-D Secure authentication failed');
    });
  });
}
