/**
 * The schedule runner's exactly-once guarantee on both stores: runners side by side, a runner that dies after
 * its claim, one that dies between the connector's answer and the write, and one that stalls past its lease; the
 * claim in its own column (schedule_charges.claimed_by), never in the payment's pending_operation.
 * Crashes are injected at the runner's hook points (a throwing hook ends the pass there, as a dead process
 * would); test/schedules/runner-kill.test.ts kills real processes.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { ScheduleRunner, type ScheduleRunnerOptions } from '../../src/workers/schedule-runner.ts';
import { scriptConnector, type ScriptedConnector } from '../recurring/support.ts';
import { assertExactlyOnce, ledger, seedChains } from './support.ts';
import { migrate } from '../../src/store/migrate.ts';

const DAY = 86_400_000;
const LEASE = 5_000;
const DAILY_TWICE = { interval_length: '1', interval_unit: 'day', payments_count: '2' };

class Crash extends Error {}

for (const { kind, skip } of await storeKinds()) {
  describe(`schedule runner, exactly once (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let connector: ScriptedConnector;
    const clock = new ManualClock('2030-01-15T10:00:00Z');
    const today = () => clock.now().toISOString().slice(0, 10);
    const runner = (opts: ScheduleRunnerOptions = {}) => new ScheduleRunner(gw.gateway.ctx, { leaseMs: LEASE, batchSize: 4, ...opts });

    before(async () => {
      // No background workers: the tests run each runner pass themselves; callbacks stay in the outbox, counted.
      gw = await startTestGateway(kind, { clock, notificationUrl: 'http://127.0.0.1:9/callbacks' });
      connector = scriptConnector(gw);
    });
    after(() => gw?.close());

    /** Passes of `r` until one finds nothing to claim. */
    async function drain(r: ScheduleRunner): Promise<void> {
      while ((await r.runOnce()).claimed > 0);
    }

    it('two runners side by side charge every due payment once, none missed', async () => {
      const { scheduleId } = await seedChains(gw, 24, today(), DAILY_TWICE);
      const [a, b] = [runner(), runner({ concurrency: 3 })];
      await Promise.all([drain(a), drain(b), drain(a)]);
      clock.advance(DAY);
      await Promise.all([drain(b), drain(a), drain(b)]);
      const l = await ledger(gw.store.db, scheduleId);
      assert.equal(l.charges.length, 48);
      assertExactlyOnce(l, connector.calls, 2);
    });

    it('a runner that dies after its claim: the claim is taken over once its lease ran out, and charged once', async () => {
      const { scheduleId } = await seedChains(gw, 6, today(), { ...DAILY_TWICE, payments_count: '1' });
      const dying = runner({ batchSize: 10, hooks: { afterClaim: () => { throw new Crash('killed after the claim'); } } });
      await assert.rejects(dying.runOnce(), Crash);
      const before = await ledger(gw.store.db, scheduleId);
      assert.equal(before.charges.length, 6, 'claimed: every payment number has its row and payment');
      assert.ok(before.charges.every((c) => c.claimedBy?.startsWith('schedule:') && c.pending === null && c.status === 'prepare'), 'held by the dead claim (its own column), never fenced');
      const restarted = runner();
      await drain(restarted);
      const held = await ledger(gw.store.db, scheduleId);
      assert.deepEqual(held.charges.map((c) => [c.claimedBy, c.status]), before.charges.map((c) => [c.claimedBy, 'prepare']), 'not taken over while the lease holds');
      clock.advance(LEASE + 1);
      await drain(restarted);
      assertExactlyOnce(await ledger(gw.store.db, scheduleId), connector.calls, 1);
    });

    it('a runner that dies between the connector\'s answer and the write: the connector is asked, never charged again', async () => {
      const { scheduleId } = await seedChains(gw, 8, today(), { ...DAILY_TWICE, payments_count: '1' });
      const callsBefore = connector.calls.length;
      // Two connector calls in flight; a worker dies right after its answer: some payments charged, the rest fenced but never sent.
      const dying = runner({ batchSize: 10, concurrency: 2, hooks: { afterCharge: () => { throw new Crash('killed before the write'); } } });
      await assert.rejects(dying.runOnce(), Crash);
      const charged = connector.calls.length - callsBefore;
      assert.ok(charged >= 1 && charged <= 2, `${charged} charged before the crash`);
      const crashed = await ledger(gw.store.db, scheduleId);
      assert.ok(crashed.charges.every((c) => c.pending === 'authorize'), 'all in flight at the connector, none written');
      clock.advance(LEASE + 1);
      await drain(runner());
      assert.equal(connector.calls.length - callsBefore, charged, 'no payment sent to the connector again');
      const l = await ledger(gw.store.db, scheduleId);
      assertExactlyOnce(l, connector.calls, 1);
      assert.equal(l.charges.filter((c) => c.status === 'settled').length, charged, 'the charged ones: learnt from the connector');
      assert.ok(l.charges.filter((c) => c.status === 'decline').every((c) => c.reason === 'Processing interrupted'), 'the rest: recorded and reported as never charged');
    });

    it('a runner stalled past its lease cannot charge what another runner took over', async () => {
      const { scheduleId } = await seedChains(gw, 5, today(), { ...DAILY_TWICE, payments_count: '1' });
      const other = runner();
      const stalled = runner({
        batchSize: 10,
        hooks: {
          afterClaim: async () => {
            clock.advance(LEASE + 1);
            await drain(other);
          },
        },
      });
      const pass = await stalled.runOnce();
      assert.equal(pass.recorded, 0, 'its fence found its claims taken: it called no connector');
      assertExactlyOnce(await ledger(gw.store.db, scheduleId), connector.calls, 1);
    });

    it('the claim is the charge row\'s own column; pending_operation is null while claimed, authorize only at the acquirer; one attempt row', async () => {
      const { scheduleId } = await seedChains(gw, 3, today(), { ...DAILY_TWICE, payments_count: '1' });
      const state = async (paymentId: string) => {
        const [row] = await gw.store.db.query<{ pending_operation: string | null; claimed_by: string | null; attempts: string }>(
          `SELECT p.pending_operation, c.claimed_by, (SELECT count(*) FROM payment_attempts a WHERE a.payment_id = p.id)::text AS attempts
           FROM payments p JOIN schedule_charges c ON c.payment_id = p.id WHERE p.id = $1`, [paymentId]);
        return row!;
      };
      const claimed: Awaited<ReturnType<typeof state>>[] = [];
      const atAcquirer: Awaited<ReturnType<typeof state>>[] = [];
      const authorize = connector.authorize;
      connector.authorize = async (req) => {
        atAcquirer.push(await state(req.paymentId));
        return authorize.call(connector, req);
      };
      try {
        await runner({ hooks: { afterClaim: async (ids) => { for (const id of ids) claimed.push(await state(id)); } } }).runOnce();
      } finally {
        connector.authorize = authorize;
      }
      assert.equal(claimed.length, 3);
      for (const c of claimed) {
        assert.equal(c.pending_operation, null, 'a claim is no operation in flight');
        assert.match(c.claimed_by ?? '', /^schedule:/, 'the runner\'s token, in its own column');
        assert.equal(c.attempts, '1', 'the attempt is recorded with the claim, before any acquirer call');
      }
      assert.deepEqual(atAcquirer.map((c) => c.pending_operation), ['authorize', 'authorize', 'authorize'], 'fenced: in flight as every card payment');
      const l = await ledger(gw.store.db, scheduleId);
      assertExactlyOnce(l, connector.calls, 1);
      const attempts = await gw.store.db.query<{ why: string; status: string; finished: boolean; mid_id: string | null }>(
        'SELECT a.why, a.status, a.finished_at IS NOT NULL AS finished, a.mid_id FROM payment_attempts a WHERE a.payment_id = ANY($1::text[])', [l.charges.map((c) => c.paymentId)]);
      assert.deepEqual(attempts.map((a) => [a.why, a.status, a.finished]), [['scheduled', 'approved', true], ['scheduled', 'approved', true], ['scheduled', 'approved', true]]);
      assert.ok(attempts.every((a) => a.mid_id), 'on the MID routing chose');
    });

    it('migration 031 moves a claim held in pending_operation to the charge row, and the runner takes it over', async () => {
      const { scheduleId } = await seedChains(gw, 2, today(), { ...DAILY_TWICE, payments_count: '1' });
      await assert.rejects(runner({ hooks: { afterClaim: () => { throw new Crash('killed after the claim'); } } }).runOnce(), Crash);
      const db = gw.store.db;
      // The store as it was before 031: the token in the payment's pending_operation, no claimed_by column.
      const ids = (await ledger(db, scheduleId)).charges.map((c) => c.paymentId);
      await db.query(`UPDATE payments p SET pending_operation = c.claimed_by FROM schedule_charges c WHERE c.payment_id = p.id AND p.id = ANY($1::text[])`, [ids]);
      await db.query('ALTER TABLE schedule_charges DROP COLUMN claimed_by');
      await db.query('DELETE FROM schema_migrations WHERE version = 31');
      assert.deepEqual(await migrate(db), [31]);
      const moved = await ledger(db, scheduleId);
      assert.ok(moved.charges.every((c) => c.pending === null && c.claimedBy?.startsWith('schedule:')), 'the token moved to its column');
      clock.advance(LEASE + 1);
      await drain(runner());
      assertExactlyOnce(await ledger(db, scheduleId), connector.calls, 1);
    });

    it('a paused schedule charges nothing, however many runners look', async () => {
      const { scheduleId } = await seedChains(gw, 3, today(), { ...DAILY_TWICE, payments_count: '1' });
      await gw.store.db.query('UPDATE schedules SET paused = true WHERE id = $1', [scheduleId]);
      await Promise.all([drain(runner()), drain(runner())]);
      assert.equal((await ledger(gw.store.db, scheduleId)).charges.length, 0);
    });
  });
}
