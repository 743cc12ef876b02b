/**
 * The gateway as an operator runs it: `npm run build`, then `node dist/main.js` in its own process, configured
 * by its environment only. For tests of the production build, of shutdown by signal and of several nodes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { TEST_DATABASE_URL } from './stores.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let built: { status: number | null; output: string } | undefined;

/** Runs `npm run build` once per test process (its script, without npm). */
export function buildOnce(): { status: number | null; output: string } {
  built ??= (() => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, encoding: 'utf8' });
    return { status: r.status, output: `${r.stdout}${r.stderr}` };
  })();
  return built;
}

/** A database of its own on the test server (the compiled gateway uses the URL as an operator gives it). */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `portcullis_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface ChildGateway {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  merchant: { key: string; password: string };
  dataDir: string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  /** Lines the process printed so far (pino JSON and the welcome text). */
  output: string[];
  kill(signal?: NodeJS.Signals): void;
}

export interface ChildGatewayOptions {
  /** DATABASE_URL; absent: embedded PGlite in a fresh DATA_DIR. */
  databaseUrl?: string;
  env?: Record<string, string>;
  merchant?: { key: string; password: string };
  dataDir?: string;
}

/** Data directories made here, removed when the test process exits (a restart test reuses one across children). */
const madeDirs: string[] = [];
process.once('exit', () => {
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
});

/** Starts `node dist/main.js` (no TypeScript loader) on a random port; resolves once it listens. */
export async function startChildGateway(opts: ChildGatewayOptions = {}): Promise<ChildGateway> {
  const merchant = opts.merchant ?? { key: randomUUID(), password: randomBytes(16).toString('hex') };
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'portcullis-node-'));
  if (!opts.dataDir) madeDirs.push(dataDir);
  const { NODE_OPTIONS: _loader, ...inherited } = process.env;
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/main.js')], {
    cwd: ROOT,
    env: {
      ...inherited,
      // The compiled build as production runs it, in development mode: the tests need the sandbox demo merchant.
      NODE_ENV: 'production',
      GATEWAY_MODE: 'development',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: opts.databaseUrl ?? '',
      DEMO_MERCHANT_KEY: merchant.key,
      DEMO_MERCHANT_PASSWORD: merchant.password,
      ADMIN_TOKEN: 'operator-token-for-tests',
      LOG_LEVEL: 'info',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    createInterface({ input: child.stderr! }).on('line', (l) => output.push(l));
    lines.on('line', (line) => {
      output.push(line);
      const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      if (m) resolve(Number(m[1]));
    });
    void exited.then((code) => reject(new Error(`gateway exited (${code}) before listening:\n${output.join('\n')}`)));
  });
  return {
    child,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    merchant,
    dataDir,
    exited,
    output,
    kill: (signal = 'SIGTERM') => void child.kill(signal),
  };
}
