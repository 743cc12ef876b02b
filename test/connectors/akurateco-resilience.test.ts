/**
 * What a real acquirer link must survive, shown on the chain of two gateways: an answer reporting another
 * amount (held for an operator), an answer that never comes (pending, then resolved by inquiry, charged once),
 * and our gateway dying after the upstream charged and before our outcome was written (resolved on restart by
 * the re-check's inquiry, one final callback). The upstream's own callbacks are switched off here so that the
 * inquiry is the only way back.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { EMAIL, f5, PAYOUT_CARD, sale, startListener, type Listener } from '../s2s-card/support.ts';
import { startChain, startProxy, upstreamPayments, ourPayment, withMidTimeout, type Chain, type Proxy } from './support.ts';
import { needsOperatorOf } from '../../src/store/payments-repo.ts';
import { PaymentRecheck } from '../../src/workers/payment-recheck.ts';
import { inquiryRequest, midAccess } from '../../src/services/connector-access.ts';
import { listMids } from '../../src/services/queries/merchants.ts';
import { assembleGateway } from '../../src/gateway.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import type { CardConnector } from '../../src/connectors/types.ts';
import { CALLBACK_TIMEOUT_MS } from '../support/gateway.ts';
import { recurringSale } from '../recurring/support.ts';

const ADMIN_TOKEN = 'admin-token-for-connector-tests-000000';

async function callbackRows(chain: Chain, paymentId: string): Promise<{ fields: Record<string, string> }[]> {
  return chain.ours.store.db.query('SELECT fields FROM callbacks WHERE payment_id = $1', [paymentId]);
}

for (const { kind, skip } of await storeKinds()) {
  describe(`akurateco: integrity check (${kind})`, { skip }, () => {
    let chain: Chain;
    let proxy: Proxy;
    before(async () => {
      chain = await startChain(kind, { upstreamWorkers: false, ourWorkers: false, ours: { adminToken: ADMIN_TOKEN, notificationUrl: 'http://127.0.0.1:9/never' } });
      // The acquirer reports another amount than the one charged for: 1.99 sent, 2.99 answered.
      proxy = await startProxy(`${chain.upstream.baseUrl}/post`, { rewrite: (action, body) => (action === 'SALE' ? body.replace('"amount":"1.99"', '"amount":"2.99"') : body) });
      await chain.ours.store.db.query("UPDATE mids SET settings = jsonb_set(settings, '{endpoint}', to_jsonb($1::text)) WHERE id = $2", [proxy.url, chain.midId]);
      chain.ours.gateway.ctx.merchants.invalidate();
    });
    after(async () => {
      await chain?.close();
      await proxy?.close();
    });

    it('holds the payment for an operator with the mismatch recorded; no callback, no re-check', async () => {
      const res = await sale(chain.ours, { order_amount: '1.99' });
      assert.equal(res.body.result, 'UNDEFINED', res.text);
      const id = res.body.trans_id as string;
      const p = await ourPayment(chain.ours, id);
      assert.equal(p.status, 'prepare');
      assert.equal(p.pendingOperation, 'authorize');
      const flag = needsOperatorOf(p) as unknown as Record<string, unknown>;
      assert.ok(flag, 'flagged for an operator');
      assert.equal(flag.reason, 'integrity');
      assert.deepEqual(flag.mismatches, [{ field: 'amount', expected: '199', reported: '299' }]);
      assert.deepEqual(await callbackRows(chain, id), []);
      assert.equal(await new PaymentRecheck(chain.ours.gateway.ctx, { staleAfterMs: 0 }).runOnce(), 0, 'the re-check leaves a held payment alone');
      const listed = await fetch(`${chain.ours.baseUrl}/admin/v1/payments/needs-operator`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      const body = await listed.json() as { payments?: { id: string }[] } | { id: string }[];
      const ids = (Array.isArray(body) ? body : body.payments ?? []).map((x) => x.id);
      assert.ok(ids.includes(id), JSON.stringify(body));
      // The operator is told what to check with the acquirer: what it answered and what it reported otherwise.
      const listedHeld = (body as { payments: { id: string; held: Record<string, unknown> }[] }).payments.find((x) => x.id === id)!.held;
      assert.deepEqual({ ...listedHeld, acquirer_reference: typeof listedHeld.acquirer_reference }, {
        reason: 'integrity', acquirer_outcome: 'approved', acquirer_reference: 'string', mismatches: [{ field: 'amount', expected: '1.99', reported: '2.99' }],
      });
    });

    const resolve = (id: string, outcome: 'settled' | 'declined', note: string) => fetch(`${chain.ours.baseUrl}/admin/v1/payments/${id}/resolve`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ outcome, note }),
    });

    it('the operator who checked with the acquirer settles it: the payment, its transaction, one callback and the audit entry', async () => {
      const res = await sale(chain.ours, { order_amount: '1.99' });
      const id = res.body.trans_id as string;
      const detail = await fetch(`${chain.ours.baseUrl}/admin/v1/payments/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.deepEqual(((await detail.json()) as { payment: { allowed_actions: { action: string }[] } }).payment.allowed_actions.map((a) => a.action), ['resolve']);

      const resolved = await resolve(id, 'settled', 'Acquirer portal: 1.99 charged; the 2.99 was a display error');
      assert.equal(resolved.status, 200, await resolved.clone().text());
      const p = await ourPayment(chain.ours, id);
      assert.equal(p.status, 'settled');
      assert.equal(p.capturedAmount, 199n);
      assert.equal(p.pendingOperation, null);
      const [tx] = await chain.ours.store.db.query<{ status: string; details: Record<string, unknown> }>('SELECT status, details FROM transactions WHERE id = $1', [p.details.lastTransId]);
      assert.equal(tx!.status, 'success');
      assert.equal(tx!.details.resolution, 'settled');
      assert.equal((tx!.details.resolvedBy as { kind: string }).kind, 'operator');
      const callbacks = await callbackRows(chain, id);
      assert.equal(callbacks.length, 1, 'one final callback');
      assert.equal(callbacks[0]!.fields.status, 'SETTLED');
      const audit = await chain.ours.store.db.query<{ action: string }>("SELECT action FROM audit_log WHERE object_id = $1 AND action = 'payment.resolve'", [id]);
      assert.equal(audit.length, 1);
      assert.equal((await resolve(id, 'settled', 'twice')).status, 409, 'nothing is resolved twice');
    });

    it('or declines it: the merchant hears the decline once', async () => {
      const id = (await sale(chain.ours, { order_amount: '1.99' })).body.trans_id as string;
      const resolved = await resolve(id, 'declined', 'Acquirer portal: no such charge');
      assert.equal(resolved.status, 200, await resolved.clone().text());
      const p = await ourPayment(chain.ours, id);
      assert.equal(p.status, 'decline');
      assert.equal(p.declineReason, 'Declined by the acquirer (confirmed by an operator)');
      const callbacks = await callbackRows(chain, id);
      assert.deepEqual(callbacks.map((c) => c.fields.status), ['DECLINED']);
    });
  });

  describe(`akurateco: the upstream never answers (${kind})`, { skip }, () => {
    let chain: Chain;
    let proxy: Proxy;
    let merchant: Listener;
    before(async () => {
      merchant = await startListener('OK');
      chain = await startChain(kind, { upstreamWorkers: false, ourWorkers: true, notificationUrl: merchant.url });
      // The SALE reaches the upstream, which charges; its answer is lost on the way back.
      proxy = await startProxy(`${chain.upstream.baseUrl}/post`, { hold: (action) => action === 'SALE' });
      await chain.ours.store.db.query("UPDATE mids SET settings = jsonb_set(settings, '{endpoint}', to_jsonb($1::text)) WHERE id = $2", [proxy.url, chain.midId]);
      chain.ours.gateway.ctx.merchants.invalidate();
    });
    after(async () => {
      await proxy?.close();
      await chain?.close();
      await merchant?.close();
    });

    it('stays pending, resolves by inquiry, and is charged once', async () => {
      // Our side waits a second for the held answer; the inquiry below goes with the MID's own timeout.
      const res = await withMidTimeout(chain, 1000, () => sale(chain.ours, { order_amount: '4.20' }));
      assert.equal(res.body.result, 'UNDEFINED', res.text);
      const id = res.body.trans_id as string;
      assert.equal((await ourPayment(chain.ours, id)).pendingOperation, 'authorize');
      await proxy.untilHeld();
      assert.equal((await upstreamPayments(chain, id)).length, 1, 'the upstream charged');
      assert.equal(await new PaymentRecheck(chain.ours.gateway.ctx, { staleAfterMs: 0 }).runOnce(), 1);
      const p = await ourPayment(chain.ours, id);
      assert.equal(p.status, 'settled');
      assert.equal(p.pendingOperation, null);
      const ups = await upstreamPayments(chain, id);
      assert.equal(ups.length, 1, 'never charged twice');
      assert.equal(p.details.connectorRef, ups[0]!.id);
      assert.deepEqual(proxy.actions.filter((a) => a === 'SALE'), ['SALE'], 'one SALE sent');
      assert.ok(proxy.actions.includes('GET_TRANS_STATUS_BY_ORDER'), 'found by our payment id (the upstream order id)');
      const [cb] = await merchant.waitFor(1);
      assert.equal(cb!.fields.trans_id, id);
      assert.equal(cb!.fields.status, 'SETTLED');
    });
  });

  describe(`akurateco: the upstream's callback settles a first recurring payment before its answer (${kind})`, { skip }, () => {
    let chain: Chain;
    let proxy: Proxy;
    let merchant: Listener;
    before(async () => {
      merchant = await startListener('OK');
      // The upstream's callbacks reach our notification endpoint; the SALE's own answer is lost on the way back, so
      // the callback is what settles our payment (as it does whenever it overtakes the answer on a busy machine).
      chain = await startChain(kind, { upstreamWorkers: true, ourWorkers: true, notificationUrl: merchant.url });
      proxy = await startProxy(`${chain.upstream.baseUrl}/post`, { hold: (action) => action === 'SALE' });
      await chain.ours.store.db.query("UPDATE mids SET settings = jsonb_set(settings, '{endpoint}', to_jsonb($1::text)) WHERE id = $2", [proxy.url, chain.midId]);
      chain.ours.gateway.ctx.merchants.invalidate();
    });
    after(async () => {
      await proxy?.close();
      await chain?.close();
      await merchant?.close();
    });

    it('keeps the upstream chain from the callback: RECURRING_SALE then charges that chain upstream', async () => {
      const first = await withMidTimeout(chain, 1000, () => sale(chain.ours, { recurring_init: 'Y' }));
      assert.equal(first.body.result, 'UNDEFINED', first.text);
      const id = first.body.trans_id as string;
      const [cb] = await merchant.waitFor(1, 15_000);
      assert.equal(cb!.fields.status, 'SETTLED', JSON.stringify(cb!.fields));
      const token = cb!.fields.recurring_token;
      assert.ok(token, 'the merchant gets the chain token in the callback');
      const [upFirst] = await upstreamPayments(chain, id);
      assert.equal((await ourPayment(chain.ours, id)).details.storedCardReference, `${upFirst!.id}:${String(upFirst!.details.recurring_token)}`, 'the upstream chain kept from its callback');
      const charge = await recurringSale(chain.ours, { initId: id, token: token! });
      assert.equal(charge.body.result, 'SUCCESS', charge.text);
      const [upCharge] = await upstreamPayments(chain, charge.body.trans_id as string);
      assert.equal(upCharge!.operation, 'recurring', 'charged upstream by RECURRING_SALE on the upstream chain');
      assert.equal(upCharge!.details.recurring_init_trans_id, upFirst!.id);
    });
  });

  describe(`akurateco: a payout's status inquiries (${kind})`, { skip }, () => {
    let chain: Chain;
    let proxy: Proxy;
    const answers: { action: string; body: Record<string, unknown> }[] = [];
    before(async () => {
      chain = await startChain(kind, { upstreamWorkers: false, ourWorkers: false, ours: { notificationUrl: 'http://127.0.0.1:9/never' } });
      // The upstream pays out, but its answer says PENDING: only an inquiry can tell us it settled.
      proxy = await startProxy(`${chain.upstream.baseUrl}/post`, {
        rewrite: (action, body) => {
          if (action.startsWith('GET_TRANS_')) answers.push({ action, body: JSON.parse(body) as Record<string, unknown> });
          return action === 'CREDIT2CARD' ? body.replace('"status":"SETTLED"', '"status":"PENDING"') : body;
        },
      });
      await chain.ours.store.db.query("UPDATE mids SET settings = jsonb_set(settings, '{endpoint}', to_jsonb($1::text)) WHERE id = $2", [proxy.url, chain.midId]);
      chain.ours.gateway.ctx.merchants.invalidate();
    });
    after(async () => {
      await proxy?.close();
      await chain?.close();
    });

    it('are signed as the upstream checks a CREDIT2CARD (Formula 6 by trans_id, no e-mail term): pending with its trans_id kept, resolved, looked up', async () => {
      const { merchant } = chain.ours;
      // Our merchant names the payee's e-mail; the CREDIT2CARD upstream carries none, so no lookup may hash it.
      const res = await chain.ours.postForm('/post', {
        client_key: merchant.key, action: 'CREDIT2CARD', order_id: `PO-${Date.now()}`, order_amount: '3.10', order_currency: 'USD',
        order_description: 'payout', card_number: PAYOUT_CARD, payer_email: EMAIL, hash: f5(merchant.password, PAYOUT_CARD),
      });
      assert.equal(res.status, 200, res.text);
      const id = res.body.trans_id as string;
      const [up] = await upstreamPayments(chain, id);
      assert.equal(up?.status, 'settled', 'the upstream paid out');
      const pending = await ourPayment(chain.ours, id);
      assert.equal(pending.pendingOperation, 'authorize', 'pending here: the answer said PENDING');
      assert.equal(pending.details.connectorRef, up!.id, 'the pending answer\'s trans_id is kept');

      // The re-check asks about that transaction (GET_TRANS_STATUS by trans_id), not by our order id.
      assert.equal(await new PaymentRecheck(chain.ours.gateway.ctx, { staleAfterMs: 0 }).runOnce(), 1);
      assert.deepEqual(answers.map((a) => [a.action, a.body.result]), [['GET_TRANS_STATUS', 'SUCCESS']], JSON.stringify(answers));
      const p = await ourPayment(chain.ours, id);
      assert.equal(p.status, 'settled');
      assert.equal(p.pendingOperation, null);
      assert.equal(p.details.connectorRef, up!.id);

      // The lookups reconciliation makes: GET_TRANS_STATUS again and GET_TRANS_DETAILS.
      const connector = chain.ours.gateway.ctx.connectors.get('akurateco')!;
      const mid = (await listMids(chain.ours.gateway.ctx.db, merchant.id)).find((m) => m.id === chain.midId)!;
      const access = midAccess(chain.ours.gateway.ctx, mid);
      const status = await connector.inquire(inquiryRequest(p), access);
      assert.equal(answers.at(-1)?.action, 'GET_TRANS_STATUS');
      assert.equal(answers.at(-1)?.body.result, 'SUCCESS', JSON.stringify(answers.at(-1)));
      assert.equal(status?.kind, 'approved', JSON.stringify(status));
      const details = await connector.transactionDetails!(inquiryRequest(p), access);
      assert.equal(answers.at(-1)?.action, 'GET_TRANS_DETAILS');
      assert.ok(details.ok, JSON.stringify(details));
      assert.equal(details.reference, up!.id);
      assert.deepEqual(proxy.actions.filter((a) => a === 'CREDIT2CARD'), ['CREDIT2CARD'], 'paid out once');
    });
  });

  describe(`akurateco: our gateway dies after the upstream charged (${kind})`, { skip }, () => {
    let chain: Chain;
    let merchant: Listener;
    before(async () => {
      merchant = await startListener('OK');
      chain = await startChain(kind, { upstreamWorkers: false, ourWorkers: false, notificationUrl: merchant.url });
    });
    after(async () => {
      await chain?.upstream.close();
      await merchant?.close();
    });

    it('on restart the re-check finds the charge through inquire; exactly one final callback', async () => {
      const connectors = chain.ours.gateway.ctx.connectors as Map<string, CardConnector>;
      const real = connectors.get('akurateco')!;
      // The process "dies" right after the upstream's answer arrived: nothing of it is written.
      const dying: CardConnector = Object.create(real) as CardConnector;
      Object.defineProperty(dying, 'authorize', { value: async (...args: Parameters<CardConnector['authorize']>) => {
        await real.authorize(...args);
        throw new Error('process killed');
      } });
      connectors.set('akurateco', dying);
      const res = await sale(chain.ours, { order_amount: '7.00' });
      const id = res.body.trans_id as string;
      assert.equal((await ourPayment(chain.ours, id)).pendingOperation, 'authorize');
      assert.equal((await upstreamPayments(chain, id))[0]!.status, 'settled', 'the upstream charged');
      await chain.ours.gateway.close();

      // Restart: a new gateway on the same store and vault keys, its workers on.
      const config = { ...loadConfig({}), port: 0, baseUrl: 'http://127.0.0.1:0', callbackAllowedPrivateHosts: ['127.0.0.1'], connectorAllowedPrivateHosts: ['127.0.0.1'] };
      const restarted = await assembleGateway({ config, db: chain.ours.store.db, keyring: chain.ours.keyring, logger: createLogger('silent'), dispatcher: { pollMs: 50, timeoutMs: CALLBACK_TIMEOUT_MS } });
      try {
        const address = await restarted.app.listen({ port: 0, host: '127.0.0.1' });
        (restarted.ctx as { baseUrl: string }).baseUrl = address;
        restarted.startWorkers();
        assert.equal(await new PaymentRecheck(restarted.ctx, { staleAfterMs: 0 }).runOnce(), 1);
        const p = await ourPayment(chain.ours, id);
        assert.equal(p.status, 'settled');
        assert.equal((await upstreamPayments(chain, id)).length, 1, 'charged once');
        await merchant.waitFor(1);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(merchant.received.filter((r) => r.fields.trans_id === id).length, 1, 'exactly one final callback');
        assert.equal((await callbackRows(chain, id)).length, 1);
      } finally {
        await restarted.close();
        await chain.ours.store.dispose();
      }
    });
  });
}
