/**
 * Runner processes killed for real: two runners in their own processes charge the same due payments side by
 * side; one is killed with SIGKILL mid-run and another starts in its place. No payment is charged twice (each
 * process's connector writes every charge to disk before answering), none is missed. PostgreSQL only: an
 * embedded PGlite store belongs to one process.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { postgresUnavailable, TEST_DATABASE_URL } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { assertExactlyOnce, ledger, resolved, seedChains } from './support.ts';
import { dayAwayFromMidnight } from '../support/utc-day.ts';
import { balanceMismatches, currencySums } from '../../src/store/ledger-repo.ts';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'runner-process.ts');
const CHAINS = 60;
const LEASE_MS = 1_500;

const skip = (await postgresUnavailable()) ?? false;

describe('schedule runner processes killed mid-run (postgres)', { skip }, () => {
  let gw: TestGateway;
  let dir: string;
  const children: ChildProcess[] = [];

  before(async () => {
    gw = await startTestGateway('postgres', { notificationUrl: 'http://127.0.0.1:9/callbacks' });
    dir = mkdtempSync(path.join(tmpdir(), 'runner-kill-'));
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await gw?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const callsFile = (name: string) => path.join(dir, `${name}.calls`);
  const callsOf = (name: string): string[] => (existsSync(callsFile(name)) ? readFileSync(callsFile(name), 'utf8').split('\n').filter(Boolean) : []);

  async function runner(name: string, delayMs: number, all: string[]): Promise<ChildProcess> {
    const [{ s: schema }] = (await gw.store.db.query<{ s: string }>('SELECT current_schema() AS s')) as [{ s: string }];
    const keyring = gw.gateway.ctx.keyring;
    const key = keyring.keys.get(keyring.activeKeyId)?.expose().toString('base64') ?? '';
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env, RUNNER_DB_URL: TEST_DATABASE_URL, RUNNER_SCHEMA: schema, RUNNER_VAULT_KEY: key, RUNNER_CALLS: callsFile(name),
        RUNNER_ALL_CALLS: all.map(callsFile).join(','), RUNNER_DELAY_MS: String(delayMs), RUNNER_LEASE_MS: String(LEASE_MS),
      },
    });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', () => resolve());
      child.once('exit', (code) => reject(new Error(`runner ${name} exited with ${code}`)));
    });
    return child;
  }

  async function until(condition: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('charges every due payment once when a runner is killed with SIGKILL mid-run and another is started', async () => {
    // Seeding and the runs (up to 90 s) on one UTC day: the chains' first payments fall due on it.
    const today = await dayAwayFromMidnight(120_000);
    const { scheduleId } = await seedChains(gw, CHAINS, today, { interval_length: '1', interval_unit: 'month', payments_count: '1' });
    const names = ['a', 'b', 'c'];
    // a is slow at the connector, so it is killed with charges in flight; b runs beside it the whole time.
    const [a] = await Promise.all([runner('a', 120, names), runner('b', 10, names)]);
    await until(() => callsOf('a').length >= 2, 30_000, 'runner a to charge');
    const inFlight = (await ledger(gw.store.db, scheduleId)).charges.filter((c) => c.pending !== null).length;
    a!.kill('SIGKILL');
    await new Promise((r) => a!.once('exit', r));
    await runner('c', 10, names);
    await until(async () => {
      const l = await ledger(gw.store.db, scheduleId);
      return l.charges.length === CHAINS && l.charges.every(resolved);
    }, 60_000, 'every payment to be resolved');
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    const calls = names.flatMap(callsOf);
    assert.ok(inFlight > 0, 'runner a was killed mid-run');
    assert.ok(callsOf('a').length > 0 && callsOf('b').length > 0, 'both runners charged side by side');
    const charged = await ledger(gw.store.db, scheduleId);
    assertExactlyOnce(charged, calls, 1);
    // The money ledger (issue 27): every settled charge posted exactly once (its sale's two legs), in the batch
    // statement that settled it, whichever runner wrote it; nothing for the others; the books balance.
    const sales = await gw.store.db.query<{ payment_id: string; legs: number }>(
      "SELECT payment_id, count(*)::int AS legs FROM ledger_entries WHERE event = 'sale' AND payment_id = ANY($1::text[]) GROUP BY payment_id",
      [charged.charges.map((c) => c.paymentId)],
    );
    const legs = new Map(sales.map((r) => [r.payment_id, r.legs]));
    for (const c of charged.charges) assert.equal(legs.get(c.paymentId) ?? 0, c.status === 'settled' ? 2 : 0, `${c.paymentId} (${c.status}) posted once`);
    assert.ok(charged.charges.some((c) => c.status === 'settled'));
    for (const [currency, sum] of await currencySums(gw.store.db)) assert.equal(sum, 0n, currency);
    assert.deepEqual(await balanceMismatches(gw.store.db), []);
  });
});
