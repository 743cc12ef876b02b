/**
 * `npm run bench:sale-cpu`: the quick figure for work on the S2S SALE's cost (issue 24): CPU µs per request of the
 * server process at a fixed, evenly paced rate, the bare INSERT+UPDATE endpoint and the S2S SALE in turn in the
 * same run (so a busy machine loads both alike), and their ratio. Throughput on a machine others share is noise;
 * the CPU one request costs the server is the steadier figure.
 *
 * BENCH_BASELINE=<another checkout> also starts that checkout's bench server and loads its SALE in each round
 * beside this one's (in alternating order): the per-round ratio of the two SALEs is an A/B comparison of a change
 * that a shared machine's drift cannot fake, since both see the same minutes.
 *
 * BENCH_COMPILED=1 does the same with this checkout's compiled build (`npm run build` first: dist/) as the other
 * side: the gateway as `npm run start:prod` runs it (no TypeScript loader) against the development start's.
 *
 * BENCH_RATE (default 400 req/s), BENCH_SECONDS (default 5), BENCH_ROUNDS (default 5). BENCH_ONLY=sale loads the
 * SALE alone; BENCH_SERVER_ARGS adds Node options to this checkout's server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
 * for a profile of the loads).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pacedLoad, type PacedLoadResult } from './paced-load.ts';
import { cpuPerRequest, cpuSnapshot } from './cpu-usage.ts';
import { compiledServer } from './compiled.ts';

const rate = Number(process.env.BENCH_RATE ?? 400);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const only = process.env.BENCH_ONLY;
const compiled = process.env.BENCH_COMPILED === '1';
const baseline = compiled ? 'the compiled build (dist/)' : process.env.BENCH_BASELINE;
const extra = (process.env.BENCH_SERVER_ARGS ?? '').split(/\s+/).filter(Boolean);
const here = path.dirname(fileURLToPath(import.meta.url));

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

interface Server {
  child: ChildProcess;
  fx: { gateway: string; bare: string; saleForm: string };
}

async function startServer(benchDir: string, args: string[], script?: string): Promise<Server> {
  const command = script ? [...args, script] : [...args, '--import', 'tsx', path.join(benchDir, 'server.ts')];
  const child = spawn(process.execPath, command, { cwd: path.dirname(benchDir), stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { child, fx: JSON.parse(line) as Server['fx'] };
}

const paced = (url: string, body: string, contentType: string, duration = seconds) =>
  pacedLoad({ url, body, contentType, rate, seconds: duration, connections: 50 });
const bareLoad = (s: Server, duration?: number) => paced(`${s.fx.bare}/bare`, '{}', 'application/json', duration);
const saleLoad = (s: Server, duration?: number) => paced(`${s.fx.gateway}/post`, s.fx.saleForm, 'application/x-www-form-urlencoded', duration);

async function measure(s: Server, load: () => Promise<PacedLoadResult>): Promise<PacedLoadResult & { server: number }> {
  const pid = s.child.pid ?? 0;
  const before = cpuSnapshot(pid);
  const result = await load();
  return { ...result, server: cpuPerRequest(before, cpuSnapshot(pid), result.completed).server ?? Number.NaN };
}

const ms = (r: PacedLoadResult) => `${r.p50.toFixed(1).padStart(6)}/${r.p99.toFixed(1).padEnd(7)}`;

async function main() {
  const servers: Server[] = [await startServer(here, extra)];
  if (compiled) servers.push(await startServer(here, [], await compiledServer()));
  else if (baseline) servers.push(await startServer(path.join(path.resolve(baseline), 'bench'), []));
  const [self, base] = servers as [Server, Server | undefined];
  try {
    // Warm-up: the JIT and the pools, as the full bench does.
    if (only !== 'sale') await bareLoad(self, 2);
    for (const s of servers) await saleLoad(s, 2);
    const bares: number[] = [];
    const sales: number[] = [];
    const ratios: number[] = [];
    const baseSales: number[] = [];
    const ab: number[] = [];
    console.log(`paced ${rate} req/s, ${seconds} s per load, ${rounds} rounds (load average ${loadavg()[0]!.toFixed(1)})${base ? `; baseline: ${baseline}` : ''}`);
    console.log(`round   bare µs   SALE µs   ratio   bare p50/p99 ms   SALE p50/p99 ms${base ? `   ${compiled ? 'dist' : 'base'} SALE µs   SALE/${compiled ? 'dist' : 'base'}` : ''}   errors`);
    for (let round = 1; round <= rounds; round++) {
      const bare = only === 'sale' ? undefined : await measure(self, () => bareLoad(self));
      // In alternating order, so that neither side always follows the bare load.
      let sale: Awaited<ReturnType<typeof measure>>;
      let other: Awaited<ReturnType<typeof measure>> | undefined;
      if (base && round % 2 === 0) {
        other = await measure(base, () => saleLoad(base));
        sale = await measure(self, () => saleLoad(self));
      } else {
        sale = await measure(self, () => saleLoad(self));
        if (base) other = await measure(base, () => saleLoad(base));
      }
      sales.push(sale.server);
      if (bare) {
        bares.push(bare.server);
        ratios.push(sale.server / bare.server);
      }
      if (other) {
        baseSales.push(other.server);
        ab.push(sale.server / other.server);
      }
      const errors = [bare, sale, other].reduce((n, r) => n + (r ? r.errors + r.non2xx : 0), 0);
      console.log(`${String(round).padStart(5)} ${(bare ? bare.server.toFixed(0) : '-').padStart(9)} ${sale.server.toFixed(0).padStart(9)} ${(bare ? (sale.server / bare.server).toFixed(2) : '-').padStart(7)}   ${bare ? ms(bare) : '-'.padEnd(14)}   ${ms(sale)}${other ? `   ${other.server.toFixed(0).padStart(12)}   ${(sale.server / other.server).toFixed(2).padStart(9)}` : ''}   ${errors}`);
    }
    const parts = [`SALE ${median(sales).toFixed(0)} µs`];
    if (bares.length > 0) parts.unshift(`bare ${median(bares).toFixed(0)} µs`), parts.push(`SALE/bare ${median(ratios).toFixed(2)}x`);
    if (ab.length > 0) parts.push(`${compiled ? 'compiled' : 'baseline'} SALE ${median(baseSales).toFixed(0)} µs, ${compiled ? 'SALE (tsx)/compiled' : 'SALE/baseline'} ${median(ab).toFixed(2)}x`);
    console.log(`median: ${parts.join(', ')} (load average ${loadavg()[0]!.toFixed(1)})`);
  } finally {
    for (const s of servers) {
      s.child.stdin!.end();
      await new Promise((r) => s.child.once('exit', r));
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
