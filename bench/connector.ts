/**
 * `npm run bench` (connector part): the S2S SALE through the `akurateco` connector (our gateway forwarding to an
 * upstream Portcullis) beside the same SALE sent straight to the upstream, in one run, both on PostgreSQL, each
 * gateway a process of its own. Both loads are paced at the same rate (BENCH_CONNECTOR_RATE, default 150 req/s,
 * BENCH_CONNECTOR_SECONDS, default 10), one after the other, each after a checkpoint; the report gives the added
 * p50 and p99 and the CPU time per request of our process (and of the upstream's, which serves both loads).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pacedLoad, type PacedLoadResult } from './paced-load.ts';
import { cpuSnapshot, machineCpuTimes } from './cpu-usage.ts';
import { card6_4, s2sCard, s2sHash } from '../src/domain/signatures.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const rate = Number(process.env.BENCH_CONNECTOR_RATE ?? 150);
const seconds = Number(process.env.BENCH_CONNECTOR_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Started { child: ChildProcess; address: string; merchant: { key: string; password: string } }

async function start(role: 'upstream' | 'ours', env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'connector-server.ts'), role], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
  });
  const { address, merchant } = JSON.parse(line) as { address: string; merchant: { key: string; password: string } };
  return { child, address, merchant };
}

const stop = async (s: Started) => {
  s.child.stdin!.end();
  await new Promise((resolve) => s.child.once('exit', resolve));
};

function saleForm(merchant: { key: string; password: string }): string {
  return new URLSearchParams({
    action: 'SALE', client_key: merchant.key, order_id: 'bench-sale', order_amount: '1.99', order_currency: 'USD', order_description: 'Bench sale',
    card_number: '4111111111111111', card_exp_month: '01', card_exp_year: '2038', card_cvv2: '123',
    payer_first_name: 'John', payer_last_name: 'Doe', payer_email: 'doe@example.com', payer_phone: '199999999', payer_ip: '123.123.123.123',
    term_url_3ds: 'https://shop.example/return',
    hash: s2sHash(s2sCard.f1('doe@example.com', merchant.password, card6_4('4111111111111111'))),
  }).toString();
}

async function checkpoint(): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    await client.query('CHECKPOINT');
  } catch {
    // not a superuser: the loads then share whatever checkpoint comes
  } finally {
    await client.end().catch(() => undefined);
  }
}

interface Measured { result: PacedLoadResult; oursUs: number; upstreamUs: number }

async function measure(url: string, body: string, ours: Started, upstream: Started): Promise<Measured> {
  await checkpoint();
  const a = cpuSnapshot(ours.child.pid ?? 0);
  const b = cpuSnapshot(upstream.child.pid ?? 0);
  const result = await pacedLoad({ url, body, contentType: 'application/x-www-form-urlencoded', rate, seconds, connections });
  const a2 = cpuSnapshot(ours.child.pid ?? 0);
  const b2 = cpuSnapshot(upstream.child.pid ?? 0);
  const perRequest = (x: typeof a, y: typeof a) => (x.server === undefined || y.server === undefined ? Number.NaN : (y.server - x.server) / Math.max(1, result.completed));
  return { result, oursUs: perRequest(a, a2), upstreamUs: perRequest(b, b2) };
}

async function main() {
  const upstream = await start('upstream');
  const ours = await start('ours', { UPSTREAM_URL: upstream.address, UPSTREAM_KEY: upstream.merchant.key, UPSTREAM_PASSWORD: upstream.merchant.password });
  try {
    const direct = saleForm(upstream.merchant);
    const through = saleForm(ours.merchant);
    // One SALE each, checked, then a short warm-up of both paths (JIT, pools, keep-alive sockets).
    for (const [url, body] of [[`${upstream.address}/post`, direct], [`${ours.address}/post`, through]] as const) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
      const answer = (await res.json()) as { result?: string };
      if (answer.result !== 'SUCCESS') throw new Error(`SALE at ${url} answered ${JSON.stringify(answer)}`);
      await pacedLoad({ url, body, contentType: 'application/x-www-form-urlencoded', rate, seconds: 2, connections });
    }
    const before = machineCpuTimes();
    const straight = await measure(`${upstream.address}/post`, direct, ours, upstream);
    const chained = await measure(`${ours.address}/post`, through, ours, upstream);
    const after = machineCpuTimes();
    const steal = (after.steal - before.steal) / Math.max(1, after.total - before.total);
    const row = (name: string, m: Measured) => `${name.padEnd(34)} ${m.result.rps.toFixed(0).padStart(6)} ${m.result.p50.toFixed(1).padStart(7)} ${m.result.p99.toFixed(1).padStart(8)} ${String(m.result.errors + m.result.non2xx).padStart(8)} ${m.oursUs.toFixed(0).padStart(9)} ${m.upstreamUs.toFixed(0).padStart(10)}`;
    console.log(`\nConnector benchmark: S2S SALE through akurateco vs straight to the upstream, PostgreSQL, ${rate} req/s evenly paced, ${seconds} s each (Node ${process.version})`);
    console.log(`CPU taken by the host (steal) during the run: ${(steal * 100).toFixed(1)} %`);
    console.log(`${''.padEnd(34)} ${'served'.padStart(6)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(8)} ${'ours µs'.padStart(9)} ${'upstream µs'.padStart(10)}  (CPU per request)`);
    console.log(row('SALE straight to the upstream', straight));
    console.log(row('SALE through our akurateco MID', chained));
    console.log(`Added by our gateway: p50 ${(chained.result.p50 - straight.result.p50).toFixed(1)} ms, p99 ${(chained.result.p99 - straight.result.p99).toFixed(1)} ms, CPU ${chained.oursUs.toFixed(0)} µs per request in our process`);
  } finally {
    await stop(ours);
    await stop(upstream);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
