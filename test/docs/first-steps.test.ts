/**
 * docs/merchants/first-steps.md followed literally, on both stores: the gateway started with the page's `npm start`
 * line (its environment taken from the page; port, data directory and database chosen by the test), the SDK
 * packed and installed into an empty shop with the page's commands, and the page's shop.mjs run with plain
 * Node: a settled payment and a verified callback, in fewer than 30 lines of merchant code.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { storeKinds, TEST_DATABASE_URL } from '../support/stores.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const page = readFileSync(path.join(root, 'docs/merchants/first-steps.md'), 'utf8');
const blocks = [...page.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, body: m[2]! }));
const startLine = blocks.flatMap((b) => b.body.split('\n')).find((l) => l.endsWith('npm start'));
const installBlock = blocks.find((b) => b.lang === 'sh' && b.body.includes('npm pack'));
const shopCode = blocks.find((b) => b.lang === 'js' && b.body.includes("from '@portcullis/node'"))?.body;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs until `pattern` appears on stdout; answers everything printed so far. */
function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${out}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (pattern.test(out)) {
        clearTimeout(timer);
        resolve(out);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!pattern.test(out)) reject(new Error(`exited with ${code} before ${pattern}; output:\n${out}`));
    });
  });
}

let shop: string | undefined;

/**
 * Step 2 of the page, as written, in a directory of the test's own in place of /tmp (so that parallel runs do
 * not share a shop), then the page's shop.mjs; once per store.
 */
function prepareShop(): string {
  if (shop) return shop;
  const tmp = mkdtempSync(path.join(tmpdir(), 'first-steps-'));
  execFileSync('bash', ['-euo', 'pipefail', '-c', installBlock!.body.replaceAll('/tmp', tmp)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  shop = path.join(tmp, 'shop');
  writeFileSync(path.join(shop, 'shop.mjs'), shopCode!);
  return shop;
}

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('docs/merchants/first-steps.md', () => {
  it('has the start line, the install commands and a merchant program under 30 lines', () => {
    assert.ok(startLine, 'a line ending in npm start');
    assert.ok(installBlock, 'the SDK install commands');
    assert.ok(shopCode, 'shop.mjs');
    const lines = shopCode.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('//'));
    assert.ok(lines.length < 30, `${lines.length} lines of merchant code`);
  });

});

for (const { kind, skip } of kinds) {
  describe(`first steps followed literally (${kind})`, { skip }, () => {
    let gateway: ChildProcess | undefined;
    let dataDir: string;
    let database: string | undefined;

    after(async () => {
      if (gateway && gateway.exitCode === null) {
        gateway.kill('SIGTERM');
        await new Promise((resolve) => gateway!.once('exit', resolve));
      }
      rmSync(dataDir, { recursive: true, force: true });
      if (shop) rmSync(path.dirname(shop), { recursive: true, force: true });
      shop = undefined;
      if (database) {
        const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await admin.connect();
        await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
        await admin.end();
      }
    });

    it('npm start, then shop.mjs: a settled payment and its verified callback', async () => {
      dataDir = mkdtempSync(path.join(tmpdir(), 'first-steps-data-'));
      // Each port is free once closed: the second may be the first again.
      const port = await freePort();
      let callbackPort = await freePort();
      while (callbackPort === port) callbackPort = await freePort();
      // The page's environment, with the callback port the test picked.
      const env: Record<string, string> = Object.fromEntries([...startLine!.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
      env.DEMO_NOTIFICATION_URL = env.DEMO_NOTIFICATION_URL!.replace(':4000/', `:${callbackPort}/`);
      const storeEnv: Record<string, string> = { DATA_DIR: dataDir };
      if (kind === 'postgres') {
        database = `first_steps_${randomBytes(5).toString('hex')}`;
        const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await admin.connect();
        await admin.query(`CREATE DATABASE "${database}"`);
        await admin.end();
        const url = new URL(TEST_DATABASE_URL);
        url.pathname = `/${database}`;
        storeEnv.DATABASE_URL = url.toString();
      }
      // `npm start` is `node --import tsx src/main.ts`; run it directly so the test can stop the process it started.
      const scripts = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
      assert.equal(scripts.start, 'node --import tsx src/main.ts');
      gateway = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: root,
        env: { ...process.env, NODE_OPTIONS: '', ...env, ...storeEnv, PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const banner = await waitForOutput(gateway, /Portcullis is running at/, 90_000);
      assert.match(banner, /merchant_key: demo-key/);
      // The first start's admin signs in to the console with the password printed once.
      const printed = /sign in as (\S+) with the password \(shown once; change it on the Users screen\): (\S+)/.exec(banner);
      assert.ok(printed, banner);
      const signIn = await fetch(`http://127.0.0.1:${port}/admin/v1/session`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: printed[1], password: printed[2] }),
      });
      assert.equal(signIn.status, 201, await signIn.clone().text());
      assert.match(signIn.headers.get('set-cookie') ?? '', /^portcullis_session=/);

      const shop = spawn(process.execPath, ['shop.mjs'], {
        cwd: prepareShop(),
        env: { ...process.env, NODE_OPTIONS: '', PORTCULLIS_URL: `http://127.0.0.1:${port}`, CALLBACK_PORT: String(callbackPort) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const out = await waitForOutput(shop, /callback \S+ \S+ verified/, 60_000);
      const payment = /payment (\S+) (\S+)/.exec(out);
      const callback = /callback (\S+) (\S+) verified/.exec(out);
      assert.equal(payment?.[2], 'SETTLED', out);
      assert.equal(callback?.[1], payment?.[1], 'the callback of that payment');
      assert.equal(callback?.[2], 'SETTLED');
      await new Promise((resolve) => (shop.exitCode === null ? shop.once('exit', resolve) : resolve(undefined)));
      assert.equal(shop.exitCode, 0);
    });
  });
}
