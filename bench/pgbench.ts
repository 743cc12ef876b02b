/**
 * PostgreSQL's own rate for a payment-shaped write, measured beside ours in the same run of `npm run bench`:
 * pgbench (prepared statements, 16 clients, 2 threads) running a script of one INSERT ... ON CONFLICT DO
 * NOTHING and one UPDATE of the same row, each autocommitted, on a scratch table of the bare endpoint's shape.
 * The S2S SALE writes a payment row and then settles it, so this is the ceiling the database sets for it on
 * this machine, at this moment: a ratio to it means something on a shared machine, an absolute rate does not.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export const PGBENCH_ARGS = ['-n', '-M', 'prepared', '-c', '16', '-j', '2'] as const;

/** The script over a table: ids random over 2^62, so a collision (ON CONFLICT DO NOTHING) is all but impossible. */
export function pgbenchScript(table: string): string {
  return [
    '\\set id random(1, 4611686018427387903)',
    `INSERT INTO ${table} (id, amount, status) VALUES (:id, 1000, 'prepare') ON CONFLICT DO NOTHING;`,
    `UPDATE ${table} SET status = 'settled', updated_at = now() WHERE id = :id AND status = 'prepare';`,
    '',
  ].join('\n');
}

/** The transaction rate pgbench printed (`tps = 4317.123456 (without initial connection time)`), if any. */
export function parsePgbenchTps(output: string): number | undefined {
  const match = /^tps = ([\d.]+) \(without initial connection time\)/m.exec(output) ?? /^tps = ([\d.]+)/m.exec(output);
  return match ? Number(match[1]) : undefined;
}

export interface Pgbench {
  /** Runs the script for `seconds` (at least 1); the rate, or why there is none. */
  run(seconds: number): { tps: number } | { error: string };
  /** Drops the scratch table and the script. */
  close(): Promise<void>;
}

/** Whether pgbench is on the PATH: its version line, or undefined. */
export function pgbenchVersion(): string | undefined {
  const probe = spawnSync('pgbench', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? probe.stdout.trim() : undefined;
}

/** Creates the scratch table and script; the connection string is handed to pgbench as its database name (libpq expands it). */
export async function preparePgbench(databaseUrl: string): Promise<Pgbench> {
  const table = `portcullis_pgbench_${randomBytes(4).toString('hex')}`;
  const run = (sql: string) => withClient(databaseUrl, (client) => client.query(sql));
  await run(`CREATE TABLE ${table} (id text PRIMARY KEY, amount bigint NOT NULL, status text NOT NULL, updated_at timestamptz)`);
  const dir = mkdtempSync(path.join(tmpdir(), 'portcullis-pgbench-'));
  const script = path.join(dir, 'sale.sql');
  writeFileSync(script, pgbenchScript(table));
  return {
    run(seconds) {
      const result = spawnSync('pgbench', [...PGBENCH_ARGS, '-T', String(Math.max(1, Math.round(seconds))), '-f', script, databaseUrl], { encoding: 'utf8' });
      const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
      const tps = parsePgbenchTps(output);
      if (result.status === 0 && tps !== undefined) return { tps };
      return { error: result.error?.message ?? (output.trim().split('\n').pop() || `pgbench exited with ${result.status}`) };
    },
    async close() {
      rmSync(dir, { recursive: true, force: true });
      await run(`DROP TABLE IF EXISTS ${table}`);
    },
  };
}

async function withClient<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
