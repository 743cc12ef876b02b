/**
 * Alternative methods of a live merchant through the `akurateco` connector: our merchant's S2S APM requests go
 * to our gateway, whose MID (with an S2S APM endpoint) forwards them to a second Portcullis (the upstream, whose
 * sandbox serves the method) with the upstream merchant's client_key, password and APM formulas. The payer goes
 * through the upstream's page and back to ours; the upstream's callbacks reach our notification endpoint.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, CALLBACK_TIMEOUT_MS } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener } from '../support/merchant.ts';
import {
  callbackHash, credit2VirtualCallbackHash, credit2VirtualHash, followUp, mobileMoneyPayout, orderId, representative, sale,
} from '../apm/support.ts';
import { startChain, startProxy, upstreamPayments, ourPayment, waitUntil, withMidTimeout, type Chain, type Proxy } from './support.ts';
import { PaymentRecheck } from '../../src/workers/payment-recheck.ts';
import { needsOperatorOf } from '../../src/store/payments-repo.ts';
import type { CardConnector, MidAccess } from '../../src/connectors/types.ts';
import type { ApmInitiateRequest } from '../../src/connectors/apm-types.ts';
import type { HttpPort } from '../../src/connectors/http.ts';
import { AkuratecoApmConnector } from '../../src/connectors/akurateco/apm.ts';
import { Secret } from '../../src/domain/secret.ts';
import { assembleGateway } from '../../src/gateway.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';

const ADMIN_TOKEN = 'admin-token-for-apm-connector-tests-0000';
const REDIRECT = representative('redirect', 's2s_apm');
const FIELDS = representative('extra_fields', 's2s_apm');
/** The extra-fields method with its page fields sent: the upstream's sandbox decides at once, by the payer's e-mail. */
const direct = (extra: Record<string, unknown> = {}) => ({
  parameters: Object.fromEntries(FIELDS.params.filter((p) => p.collectOnPage).map((p) => [p.name, 'ABC12345'])),
  ...extra,
});
const form = { 'content-type': 'application/x-www-form-urlencoded' };

const finals = (l: Listener, transId: string) => l.received.filter((c) => c.fields.trans_id === transId && c.fields.result !== 'REDIRECT');

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('akurateco APM transformers', () => {
  const mid: MidAccess = { id: 'm1', settings: { endpoint: 'http://up.example/post', apmEndpoint: 'http://up.example/apm/post' }, credentials: new Secret({ client_key: 'ck', password: 'pw' }), descriptor: null };
  const req: ApmInitiateRequest = {
    paymentId: 'p1', method: FIELDS.key, methodKind: '', experience: 'extra_fields', intent: 'sale', amount: 1250n, currency: 'EUR', orderId: 'o1', description: 'd',
    merchantName: 'Shop', payer: { email: 'success@gmail.com', ip: '203.0.113.7' }, params: {}, options: {}, returnUrl: 'http://us.example/pay/p1',
  };
  const answering = (status: number, body: unknown): HttpPort => ({ send: async () => ({ status, headers: {}, body: JSON.stringify(body) }) });

  it('an idempotency conflict (409, 422) is never a decline: the outcome is unknown', async () => {
    for (const status of [409, 422]) {
      const c = new AkuratecoApmConnector(answering(status, { result: 'ERROR', error_code: '100000', error_message: 'Idempotency-Key was already used with another request body.' }), mid, 'http://us.example/notify');
      await assert.rejects(c.initiate(req), /upstream answered/);
    }
    // A refusal of the request itself (400) is a decline: nothing exists upstream.
    const refused = new AkuratecoApmConnector(answering(400, { result: 'ERROR', error_code: '100000', error_message: 'Request data is invalid.' }), mid, 'http://us.example/notify');
    assert.equal((await refused.initiate(req)).kind, 'declined');
  });
});

for (const { kind, skip } of kinds) {
  describe(`akurateco connector: S2S APM through a chain of two gateways (${kind})`, { skip }, () => {
    let chain: Chain;
    let merchant: Listener;
    before(async () => {
      merchant = await startListener();
      chain = await startChain(kind, { notificationUrl: merchant.url, apm: true, ours: { settings: { callbackFields: ['connector_name'] } } });
    });
    after(async () => {
      await chain?.close();
      await merchant?.close();
    });

    it('SALE of a redirect method: the payer pays on the upstream page, its callback settles ours, one final callback', async () => {
      const res = await sale(chain.ours, REDIRECT.key, { order_amount: '21.40' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.result, 'REDIRECT', res.text);
      const id = res.body.trans_id as string;
      // Our merchant's payer is sent to the upstream's own provider page.
      assert.match(res.body.redirect_url, new RegExp(`^${chain.upstream.baseUrl}/sandbox/apm/`));
      const [up] = await upstreamPayments(chain, id);
      assert.ok(up, 'the upstream holds a payment whose order_id is our payment id');
      assert.equal(up.amount, 2140n);
      assert.equal(up.details.brand, REDIRECT.key);
      assert.equal((await ourPayment(chain.ours, id)).details.connectorRef, up.id);

      const paid = await fetch(res.body.redirect_url, { method: 'POST', headers: form, body: 'decision=approve', redirect: 'manual' });
      assert.equal(paid.status, 303);
      // The upstream's callback reaches our notification endpoint and settles our payment before the payer is back.
      const settled = await waitUntil('our payment settled by the upstream callback', async () => {
        const p = await ourPayment(chain.ours, id);
        return p.status === 'settled' ? p : undefined;
      });
      assert.equal(settled.capturedAmount, 2140n);
      // The upstream's page sends the payer back to our payer page, which sends them on to our merchant.
      const upstreamBack = await (await fetch(new URL(paid.headers.get('location')!, chain.upstream.baseUrl))).text();
      assert.ok(upstreamBack.includes(`${chain.ours.baseUrl}/pay/${id}`), 'the upstream returns the payer to our payer page');
      const ourBack = await (await fetch(`${chain.ours.baseUrl}/pay/${id}`)).text();
      assert.match(ourBack, /https:\/\/shop\.example\/return/);

      const [cb] = await merchant.waitForMatching((c) => c.fields.trans_id === id && c.fields.status === 'SETTLED', 1);
      assert.equal(cb!.fields.action, 'SALE');
      assert.equal(cb!.fields.result, 'SUCCESS');
      assert.equal(cb!.fields.amount, '21.40');
      assert.equal(cb!.fields.connector_name, 'akurateco', 'the callback names the connector that took the payment');
      assert.equal(cb!.fields.hash, callbackHash(cb!.raw, chain.ours.merchant.password), 'signed for our merchant, with our password');
      const status = await followUp(chain.ours, 'GET_TRANS_STATUS', id);
      assert.equal(status.body.status, 'SETTLED', status.text);
      await waitUntil('the upstream callbacks delivered', async () => {
        const rows = await chain.upstream.store.db.query<{ status: string }>('SELECT status FROM callbacks WHERE payment_id = $1', [up.id]);
        return rows.length >= 2 && rows.every((r) => r.status === 'delivered') ? true : undefined;
      });
      assert.equal(finals(merchant, id).length, 1, 'exactly one final callback');
    });

    it('hosted Checkout: the payer picks the method on our page, pays on the upstream page, comes back; the session is paid', async () => {
      const method = representative('redirect', 'checkout');
      const m = chain.ours.merchant;
      const o = { number: orderId('HC'), amount: '7.00', currency: 'EUR', description: 'Hosted APM order' };
      const session = await chain.ours.postJson('/api/v1/session', {
        merchant_key: m.key, operation: 'purchase', methods: [method.key], order: o, success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel',
        customer: { name: 'John Doe', email: 'success@gmail.com' }, hash: checkoutHash(m.password, o.number, o.amount, o.currency, o.description),
      });
      assert.equal(session.status, 200, session.text);
      const checkoutUrl = session.body.redirect_url as string;
      const chosen = await fetch(`${checkoutUrl}/pay`, { method: 'POST', headers: form, body: new URLSearchParams({ method: method.key }).toString(), redirect: 'manual' });
      assert.equal(chosen.status, 303, await chosen.text());
      const payPage = new URL(chosen.headers.get('location')!, chain.ours.baseUrl).toString();
      const id = payPage.split('/').pop()!;
      // Our payer page starts the payment upstream and sends the payer to the upstream's page.
      const toUpstream = await fetch(payPage, { redirect: 'manual' });
      assert.equal(toUpstream.status, 303, await toUpstream.text());
      const upstreamPage = toUpstream.headers.get('location')!;
      assert.ok(upstreamPage.startsWith(`${chain.upstream.baseUrl}/sandbox/apm/`), upstreamPage);
      assert.equal((await ourPayment(chain.ours, id)).midId, chain.midId);
      await fetch(upstreamPage, { method: 'POST', headers: form, body: 'decision=approve', redirect: 'manual' });
      // Back on our payer page: decided, on to the merchant's success_url.
      const back = await (await fetch(payPage)).text();
      assert.match(back, /https:\/\/shop\.example\/success/);
      const p = await ourPayment(chain.ours, id);
      assert.equal(p.status, 'settled');
      assert.equal(p.sessionId !== null, true);
      const [up] = await upstreamPayments(chain, id);
      assert.equal(up!.status, 'settled');
      assert.equal(up!.amount, 700n);
    });

    it('a SALE the upstream declines at once is declined here, with its reason and one callback', async () => {
      const res = await sale(chain.ours, FIELDS.key, direct({ payer_email: 'fail@gmail.com' }));
      assert.equal(res.body.result, 'DECLINED', res.text);
      assert.equal(res.body.status, 'DECLINED');
      assert.equal(res.body.decline_reason, 'Declined by processing');
      const id = res.body.trans_id as string;
      const [up] = await upstreamPayments(chain, id);
      assert.equal(up!.status, 'decline');
      const [cb] = await merchant.waitForMatching((c) => c.fields.trans_id === id, 1);
      assert.equal(cb!.fields.status, 'DECLINED');
      assert.equal(cb!.fields.hash, callbackHash(cb!.raw, chain.ours.merchant.password));
      await new Promise((r) => setTimeout(r, 300)); // the upstream's own callback crosses to us and changes nothing
      assert.equal(finals(merchant, id).length, 1);
    });

    it('a SALE the upstream settles at once is settled here', async () => {
      const res = await sale(chain.ours, FIELDS.key, direct());
      assert.equal(res.body.result, 'SUCCESS', res.text);
      assert.equal(res.body.status, 'SETTLED');
      const [up] = await upstreamPayments(chain, res.body.trans_id);
      assert.equal(up!.status, 'settled');
    });

    it('CREDIT2VIRTUAL: paid out upstream, our answer and callback with the payout formula', async () => {
      const brand = mobileMoneyPayout();
      const fields = {
        action: 'CREDIT2VIRTUAL', client_key: chain.ours.merchant.key, brand: brand.key, order_id: orderId('C2V'), order_amount: '1500', order_currency: 'XOF',
        order_description: 'Payout', payee_first_name: 'Kofi', payee_last_name: 'Mensah', payee_email: 'success@gmail.com',
        parameters: { mobile_money_operator: 'mtn-ci', mobile_number: '+2250701020304', customer_email: 'success@gmail.com' },
      };
      const res = await chain.ours.postForm('/apm/post', { ...fields, hash: credit2VirtualHash(fields.order_id, '1500', 'XOF', chain.ours.merchant.password) });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.body.action, res.body.result, res.body.status, res.body.amount], ['CREDIT2VIRTUAL', 'SUCCESS', 'SETTLED', '1500'], res.text);
      const id = res.body.trans_id as string;
      const [up] = await upstreamPayments(chain, id);
      assert.equal(up!.operation, 'credit');
      assert.equal(up!.status, 'settled');
      assert.equal(up!.payer.email, 'success@gmail.com');
      assert.deepEqual(up!.details.parameters, fields.parameters);
      const [cb] = await merchant.waitForMatching((c) => c.fields.trans_id === id, 1);
      assert.equal(cb!.fields.action, 'CREDIT2VIRTUAL');
      assert.equal(cb!.fields.hash, credit2VirtualCallbackHash(cb!.fields, chain.ours.merchant.password));
    });

    it('CREDIT2VIRTUAL whose answer is lost: UNDEFINED, then the upstream callback settles it, one callback', async () => {
      const proxy = await startProxy(`${chain.upstream.baseUrl}/apm/post`, { hold: (action) => action === 'CREDIT2VIRTUAL' });
      const settings = (await chain.ours.store.db.query<{ settings: Record<string, unknown> }>('SELECT settings FROM mids WHERE id = $1', [chain.midId]))[0]!.settings;
      await chain.ours.store.db.query('UPDATE mids SET settings = $1 WHERE id = $2', [JSON.stringify({ ...settings, apmEndpoint: proxy.url, timeoutMs: 1000 }), chain.midId]);
      chain.ours.gateway.ctx.merchants.invalidate();
      try {
        const brand = mobileMoneyPayout();
        const fields = {
          action: 'CREDIT2VIRTUAL', client_key: chain.ours.merchant.key, brand: brand.key, order_id: orderId('C2V'), order_amount: '2500', order_currency: 'XOF',
          order_description: 'Payout', payee_first_name: 'Ama', payee_last_name: 'Owusu', payee_email: 'success@gmail.com',
          parameters: { mobile_money_operator: 'mtn-ci', mobile_number: '+2250701020305', customer_email: 'success@gmail.com' },
        };
        const res = await chain.ours.postForm('/apm/post', { ...fields, hash: credit2VirtualHash(fields.order_id, '2500', 'XOF', chain.ours.merchant.password) });
        assert.equal(res.body.result, 'UNDEFINED', res.text);
        const id = res.body.trans_id as string;
        const settled = await waitUntil('the payout settled by the upstream callback', async () => {
          const p = await ourPayment(chain.ours, id);
          return p.pendingOperation === null ? p : undefined;
        });
        assert.equal(settled.status, 'settled');
        assert.equal(settled.details.connectorRef, (await upstreamPayments(chain, id))[0]!.id);
        const [cb] = await merchant.waitForMatching((c) => c.fields.trans_id === id, 1);
        assert.equal(cb!.fields.status, 'SETTLED');
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(finals(merchant, id).length, 1);
      } finally {
        await chain.ours.store.db.query('UPDATE mids SET settings = $1 WHERE id = $2', [JSON.stringify(settings), chain.midId]);
        chain.ours.gateway.ctx.merchants.invalidate();
        await proxy.close();
      }
    });

    it('a forged upstream APM callback is refused (401) and changes nothing', async () => {
      const res = await sale(chain.ours, REDIRECT.key);
      const id = res.body.trans_id as string;
      const [up] = await upstreamPayments(chain, id);
      const forged = await chain.ours.postForm(`/connectors/akurateco/${chain.midId}/notify`, {
        action: 'SALE', result: 'SUCCESS', status: 'SETTLED', order_id: id, trans_id: up!.id, amount: '12.50', currency: 'EUR', hash: 'b'.repeat(32),
      });
      assert.equal(forged.status, 401, forged.text);
      assert.equal((await ourPayment(chain.ours, id)).status, 'redirect');
    });
  });

  describe(`akurateco connector: S2S APM status inquiry without upstream callbacks (${kind})`, { skip }, () => {
    let chain: Chain;
    let merchant: Listener;
    before(async () => {
      merchant = await startListener();
      chain = await startChain(kind, { notificationUrl: merchant.url, apm: true, upstreamWorkers: false });
    });
    after(async () => {
      await chain?.close();
      await merchant?.close();
    });

    it('GET_TRANS_STATUS asks the upstream and resolves a payment the payer finished there', async () => {
      const res = await sale(chain.ours, REDIRECT.key);
      const id = res.body.trans_id as string;
      assert.equal((await followUp(chain.ours, 'GET_TRANS_STATUS', id)).body.status, 'REDIRECT');
      await fetch(res.body.redirect_url, { method: 'POST', headers: form, body: 'decision=decline', redirect: 'manual' });
      const status = await followUp(chain.ours, 'GET_TRANS_STATUS', id);
      assert.equal(status.body.status, 'DECLINED', status.text);
      assert.equal(status.body.decline_reason, 'Cancelled by payer');
      const [cb] = await merchant.waitForMatching((c) => c.fields.trans_id === id && c.fields.result !== 'REDIRECT', 1);
      assert.equal(cb!.fields.status, 'DECLINED');
      assert.equal(finals(merchant, id).length, 1);
    });

    it("a MID whose currencies do not take the order is not chosen: 204002, nothing written on either side", async () => {
      await chain.ours.store.db.query("UPDATE mids SET currencies = ARRAY['USD'] WHERE id = $1", [chain.midId]);
      chain.ours.gateway.ctx.merchants.invalidate();
      try {
        const fields = { order_id: orderId('CUR') };
        const res = await sale(chain.ours, FIELDS.key, direct(fields));
        assert.equal(res.body.error_code, '204002', res.text);
        assert.equal((await chain.ours.store.db.query('SELECT id FROM payments WHERE order_id = $1', [fields.order_id])).length, 0);
      } finally {
        await chain.ours.store.db.query('UPDATE mids SET currencies = NULL WHERE id = $1', [chain.midId]);
        chain.ours.gateway.ctx.merchants.invalidate();
      }
    });

    it('auth=Y is not forwarded (the upstream cannot tell a hold from a payer at work): declined here, nothing upstream', async () => {
      const res = await sale(chain.ours, FIELDS.key, direct({ auth: 'Y' }));
      assert.equal(res.body.result, 'DECLINED', res.text);
      assert.equal((await upstreamPayments(chain, res.body.trans_id)).length, 0);
    });
  });

  describe(`akurateco connector: an S2S APM answer lost on the way back (${kind})`, { skip }, () => {
    let chain: Chain;
    let proxy: Proxy;
    let merchant: Listener;
    before(async () => {
      merchant = await startListener();
      chain = await startChain(kind, { notificationUrl: merchant.url, apm: true, upstreamWorkers: false, ours: { adminToken: ADMIN_TOKEN } });
      // The first SALE reaches the upstream, which settles it; its answer never comes back.
      let held = 0;
      proxy = await startProxy(`${chain.upstream.baseUrl}/apm/post`, { hold: (action) => action === 'SALE' && held++ === 0 });
      await chain.ours.store.db.query("UPDATE mids SET settings = jsonb_set(settings, '{apmEndpoint}', to_jsonb($1::text)) WHERE id = $2", [proxy.url, chain.midId]);
      chain.ours.gateway.ctx.merchants.invalidate();
    });
    after(async () => {
      await proxy?.close();
      await chain?.close();
      await merchant?.close();
    });

    it('integrity: the answer reports another amount; held for an operator, no callback, left alone by the re-check', async () => {
      const rewrite = await startProxy(`${chain.upstream.baseUrl}/apm/post`, { rewrite: (action, body) => (action === 'SALE' ? body.replace('"amount":"3.00"', '"amount":"4.00"') : body) });
      await chain.ours.store.db.query("UPDATE mids SET settings = jsonb_set(settings, '{apmEndpoint}', to_jsonb($1::text)) WHERE id = $2", [rewrite.url, chain.midId]);
      chain.ours.gateway.ctx.merchants.invalidate();
      try {
        const res = await sale(chain.ours, FIELDS.key, direct({ order_amount: '3.00' }));
        assert.equal(res.body.result, 'UNDEFINED', res.text);
        const id = res.body.trans_id as string;
        const p = await ourPayment(chain.ours, id);
        assert.equal(p.pendingOperation, 'apm_initiate');
        const flag = needsOperatorOf(p) as unknown as { reason: string; mismatches: unknown[] };
        assert.equal(flag.reason, 'integrity');
        assert.deepEqual(flag.mismatches, [{ field: 'amount', expected: '300', reported: '400' }]);
        assert.equal(await new PaymentRecheck(chain.ours.gateway.ctx, { staleAfterMs: 0 }).runOnce(), 0);
        assert.deepEqual(await chain.ours.store.db.query('SELECT id FROM callbacks WHERE payment_id = $1', [id]), []);

        // The operator checks with the provider and settles it: applied as the provider's answer would have been.
        const resolved = await fetch(`${chain.ours.baseUrl}/admin/v1/payments/${id}/resolve`, {
          method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ outcome: 'settled', note: 'Provider back office: 3.00 received' }),
        });
        assert.equal(resolved.status, 200, await resolved.clone().text());
        const settled = await ourPayment(chain.ours, id);
        assert.deepEqual([settled.status, settled.capturedAmount, settled.pendingOperation], ['settled', 300n, null]);
        const [cb] = await merchant.waitForMatching((c) => c.fields.trans_id === id && c.fields.status === 'SETTLED', 1);
        assert.equal(cb!.fields.amount, '3.00');
        assert.equal(finals(merchant, id).length, 1, 'one final callback');
      } finally {
        await chain.ours.store.db.query("UPDATE mids SET settings = jsonb_set(settings, '{apmEndpoint}', to_jsonb($1::text)) WHERE id = $2", [proxy.url, chain.midId]);
        chain.ours.gateway.ctx.merchants.invalidate();
        await rewrite.close();
      }
    });

    it('stays in flight, then the re-check replays the SALE under its idempotency key: settled once, one callback', async () => {
      // Our side waits a second for the held answer; the replay below goes with the MID's own timeout.
      const res = await withMidTimeout(chain, 1000, () => sale(chain.ours, FIELDS.key, direct()));
      assert.equal(res.body.result, 'UNDEFINED', res.text);
      const id = res.body.trans_id as string;
      assert.equal((await ourPayment(chain.ours, id)).pendingOperation, 'apm_initiate');
      await proxy.untilHeld();
      assert.equal((await upstreamPayments(chain, id))[0]?.status, 'settled', 'the upstream took it');
      assert.equal(await new PaymentRecheck(chain.ours.gateway.ctx, { staleAfterMs: 0 }).runOnce(), 1);
      const p = await ourPayment(chain.ours, id);
      assert.equal(p.status, 'settled');
      assert.equal(p.pendingOperation, null);
      assert.equal((await upstreamPayments(chain, id)).length, 1, 'one payment upstream: the replay did not charge again');
      assert.deepEqual(proxy.actions.filter((a) => a === 'SALE').length, 2);
      const [cb] = await merchant.waitForMatching((c) => c.fields.trans_id === id, 1);
      assert.equal(cb!.fields.status, 'SETTLED');
      assert.equal(finals(merchant, id).length, 1);
    });
  });

  describe(`akurateco connector: our gateway dies after the upstream took an APM SALE (${kind})`, { skip }, () => {
    let chain: Chain;
    let merchant: Listener;
    before(async () => {
      merchant = await startListener();
      chain = await startChain(kind, { notificationUrl: merchant.url, apm: true, upstreamWorkers: false, ourWorkers: false });
    });
    after(async () => {
      await chain?.upstream.close();
      await merchant?.close();
    });

    it('on restart the re-check finds it through inquire: settled once, exactly one final callback', async () => {
      const connectors = chain.ours.gateway.ctx.connectors as Map<string, CardConnector>;
      const real = connectors.get('akurateco')!;
      // The process "dies" right after the upstream's answer arrived: nothing of it is written.
      const dying: CardConnector = Object.create(real) as CardConnector;
      Object.defineProperty(dying, 'apmFor', { value: (...args: Parameters<NonNullable<CardConnector['apmFor']>>) => {
        const apm = real.apmFor!(...args)!;
        return Object.assign(Object.create(apm) as object, { initiate: async (req: Parameters<typeof apm.initiate>[0]) => {
          await apm.initiate(req);
          throw new Error('process killed');
        } });
      } });
      connectors.set('akurateco', dying);
      const res = await sale(chain.ours, FIELDS.key, direct({ order_amount: '6.00' }));
      const id = res.body.trans_id as string;
      assert.equal((await ourPayment(chain.ours, id)).pendingOperation, 'apm_initiate');
      assert.equal((await upstreamPayments(chain, id))[0]!.status, 'settled', 'the upstream took it');
      await chain.ours.gateway.close();

      // Restarted at the same public address (the SALE it replays names our return and notification URLs).
      const config = { ...loadConfig({}), port: 0, baseUrl: 'http://127.0.0.1:0', callbackAllowedPrivateHosts: ['127.0.0.1'], connectorAllowedPrivateHosts: ['127.0.0.1'] };
      const restarted = await assembleGateway({ config, db: chain.ours.store.db, keyring: chain.ours.keyring, logger: createLogger('silent'), dispatcher: { pollMs: 50, timeoutMs: CALLBACK_TIMEOUT_MS } });
      try {
        const address = await restarted.app.listen({ port: Number(new URL(chain.ours.baseUrl).port), host: '127.0.0.1' });
        (restarted.ctx as { baseUrl: string }).baseUrl = address;
        restarted.startWorkers();
        assert.equal(await new PaymentRecheck(restarted.ctx, { staleAfterMs: 0 }).runOnce(), 1);
        const p = await ourPayment(chain.ours, id);
        assert.equal(p.status, 'settled');
        assert.equal((await upstreamPayments(chain, id)).length, 1, 'one payment upstream');
        await merchant.waitForMatching((c) => c.fields.trans_id === id, 1);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(finals(merchant, id).length, 1, 'exactly one final callback');
      } finally {
        await restarted.close();
        await chain.ours.store.dispose();
      }
    });
  });

  describe(`a live merchant without an APM MID (${kind})`, { skip }, () => {
    it('answers 204002 and keeps no payment', async () => {
      const gw = await startTestGateway(kind, { sandbox: false });
      try {
        const res = await sale(gw, FIELDS.key, direct());
        assert.equal(res.body.error_code, '204002', res.text);
        assert.equal((await gw.store.db.query('SELECT id FROM payments')).length, 0);
      } finally {
        await gw.close();
      }
    });
  });
}
