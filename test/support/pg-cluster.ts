/**
 * Throw-away PostgreSQL 15 clusters under /tmp (never the shared server at 5432): a primary and a streaming
 * standby made with pg_basebackup, run as the `postgres` user with Debian's binaries. For tests that need a
 * real replica; unavailable() says why when this machine cannot make one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, chmodSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Runs a PostgreSQL tool as the postgres user (initdb refuses root). */
function asPostgres(tool: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const cmd = asRoot ? 'runuser' : path.join(PG_BIN, tool);
  const argv = asRoot ? ['-u', 'postgres', '--', path.join(PG_BIN, tool), ...args] : args;
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed: ${r.stderr || r.stdout}`);
}

export function clustersUnavailable(): string | undefined {
  if (!existsSync(path.join(PG_BIN, 'initdb'))) return `no PostgreSQL binaries at ${PG_BIN}`;
  if (process.platform !== 'linux') return 'needs Linux';
  if (process.getuid?.() === 0 && spawnSync('id', ['postgres']).status !== 0) return 'running as root without a postgres user';
  return undefined;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

export interface Cluster {
  port: number;
  dir: string;
  url: string;
  stop(): void;
}

function start(dir: string, port: number): Cluster {
  asPostgres('pg_ctl', ['-D', dir, '-l', path.join(dir, 'log'), '-w', '-o', `-p ${port} -k /tmp -c listen_addresses=127.0.0.1`, 'start']);
  return {
    port,
    dir,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        asPostgres('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']);
      } catch {
        /* already stopped */
      }
    },
  };
}

/** A primary and its streaming standby (asynchronous), both started. */
export async function primaryWithStandby(): Promise<{ primary: Cluster; standby: Cluster; remove(): void }> {
  const root = mkdtempSync(path.join(tmpdir(), 'portcullis-pg-'));
  chmodSync(root, 0o777);
  const primaryDir = path.join(root, 'primary');
  const standbyDir = path.join(root, 'standby');
  asPostgres('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync']);
  const primary = start(primaryDir, await freePort());
  asPostgres('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', standbyDir, '-R', '-X', 'stream', '--no-sync']);
  const standby = start(standbyDir, await freePort());
  return {
    primary,
    standby,
    remove() {
      standby.stop();
      primary.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
