/**
 * `npm run bench`: loads the gateway and the bare INSERT+UPDATE endpoint in one run, against PostgreSQL,
 * from a separate process, and prints req/s, p99 and the ratio to the bare endpoint.
 * BENCH_SECONDS (default 10) and BENCH_CONNECTIONS (default 50) tune the load.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { pacedLoad, type PacedLoadResult } from './paced-load.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const here = path.dirname(fileURLToPath(import.meta.url));

interface Figures {
  name: string;
  rps: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function load(name: string, url: string, body: unknown, rate?: number): Promise<Figures> {
  const form = typeof body === 'string';
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: form ? body : JSON.stringify(body ?? {}),
    connections,
    duration: seconds,
    ...(rate ? { overallRate: rate } : {}),
  });
  return { name, rps: result.requests.average, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
}

async function main() {
  const server = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'server.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: server.stdout! }).once('line', resolve);
    server.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  const fx = JSON.parse(line) as { gateway: string; bare: string; sessionBody: unknown; statusBody: unknown; saleForm: string };
  try {
    // Warm up connection pools and JIT before measuring.
    await autocannon({ url: `${fx.bare}/bare`, method: 'POST', connections: 10, duration: 2 });
    await autocannon({ url: `${fx.gateway}/api/v1/session`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fx.sessionBody), connections: 10, duration: 2 });
    const bare = await load('bare INSERT+UPDATE', `${fx.bare}/bare`, {});
    const results = [
      bare,
      await load('POST /api/v1/session', `${fx.gateway}/api/v1/session`, fx.sessionBody),
      await load('POST /api/v1/payment/status', `${fx.gateway}/api/v1/payment/status`, fx.statusBody),
      await load('S2S CARD SALE (no 3DS)', `${fx.gateway}/post`, fx.saleForm),
    ];
    const sale = results[3]!;
    // Latency at half the bare endpoint's throughput (issue 3: p99 under 25 ms there), under evenly paced load.
    const halfRate = Math.round(bare.rps / 2);
    const paced = (url: string, body: string, contentType: string) => pacedLoad({ url, body, contentType, rate: halfRate, seconds, connections });
    const latency: [string, PacedLoadResult][] = [
      ['bare INSERT+UPDATE', await paced(`${fx.bare}/bare`, '{}', 'application/json')],
      ['S2S CARD SALE (no 3DS)', await paced(`${fx.gateway}/post`, fx.saleForm, 'application/x-www-form-urlencoded')],
    ];
    console.log(`\nPortcullis benchmark: PostgreSQL, ${connections} connections, ${seconds} s each (Node ${process.version})\n`);
    console.log('endpoint                        req/s     p99 ms   ratio to bare   errors  non-2xx');
    for (const r of results) {
      console.log(`${r.name.padEnd(30)} ${r.rps.toFixed(0).padStart(7)} ${r.p99.toFixed(1).padStart(10)} ${(r.rps / bare.rps).toFixed(2).padStart(15)} ${String(r.errors).padStart(8)} ${String(r.non2xx).padStart(8)}`);
    }
    console.log(`\nAt half the bare endpoint's rate, evenly paced (${halfRate} req/s offered, latency from the scheduled send):\n`);
    console.log('endpoint                        req/s     p50 ms     p99 ms     max ms   errors  non-2xx');
    for (const [name, r] of latency) {
      console.log(`${name.padEnd(30)} ${r.rps.toFixed(0).padStart(7)} ${r.p50.toFixed(1).padStart(10)} ${r.p99.toFixed(1).padStart(10)} ${r.max.toFixed(1).padStart(10)} ${String(r.errors).padStart(8)} ${String(r.non2xx).padStart(8)}`);
    }
    const halfLoad = latency[1]![1];
    const session = results[1]!;
    const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
    console.log(`\nTarget: session creation >= 0.70 of bare: ${(session.rps / bare.rps).toFixed(2)} ${verdict(session.rps / bare.rps >= 0.7)}`);
    console.log(`Target: S2S SALE >= 0.60 of bare: ${(sale.rps / bare.rps).toFixed(2)} ${verdict(sale.rps / bare.rps >= 0.6)}`);
    console.log(`Target: S2S SALE p99 < 25 ms at half the bare load (${halfRate} req/s offered, ${halfLoad.rps.toFixed(0)} served): ${halfLoad.p99.toFixed(1)} ms ${verdict(halfLoad.p99 < 25 && halfLoad.errors + halfLoad.non2xx === 0)}`);
  } finally {
    server.stdin!.end();
    await new Promise((r) => server.once('exit', r));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
