/**
 * The production build and its life cycle, as an operator sees them: `npm run build`, the compiled gateway
 * started without a TypeScript loader, its liveness and readiness probes, and a graceful stop on SIGTERM that
 * finishes the request and the callback in flight, accepts nothing new and exits 0.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { openPglite } from '../../src/store/database.ts';
import { storeKinds } from '../support/stores.ts';
import { buildOnce, createTestDatabase, ROOT, startChildGateway, type ChildGateway } from '../support/child-gateway.ts';
import { saleFields, signedSale } from '../s2s-card/support.ts';

const kinds = await storeKinds();

function form(fields: Record<string, unknown>): string {
  return new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, String(v)])).toString();
}

/** Polls until check() holds, for at most ms. */
async function eventually(check: () => Promise<boolean>, ms = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`${what} not reached within ${ms} ms`);
}

/** Sends a request's head and the first part of its body, and keeps the rest for later. */
/**
 * A request sent half: its head (asking for 100 Continue) and half its body. `started` resolves once the server
 * answered 100 Continue, that is once it accepted the connection and read the head: a stop from then on must let
 * the request finish (a fixed pause instead could let a busy machine stop the server before it took the connection).
 */
function startSlowRequest(port: number, body: string) {
  const socket = connect(port, '127.0.0.1');
  const head = `POST /post HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`;
  const cut = Math.floor(body.length / 2);
  socket.write(head + body.slice(0, cut));
  let received = '';
  let wake: () => void = () => {};
  const started = new Promise<void>((resolve) => (wake = resolve));
  socket.on('data', (d) => {
    received += d.toString('utf8');
    if (received.includes(' 100 Continue')) wake();
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return {
    started,
    async finish(): Promise<string> {
      socket.write(body.slice(cut));
      await closed;
      return received;
    },
  };
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe('npm run build', () => {
  test('compiles src/ to dist/ with the migrations and the pages\' assets beside the modules', () => {
    const r = buildOnce();
    assert.equal(r.status, 0, r.output);
    for (const file of ['main.js', 'store/migrations/001_initial.sql', 'web/assets/checkout.js', 'web/hosted-fields/hosted-fields.js']) {
      assert.ok(existsSync(path.join(ROOT, 'dist', file)), `dist/${file} missing`);
    }
  });
});

for (const { kind, skip } of kinds) {
  describe(`compiled gateway on ${kind}`, { skip }, () => {
    let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
    /** A merchant's callback endpoint that holds each callback until told to answer. */
    const held: ServerResponse[] = [];
    const arrived: string[] = [];
    const listener = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        arrived.push(body);
        held.push(res);
      });
    });
    let node: ChildGateway | undefined;

    before(async () => {
      assert.equal(buildOnce().status, 0, buildOnce().output);
      if (kind === 'postgres') database = await createTestDatabase();
      await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
      const notificationUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callbacks`;
      node = await startChildGateway({ databaseUrl: database?.url, env: { DEMO_NOTIFICATION_URL: notificationUrl } });
    });

    after(async () => {
      if (node && node.child.exitCode === null) node.kill('SIGKILL');
      for (const res of held) res.destroy();
      listener.close();
      await database?.drop();
    });

    test('runs from dist without a loader: /health is live, /ready reports the store and its migrations', async () => {
      const gw = node!;
      assert.ok(!gw.child.spawnargs.some((a) => a.includes('tsx')), gw.child.spawnargs.join(' '));
      const health = await fetch(`${gw.baseUrl}/health`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'ok' });
      const ready = await fetch(`${gw.baseUrl}/ready`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), { status: 'ok' });
      const page = await fetch(`${gw.baseUrl}/assets/checkout.js`);
      assert.equal(page.status, 200, 'web assets are found from dist');
    });

    test('SIGTERM: accepts nothing new, finishes the request and the callback in flight, exits 0', async () => {
      const gw = node!;
      const first = await fetch(`${gw.baseUrl}/post`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form(signedSale({ id: 'demo', ...gw.merchant }, saleFields())),
      });
      const sale = (await first.json()) as { trans_id: string; status: string };
      assert.equal(sale.status, 'SETTLED');
      await eventually(async () => held.length === 1, 15_000, 'the callback reaching the merchant');

      const slowFields = saleFields();
      const slow = startSlowRequest(gw.port, form(signedSale({ id: 'demo', ...gw.merchant }, slowFields)));
      await slow.started;
      gw.kill('SIGTERM');
      await eventually(() => refused(gw.port), 10_000, 'the listener closing');
      assert.equal(gw.child.exitCode, null, 'still draining while work is in flight');

      const answer = await slow.finish();
      assert.match(answer, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /, answer);
      assert.match(answer, /connection: close/i);
      assert.match(answer, /"status":"SETTLED"/);

      await new Promise((r) => setTimeout(r, 300));
      assert.equal(gw.child.exitCode, null, 'waits for the callback in flight');
      held[0]!.end('OK');
      assert.equal(await gw.exited, 0, gw.output.slice(-20).join('\n'));
      assert.ok(gw.output.some((l) => l.includes('"msg":"stopped"')), 'logged its stop');

      const rows = await readStore(kind, database?.url, gw.dataDir, async (q) => ({
        callback: await q<{ status: string; locked_until: Date | null }>('SELECT status, locked_until FROM callbacks WHERE payment_id = $1', [sale.trans_id]),
        slow: await q<{ status: string }>('SELECT status FROM payments WHERE order_id = $1', [slowFields.order_id]),
      }));
      assert.deepEqual(rows.callback.map((r) => [r.status, r.locked_until]), [['delivered', null]]);
      assert.equal(rows.slow.length, 1, 'the request finished during the drain is stored');
    });
  });
}

type Query = <T>(text: string, params?: unknown[]) => Promise<T[]>;

/** Reads the store the stopped process left, as the next process would. */
async function readStore<R>(kind: string, url: string | undefined, dataDir: string, read: (q: Query) => Promise<R>): Promise<R> {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await read(async (text, params) => (await client.query(text, params)).rows);
    } finally {
      await client.end();
    }
  }
  const db = await openPglite(path.join(dataDir, 'pglite'));
  try {
    return await read((text, params) => db.query(text, params));
  } finally {
    await db.close();
  }
}
