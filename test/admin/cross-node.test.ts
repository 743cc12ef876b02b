/**
 * A change made through one node applies on every node without a restart: two gateways on one PostgreSQL
 * schema, configured through node 1's admin API and observed through node 2's merchant channel. Node 2 hears
 * the change by LISTEN/NOTIFY; the version poll catches a change whose notification was lost. PGlite runs in
 * one process, where the admin API's own invalidation is the whole story (tested in mids and settings tests).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds, TEST_DATABASE_URL } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminCall } from './config-support.ts';
import { errorOf, messages, sale } from '../s2s-card/support.ts';
import { assembleGateway, type Gateway } from '../../src/gateway.ts';
import { loadConfig } from '../../src/config.ts';
import { openPostgres, type Database } from '../../src/store/database.ts';
import { createLogger } from '../../src/logger.ts';
import { DirectoryWatch } from '../../src/store/directory-watch.ts';
import { readAnswer } from '../support/answer.ts';

/**
 * Counts a node's merchant cache invalidations (the only way a cached entry goes before its expiry) and waits
 * for the next one. `quiet()` first lets notifications of earlier changes (creating the merchant) land, so
 * the next invalidation is the one of the change under test.
 */
function invalidations(gateway: Gateway) {
  const directory = gateway.ctx.merchants;
  const original = directory.invalidate.bind(directory);
  let count = 0;
  directory.invalidate = () => {
    count += 1;
    original();
  };
  return {
    async quiet(): Promise<void> {
      for (let seen = -1; seen !== count;) {
        seen = count;
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    },
    async next(from: number, timeoutMs = 15_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (count === from) {
        if (Date.now() > deadline) throw new Error('no invalidation arrived');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    get count() {
      return count;
    },
  };
}

for (const { kind, skip } of await storeKinds()) {
  const why = kind === 'pglite' ? 'PGlite runs in one process: there is no second node' : skip;
  describe(`merchant changes across nodes (${kind})`, { skip: why }, () => {
    let node1: TestGateway;
    let node2: Gateway;
    let db2: Database;
    let node2Url: string;
    let heard: ReturnType<typeof invalidations>;
    const ADMIN = 'admin-cross-node';
    const node2Client = (): TestGateway => ({ ...node1, baseUrl: node2Url, postForm: (path, fields) => postForm(node2Url, path, fields) });

    before(async () => {
      node1 = await startTestGateway('postgres', { adminToken: ADMIN });
      const [row] = await node1.store.db.query<{ schema: string }>('SELECT current_schema() AS schema');
      db2 = await openPostgres({ url: TEST_DATABASE_URL, schema: row!.schema, max: 5 });
      // Node 2 polls only once an hour here: what reaches it in these tests comes by notification.
      node2 = await assembleGateway({
        config: { ...loadConfig({}), port: 0, baseUrl: 'http://127.0.0.1:0' }, db: db2, keyring: node1.gateway.ctx.keyring,
        logger: createLogger('silent'), directoryPollMs: 3_600_000,
      });
      node2Url = await node2.app.listen({ port: 0, host: '127.0.0.1' });
      heard = invalidations(node2);
    });
    after(async () => {
      await node2?.close();
      await db2?.close();
      await node1?.close();
    });

    async function midOf(m: TestMerchant): Promise<string> {
      return (await adminCall(node1.baseUrl, 'GET', `/admin/v1/merchants/${m.id}/mids`, ADMIN)).body.mids[0].id;
    }

    it('routes by a MID mode changed on node 1 at node 2\'s next request', async () => {
      const m = await node1.addMerchant({ mids: [{ paymentMode: 'SMS' }] });
      const midId = await midOf(m);
      const n2 = node2Client();
      // Node 2 caches the merchant with its SMS MID.
      assert.equal(errorOf(await sale(n2, { auth: 'Y' }, m)).error_code, '204002');
      await heard.quiet();
      const from = heard.count;
      const patched = await adminCall(node1.baseUrl, 'PATCH', `/admin/v1/merchants/${m.id}/mids/${midId}`, ADMIN, { payment_mode: 'DMS' });
      assert.equal(patched.status, 200, patched.text);
      await heard.next(from);
      const auth = await sale(n2, { auth: 'Y' }, m);
      assert.equal(auth.body.status, 'PENDING', auth.text);
    });

    it('applies a setting changed on node 1 at node 2\'s next request', async () => {
      const m = await node1.addMerchant();
      const n2 = node2Client();
      assert.equal((await sale(n2, { payer_zip: undefined }, m)).body.result, 'SUCCESS');
      await heard.quiet();
      const from = heard.count;
      await adminCall(node1.baseUrl, 'PATCH', `/admin/v1/merchants/${m.id}/settings`, ADMIN, { payer_fields: { payer_zip: 'required' } });
      await heard.next(from);
      assert.deepEqual(messages(await sale(n2, { payer_zip: undefined }, m)), ['payer_zip: This value should not be blank.']);
    });

    it('catches a change whose notification never came, by the version poll', async () => {
      // A node that cannot LISTEN (its store gives no listen()): only the poll tells it.
      const deaf: Database = { kind: 'postgres', query: (text, params) => db2.query(text, params), transaction: (fn) => db2.transaction(fn), close: async () => undefined };
      let invalidations = 0;
      const watch = new DirectoryWatch(deaf, { invalidate: () => void (invalidations += 1) }, createLogger('silent'), 50);
      await watch.start();
      try {
        const m = await node1.addMerchant();
        const midId = await midOf(m);
        const before = invalidations;
        await adminCall(node1.baseUrl, 'POST', `/admin/v1/merchants/${m.id}/mids/${midId}/disable`, ADMIN);
        const deadline = Date.now() + 15_000;
        while (invalidations === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        assert.ok(invalidations > before, 'the poll saw the new version');
      } finally {
        await watch.stop();
      }
    });
  });
}

async function postForm(baseUrl: string, path: string, fields: Record<string, unknown>) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) body.append(k, String(v));
  const res = await fetch(baseUrl + path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() });
  return readAnswer(res);
}
