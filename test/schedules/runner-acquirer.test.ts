/**
 * A scheduled charge reaches a real acquirer as a card payment of its chain does (issue 24): on the chain of two
 * gateways (our `akurateco` MID forwarding to an upstream Portcullis, through a proxy that sees the wire), the
 * schedule runner's charge names the stored card's network reference the first payment got, so the upstream
 * charges its own chain (RECURRING_SALE), and an answer reporting another amount is held for an operator, with
 * no callback until the operator decides.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startChain, startProxy, upstreamPayments, ourPayment, type Chain, type Proxy } from '../connectors/support.ts';
import { initSale, newSchedule } from '../recurring/support.ts';
import { needsOperatorOf } from '../../src/store/payments-repo.ts';
import { ScheduleRunner } from '../../src/workers/schedule-runner.ts';
import { ledger } from './support.ts';
import { dayAwayFromMidnight } from '../support/utc-day.ts';

const ADMIN_TOKEN = 'admin-token-for-runner-acquirer-tests-0';
const ONCE = { interval_length: '1', interval_unit: 'day', payments_count: '1' };

for (const { kind, skip } of await storeKinds()) {
  describe(`schedule runner through a real acquirer link (${kind})`, { skip }, () => {
    let chain: Chain;
    let proxy: Proxy;
    /** Answers of RECURRING_SALE to rewrite (the amount the acquirer reports), set per test. */
    let reportOtherAmount = false;

    before(async () => {
      chain = await startChain(kind, { upstreamWorkers: false, ourWorkers: false, ours: { adminToken: ADMIN_TOKEN, notificationUrl: 'http://127.0.0.1:9/never' } });
      proxy = await startProxy(`${chain.upstream.baseUrl}/post`, {
        rewrite: (action, body) => (reportOtherAmount && action === 'RECURRING_SALE' ? body.replace('"amount":"4.00"', '"amount":"5.00"') : body),
      });
      await chain.ours.store.db.query("UPDATE mids SET settings = jsonb_set(settings, '{endpoint}', to_jsonb($1::text)) WHERE id = $2", [proxy.url, chain.midId]);
      chain.ours.gateway.ctx.merchants.invalidate();
    });
    after(async () => {
      await chain?.close();
      await proxy?.close();
    });

    /** A chain on a schedule whose one charge is due today, started by an approved first SALE; its charge's payment id. */
    async function chargeOnce(): Promise<{ firstId: string; chargeId: string; scheduleId: string }> {
      const today = await dayAwayFromMidnight(30_000); // the first SALE and the run on the day the charge is due
      const scheduleId = await newSchedule(chain.ours, ONCE);
      const first = await initSale(chain.ours, { schedule_id: scheduleId, schedule_start_date: today, order_amount: '4.00' });
      assert.equal(first.body.result, 'SUCCESS', first.text);
      const before = proxy.actions.length;
      const runner = new ScheduleRunner(chain.ours.gateway.ctx, { batchSize: 5 });
      while ((await runner.runOnce()).claimed > 0);
      const [charge] = (await ledger(chain.ours.store.db, scheduleId)).charges;
      assert.ok(charge, 'the due charge was claimed');
      assert.deepEqual(proxy.actions.slice(before), ['RECURRING_SALE'], 'the acquirer was asked once, to charge its own chain');
      return { firstId: first.body.trans_id as string, chargeId: charge.paymentId, scheduleId };
    }

    it('sends the stored card\'s network reference the first payment got, as a card recurring payment does', async () => {
      const { firstId, chargeId } = await chargeOnce();
      const first = await ourPayment(chain.ours, firstId);
      const [upFirst] = await upstreamPayments(chain, firstId);
      assert.equal(first.details.storedCardReference, `${upFirst!.id}:${upFirst!.details.recurring_token}`, 'the first payment kept the acquirer\'s chain');
      const [upCharge] = await upstreamPayments(chain, chargeId);
      assert.ok(upCharge, 'the upstream holds the charge under our payment id');
      assert.equal(upCharge.operation, 'recurring', 'charged on the upstream chain (RECURRING_SALE), not as a new card sale');
      assert.equal(upCharge.details.recurring_init_trans_id, upFirst!.id);
      assert.equal(upCharge.status, 'settled');
      const ours = await ourPayment(chain.ours, chargeId);
      assert.equal(ours.status, 'settled');
      assert.equal(ours.details.connectorRef, upCharge.id);
    });

    it('an answer reporting another amount is held for an operator, with no callback until the operator decides', async () => {
      reportOtherAmount = true;
      let chargeId: string;
      try {
        ({ chargeId } = await chargeOnce());
      } finally {
        reportOtherAmount = false;
      }
      const held = await ourPayment(chain.ours, chargeId);
      assert.equal(held.status, 'prepare');
      assert.equal(held.pendingOperation, 'authorize', 'in flight, as a held card payment is');
      const flag = needsOperatorOf(held) as unknown as Record<string, unknown>;
      assert.ok(flag, 'flagged for an operator');
      assert.equal(flag.reason, 'integrity');
      assert.deepEqual(flag.mismatches, [{ field: 'amount', expected: '400', reported: '500' }]);
      const callbacks = () => chain.ours.store.db.query<{ fields: Record<string, string> }>('SELECT fields FROM callbacks WHERE payment_id = $1', [chargeId]);
      assert.deepEqual(await callbacks(), [], 'no callback while held');
      const attempt = () => chain.ours.store.db.query<{ why: string; status: string; stop: string | null; finished: boolean }>(
        'SELECT why, status, stop, finished_at IS NOT NULL AS finished FROM payment_attempts WHERE payment_id = $1', [chargeId]);
      assert.deepEqual(await attempt(), [{ why: 'scheduled', status: 'pending', stop: 'integrity', finished: false }], 'the attempt stays open, held');
      const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
      const listed = await (await fetch(`${chain.ours.baseUrl}/admin/v1/payments/needs-operator`, { headers })).json() as { payments: { id: string; held: Record<string, unknown> }[] };
      const entry = listed.payments.find((p) => p.id === chargeId);
      assert.ok(entry, JSON.stringify(listed));
      assert.deepEqual(entry.held.mismatches, [{ field: 'amount', expected: '4.00', reported: '5.00' }]);

      const resolved = await fetch(`${chain.ours.baseUrl}/admin/v1/payments/${chargeId}/resolve`, {
        method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ outcome: 'settled', note: 'Acquirer portal: 4.00 charged' }),
      });
      assert.equal(resolved.status, 200, await resolved.clone().text());
      const settled = await ourPayment(chain.ours, chargeId);
      assert.equal(settled.status, 'settled');
      assert.equal(settled.capturedAmount, 400n);
      assert.equal(settled.pendingOperation, null);
      assert.deepEqual(await attempt(), [{ why: 'scheduled', status: 'approved', stop: 'integrity', finished: true }], 'answered by the operator\'s decision');
      const after = await callbacks();
      assert.equal(after.length, 1, 'one callback, once decided');
      assert.equal(after[0]!.fields.status, 'SETTLED');
    });
  });
}
