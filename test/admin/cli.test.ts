/**
 * The command-line tool run as an operator runs it: a child process on a store (the embedded one in a
 * DATA_DIR, or a PostgreSQL database in DATABASE_URL), then the gateway started on that store honours what it
 * made: the token authenticates with its role, the merchant exists, the revoked token is refused.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { storeKinds, TEST_DATABASE_URL, type StoreKind } from '../support/stores.ts';
import { openStore, assembleGateway, loadKeyring, type Gateway } from '../../src/gateway.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import type { Database } from '../../src/store/database.ts';
import { adminClient } from './support.ts';
import { nodeArgs } from '../support/node-script.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

function runCli(env: Record<string, string>, args: string[], stdin?: string): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [...nodeArgs('src/cli/admin.ts'), ...args], {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 120_000,
    }, (err, stdout, stderr) => {
      let json: any;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr, json });
    });
    if (stdin !== undefined) child.stdin?.end(stdin);
    else child.stdin?.end();
  });
}

/** A store the CLI and the test both open by configuration, as an operator's deployment would. */
async function deploymentStore(kind: StoreKind): Promise<{ env: Record<string, string>; dispose(): Promise<void> }> {
  if (kind === 'pglite') {
    const dir = await mkdtemp(path.join(tmpdir(), 'portcullis-cli-'));
    return { env: { DATA_DIR: dir }, dispose: () => rm(dir, { recursive: true, force: true }) };
  }
  const name = `cli_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    async dispose() {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

for (const { kind, skip } of await storeKinds()) {
  describe(`admin command-line tool (${kind})`, { skip }, () => {
    let store: Awaited<ReturnType<typeof deploymentStore>>;
    before(async () => {
      store = await deploymentStore(kind);
    });
    after(async () => store?.dispose());

    const made: { token?: string; revokedToken?: string; merchant?: any } = {};

    it('creates users, tokens and a merchant offline, and prints the token and password once', async () => {
      const user = await runCli(store.env, ['user', 'create', '--email', 'root@shop.example', '--role', 'admin', '--name', 'Root', '--password-stdin'], 'a long enough password\n');
      assert.equal(user.code, 0, user.stderr);
      assert.equal(user.json.role, 'admin');
      assert.equal(user.json.has_password, true);
      const ops = await runCli(store.env, ['user', 'create', '--email', 'ops@shop.example', '--role', 'support']);
      assert.equal(ops.code, 0, ops.stderr);

      const token = await runCli(store.env, ['token', 'create', '--email', 'root@shop.example', '--name', 'ci']);
      assert.equal(token.code, 0, token.stderr);
      assert.match(token.json.token, /^pcop_/);
      made.token = token.json.token;
      const second = await runCli(store.env, ['token', 'create', '--email', 'ops@shop.example']);
      made.revokedToken = second.json.token;
      const revoked = await runCli(store.env, ['token', 'revoke', '--email', 'ops@shop.example', '--prefix', second.json.prefix]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.ok(revoked.json.revoked_at);

      const listed = await runCli(store.env, ['token', 'list', '--email', 'root@shop.example']);
      assert.equal(listed.stdout.includes(made.token!), false, 'a token list never shows the token');
      const users = await runCli(store.env, ['user', 'list']);
      assert.deepEqual(users.json.users.map((u: { email: string }) => u.email), ['root@shop.example', 'ops@shop.example']);

      const merchant = await runCli(store.env, ['merchant', 'create', '--name', 'CLI Shop', '--live', '--notification-url', 'https://shop.example/cb', '--hash-algorithm', 'sha256']);
      assert.equal(merchant.code, 0, merchant.stderr);
      assert.equal(merchant.json.sandbox, false);
      assert.match(merchant.json.password, /^[0-9a-f]{48}$/);
      made.merchant = merchant.json;
      const list = await runCli(store.env, ['merchant', 'list', '--search', 'cli shop']);
      assert.deepEqual(list.json.merchants.map((m: { id: string }) => m.id), [merchant.json.id]);
      assert.equal(list.stdout.includes(merchant.json.password), false);
    });

    it('refuses bad input with a message and a non-zero exit code, changing nothing', async () => {
      const cases: [string[], number, RegExp][] = [
        [['user', 'create', '--email', 'x@shop.example', '--role', 'root'], 2, /--role must be one of/],
        [['user', 'create', '--email', 'root@shop.example', '--role', 'viewer'], 1, /email: This value is already used\./],
        [['user', 'update', '--email', 'root@shop.example', '--role', 'viewer'], 1, /role: The last enabled admin can not be demoted or disabled\./],
        [['merchant', 'create', '--name', 'Bad', '--notification-url', 'ftp://x.example'], 1, /notification_url: This value is not a valid URL\./],
        [['merchant', 'frobnicate'], 2, /Usage: npm run admin/],
      ];
      for (const [args, code, message] of cases) {
        const ran = await runCli(store.env, args);
        assert.equal(ran.code, code, `${args.join(' ')}: ${ran.stderr}`);
        assert.match(ran.stderr, message, args.join(' '));
      }
      // A common console password is refused as the admin API refuses it, and no user is made.
      const common = await runCli(store.env, ['user', 'create', '--email', 'weak@shop.example', '--role', 'viewer', '--password-stdin'], 'Password-Password\n');
      assert.equal(common.code, 2, common.stderr);
      assert.match(common.stderr, /the password is too common/);
      assert.equal((await runCli(store.env, ['user', 'list'])).json.users.some((u: { email: string }) => u.email === 'weak@shop.example'), false);
    });

    it('leaves a store the gateway serves: the CLI token works with its role, the revoked one does not', async () => {
      const config = { ...loadConfig(store.env), port: 0 };
      const db: Database = await openStore(config);
      let gateway: Gateway | undefined;
      try {
        // The deployment's vault keys, as main.ts loads them: the CLI sealed the merchant's password with them.
        gateway = await assembleGateway({ config, db, keyring: await loadKeyring(config, createLogger('silent')), logger: createLogger('silent') });
        assert.equal(gateway.bootstrap, undefined, 'no bootstrap admin once the CLI made users');
        const baseUrl = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
        const root = adminClient(baseUrl, made.token);
        const me = await root('GET', '/admin/v1/me');
        assert.equal(me.status, 200, me.text);
        assert.equal(me.body.user.email, 'root@shop.example');
        const merchant = await root('GET', `/admin/v1/merchants/${made.merchant.id}`);
        assert.equal(merchant.body.merchant_key, made.merchant.merchant_key);
        assert.equal((await adminClient(baseUrl, made.revokedToken)('GET', '/admin/v1/me')).status, 401);
        const audit = await root('GET', '/admin/v1/audit-log?object_type=merchant');
        assert.equal(audit.body.entries[0].action, 'merchant.create');
        assert.deepEqual(audit.body.entries[0].user, { id: null, name: `cli:${userInfo().username}` });
        if (kind === 'pglite') {
          // The embedded store is this process's now: the tool refuses it instead of corrupting it.
          const refused = await runCli(store.env, ['user', 'list']);
          assert.equal(refused.code, 1);
          assert.match(refused.stderr, new RegExp(`in use by process ${process.pid} \\(a running gateway\\?\\): stop it first, or use the admin API`));
        }
      } finally {
        await gateway?.close();
        await db.close();
      }
      if (kind === 'pglite') assert.equal((await runCli(store.env, ['user', 'list'])).code, 0, 'the lock is released on close');
    });
  });
}
