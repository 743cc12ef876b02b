/**
 * Status lookups on a real streaming replica (DATABASE_REPLICA_URL): they read the replica when it has caught
 * up, and the primary when it lags behind the merchant's own writes, so that a merchant never sees its payment
 * older than it made it. The replica's replay is paused to make it lag.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openPostgres, type Database } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { ReplicaReads, NextSample, lsnBytes } from '../../src/store/replica.ts';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { followUp, sale } from '../s2s-card/support.ts';
import { checkoutHash } from '../support/merchant.ts';
import { clustersUnavailable, primaryWithStandby } from '../support/pg-cluster.ts';

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('replica routing parts', () => {
  test('LSNs compare as byte positions', () => {
    assert.equal(lsnBytes('0/16B3748'), 0x16b3748n);
    assert.ok(lsnBytes('1/0') > lsnBytes('0/FFFFFFFF'));
  });

  test('NextSample: every caller gets a reading that started after it called, one in flight at a time', async () => {
    let started = 0;
    let inFlight = 0;
    let most = 0;
    const sampler = new NextSample(async () => {
      const n = ++started;
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight -= 1;
      return n;
    });
    const first = sampler.next();
    await new Promise((r) => setTimeout(r, 5));
    // These arrive while the first reading runs: they share the second, not the first.
    const late = await Promise.all([sampler.next(), sampler.next(), sampler.next()]);
    assert.equal(await first, 1);
    assert.deepEqual(late, [2, 2, 2]);
    assert.equal(most, 1);
  });
});

const noClusters = clustersUnavailable();
for (const { kind, skip } of kinds) {
  const reason = kind === 'pglite' ? 'the embedded store has no replica' : (skip || noClusters || false);
  describe(`status lookups on a streaming replica (${kind})`, { skip: reason }, () => {
    let clusters: Awaited<ReturnType<typeof primaryWithStandby>>;
    let replica: Database;
    let reads: ReplicaReads;
    let gw: TestGateway;
    let standby: pg.Client;

    before(async () => {
      clusters = await primaryWithStandby();
      const db = await openPostgres({ url: clusters.primary.url });
      await migrate(db);
      gw = await startTestGateway('postgres', { store: { db, dispose: () => db.close() } });
      replica = await openPostgres({ url: clusters.standby.url });
      reads = new ReplicaReads(db, replica);
      gw.gateway.ctx.reads = reads;
      standby = new pg.Client({ connectionString: clusters.standby.url });
      await standby.connect();
    });

    after(async () => {
      await standby?.end();
      await replica?.close();
      await gw?.close();
      clusters?.remove();
    });

    const status = (transId: string) => followUp(gw, 'GET_TRANS_STATUS', transId);

    test('a replica that has caught up answers the lookups', async () => {
      const paid = await sale(gw);
      assert.equal(paid.body.status, 'SETTLED');
      const deadline = Date.now() + 15_000;
      while (reads.counts.replica === 0 && Date.now() < deadline) {
        assert.equal((await status(paid.body.trans_id)).body.status, 'SETTLED');
      }
      assert.ok(reads.counts.replica > 0, `lookups read the replica: ${JSON.stringify(reads.counts)}`);
    });

    test('a lagging replica is bypassed: the merchant sees its capture at once, never the older state', async () => {
      const held = await sale(gw, { auth: 'Y' });
      assert.equal(held.body.status, 'PENDING');
      const id = held.body.trans_id as string;
      // Let the replica see the finished authorization (the row is written in 'prepare' first), then stop its replay.
      await waitUntil(async () => {
        const seen = await standby.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [id]);
        return seen.rows[0]?.status === 'pending';
      });
      await standby.query('SELECT pg_wal_replay_pause()');
      try {
        assert.equal((await followUp(gw, 'CAPTURE', id)).body.result, 'SUCCESS');
        const onReplica = await standby.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [id]);
        assert.equal(onReplica.rows[0]?.status, 'pending', 'the replica is behind');
        const before = { ...reads.counts };
        assert.equal((await status(id)).body.status, 'SETTLED');
        const order = await gw.postJson('/api/v1/payment/status', {
          merchant_key: gw.merchant.key,
          payment_id: id,
          hash: checkoutHash(gw.merchant.password, id),
        });
        assert.equal(order.status, 200);
        assert.equal(order.body.status, 'settled');
        assert.equal(reads.counts.replica, before.replica, 'nothing read from the lagging replica');
        assert.ok(reads.counts.primary >= before.primary + 2);
      } finally {
        await standby.query('SELECT pg_wal_replay_resume()');
      }
      const resumedAt = reads.counts.replica;
      await waitUntil(async () => {
        assert.equal((await status(id)).body.status, 'SETTLED');
        return reads.counts.replica > resumedAt;
      });
    });
  });
}

async function waitUntil(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
