/**
 * The database goes away and comes back while the gateway runs: every answer meanwhile is a D3 503 with
 * Retry-After (never a 500, never a hang), liveness stays up while readiness says why not, the workers keep
 * their loops, and the gateway recovers by itself, without handing out a dead connection. The gateway reaches
 * PostgreSQL through a TCP proxy the test cuts: first refusing (a stopped server, a proxy with no primary),
 * then accepting and never answering (a machine that vanished).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgres } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { storeKinds, TEST_DATABASE_URL, type TestStore } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { followUp, sale } from '../s2s-card/support.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

const ANSWER_WITHIN_MS = 8_000;

/** A store reached through the proxy, its schema dropped at the end through a direct connection. */
async function storeThrough(proxy: TcpProxy, connectRetryMs = 1_000): Promise<TestStore> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const url = new URL(TEST_DATABASE_URL);
  url.host = `127.0.0.1:${proxy.port}`;
  const db = await openPostgres({ url: url.toString(), schema, max: 10, connectRetryMs, connectTimeoutMs: 1_000 });
  await migrate(db);
  return {
    db,
    async dispose() {
      await db.close();
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

function sessionBody(m: { key: string; password: string }) {
  const order = { number: `outage-${randomBytes(4).toString('hex')}`, amount: '10.00', currency: 'USD', description: 'Outage test' };
  return {
    merchant_key: m.key,
    operation: 'purchase',
    methods: ['card'],
    order,
    cancel_url: 'https://shop.example/cancel',
    success_url: 'https://shop.example/success',
    hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
  };
}

async function timed<T>(work: Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await work;
  assert.ok(Date.now() - started < ANSWER_WITHIN_MS, `answered after ${Date.now() - started} ms`);
  return result;
}

function assertUnavailable(res: { status: number; body: any }, s2s: boolean): void {
  assert.equal(res.status, 503, JSON.stringify(res.body));
  assert.equal(res.body.http_code, 503);
  assert.equal(res.body.error_code, '100000');
  assert.equal(res.body.error_message, 'Service temporarily unavailable.');
  if (s2s) assert.equal(res.body.result, 'ERROR');
}

const kinds = await storeKinds();
for (const { kind, skip } of kinds) {
  const reason = kind === 'pglite' ? 'the embedded store runs in the process: it has no connection to lose' : skip;
  describe(`database outage (${kind})`, { skip: reason }, () => {
    let proxy: TcpProxy;
    let gw: TestGateway;
    let acknowledged: string;

    before(async () => {
      const target = new URL(TEST_DATABASE_URL);
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      gw = await startTestGateway('postgres', { store: await storeThrough(proxy), workers: true });
      const first = await sale(gw);
      assert.equal(first.body.status, 'SETTLED');
      acknowledged = first.body.trans_id;
    });

    after(async () => {
      await proxy.restore().catch(() => undefined);
      await gw?.close();
      await proxy?.close();
    });

    for (const mode of ['refuse', 'blackhole'] as const) {
      test(`${mode}: 503 in the D3 shape while the database is out of reach, then recovery without a restart`, async () => {
        await proxy.cut(mode);
        assertUnavailable(await timed(sale(gw)), true);
        assertUnavailable(await timed(followUp(gw, 'GET_TRANS_STATUS', acknowledged)), true);
        const session = await timed(gw.postJson('/api/v1/session', sessionBody(gw.merchant)));
        assertUnavailable(session, false);

        const ready = await timed(fetch(`${gw.baseUrl}/ready`));
        assert.equal(ready.status, 503);
        assert.equal(ready.headers.get('retry-after'), '1');
        const readyBody = (await ready.json()) as { http_code: number; errors: { error_message: string }[] };
        assert.equal(readyBody.http_code, 503);
        assert.match(readyBody.errors[0]!.error_message, /^store: /);
        assert.equal((await fetch(`${gw.baseUrl}/health`)).status, 200, 'liveness does not depend on the store');

        await proxy.restore();
        // The first request after the database is back succeeds: no dead connection is handed out.
        const back = await timed(sale(gw));
        assert.equal(back.status, 200, JSON.stringify(back.body));
        assert.equal(back.body.status, 'SETTLED');
        assert.equal((await followUp(gw, 'GET_TRANS_STATUS', acknowledged)).body.status, 'SETTLED');
        assert.equal((await gw.postJson('/api/v1/session', sessionBody(gw.merchant))).status, 200);
        assert.equal((await fetch(`${gw.baseUrl}/ready`)).status, 200);
      });
    }
  });
}

for (const { kind, skip } of kinds) {
  const reason = kind === 'pglite' ? 'the embedded store runs in the process: it has no connection to lose' : skip;
  describe(`what the store retries (${kind})`, { skip: reason }, () => {
    let proxy: TcpProxy;
    let store: TestStore;
    let watcher: pg.Client;

    before(async () => {
      const target = new URL(TEST_DATABASE_URL);
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      // Connecting is retried for up to 5 s: the refusal below lasts a timer's 300 ms, which a busy machine stretches.
      store = await storeThrough(proxy, 5_000);
      await store.db.query('CREATE TABLE writes (id serial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())');
      watcher = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await watcher.connect();
    });

    after(async () => {
      await proxy.restore().catch(() => undefined);
      await watcher?.end();
      await store?.dispose();
      await proxy?.close();
    });

    /**
     * Waits until PostgreSQL runs `statement` (or, with running false, no longer does), seen directly, not through
     * the proxy: the connection is cut while the statement runs whatever a busy machine does to a sleep's timing.
     */
    async function untilRunning(statement: string, running = true): Promise<void> {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const { rows } = await watcher.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query = $1", [statement]);
        if ((rows[0]!.n > 0) === running) return;
        if (Date.now() > deadline) throw new Error(`${statement}: ${running ? 'never ran' : 'still runs'}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    test('a connection refused for a moment is retried: nothing was sent', async () => {
      await proxy.cut('refuse');
      const pending = store.db.query<{ one: number }>('SELECT 1 AS one');
      await new Promise((r) => setTimeout(r, 300));
      await proxy.restore();
      assert.deepEqual(await pending, [{ one: 1 }]);
    });

    test('a write whose connection dies under it is reported, never sent again', async () => {
      const statement = `INSERT INTO writes (at) SELECT now() FROM pg_sleep(1) -- ${randomBytes(6).toString('hex')}`;
      const write = store.db.query(statement);
      await untilRunning(statement);
      await proxy.cut('refuse');
      await proxy.restore();
      await assert.rejects(write, (err: Error) => err.name === 'StoreUnavailableError');
      await untilRunning(statement, false);
      const [row] = await store.db.query<{ n: string }>('SELECT count(*)::text AS n FROM writes');
      assert.ok(Number(row!.n) <= 1, `the write ran ${row!.n} times`);
    });

    test('a connection killed between two statements of a transaction fails the transaction, not the process', async () => {
      // Directly, not through the proxy: the server's FATAL message itself must reach the driver.
      const direct = await openPostgres({ url: TEST_DATABASE_URL, max: 2 });
      after(() => direct.close());
      const work = direct.transaction(async (tx) => {
        const [me] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await admin.connect();
        await admin.query('SELECT pg_terminate_backend($1)', [me!.pid]);
        await admin.end();
        // The FATAL arrives while no statement runs on the connection.
        await new Promise((r) => setTimeout(r, 300));
        await tx.query('SELECT 1');
      });
      await assert.rejects(work, (err: Error) => err.name === 'StoreUnavailableError');
      assert.deepEqual(await direct.query('SELECT 1 AS one'), [{ one: 1 }]);
    });

    test('a lone SELECT whose connection dies under it is read again', async () => {
      const statement = `SELECT 1 AS one FROM pg_sleep(1) -- ${randomBytes(6).toString('hex')}`;
      const read = store.db.query<{ one: number }>(statement);
      await untilRunning(statement);
      await proxy.cut('refuse');
      await proxy.restore();
      assert.deepEqual(await read, [{ one: 1 }]);
    });
  });
}
