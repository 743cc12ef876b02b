/**
 * End to end against a mock of Adyen: prism 5.14.2 serves Adyen's CheckoutService-v71.json on loopback (refusing
 * any request that does not match it) and answers with its named examples; our merchant speaks S2S CARD to our
 * gateway, whose MID uses the `adyen` connector. Webhooks are posted to our notification endpoint as Adyen posts
 * them, signed with the MID's HMAC key.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, CALLBACK_TIMEOUT_MS } from '../support/gateway.ts';
import { followUp, sale, startListener, type Listener } from '../s2s-card/support.ts';
import { ourPayment, waitUntil } from './support.ts';
import { example, prismUnavailable, startAdyenMock, webhookExample, type AdyenMock } from './adyen-support.ts';
import { hmacSignature } from '../../src/connectors/adyen/adyen.ts';
import { needsOperatorOf } from '../../src/store/payments-repo.ts';
import type { CardConnector } from '../../src/connectors/types.ts';
import { PaymentRecheck } from '../../src/workers/payment-recheck.ts';
import { assembleGateway, type Gateway } from '../../src/gateway.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';

const HMAC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
const unavailable = prismUnavailable();

for (const { kind, skip } of await storeKinds()) {
  describe(`adyen connector end to end against the mock (${kind})`, { skip: skip || unavailable || false }, () => {
    let mock: AdyenMock;
    let gw: TestGateway;
    let callbacks: Listener;
    let restarted: Gateway | undefined;
    const midId = crypto.randomUUID();
    before(async () => {
      mock = await startAdyenMock();
      callbacks = await startListener('OK');
      gw = await startTestGateway(kind, {
        workers: true, notificationUrl: callbacks.url, sandbox: false,
        mids: [{ id: midId, paymentMode: 'SMS/DMS', connector: 'adyen', settings: { baseUrl: mock.url, merchantAccount: 'PortcullisECOM', environment: 'test', timeoutMs: 10_000 }, credentials: { apiKey: 'test-api-key', hmacKey: HMAC_KEY } }],
      });
    });
    after(async () => {
      await restarted?.close();
      await gw?.close();
      await callbacks?.close();
      await mock?.close();
    });

    /** Posts a webhook as Adyen would: one of the description's examples, naming our payment, signed. */
    async function webhook(name: string, paymentId: string, psp: string, signWith = HMAC_KEY, change: Record<string, unknown> = {}) {
      const body = webhookExample(name);
      const item = body.notificationItems[0].NotificationRequestItem;
      Object.assign(item, { merchantReference: paymentId, originalReference: psp, merchantAccountCode: 'PortcullisECOM' }, change);
      item.additionalData = { ...(item.additionalData ?? {}), hmacSignature: hmacSignature(item, signWith) };
      return fetch(`${gw.baseUrl}/connectors/adyen/${midId}/notify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    }

    it('3DS auth: REDIRECT to the issuer page, the payer back with redirectResult, capture and refund settled by webhooks', async () => {
      mock.scenario.set('/payments', 'card-3d-secure-redirect');
      mock.scenario.set('/payments/details', '00.redirect');
      const res = await sale(gw, { auth: 'Y', order_amount: '10.00', term_url_3ds: 'http://127.0.0.1:9/return' });
      assert.equal(res.body.result, 'REDIRECT', res.text);
      assert.equal(res.body.status, '3DS');
      assert.equal(res.body.redirect_url, example('post-payments-card-3d-secure-redirect-200').action.url);
      assert.equal(res.body.redirect_method, 'GET');
      const id = res.body.trans_id as string;
      // Adyen sends the payer back to our returnUrl with redirectResult.
      const back = await fetch(`${gw.baseUrl}/connectors/return/${id}?redirectResult=${encodeURIComponent('X6XtfGC3!Y...')}`);
      assert.equal(back.status, 200);
      assert.match(await back.text(), /127\.0\.0\.1:9\/return/, 'the payer is sent on to term_url_3ds');
      let p = await ourPayment(gw, id);
      assert.equal(p.status, 'pending');
      assert.equal(p.details.connectorRef, 'V4HZ4RBFJGXXGN82');
      const auth = await waitUntil('the SALE callback', async () => callbacks.received.find((c) => c.fields.trans_id === id)?.fields);
      assert.equal(auth.result, 'SUCCESS');
      assert.equal(auth.status, 'PENDING');

      mock.scenario.set('/captures', 'capture');
      const cap = await followUp(gw, 'CAPTURE', id, { amount: '10.00' });
      assert.equal(cap.body.result, 'UNDEFINED', cap.text);
      assert.equal((await ourPayment(gw, id)).pendingOperation, 'capture');
      const forged = await webhook('post-CAPTURE-capture', id, 'V4HZ4RBFJGXXGN82', '00'.repeat(32));
      assert.equal(forged.status, 401);
      assert.equal((await ourPayment(gw, id)).pendingOperation, 'capture', 'a forged webhook changes nothing');
      const ack = await webhook('post-CAPTURE-capture', id, 'V4HZ4RBFJGXXGN82');
      assert.equal(ack.status, 200);
      assert.equal(await ack.text(), '[accepted]');
      p = await ourPayment(gw, id);
      assert.equal(p.status, 'settled');
      assert.equal(p.capturedAmount, 1000n);
      const captured = await waitUntil('the CAPTURE callback', async () => callbacks.received.find((c) => c.fields.trans_id === id && c.fields.action === 'CAPTURE')?.fields);
      assert.equal(captured.result, 'SUCCESS');

      mock.scenario.set('/refunds', 'refund');
      // The description's REFUND example is a failed refund ("Transaction hasn't been captured"): declined here.
      assert.equal((await followUp(gw, 'CREDITVOID', id, { amount: '10.00' })).body.result, 'ACCEPTED');
      assert.equal((await webhook('post-REFUND-refund', id, 'V4HZ4RBFJGXXGN82')).status, 200);
      p = await ourPayment(gw, id);
      assert.equal(p.status, 'settled');
      assert.equal(p.refundedAmount, 0n, 'the reservation is released');
      const failed = await waitUntil('the declined CREDITVOID callback', async () => callbacks.received.find((c) => c.fields.trans_id === id && c.fields.action === 'CREDITVOID')?.fields);
      assert.equal(failed.result, 'DECLINED');
      // Asked again, and this time Adyen reports success.
      const refund = await followUp(gw, 'CREDITVOID', id, { amount: '10.00' });
      assert.equal(refund.body.result, 'ACCEPTED', refund.text);
      assert.equal((await webhook('post-REFUND-refund', id, 'V4HZ4RBFJGXXGN82', HMAC_KEY, { success: 'true', reason: '' })).status, 200);
      assert.equal((await ourPayment(gw, id)).status, 'refund');
      assert.equal((await followUp(gw, 'GET_TRANS_STATUS', id)).body.status, 'REFUND');
      // A webhook sent again (Adyen retries until it gets [accepted]) changes nothing more.
      assert.equal((await webhook('post-REFUND-refund', id, 'V4HZ4RBFJGXXGN82', HMAC_KEY, { success: 'true', reason: '' })).status, 200);
      await waitUntil('the successful CREDITVOID callback', async () => callbacks.received.find((c) => c.fields.trans_id === id && c.fields.action === 'CREDITVOID' && c.fields.result === 'SUCCESS')?.fields);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(callbacks.received.filter((c) => c.fields.trans_id === id && c.fields.action === 'CREDITVOID').length, 2, 'one declined, one successful: no more');
    });

    it('a chargeback while a refund waits for its webhook: the refund\'s word keeps the chargeback status; nothing more is refundable', async () => {
      mock.scenario.set('/payments', 'card-3d-secure-redirect');
      mock.scenario.set('/payments/details', '00.redirect');
      const res = await sale(gw, { auth: 'Y', order_amount: '10.00', term_url_3ds: 'http://127.0.0.1:9/return' });
      const id = res.body.trans_id as string;
      assert.equal((await fetch(`${gw.baseUrl}/connectors/return/${id}?redirectResult=${encodeURIComponent('X6XtfGC3!Y...')}`)).status, 200);
      mock.scenario.set('/captures', 'capture');
      const captured = await followUp(gw, 'CAPTURE', id, { amount: '10.00' });
      assert.equal(captured.body.result, 'UNDEFINED', captured.text);
      assert.equal((await webhook('post-CAPTURE-capture', id, 'V4HZ4RBFJGXXGN82')).status, 200);
      assert.equal((await ourPayment(gw, id)).status, 'settled');

      // A refund of 4.00 goes out (Adyen answers "received"); before its webhook, the payer's bank charges 6.00 back.
      mock.scenario.set('/refunds', 'refund');
      assert.equal((await followUp(gw, 'CREDITVOID', id, { amount: '4.00' })).body.result, 'ACCEPTED');
      const currency = (await ourPayment(gw, id)).currency;
      assert.equal((await webhook('post-CHARGEBACK-chargeback', id, 'V4HZ4RBFJGXXGN82', HMAC_KEY, { amount: { value: 600, currency } })).status, 200);
      assert.equal((await ourPayment(gw, id)).status, 'chargeback');
      assert.equal((await webhook('post-REFUND-refund', id, 'V4HZ4RBFJGXXGN82', HMAC_KEY, { success: 'true', reason: '', amount: { value: 400, currency } })).status, 200);

      const p = await ourPayment(gw, id);
      assert.deepEqual([p.status, p.pendingOperation, p.refundedAmount], ['chargeback', null, 400n], 'the refund settled, the chargeback stands');
      assert.equal((await followUp(gw, 'GET_TRANS_STATUS', id)).body.status, 'CHARGEBACK');
      assert.equal((await followUp(gw, 'CREDITVOID', id, { amount: '6.00' })).body.result, 'ERROR', 'what was charged back is not refundable');
      const ledger = await gw.store.db.query<{ event: string; n: string }>(
        "SELECT event, count(DISTINCT ref)::text AS n FROM ledger_entries WHERE payment_id = $1 AND event IN ('chargeback', 'refund') GROUP BY event ORDER BY event", [id]);
      assert.deepEqual(ledger.map((r) => `${r.event} ${r.n}`), ['chargeback 1', 'refund 1'], 'each posted once');
    });

    it('native 3-D Secure 2: REDIRECT to our page, which runs the fingerprint step; its result goes to /payments/details and approves', async () => {
      const setNative = async (on: boolean) => {
        await gw.store.db.query("UPDATE mids SET settings = jsonb_set(settings, '{nativeThreeDS}', to_jsonb($1::boolean)) WHERE id = $2", [on, midId]);
        gw.gateway.ctx.merchants.invalidate();
      };
      await setNative(true);
      try {
        mock.scenario.set('/payments', 'card-3d-secure-2-web');
        mock.scenario.set('/payments/details', '00.redirect');
        const res = await sale(gw, { order_amount: '10.00', term_url_3ds: 'http://127.0.0.1:9/return' });
        assert.equal(res.body.result, 'REDIRECT', res.text);
        assert.equal(res.body.status, '3DS');
        const id = res.body.trans_id as string;
        assert.equal(res.body.redirect_url, `${gw.baseUrl}/connectors/return/${id}/3ds2`, 'our page, not an issuer page');
        const page = await fetch(res.body.redirect_url);
        assert.equal(page.status, 200);
        const text = await page.text();
        assert.match(text, new RegExp(`<form id="threeds2-result" method="post" action="/connectors/return/${id}"`));
        // The description's example token is truncated (no 3DS Method URL to run): the page reports threeDSCompInd U.
        assert.match(text, /name="threeDSCompInd" value="U"/);
        assert.match(text, /src="\/assets\/threeds2\.js"/);
        // What the page posts back.
        const back = await fetch(`${gw.baseUrl}/connectors/return/${id}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'threeDSCompInd=U' });
        assert.equal(back.status, 200);
        assert.match(await back.text(), /127\.0\.0\.1:9\/return/, 'the payer is sent on to term_url_3ds');
        const p = await ourPayment(gw, id);
        assert.equal(p.status, 'settled');
        assert.equal(p.details.connectorRef, 'V4HZ4RBFJGXXGN82');
        const cb = await waitUntil('the SALE callback', async () => callbacks.received.find((c) => c.fields.trans_id === id)?.fields);
        assert.equal(cb.result, 'SUCCESS');
        // Once decided, the page has nothing more to run.
        assert.equal((await fetch(res.body.redirect_url)).status, 404);
      } finally {
        await setNative(false);
      }
    });

    it("integrity: the mock's card-direct answer names another reference (\"string\"); the payment is held for an operator", async () => {
      mock.scenario.set('/payments', 'card-direct');
      const res = await sale(gw, { order_amount: '10.00' });
      assert.equal(res.body.result, 'UNDEFINED', res.text);
      const p = await ourPayment(gw, res.body.trans_id);
      const flag = needsOperatorOf(p) as unknown as { reason: string; mismatches: unknown[] };
      assert.equal(flag.reason, 'integrity');
      assert.deepEqual(flag.mismatches, [{ field: 'reference', expected: p.id, reported: 'string' }]);
    });

    it('crash after Adyen authorised, before our write: the re-check has nothing to ask (no status lookup at Adyen), the AUTHORISATION webhook settles it after the restart, one callback', async () => {
      mock.scenario.set('/payments', 'on-demand-top-up-visa');
      const connectors = gw.gateway.ctx.connectors as Map<string, CardConnector>;
      const real = connectors.get('adyen')!;
      const dying: CardConnector = Object.create(real) as CardConnector;
      Object.defineProperty(dying, 'authorize', { value: async (...args: Parameters<CardConnector['authorize']>) => {
        await real.authorize(...args);
        throw new Error('process killed');
      } });
      connectors.set('adyen', dying);
      const res = await sale(gw, { order_amount: '1.99' });
      connectors.set('adyen', real);
      const id = res.body.trans_id as string;
      assert.equal((await ourPayment(gw, id)).pendingOperation, 'authorize');
      await gw.gateway.close();
      const config = { ...loadConfig({}), port: 0, baseUrl: 'http://127.0.0.1:0', callbackAllowedPrivateHosts: ['127.0.0.1'], connectorAllowedPrivateHosts: ['127.0.0.1'] };
      restarted = await assembleGateway({ config, db: gw.store.db, keyring: gw.keyring, logger: createLogger('silent'), dispatcher: { pollMs: 50, timeoutMs: CALLBACK_TIMEOUT_MS } });
      const address = await restarted.app.listen({ port: 0, host: '127.0.0.1' });
      (restarted.ctx as { baseUrl: string }).baseUrl = address;
      restarted.startWorkers();
      // The rest of this suite talks to the restarted gateway.
      gw = { ...gw, gateway: restarted, baseUrl: address };
      const ctx = restarted.ctx;
      assert.equal(await new PaymentRecheck(ctx, { staleAfterMs: 0 }).runOnce(), 0, 'inquire answers nothing: never guessed');
      assert.equal((await ourPayment(gw, id)).pendingOperation, 'authorize');
      const hook = await webhook('post-AUTHORISATION-authorisation', id, '', HMAC_KEY, { pspReference: '993617895204576J', amount: { currency: 'USD', value: 199 } });
      assert.equal(hook.status, 200);
      const p = await ourPayment(gw, id);
      assert.equal(p.status, 'settled');
      assert.equal(p.details.connectorRef, '993617895204576J');
      await waitUntil('the SALE callback', async () => callbacks.received.find((c) => c.fields.trans_id === id)?.fields);
      // Adyen retries a webhook until [accepted]: the same one again changes nothing.
      assert.equal((await webhook('post-AUTHORISATION-authorisation', id, '', HMAC_KEY, { pspReference: '993617895204576J', amount: { currency: 'USD', value: 199 } })).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(callbacks.received.filter((c) => c.fields.trans_id === id).length, 1, 'exactly one final callback');
    });

    it('the mock refused none of our requests (every one matched the description)', () => {
      assert.deepEqual(mock.refused, []);
    });
  });
}
