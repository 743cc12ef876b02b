/**
 * A first start on PostgreSQL (DATABASE_URL): nothing but the first start's credentials file needs DATA_DIR, so it
 * may not exist yet (it is made, mode 0700) or may not be writable (a read-only container): the gateway starts
 * either way and prints the credentials; only the file is missing in the second case. Each start gets a schema of
 * its own through the URL's `options`.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway } from '../../src/start.ts';
import { postgresUnavailable, TEST_DATABASE_URL } from '../support/stores.ts';

const skip = (await postgresUnavailable()) ?? false;

async function onSchema(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('first start on PostgreSQL without a usable DATA_DIR (postgres)', { skip }, () => {
  const schemas: string[] = [];
  const root = mkdtempSync(path.join(tmpdir(), 'first-start-pg-'));
  after(async () => {
    for (const schema of schemas) await onSchema(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    rmSync(root, { recursive: true, force: true });
  });

  /** Starts the gateway as `npm run start:prod` would on a fresh database, with DATA_DIR as given; stops it. */
  async function firstStart(dataDir: string): Promise<{ welcome: string; file: string | undefined }> {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    schemas.push(schema);
    await onSchema(`CREATE SCHEMA "${schema}"`);
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const config = loadConfig({
      DATABASE_URL: url.toString(), DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', WORKERS: 'off',
      VAULT_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    });
    const printed: string[] = [];
    const started = await startGateway(config, { logger: createLogger('silent'), print: (text) => printed.push(text), terminal: false });
    try {
      assert.equal((await started.gateway.app.inject({ method: 'GET', url: '/ready' })).statusCode, 200);
      assert.deepEqual(printed, [started.welcome]);
      return { welcome: started.welcome, file: started.credentialsFile };
    } finally {
      await started.stop();
    }
  }

  it('makes DATA_DIR (0700) and keeps the credentials there (0600)', async () => {
    const dataDir = path.join(root, 'not', 'there', 'yet');
    const { welcome, file } = await firstStart(dataDir);
    assert.equal(file, path.join(dataDir, 'first-start-credentials.txt'));
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    assert.equal(statSync(file!).mode & 0o777, 0o600);
    const token = /API token \(Authorization: Bearer\): (\S+)/.exec(readFileSync(file!, 'utf8'))?.[1];
    assert.ok(token && welcome.includes(token), 'the file holds the token the welcome printed');
  });

  it('starts and prints the credentials when DATA_DIR cannot be made', async () => {
    const blocker = path.join(root, 'a-file');
    writeFileSync(blocker, 'not a directory');
    const { welcome, file } = await firstStart(path.join(blocker, 'data'));
    assert.equal(file, undefined);
    assert.equal(existsSync(path.join(blocker, 'data')), false);
    assert.match(welcome, /API token \(shown once, keep it\): \S+/);
    assert.doesNotMatch(welcome, /These credentials are also in/);
  });
});
