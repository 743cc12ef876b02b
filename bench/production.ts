/**
 * `npm run bench:production` (also the last part of `npm run bench`): the gateway as an operator runs it
 * (`npm run build`, then `node dist/main.js`) beside the development start (`node --import tsx src/main.ts`), and
 * two compiled nodes beside one, on one PostgreSQL, under the S2S SALE. Prints, per round and as medians:
 *  - CPU time of the gateway process per SALE, compiled and under tsx, and their ratio;
 *  - SALEs per second of two compiled nodes (each loaded by half the connections) against one, and the CPU per
 *    SALE of the two together.
 * Every figure is measured side by side within a round (the machine may be shared: only ratios mean much).
 * BENCH_SECONDS (default 5), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 50).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { cpuSnapshot, machineCpuTimes } from './cpu-usage.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const merchant = { key: randomUUID(), password: randomBytes(16).toString('hex') };

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

interface Node {
  name: string;
  url: string;
  child: ChildProcess;
}

async function startNode(name: string, args: string[], url: string): Promise<Node> {
  const port = await freePort();
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      ...env, NODE_ENV: 'production', GATEWAY_MODE: 'development', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: url, WORKERS: 'off', LOG_LEVEL: 'warn',
      DATA_DIR: path.join(root, '.data', `bench-${name}`), VAULT_KEYS: `k1:${Buffer.alloc(32, 3).toString('base64')}`, ADMIN_TOKEN: 'bench',
      DEMO_MERCHANT_KEY: merchant.key, DEMO_MERCHANT_PASSWORD: merchant.password,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/ready`)).ok) break;
    } catch {
      /* starting */
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${name} did not start`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { name, url: base, child };
}

const upper = (s: string) => s.replace(/[a-z]/g, (c) => c.toUpperCase());
const rev = (s: string) => [...s].reverse().join('');
const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const CARD = '4111111111111111';
const EMAIL = 'bench@example.com';
const saleForm = new URLSearchParams({
  action: 'SALE', client_key: merchant.key, order_id: 'bench-order', order_amount: '1.99', order_currency: 'USD', order_description: 'Bench',
  card_number: CARD, card_exp_month: '01', card_exp_year: '2038', card_cvv2: '123', payer_first_name: 'B', payer_last_name: 'Ench',
  payer_address: 'Street 1', payer_country: 'US', payer_state: 'CA', payer_city: 'City', payer_zip: '12345', payer_email: EMAIL,
  payer_phone: '199999999', payer_ip: '10.0.0.1', term_url_3ds: 'https://shop.example/3ds',
  hash: md5(upper(rev(EMAIL) + merchant.password + rev(CARD.slice(0, 6) + CARD.slice(-4)))),
}).toString();

async function load(url: string, conns: number): Promise<{ ok: number; rps: number }> {
  const r = await autocannon({
    url: `${url}/post`, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: saleForm, connections: conns, duration: seconds,
  });
  const ok = r['2xx'];
  return { ok, rps: ok / seconds };
}

/** Loads the nodes side by side (connections split between them); CPU µs of their processes per SALE. */
async function measure(nodes: Node[]): Promise<{ rps: number; cpuPerSale: number }> {
  const before = nodes.map((n) => cpuSnapshot(n.child.pid!).server ?? 0);
  const results = await Promise.all(nodes.map((n) => load(n.url, Math.max(1, Math.round(connections / nodes.length)))));
  const after = nodes.map((n) => cpuSnapshot(n.child.pid!).server ?? 0);
  const ok = results.reduce((s, r) => s + r.ok, 0);
  const cpu = after.reduce((s, a, i) => s + a - before[i]!, 0);
  return { rps: ok / seconds, cpuPerSale: cpu / Math.max(1, ok) };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  const nodes: Node[] = [];
  try {
    const compiled = await startNode('compiled-a', ['dist/main.js'], url.toString());
    nodes.push(compiled);
    const tsx = await startNode('tsx', ['--import', 'tsx', 'src/main.ts'], url.toString());
    nodes.push(tsx);
    const second = await startNode('compiled-b', ['dist/main.js'], url.toString());
    nodes.push(second);
    for (const n of nodes) await load(n.url, 10); // warm-up: JIT, pools, merchant caches
    const steal0 = machineCpuTimes();
    const rows: { tsx: number; compiled: number; one: number; two: number; oneCpu: number; twoCpu: number }[] = [];
    for (let r = 1; r <= rounds; r++) {
      const t = await measure([tsx]);
      const c = await measure([compiled]);
      const two = await measure([compiled, second]);
      rows.push({ tsx: t.cpuPerSale, compiled: c.cpuPerSale, one: c.rps, two: two.rps, oneCpu: c.cpuPerSale, twoCpu: two.cpuPerSale });
      console.log(`round ${r}: CPU per SALE tsx ${t.cpuPerSale.toFixed(0)} µs (${t.rps.toFixed(0)}/s), compiled ${c.cpuPerSale.toFixed(0)} µs (${c.rps.toFixed(0)}/s); two compiled nodes ${two.rps.toFixed(0)}/s at ${two.cpuPerSale.toFixed(0)} µs per SALE`);
    }
    const steal1 = machineCpuTimes();
    const stealPct = steal1.total > steal0.total ? (100 * (steal1.steal - steal0.steal)) / (steal1.total - steal0.total) : 0;
    console.log([
      '',
      `Production build, S2S SALE, ${rounds} round(s) of ${seconds} s per load, ${connections} connections (medians; host steal ${stealPct.toFixed(1)} %; the machine may be shared)`,
      `  gateway CPU per SALE, compiled / tsx     ${median(rows.map((x) => x.compiled)).toFixed(0)} / ${median(rows.map((x) => x.tsx)).toFixed(0)} µs: ratio ${median(rows.map((x) => x.compiled / x.tsx)).toFixed(2)}`,
      `  two compiled nodes / one, SALE/s         ${median(rows.map((x) => x.two)).toFixed(0)} / ${median(rows.map((x) => x.one)).toFixed(0)}: ratio ${median(rows.map((x) => x.two / x.one)).toFixed(2)}`,
      `  CPU per SALE, two nodes / one            ${median(rows.map((x) => x.twoCpu)).toFixed(0)} / ${median(rows.map((x) => x.oneCpu)).toFixed(0)} µs: ratio ${median(rows.map((x) => x.twoCpu / x.oneCpu)).toFixed(2)}`,
    ].join('\n'));
  } finally {
    for (const n of nodes) n.child.kill('SIGTERM');
    await Promise.all(nodes.map((n) => new Promise((r) => (n.child.exitCode !== null ? r(undefined) : n.child.once('exit', r)))));
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
