/**
 * Two gateway nodes on one PostgreSQL, each with its own pool and every worker running (callback dispatcher,
 * schedule runner, re-check, vault sweeper), under a load of S2S SALEs sent to both and schedule charges
 * falling due: every callback reaches the merchant, never more often than the dispatchers recorded attempts
 * (a second delivery only after a failed attempt, as the retry rules say: no two nodes delivering one callback),
 * every due schedule payment is charged once, and both nodes did work.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { assembleGateway, type Gateway } from '../../src/gateway.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { openPostgres, type Database } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import type { CardConnector } from '../../src/connectors/types.ts';
import { storeKinds, TEST_DATABASE_URL, type TestStore } from '../support/stores.ts';
import { startTestGateway, type TestGateway, CALLBACK_TIMEOUT_MS } from '../support/gateway.ts';
import { ScriptedConnector } from '../recurring/support.ts';
import { sale } from '../s2s-card/support.ts';
import { assertExactlyOnce, ledger, resolved, seedChains } from '../schedules/support.ts';
import { dayAwayFromMidnight } from '../support/utc-day.ts';

const SALES = 80;
const CHAINS = 30;

interface NodeWork {
  delivered: number;
  charged: number;
}

/** Counts what a node's own workers did, by wrapping their passes. */
function countWork(gateway: Gateway): NodeWork {
  const work = { delivered: 0, charged: 0 };
  const dispatch = gateway.dispatcher.runOnce.bind(gateway.dispatcher);
  gateway.dispatcher.runOnce = async () => {
    const s = await dispatch();
    work.delivered += s.delivered;
    return s;
  };
  const run = gateway.runner.runOnce.bind(gateway.runner);
  gateway.runner.runOnce = async () => {
    const s = await run();
    work.charged += s.recorded;
    return s;
  };
  return work;
}

const kinds = await storeKinds();
for (const { kind, skip } of kinds) {
  const reason = kind === 'pglite' ? 'the embedded store belongs to one process: several nodes need PostgreSQL' : skip;
  describe(`two nodes, all workers on both (${kind})`, { skip: reason }, () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const received = new Map<string, number>();
    const listener = createServer((req: IncomingMessage, res: ServerResponse) => {
      const id = String(req.headers['x-callback-id']);
      req.resume();
      req.on('end', () => {
        received.set(id, (received.get(id) ?? 0) + 1);
        res.end('OK');
      });
    });
    let dbB: Database;
    let a: TestGateway;
    let b: Gateway;
    let bUrl: string;
    const connector = new ScriptedConnector();

    before(async () => {
      await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
      const notificationUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callbacks`;
      const dbA = await openPostgres({ url: TEST_DATABASE_URL, schema, max: 10 });
      await migrate(dbA);
      const storeA: TestStore = { db: dbA, dispose: () => dbA.close() };
      a = await startTestGateway('postgres', { store: storeA, notificationUrl });
      // Node B: another pool on the same database, the same vault keys, its own workers.
      dbB = await openPostgres({ url: TEST_DATABASE_URL, schema, max: 10 });
      b = await assembleGateway({
        config: {
          ...loadConfig({}),
          port: 0,
          baseUrl: 'http://127.0.0.1:0',
          // As the test support's node A: the merchant's listener is on loopback; the SALEs send no bad hashes.
          callbackAllowedPrivateHosts: ['127.0.0.1'], connectorAllowedPrivateHosts: ['127.0.0.1'],
          rateLimits: { ...loadConfig({}).rateLimits, enabled: false },
        },
        db: dbB,
        keyring: a.gateway.ctx.keyring,
        logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
        dispatcher: { pollMs: 50, timeoutMs: CALLBACK_TIMEOUT_MS },
        runner: { pollMs: 100, batchSize: 4 },
      });
      bUrl = await b.app.listen({ port: 0, host: '127.0.0.1' });
      for (const node of [a.gateway, b]) (node.ctx.connectors as Map<string, CardConnector>).set(connector.name, connector);
    });

    after(async () => {
      await b?.close();
      await dbB?.close();
      await a?.close();
      listener.close();
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    });

    test('no callback delivered beyond the retry rules, no schedule payment charged twice, both nodes working', async (t) => {
      // The chains' first payments fall due today: both runners see them at once. Seeding and the wait for the
      // charges (up to 60 s) on one UTC day.
      const today = await dayAwayFromMidnight(90_000);
      const { scheduleId } = await seedChains(a, CHAINS, today, { interval_length: '1', interval_unit: 'month', payments_count: '1' });
      const onB = { ...a, baseUrl: bUrl, postForm: (path: string, fields: Record<string, unknown>) => postFormTo(bUrl, path, fields) };
      const work = [countWork(a.gateway), countWork(b)];
      b.startWorkers();
      a.gateway.startWorkers();
      const sales = await Promise.all(Array.from({ length: SALES }, (_, i) => sale(i % 2 ? onB : a)));
      assert.ok(sales.every((s) => s.body?.status === 'SETTLED'), 'every SALE settled');

      const db = a.store.db;
      await waitFor(async () => {
        const [row] = await db.query<{ pending: string }>(`SELECT count(*)::text AS pending FROM callbacks WHERE status <> 'delivered'`);
        const charges = await ledger(db, scheduleId);
        return row!.pending === '0' && charges.charges.length === CHAINS && charges.charges.every(resolved);
      }, 60_000);

      const [{ n }] = (await db.query<{ n: string }>('SELECT count(*)::text AS n FROM callbacks')) as [{ n: string }];
      assert.equal(received.size, Number(n), 'every callback reached the merchant');
      // A second reception is allowed only as the retry rules allow it: after an attempt the dispatcher holding
      // the lease recorded as failed (under load, a timeout). Every reception is one recorded attempt; two
      // nodes delivering one callback side by side would show more receptions than attempts.
      const attempts = new Map((await db.query<{ id: string; n: string }>('SELECT callback_id AS id, count(*)::text AS n FROM callback_attempts GROUP BY callback_id')).map((r) => [r.id, Number(r.n)]));
      const beyondRules = [...received].filter(([id, count]) => count > (attempts.get(id) ?? 0));
      assert.deepEqual(beyondRules, [], 'no callback delivered more often than attempted');
      const retried = [...attempts.values()].filter((n) => n > 1).length;

      assertExactlyOnce(await ledger(db, scheduleId), connector.calls, 1);
      assert.ok(work.every((w) => w.delivered > 0), `both dispatchers delivered: ${JSON.stringify(work)}`);
      assert.equal(work[0]!.charged + work[1]!.charged, CHAINS);
      t.diagnostic(`work per node: ${JSON.stringify(work)}; callbacks retried after a failed attempt: ${retried}`);
    });
  });
}

async function postFormTo(base: string, path: string, fields: Record<string, unknown>) {
  const body = new URLSearchParams(Object.entries(fields).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
  const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text };
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
