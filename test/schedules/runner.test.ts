/**
 * The schedule runner's exactly-once guarantee on both stores: runners side by side, a runner that dies after
 * its claim, one that dies between the connector's answer and the write, and one that stalls past its lease.
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
      assert.ok(before.charges.every((c) => c.pending?.startsWith('schedule:')), 'held by the dead claim, never fenced');
      const restarted = runner();
      await drain(restarted);
      assert.ok((await ledger(gw.store.db, scheduleId)).charges.every((c) => c.pending !== null), 'not taken over while the lease holds');
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

    it('a paused schedule charges nothing, however many runners look', async () => {
      const { scheduleId } = await seedChains(gw, 3, today(), { ...DAILY_TWICE, payments_count: '1' });
      await gw.store.db.query('UPDATE schedules SET paused = true WHERE id = $1', [scheduleId]);
      await Promise.all([drain(runner()), drain(runner())]);
      assert.equal((await ledger(gw.store.db, scheduleId)).charges.length, 0);
    });
  });
}
