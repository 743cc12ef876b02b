/**
 * The re-check worker on both stores: a card authorization or an APM initiation whose answer was lost is
 * resolved by asking the connector, with its callback written as the normal flow writes it; a payment waiting
 * for its payer is never touched; a follow-up whose answer was lost is handed to an operator once (flagged,
 * warned, listed in the admin API) and never re-claimed.
 */
import { describe, it, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.ts';
import { getPayment, listTransactions, needsOperatorOf } from '../../src/store/payments-repo.ts';
import type { Payment } from '../../src/domain/model/payment.ts';
import { listCallbacks } from '../../src/store/callbacks-repo.ts';
import { sandboxApm } from '../../src/sandbox/apm/instance.ts';
import { PaymentRecheck } from '../../src/workers/payment-recheck.ts';
import type { ApmInitiateRequest } from '../../src/connectors/apm-types.ts';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { qrMethod, representative, sale as apmSale } from '../apm/support.ts';
import { followUp as cardFollowUp, sale as cardSale } from '../s2s-card/support.ts';

const TOKEN = 'operator-secret-token';
const STALE_MS = 120_000;
const QR = qrMethod();
const REDIRECT = representative('redirect', 's2s_apm');

for (const { kind, skip } of await storeKinds()) {
  describe(`payment re-check worker (${kind})`, { skip }, () => {
    let gw: TestGateway;
    const clock = new ManualClock('2030-04-01T09:00:00Z');
    let warnings: { paymentId?: string; operation?: string }[] = [];
    let restore: (() => void)[] = [];

    before(async () => {
      gw = await startTestGateway(kind, { clock, notificationUrl: 'https://shop.example/callbacks', adminToken: TOKEN });
      const logger = gw.gateway.ctx.logger;
      const warn = logger.warn;
      logger.warn = ((obj: unknown, ...rest: unknown[]) => {
        warnings.push(obj as { paymentId?: string });
        return (warn as (...args: unknown[]) => void).call(logger, obj, ...rest);
      }) as typeof logger.warn;
    });
    after(() => gw?.close());
    beforeEach(() => {
      warnings = [];
    });
    afterEach(() => {
      for (const undo of restore.splice(0)) undo();
    });

    /** Replaces a connector method for one test. */
    function patch<T extends object, K extends keyof T>(target: T, key: K, replacement: T[K]): void {
      const original = target[key];
      target[key] = replacement;
      restore.push(() => {
        target[key] = original;
      });
    }

    const payment = async (id: string): Promise<Payment> => (await getPayment(gw.store.db, id))!;
    const callbacksOf = async (id: string) => (await listCallbacks(gw.store.db, { paymentId: id })).map((c) => c.fields);
    /** Time passes beyond the re-check cutoff, then one pass runs. */
    const passLater = async (recheck = gw.gateway.recheck) => {
      clock.advance(STALE_MS + 1_000);
      return recheck.runOnce();
    };

    describe('APM initiation left in flight', () => {
      /** The provider takes the payment, then the answer is lost on the way back. */
      const loseInitiateAnswers = (reachProvider = true) => {
        const sandbox = sandboxApm(gw.gateway.ctx);
        const initiate = sandbox.initiate.bind(sandbox);
        patch(sandbox, 'initiate', async (req: ApmInitiateRequest) => {
          if (reachProvider) await initiate(req);
          throw new Error('connection reset');
        });
      };
      const stalledQrSale = async () => {
        const res = await apmSale(gw, QR.key, { order_currency: 'RSD', order_amount: '3596.13' });
        assert.equal(res.status, 200, res.text);
        const id = res.body.trans_id as string;
        assert.equal((await payment(id)).pendingOperation, 'apm_initiate');
        return id;
      };
      const providerSets = (id: string, state: 'executed' | 'rejected') =>
        gw.store.db.query('UPDATE sandbox_apm_payments SET state = $2 WHERE end_to_end_id = $1', [id, state]);

      it('settles a payment the provider executed meanwhile, with its SETTLED callback', async () => {
        loseInitiateAnswers();
        const id = await stalledQrSale();
        assert.equal(await gw.gateway.recheck.runOnce(), 0, 'not before the cutoff');
        await providerSets(id, 'executed');
        assert.equal(await passLater(), 1);
        const p = await payment(id);
        assert.equal(p.status, 'settled');
        assert.equal(p.pendingOperation, null);
        assert.match(String(p.details.connectorRef), /^sbxapm_/);
        const [tx] = await listTransactions(gw.store.db, id);
        assert.equal(tx!.status, 'success');
        const [cb] = await callbacksOf(id);
        assert.equal(cb?.status, 'SETTLED');
        assert.equal(cb?.result, 'SUCCESS');
      });

      it('declines a payment the provider rejected, with its DECLINED callback', async () => {
        loseInitiateAnswers();
        const id = await stalledQrSale();
        await providerSets(id, 'rejected');
        assert.equal(await passLater(), 1);
        assert.equal((await payment(id)).status, 'decline');
        assert.deepEqual((await callbacksOf(id)).map((c) => c.status), ['DECLINED']);
      });

      it('moves a payment the payer has yet to pay into the payer-facing wait, and leaves it there', async () => {
        loseInitiateAnswers();
        const res = await apmSale(gw, REDIRECT.key);
        const id = res.body.trans_id as string;
        assert.equal((await payment(id)).pendingOperation, 'apm_initiate');
        assert.equal(await passLater(), 1);
        const waiting = await payment(id);
        assert.equal(waiting.status, 'redirect');
        assert.equal(waiting.pendingOperation, null);
        const action = (waiting.details.apm as { action?: { kind: string; url: string } }).action;
        assert.equal(action?.kind, 'redirect');
        assert.equal(action?.url, `${gw.baseUrl}/sandbox/apm/${waiting.details.connectorRef}`);
        assert.deepEqual((await callbacksOf(id)).map((c) => c.status), ['REDIRECT']);

        await passLater();
        assert.equal((await payment(id)).version, waiting.version, 'the worker does not touch a payer-facing wait');
      });

      it('declines a QR payment whose code expired while its answer was lost', async () => {
        loseInitiateAnswers();
        const id = await stalledQrSale();
        assert.equal(await passLater(), 1);
        const p = await payment(id);
        assert.equal(p.status, 'decline');
        assert.equal(p.declineReason, 'QR code expired');
        assert.deepEqual((await callbacksOf(id)).map((c) => c.status), ['DECLINED']);
      });

      it('never touches a QR payment waiting for its payer, even past its lifetime', async () => {
        const res = await apmSale(gw, QR.key, { order_currency: 'RSD', order_amount: '10.00' });
        const before = await payment(res.body.trans_id);
        assert.equal(before.status, 'redirect');
        assert.equal(await passLater(), 0);
        assert.equal((await payment(before.id)).version, before.version);
        const [provider] = await gw.store.db.query<{ state: string }>('SELECT state FROM sandbox_apm_payments WHERE end_to_end_id = $1', [before.id]);
        assert.equal(provider!.state, 'pending', 'the worker asks the provider nothing');
      });

      it('keeps in flight a payment the provider never received', async () => {
        loseInitiateAnswers(false);
        const id = await stalledQrSale();
        assert.equal(await passLater(), 0);
        const p = await payment(id);
        assert.equal(p.pendingOperation, 'apm_initiate');
        assert.equal(p.status, 'prepare');
        assert.equal(needsOperatorOf(p), undefined);
        assert.deepEqual(await callbacksOf(id), []);
      });
    });

    describe('card authorization left in flight', () => {
      it('is resolved with the connector inquiry as before, with its callback', async () => {
        const card = gw.gateway.ctx.connectors.get('sandbox-card')!;
        patch(card, 'authorize', async () => {
          throw new Error('connection reset');
        });
        const res = await cardSale(gw);
        const id = res.body.trans_id as string;
        assert.equal((await payment(id)).pendingOperation, 'authorize');
        assert.equal(await passLater(), 1);
        const p = await payment(id);
        assert.equal(p.status, 'decline');
        assert.equal(p.declineReason, 'Processing interrupted');
        assert.equal((await callbacksOf(id)).length, 1);
      });

      it('one the connector cannot account for is asked about at every pass, then handed to an operator who resolves it', async () => {
        const card = gw.gateway.ctx.connectors.get('sandbox-card')!;
        patch(card, 'authorize', async () => {
          throw new Error('connection reset');
        });
        patch(card, 'inquire', async () => undefined); // the acquirer has no word on it
        const id = (await cardSale(gw, { order_amount: '7.00' })).body.trans_id as string;
        const recheck = new PaymentRecheck(gw.gateway.ctx, { operatorAfterMs: 3_600_000 });
        for (let pass = 0; pass < 3; pass++) assert.equal(await passLater(recheck), 0);
        const early = await payment(id);
        assert.deepEqual([early.pendingOperation, needsOperatorOf(early)], ['authorize', undefined], 'still its own to re-check');
        clock.advance(3_600_000);
        assert.equal(await recheck.runOnce(), 0);
        const handed = await payment(id);
        assert.equal(needsOperatorOf(handed)?.operation, 'authorize', 'an hour after it started: an operator\'s');
        assert.equal(await passLater(recheck), 0, 'and no longer re-checked');
        assert.equal(warnings.filter((w) => w.paymentId === id).length, 1, 'warned once');

        const resolved = await fetch(`${gw.baseUrl}/admin/v1/payments/${id}/resolve`, {
          method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ outcome: 'declined', note: 'Acquirer portal: no such authorization' }),
        });
        assert.equal(resolved.status, 200, await resolved.text());
        const p = await payment(id);
        assert.deepEqual([p.status, p.pendingOperation], ['decline', null]);
        assert.deepEqual((await callbacksOf(id)).map((c) => c.status), ['DECLINED'], 'one callback: the decline');
      });
    });

    describe('follow-up left in flight', () => {
      const admin = (path: string, token?: string) => fetch(`${gw.baseUrl}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

      async function stalledRefund(): Promise<string> {
        const sold = await cardSale(gw, { order_amount: '5.00' });
        const id = sold.body.trans_id as string;
        assert.equal((await payment(id)).status, 'settled', sold.text);
        patch(gw.gateway.ctx.connectors.get('sandbox-card')!, 'refund', async () => {
          throw new Error('connection reset');
        });
        await cardFollowUp(gw, 'CREDITVOID', id, { amount: '2.00' });
        const p = await payment(id);
        assert.equal(p.pendingOperation, 'refund');
        assert.equal(p.refundedAmount, 200n, 'the refund is reserved at its claim');
        return id;
      }

      it('is flagged for an operator once, by one of several workers, warned once and never re-claimed', async () => {
        const id = await stalledRefund();
        const refundStarted = (await listTransactions(gw.store.db, id)).find((t) => t.type === 'refund')!.createdAt;
        clock.advance(STALE_MS + 1_000);
        const workers = [gw.gateway.recheck, new PaymentRecheck(gw.gateway.ctx), new PaymentRecheck(gw.gateway.ctx)];
        assert.deepEqual(await Promise.all(workers.map((w) => w.runOnce())), [0, 0, 0]);

        const flagged = await payment(id);
        assert.deepEqual(needsOperatorOf(flagged), { operation: 'refund', since: needsOperatorOf(flagged)!.since, transId: flagged.details.lastTransId });
        assert.equal(new Date(needsOperatorOf(flagged)!.since).getTime(), refundStarted.getTime());
        assert.equal(flagged.pendingOperation, 'refund', 'the outcome is not guessed');
        assert.equal(flagged.refundedAmount, 200n, 'the reservation stays');
        assert.deepEqual(warnings.filter((w) => w.paymentId === id).map((w) => w.operation), ['refund']);

        await passLater();
        await passLater();
        const later = await payment(id);
        assert.equal(later.version, flagged.version, 'not claimed again');
        assert.equal(later.updatedAt.getTime(), flagged.updatedAt.getTime());
        assert.equal(warnings.filter((w) => w.paymentId === id).length, 1);
      });

      it('is listed for the operator, behind the operator token', async () => {
        const id = await stalledRefund();
        await passLater();
        for (const token of [undefined, '', 'wrong']) {
          const refused = await admin('/admin/v1/payments/needs-operator', token);
          assert.equal(refused.status, 401);
          assert.deepEqual(await refused.json(), { http_code: 401, error_code: '100000', error_message: 'Authorization: Operator token is not valid.' });
        }
        const res = await admin(`/admin/v1/payments/needs-operator?merchant_id=${gw.merchant.id}`, TOKEN);
        assert.equal(res.status, 200);
        const { payments } = (await res.json()) as { payments: Record<string, unknown>[] };
        const listed = payments.find((p) => p.id === id);
        const flag = needsOperatorOf(await payment(id))!;
        assert.deepEqual(listed, {
          id, merchant_id: gw.merchant.id, channel: 's2s_card', order_id: listed!.order_id, operation: 'refund', since: new Date(flag.since).toISOString(),
          status: 'settled', currency: 'USD', amount: '5.00', captured_amount: '5.00', refunded_amount: '2.00',
          held: { reason: 'answer_lost', acquirer_outcome: null, acquirer_reference: null, mismatches: [] },
        });
        const other = await gw.addMerchant();
        const none = await admin(`/admin/v1/payments/needs-operator?merchant_id=${other.id}`, TOKEN);
        assert.deepEqual(await none.json(), { payments: [] });
      });
    });
  });
}
