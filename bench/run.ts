/**
 * `npm run bench`: loads the gateway and the bare INSERT+UPDATE endpoint in one run, against PostgreSQL,
 * from a separate process, and prints req/s, p99 and the ratio to the bare endpoint.
 *
 * Virtual machines share their cores with neighbours, so a load measured a minute after another can see a
 * different machine. The endpoints are therefore measured in rounds, each round loading the bare endpoint
 * and then the gateway's, and every ratio is taken within its round; the figures printed are the medians
 * over the rounds, with the CPU time the host took from this machine ("steal") during the run.
 * The latency loads also print the CPU time per request of the server process, of PostgreSQL (all of its
 * processes, and apart the backends of the server's own connections: on a shared PostgreSQL the first counts
 * other clients' work too) and of the load generator (bench/cpu-usage.ts): steadier than a p99, and the figure
 * that moves when the work per payment does.
 * Each round also runs pgbench (bench/pgbench.ts) on the same PostgreSQL right after the gateway's loads, so
 * the S2S SALE is set against the database's own rate for the same two writes, measured minutes apart at most.
 * Both servers run from the compiled build, as production runs the gateway (`npm run start:prod`): the bench builds
 * dist/ first (bench/compiled.ts) and says so; BENCH_TSX=1 runs them from src/ under tsx instead.
 * BENCH_SECONDS (default 5 per load), BENCH_ROUNDS (default 3) and BENCH_CONNECTIONS (default 50) tune it.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { pacedLoad, type PacedLoadResult } from './paced-load.ts';
import { connectionPorts, cpuPerRequest, cpuSnapshot, machineCpuTimes, type CpuPerRequest } from './cpu-usage.ts';
import { PGBENCH_ARGS, pgbenchVersion, preparePgbench, type Pgbench } from './pgbench.ts';
import { buildDist, compiledServer } from './compiled.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const tsx = process.env.BENCH_TSX === '1';
const here = path.dirname(fileURLToPath(import.meta.url));
const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Figures {
  rps: number;
  /** Requests answered 2xx. */
  ok: number;
  p99: number;
  errors: number;
  non2xx: number;
}

interface Fixtures {
  gateway: string;
  bare: string;
  sessionBody: unknown;
  statusBody: unknown;
  saleForm: string;
  saleFormWithCallback: string;
}

async function load(url: string, body: unknown): Promise<Figures> {
  const form = typeof body === 'string';
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: form ? body : JSON.stringify(body ?? {}),
    connections,
    duration: seconds,
  });
  return { rps: result.requests.average, ok: result['2xx'], p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
}

/** A ratio as the percentage it adds or takes away, signed: 1.05 is +5.0, 0.97 is -3.0. */
const signedPercent = (ratio: number): string => `${ratio >= 1 ? '+' : '-'}${(Math.abs(ratio - 1) * 100).toFixed(1)}`;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** The endpoints measured for throughput in every round, in order; the first is the yardstick. */
const THROUGHPUT = [
  ['bare INSERT+UPDATE', (fx: Fixtures) => load(`${fx.bare}/bare`, {})],
  ['POST /api/v1/session', (fx: Fixtures) => load(`${fx.gateway}/api/v1/session`, fx.sessionBody)],
  ['POST /api/v1/payment/status', (fx: Fixtures) => load(`${fx.gateway}/api/v1/payment/status`, fx.statusBody)],
  ['S2S CARD SALE (no 3DS)', (fx: Fixtures) => load(`${fx.gateway}/post`, fx.saleForm)],
  ['S2S SALE, ledger switched off', (fx: Fixtures) => withoutLedger(fx, () => load(`${fx.gateway}/post`, fx.saleForm))],
  ['S2S SALE, 50 risk rules', (fx: Fixtures) => withRiskRules(fx, () => load(`${fx.gateway}/post`, fx.saleForm))],
  // The SALE's two database writes alone, replayed through the gateway's store (bench/sale-writes.ts).
  ["the SALE's writes alone", (fx: Fixtures) => load(`${fx.bare}/sale-writes`, {})],
] as const;

/** Where the SALE's writes alone are in THROUGHPUT. */
const WRITES_ALONE = 6;

/** Runs a load with 50 active platform risk rules, 3 of them velocity (bench/risk-rules.ts), then the defaults again (issue 26). */
async function withRiskRules<T>(fx: Fixtures, run: () => Promise<T>): Promise<T> {
  await fetch(`${fx.bare}/risk/fifty`, { method: 'POST' });
  try {
    return await run();
  } finally {
    await fetch(`${fx.bare}/risk/default`, { method: 'POST' });
  }
}

/** Runs a load with the gateway's ledger posting switched off (the baseline of issue 27's ledger targets). */
async function withoutLedger<T>(fx: Fixtures, run: () => Promise<T>): Promise<T> {
  await fetch(`${fx.bare}/ledger/off`, { method: 'POST' });
  try {
    return await run();
  } finally {
    await fetch(`${fx.bare}/ledger/on`, { method: 'POST' });
  }
}

type PacedFigures = PacedLoadResult & { cpu: CpuPerRequest };

interface Round {
  throughput: Figures[];
  /** pgbench's transactions per second in this round, or why there is none. */
  pgbench: { tps: number } | { error: string };
  halfRate: number;
  latency: { bare: PacedFigures; sale: PacedFigures; saleWithoutLedger: PacedFigures; writesAlone: PacedFigures };
}

/**
 * A load at full speed leaves PostgreSQL with gigabytes of dirty pages and write-ahead log behind it, and the
 * checkpoint that writes them out would land in whichever load comes next. Each latency load therefore
 * starts from a checkpointed database, as pgbench's guidance has it, so it measures its own writes only.
 */
let checkpointRefused: string | undefined;
async function checkpoint(): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    await client.query('CHECKPOINT');
  } catch (err) {
    checkpointRefused = (err as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The PostgreSQL backends of the server process's connections (the gateway's pool and the bare endpoint's; the
 * one idle during a load adds next to nothing): their CPU is the database work of the load alone, where the
 * "postgres" column also counts whatever other clients of a shared server do meanwhile. Undefined where /proc
 * or pg_stat_activity cannot tell.
 */
async function ownBackends(serverPid: number): Promise<number[] | undefined> {
  const ports = connectionPorts(serverPid, Number(new URL(databaseUrl).port || 5432));
  if (ports.length === 0) return undefined;
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[])', [ports]);
    return rows.map((r) => r.pid);
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function measureRound(fx: Fixtures, serverPid: number, pgbench: Pgbench | undefined): Promise<Round> {
  const throughput: Figures[] = [];
  for (const [, measure] of THROUGHPUT) throughput.push(await measure(fx));
  const pgbenchFigure = pgbench ? pgbench.run(seconds) : { error: pgbenchMissing };
  // Latency at half the bare endpoint's throughput (issue 3: p99 under 25 ms there), under evenly paced load.
  const halfRate = Math.round(throughput[0]!.rps / 2);
  const paced = async (url: string, body: string, contentType: string): Promise<PacedFigures> => {
    await checkpoint();
    const backends = await ownBackends(serverPid);
    const before = cpuSnapshot(serverPid, backends);
    const result = await pacedLoad({ url, body, contentType, rate: halfRate, seconds, connections });
    return { ...result, cpu: cpuPerRequest(before, cpuSnapshot(serverPid, backends), result.completed) };
  };
  return {
    throughput,
    pgbench: pgbenchFigure,
    halfRate,
    latency: {
      bare: await paced(`${fx.bare}/bare`, '{}', 'application/json'),
      sale: await paced(`${fx.gateway}/post`, fx.saleForm, 'application/x-www-form-urlencoded'),
      saleWithoutLedger: await withoutLedger(fx, () => paced(`${fx.gateway}/post`, fx.saleForm, 'application/x-www-form-urlencoded')),
      writesAlone: await paced(`${fx.bare}/sale-writes`, '{}', 'application/json'),
    },
  };
}

const num = (value: number, width: number, digits = 0) => value.toFixed(digits).padStart(width);

function report(results: Round[], withCallback: Figures, steal: number): void {
  console.log(`\nPortcullis benchmark: PostgreSQL, ${connections} connections, ${rounds} rounds of ${seconds} s per load (Node ${process.version}; servers ${tsx ? 'from src/ under tsx (BENCH_TSX=1)' : 'from the compiled build, dist/'})`);
  console.log(`CPU taken by the host (steal) during the run: ${(steal * 100).toFixed(1)} %\n`);
  console.log('endpoint                        req/s     p99 ms   ratio to bare (median; per round)');
  const bareRps = results.map((r) => r.throughput[0]!.rps);
  THROUGHPUT.forEach(([name], i) => {
    const rps = results.map((r) => r.throughput[i]!.rps);
    const ratios = results.map((r) => r.throughput[i]!.rps / r.throughput[0]!.rps);
    const failures = results.reduce((n, r) => n + r.throughput[i]!.errors + r.throughput[i]!.non2xx, 0);
    console.log(`${name.padEnd(30)} ${num(median(rps), 7)} ${num(median(results.map((r) => r.throughput[i]!.p99)), 10, 1)}   ${median(ratios).toFixed(2)}; ${ratios.map((x) => x.toFixed(2)).join(' ')}${failures ? `  (${failures} errors or non-2xx)` : ''}`);
  });
  const callbackFailures = withCallback.errors + withCallback.non2xx;
  console.log(`${'S2S SALE with its callback'.padEnd(30)} ${num(withCallback.rps, 7)} ${num(withCallback.p99, 10, 1)}   ${(withCallback.rps / median(bareRps)).toFixed(2)} (once, after the rounds)${callbackFailures ? `  (${callbackFailures} errors or non-2xx)` : ''}`);

  console.log(`\nAt half the bare endpoint's rate, evenly paced, latency from the scheduled send, each load after a checkpoint (per round):${checkpointRefused ? `\n(CHECKPOINT refused: ${checkpointRefused})` : ''}\n`);
  console.log('                                                                            CPU µs per request');
  console.log('endpoint                  offered  served  p50 ms     p99 ms     max ms  errors+non-2xx   server  postgres  own pg  generator');
  const cpu = (value: number | undefined, width: number) => (value === undefined ? '-'.padStart(width) : num(value, width));
  for (const r of results) {
    for (const [name, l] of [['bare INSERT+UPDATE', r.latency.bare], ['S2S CARD SALE (no 3DS)', r.latency.sale], ['SALE, ledger off', r.latency.saleWithoutLedger], ["SALE's writes alone", r.latency.writesAlone]] as const) {
      console.log(`${name.padEnd(24)} ${num(r.halfRate, 8)} ${num(l.rps, 7)} ${num(l.p50, 7, 1)} ${num(l.p99, 10, 1)} ${num(l.max, 10, 1)} ${num(l.errors + l.non2xx, 15)} ${cpu(l.cpu.server, 8)} ${cpu(l.cpu.postgres, 9)} ${cpu(l.cpu.ownPostgres, 7)} ${cpu(l.cpu.generator, 10)}`);
    }
  }

  const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
  const sessionRatio = median(results.map((r) => r.throughput[1]!.rps / r.throughput[0]!.rps));
  const saleRatio = median(results.map((r) => r.throughput[3]!.rps / r.throughput[0]!.rps));
  const saleP99 = median(results.map((r) => r.latency.sale.p99));
  const bareP99 = median(results.map((r) => r.latency.bare.p99));
  const clean = results.every((r) => r.latency.sale.errors + r.latency.sale.non2xx === 0);
  const cpuRatios = results.flatMap((r) => (r.latency.sale.cpu.server !== undefined && r.latency.bare.cpu.server ? [r.latency.sale.cpu.server / r.latency.bare.cpu.server] : []));
  if (cpuRatios.length > 0) console.log(`\nCPU per request of the server process, S2S SALE / bare (median; per round): ${median(cpuRatios).toFixed(2)}; ${cpuRatios.map((x) => x.toFixed(2)).join(' ')}`);
  const ownPgRatios = results.flatMap((r) => (r.latency.sale.cpu.ownPostgres !== undefined && r.latency.bare.cpu.ownPostgres ? [r.latency.sale.cpu.ownPostgres / r.latency.bare.cpu.ownPostgres] : []));
  if (ownPgRatios.length > 0) console.log(`PostgreSQL CPU per request of the server's own connections ("own pg"), S2S SALE / bare (median; per round): ${median(ownPgRatios).toFixed(2)}; ${ownPgRatios.map((x) => x.toFixed(2)).join(' ')}`);
  reportWritesAlone(results);
  const pgbenchRatios = reportPgbench(results);
  console.log(`\nTarget: session creation >= 0.70 of bare: ${sessionRatio.toFixed(2)} ${verdict(sessionRatio >= 0.7)}`);
  console.log(`Target: S2S SALE >= 0.60 of bare: ${saleRatio.toFixed(2)} ${verdict(saleRatio >= 0.6)}`);
  console.log(`Target: S2S SALE p99 < 25 ms at half the bare load: median ${saleP99.toFixed(1)} ms ${verdict(saleP99 < 25 && clean)} (the bare endpoint itself: ${bareP99.toFixed(1)} ms)`);
  const salePgbench = pgbenchRatios.length > 0 ? median(pgbenchRatios) : undefined;
  console.log(`Target: S2S SALE >= 0.55 of pgbench: ${salePgbench === undefined ? `NOT MEASURED (${pgbenchErrors(results)})` : `${salePgbench.toFixed(2)} ${verdict(salePgbench >= 0.55)}`}`);
  console.log(`Target: S2S SALE >= 1.0 of bare: ${saleRatio.toFixed(2)} ${verdict(saleRatio >= 1)}`);
  const cpuRatio = cpuRatios.length > 0 ? median(cpuRatios) : undefined;
  console.log(`Target: CPU per SALE <= 1.3x the bare endpoint's (server process, at half load): ${cpuRatio === undefined ? 'NOT MEASURED (no /proc)' : `${cpuRatio.toFixed(2)}x ${verdict(cpuRatio <= 1.3)}`}`);
  // Issue 27: the ledger's posting against the same run's SALE with it switched off.
  const ledgerThroughput = median(results.map((r) => r.throughput[3]!.rps / r.throughput[4]!.rps));
  const ledgerCpus = results.flatMap((r) => (r.latency.sale.cpu.server !== undefined && r.latency.saleWithoutLedger.cpu.server ? [r.latency.sale.cpu.server / r.latency.saleWithoutLedger.cpu.server] : []));
  console.log(`Target: SALE throughput with the ledger >= 0.8 of without: ${ledgerThroughput.toFixed(2)}; ${results.map((r) => (r.throughput[3]!.rps / r.throughput[4]!.rps).toFixed(2)).join(' ')} ${verdict(ledgerThroughput >= 0.8)}`);
  // Issue 26: the SALE screened by 50 active risk rules against the same round's SALE without rules.
  const riskRatios = results.map((r) => r.throughput[5]!.rps / r.throughput[3]!.rps);
  console.log(`Target: SALE throughput with 50 risk rules (3 velocity) >= 0.85 of without: ${median(riskRatios).toFixed(2)}; ${riskRatios.map((x) => x.toFixed(2)).join(' ')} ${verdict(median(riskRatios) >= 0.85)}`);
  const ledgerCpu = ledgerCpus.length > 0 ? median(ledgerCpus) : undefined;
  console.log(`Target: the ledger adds < 20 % to the SALE's server CPU (at half load): ${ledgerCpu === undefined ? 'NOT MEASURED (no /proc)' : `${signedPercent(ledgerCpu)} %; ${ledgerCpus.map(signedPercent).join(' ')} ${verdict(ledgerCpu < 1.2)}`}`);
}

/**
 * The SALE's database writes alone against the bare endpoint and against the SALE: what the writes cost, and what
 * the gateway's own work per SALE (parsing, validation, hash, screen, routing, reply) takes from the SALE's rate.
 */
function reportWritesAlone(results: Round[]): void {
  const perRound = (f: (r: Round) => number | undefined) => results.flatMap((r) => { const x = f(r); return x === undefined || !Number.isFinite(x) ? [] : [x]; });
  const line = (name: string, values: number[]) => values.length > 0 && console.log(`  ${name.padEnd(52)} ${median(values).toFixed(2)}; ${values.map((x) => x.toFixed(2)).join(' ')}`);
  console.log("\nThe SALE's two database writes alone (bench/sale-writes.ts: a SALE's insert and update replayed through the same store and group commit; median; per round):");
  line('throughput, writes alone / bare', perRound((r) => r.throughput[WRITES_ALONE]!.rps / r.throughput[0]!.rps));
  line('throughput, S2S SALE / writes alone', perRound((r) => r.throughput[3]!.rps / r.throughput[WRITES_ALONE]!.rps));
  const server = (l: PacedFigures) => l.cpu.server;
  line('server CPU at half load, writes alone / bare', perRound((r) => (server(r.latency.writesAlone) ?? NaN) / (server(r.latency.bare) ?? NaN)));
  line('server CPU at half load, S2S SALE / writes alone', perRound((r) => (server(r.latency.sale) ?? NaN) / (server(r.latency.writesAlone) ?? NaN)));
  const own = perRound((r) => (server(r.latency.sale) ?? NaN) - (server(r.latency.writesAlone) ?? NaN));
  if (own.length > 0) console.log(`  ${'the gateway\'s own CPU per SALE, µs (SALE - writes)'.padEnd(52)} ${median(own).toFixed(0)}; ${own.map((x) => x.toFixed(0)).join(' ')}`);
}

const pgbenchTps = (r: Round): number | undefined => ('tps' in r.pgbench ? r.pgbench.tps : undefined);
const pgbenchErrors = (results: Round[]): string =>
  [...new Set(results.flatMap((r) => ('error' in r.pgbench ? [r.pgbench.error] : [])))].join('; ') || 'no figure';

/** pgbench's rate per round and the S2S SALE and bare endpoint as fractions of it; answers the SALE's ratios. */
function reportPgbench(results: Round[]): number[] {
  const measured = results.filter((r) => pgbenchTps(r) !== undefined);
  console.log(`\npgbench beside it, each round (${PGBENCH_ARGS.join(' ')} -T ${seconds}; one INSERT ... ON CONFLICT DO NOTHING and one UPDATE of the same row):`);
  if (measured.length === 0) {
    console.log(`  NOT MEASURED: ${pgbenchErrors(results)}`);
    return [];
  }
  if (measured.length < results.length) console.log(`  (${results.length - measured.length} round(s) without a figure: ${pgbenchErrors(results)})`);
  const ratios = (i: number) => measured.map((r) => r.throughput[i]!.rps / pgbenchTps(r)!);
  const line = (name: string, values: number[], digits: number) =>
    console.log(`  ${name.padEnd(28)} ${median(values).toFixed(digits).padStart(8)}; ${values.map((x) => x.toFixed(digits)).join(' ')}`);
  line('pgbench tps (median; each)', measured.map((r) => pgbenchTps(r)!), 0);
  line('S2S SALE / pgbench', ratios(3), 2);
  line('bare / pgbench', ratios(0), 2);
  line("SALE's writes alone / pgbench", ratios(WRITES_ALONE), 2);
  return ratios(3);
}

let pgbenchMissing = 'pgbench not found on the PATH (it comes with the PostgreSQL client tools)';

/** pgbench and its scratch table, or undefined (and why, in pgbenchMissing) when it cannot run here. */
async function openPgbench(): Promise<Pgbench | undefined> {
  if (!pgbenchVersion()) return undefined;
  try {
    return await preparePgbench(databaseUrl);
  } catch (err) {
    pgbenchMissing = `pgbench's scratch table could not be created: ${(err as Error).message}`;
    return undefined;
  }
}

async function main() {
  // Both servers (the gateway and the bare endpoint, one process) from the compiled build, as production runs the
  // gateway (`npm run start:prod`): no TypeScript loader's hooks on either side. BENCH_TSX=1: from src/ under tsx.
  let command: string[];
  if (tsx) command = ['--import', 'tsx', path.join(here, 'server.ts')];
  else {
    console.log('bench: building dist/ (node scripts/build.mjs); the gateway and the bare endpoint run from the compiled build (node dist/bench/server.js), as `npm run start:prod` runs the gateway');
    buildDist();
    command = [await compiledServer()];
  }
  const listener = await startCallbackListener();
  const server = spawn(process.execPath, command, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, BENCH_CALLBACK_URL: listener.url } });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: server.stdout! }).once('line', resolve);
    server.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  const fx = JSON.parse(line) as Fixtures;
  const pgbench = await openPgbench();
  if (!pgbench) console.error(`NOTE: ${pgbenchMissing}; the SALE/pgbench target will not be measured.`);
  try {
    // Warm up connection pools and JIT before measuring.
    await autocannon({ url: `${fx.bare}/bare`, method: 'POST', connections: 10, duration: 2 });
    await autocannon({ url: `${fx.gateway}/post`, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fx.saleForm, connections: 10, duration: 2 });
    const before = machineCpuTimes();
    const results: Round[] = [];
    for (let round = 0; round < rounds; round++) results.push(await measureRound(fx, server.pid ?? 0, pgbench));
    // Last, so that the callbacks it leaves for the dispatcher to deliver do not load the rounds.
    const received = listener.received();
    const withCallback = await load(`${fx.gateway}/post`, fx.saleFormWithCallback);
    const delivery = await drained(listener, received, withCallback);
    const after = machineCpuTimes();
    report(results, withCallback, (after.steal - before.steal) / Math.max(1, after.total - before.total));
    console.log(`The SALE with its callback: ${delivery.during} of its ${delivery.sales} callbacks delivered during the load (${(delivery.during / seconds).toFixed(0)}/s), the rest ${delivery.drained ? `within ${delivery.afterSeconds.toFixed(1)} s after it` : `not within ${DRAIN_LIMIT_S} s after it`}`);
  } finally {
    await pgbench?.close();
    server.stdin!.end();
    await new Promise((r) => server.once('exit', r));
    listener.close();
  }
}

/** The merchant's callback listener, in this process (a merchant's server is not the gateway's): answers OK and counts. */
async function startCallbackListener(): Promise<{ url: string; received(): number; close(): void }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.end('OK');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/callback`,
    received: () => received,
    close: () => server.close(),
  };
}

const DRAIN_LIMIT_S = 60;

/** How many of a load's callbacks arrived during it, and how long the rest took (each SALE answered 2xx writes one). */
async function drained(listener: { received(): number }, before: number, load: Figures): Promise<{ sales: number; during: number; drained: boolean; afterSeconds: number }> {
  const sales = load.ok;
  const during = listener.received() - before;
  const started = Date.now();
  // autocannon's average is over whole seconds: count against what arrives, stopping when nothing has come for 2 s.
  let last = listener.received();
  let quietSince = Date.now();
  while ((Date.now() - started) / 1000 < DRAIN_LIMIT_S) {
    await new Promise((r) => setTimeout(r, 100));
    const now = listener.received();
    if (now !== last) {
      last = now;
      quietSince = Date.now();
    } else if (Date.now() - quietSince > 2_000) break;
  }
  const total = last - before;
  return { sales: Math.max(sales, total), during, drained: Date.now() - quietSince > 2_000, afterSeconds: (quietSince - started) / 1000 };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
