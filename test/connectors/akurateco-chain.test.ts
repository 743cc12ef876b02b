/**
 * A chain of two gateways: our merchant's S2S CARD requests go to our gateway, whose `akurateco` MID forwards
 * them to a second Portcullis (the upstream) with the upstream merchant's client_key, password and formulas.
 * The upstream's callbacks come back to our notification endpoint; our merchant gets our callbacks.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { CARD, EMAIL, f2, followUp, sale, startListener, type Listener } from '../s2s-card/support.ts';
import { startChain, upstreamPayments, ourPayment, waitUntil, type Chain } from './support.ts';
import { listTransactions } from '../../src/store/payments-repo.ts';
import { recurringSale } from '../recurring/support.ts';

const callbacksFor = (l: Listener, transId: string) => l.received.filter((r) => r.fields.trans_id === transId).map((r) => r.fields);

for (const { kind, skip } of await storeKinds()) {
  describe(`akurateco connector: a chain of two gateways (${kind})`, { skip }, () => {
    let chain: Chain;
    let merchantCallbacks: Listener;
    before(async () => {
      merchantCallbacks = await startListener('OK');
      chain = await startChain(kind, { notificationUrl: merchantCallbacks.url });
    });
    after(async () => {
      await chain?.close();
      await merchantCallbacks?.close();
    });

    it('SALE: approved upstream, the same answer shape to our merchant, one final callback signed with our F2', async () => {
      const res = await sale(chain.ours, { order_amount: '12.34' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.result, 'SUCCESS', res.text);
      assert.equal(res.body.status, 'SETTLED');
      assert.equal(res.body.amount, '12.34');
      const id = res.body.trans_id as string;
      const [up] = await upstreamPayments(chain, id);
      assert.ok(up, 'the upstream holds a payment whose order_id is our payment id');
      assert.equal(up.status, 'settled');
      assert.equal(up.amount, 1234n);
      assert.equal(up.payer.email, EMAIL);
      const ours = await ourPayment(chain.ours, id);
      assert.equal(ours.details.connectorRef, up.id, 'our payment keeps the upstream trans_id as its connector reference');
      const [cb] = await waitUntil('our callback', async () => (callbacksFor(merchantCallbacks, id).length ? callbacksFor(merchantCallbacks, id) : undefined));
      assert.equal(cb!.result, 'SUCCESS');
      assert.equal(cb!.hash, f2(EMAIL, chain.ours.merchant.password, id, CARD));
      // The upstream's own callback reaches our notification endpoint and changes nothing more.
      await waitUntil('the upstream callback delivered', async () => {
        const rows = await chain.upstream.store.db.query<{ status: string }>('SELECT status FROM callbacks WHERE payment_id = $1', [up.id]);
        return rows.length > 0 && rows.every((r) => r.status === 'delivered') ? true : undefined;
      });
      assert.equal(callbacksFor(merchantCallbacks, id).length, 1, 'exactly one final callback');
    });

    it('a decline upstream is a decline here, with the unified message and the raw text on the transaction', async () => {
      const res = await sale(chain.ours, { card_exp_month: '02' });
      assert.equal(res.body.result, 'DECLINED', res.text);
      assert.equal(res.body.decline_reason, 'Declined by processing');
      const tx = (await listTransactions(chain.ours.store.db, res.body.trans_id)).at(-1)!;
      assert.equal(tx.status, 'fail');
      assert.equal(tx.details.code, 'declined');
      assert.equal(tx.details.rawMessage, 'Declined by processing');
    });

    it('auth=Y then CAPTURE, both upstream', async () => {
      const res = await sale(chain.ours, { auth: 'Y', order_amount: '5.00' });
      assert.equal(res.body.status, 'PENDING', res.text);
      const id = res.body.trans_id as string;
      const cap = await followUp(chain.ours, 'CAPTURE', id, { amount: '5.00' });
      assert.equal(cap.body.result, 'SUCCESS', cap.text);
      assert.equal(cap.body.status, 'SETTLED');
      const [up] = await upstreamPayments(chain, id);
      assert.equal(up!.status, 'settled');
      assert.equal(up!.capturedAmount, 500n);
    });

    it('VOID of a sale, upstream too', async () => {
      const id = (await sale(chain.ours)).body.trans_id as string;
      const res = await followUp(chain.ours, 'VOID', id);
      assert.equal(res.body.result, 'SUCCESS', res.text);
      assert.equal(res.body.status, 'VOID');
      assert.equal((await upstreamPayments(chain, id))[0]!.status, 'void');
    });

    it('CREDITVOID: ACCEPTED, settled by the upstream callback at our notification endpoint, then our CREDITVOID callback', async () => {
      const id = (await sale(chain.ours, { order_amount: '8.00' })).body.trans_id as string;
      const res = await followUp(chain.ours, 'CREDITVOID', id, { amount: '8.00' });
      assert.equal(res.body.result, 'ACCEPTED', res.text);
      const settled = await waitUntil('the refund applied', async () => {
        const p = await ourPayment(chain.ours, id);
        return p.pendingOperation === null ? p : undefined;
      });
      assert.equal(settled.status, 'refund');
      assert.equal(settled.refundedAmount, 800n);
      const [up] = await upstreamPayments(chain, id);
      assert.equal(up!.refundedAmount, 800n);
      const refundCallback = await waitUntil('our CREDITVOID callback', async () => callbacksFor(merchantCallbacks, id).find((c) => c.action === 'CREDITVOID'));
      assert.equal(refundCallback.result, 'SUCCESS');
      assert.equal(refundCallback.amount, '8.00');
      const status = await followUp(chain.ours, 'GET_TRANS_STATUS', id);
      assert.equal(status.body.status, 'REFUND');
    });

    it('recurring: the first SALE starts a chain upstream too; RECURRING_SALE charges it there', async () => {
      const first = await sale(chain.ours, { recurring_init: 'Y' });
      assert.equal(first.body.result, 'SUCCESS', first.text);
      const [upFirst] = await upstreamPayments(chain, first.body.trans_id);
      assert.equal(upFirst!.details.recurringInit, true);
      const charge = await recurringSale(chain.ours, { initId: first.body.trans_id, token: first.body.recurring_token });
      assert.equal(charge.body.result, 'SUCCESS', charge.text);
      const [upCharge] = await upstreamPayments(chain, charge.body.trans_id);
      assert.equal(upCharge!.operation, 'recurring', 'charged upstream by RECURRING_SALE on the upstream chain');
      assert.equal(upCharge!.details.recurring_init_trans_id, upFirst!.id);
    });

    it('a forged upstream callback is refused (401) and changes nothing', async () => {
      const id = (await sale(chain.ours, { auth: 'Y' })).body.trans_id as string;
      const [up] = await upstreamPayments(chain, id);
      const forged = await chain.ours.postForm(`/connectors/akurateco/${chain.midId}/notify`, {
        action: 'CAPTURE', result: 'SUCCESS', status: 'SETTLED', order_id: id, trans_id: up!.id, amount: '1.99', hash: 'a'.repeat(32),
      });
      assert.equal(forged.status, 401, forged.text);
      assert.equal(forged.body.error_message, 'Notification signature is not valid.');
      assert.equal((await ourPayment(chain.ours, id)).status, 'pending');
    });

    it('parameters (card sets) are validated as Checkout validates parameters.card, and forwarded upstream', async () => {
      const bad = await sale(chain.ours, { parameters: { bnrg_installm_def: '01' } });
      assert.equal(bad.status, 400, bad.text);
      assert.ok((bad.body.errors as { error_message: string }[]).some((e) => e.error_message.startsWith('parameters.bnrg_installm_months')), bad.text);
      const ok = await sale(chain.ours, { parameters: { bnrg_installm_def: '01', bnrg_installm_months: '03', bnrg_installm_plan: '03', shipping: { city: 'Lyon', country: 'FR' } } });
      assert.equal(ok.body.result, 'SUCCESS', ok.text);
      const [up] = await upstreamPayments(chain, ok.body.trans_id);
      assert.deepEqual(up!.details.parameters, { bnrg_installm_def: '01', bnrg_installm_months: '03', bnrg_installm_plan: '03', shipping: { city: 'Lyon', country: 'FR' } });
      assert.equal((await ourPayment(chain.ours, ok.body.trans_id)).details.unsentParameters, undefined, 'the family takes every set');
    });
  });

  describe(`akurateco connector: a live MID (${kind})`, { skip }, () => {
    let chain: Chain;
    before(async () => {
      chain = await startChain(kind, { live: true, upstreamWorkers: false, ourWorkers: false });
    });
    after(async () => chain?.close());

    it('refuses the sandbox test cards and creates no payment anywhere', async () => {
      const res = await sale(chain.ours);
      assert.equal(res.status, 400, res.text);
      assert.match(res.text, /Test cards are not accepted on a live MID/);
      const rows = await chain.upstream.store.db.query('SELECT id FROM payments');
      assert.equal(rows.length, 0);
    });
  });

  describe(`a merchant in live mode is never charged through the sandbox (${kind})`, { skip }, () => {
    it('answers 204002 when its only MID is a sandbox MID', async () => {
      const { startTestGateway } = await import('../support/gateway.ts');
      const gw = await startTestGateway(kind, { sandbox: false });
      try {
        const res = await sale(gw);
        assert.equal(res.body.error_code, '204002', res.text);
      } finally {
        await gw.close();
      }
    });
  });
}

