/**
 * `npm run drill`: the failover drill, on one machine, with Debian's packages (postgresql-15, patroni, etcd-server,
 * haproxy). Needs root (it runs PostgreSQL and Patroni as the `postgres` user) and the ports below free; never
 * touches the PostgreSQL at 5432. Everything lives under DRILL_DIR (default /tmp/portcullis-drill).
 *
 *  1. etcd, two Patroni nodes (PostgreSQL 15, one synchronous standby), HAProxy, rendered from deploy/;
 *     a base backup for the point-in-time recovery at the end; two compiled gateway nodes (dist/) behind it.
 *  2. The cost of synchronous replication on the S2S SALE: the same load with synchronous_mode on and off.
 *  3. A steady mixed load (SALE, Checkout session, authorization + CAPTURE, SALE + refund; callbacks to a local
 *     listener) on both nodes; kill -9 of the primary's Patroni and postmaster (the machine is lost); Patroni
 *     promotes the standby; the load goes on.
 *  4. Checks on the new primary: acknowledged operations lost, callbacks never delivered, double charges; the
 *     window of failed requests; throughput before and after.
 *  5. Point-in-time recovery: the base backup plus the archived WAL (across the failover's timeline switch)
 *     restored to a moment after the load; every acknowledged payment is there, one made after it is not.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, chownSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect as tcpConnect, type AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIR = process.env.DRILL_DIR ?? '/tmp/portcullis-drill';
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const BASE = Number(process.env.DRILL_PORT_BASE ?? 25400);
const PORTS = {
  etcdClient: BASE + 1, etcdPeer: BASE + 2,
  pg: [BASE + 10, BASE + 11], rest: [BASE + 20, BASE + 21],
  primary: BASE + 30, replica: BASE + 31, stats: BASE + 32,
  gateways: [BASE + 40, BASE + 41], restore: BASE + 50,
};
const LOAD_WORKERS = Number(process.env.DRILL_WORKERS ?? 8);
const BEFORE_KILL_S = Number(process.env.DRILL_BEFORE_S ?? 15);
const SYNC_COST_S = Number(process.env.DRILL_SYNC_COST_S ?? 4);
const REST_AUTH = `Basic ${Buffer.from('drill:drill').toString('base64')}`;
const MERCHANT = { key: randomUUID(), password: randomBytes(16).toString('hex') };
const EMAIL = 'drill@example.com';
const CARD = '4111111111111111';

const children: ChildProcess[] = [];
const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 23)}] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pgUser = (() => {
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
})();

// ---------------------------------------------------------------------------------------------- processes

function start(name: string, cmd: string, args: string[], opts: { asPostgres?: boolean; env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  const out = createWriteStream(path.join(DIR, `${name}.log`));
  const child = spawn(cmd, args, {
    env: { ...process.env, ...(opts.asPostgres ? { HOME: DIR, USER: 'postgres' } : {}), ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.asPostgres ? { uid: pgUser.uid, gid: pgUser.gid } : {}),
  });
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  children.push(child);
  return child;
}

function asPostgres(tool: string, args: string[]): string {
  const r = spawnSync(path.join(PG_BIN, tool), args, { encoding: 'utf8', uid: pgUser.uid, gid: pgUser.gid, env: { ...process.env, HOME: DIR }, timeout: 300_000 });
  if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')}: ${r.stderr || r.stdout}`);
  return r.stdout;
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s (logs in ${DIR})`);
    await sleep(200);
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

function render(template: string, values: Record<string, string | number>): string {
  return readFileSync(path.join(ROOT, 'deploy', template), 'utf8').replace(/\{\{(\w+)\}\}/g, (_, k: string) => {
    if (!(k in values)) throw new Error(`${template}: no value for {{${k}}}`);
    return String(values[k]);
  });
}

// ---------------------------------------------------------------------------------------------- the stack

interface Stack {
  patroni: ChildProcess[];
  gateways: string[];
}

async function startStack(): Promise<Stack> {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(path.join(DIR, 'wal-archive'), { recursive: true });
  for (const d of [DIR, path.join(DIR, 'wal-archive')]) chownSync(d, pgUser.uid, pgUser.gid);

  log(`etcd on ${PORTS.etcdClient}`);
  start('etcd', 'etcd', [
    '--name', 'drill', '--data-dir', path.join(DIR, 'etcd'),
    '--listen-client-urls', `http://127.0.0.1:${PORTS.etcdClient}`, '--advertise-client-urls', `http://127.0.0.1:${PORTS.etcdClient}`,
    '--listen-peer-urls', `http://127.0.0.1:${PORTS.etcdPeer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${PORTS.etcdPeer}`,
    '--initial-cluster', `drill=http://127.0.0.1:${PORTS.etcdPeer}`,
  ]);
  await until('etcd healthy', 30_000, async () => (await fetch(`http://127.0.0.1:${PORTS.etcdClient}/health`)).ok);

  const patroni: ChildProcess[] = [];
  for (const i of [0, 1]) {
    const name = `node${i + 1}`;
    const file = path.join(DIR, `${name}.yml`);
    writeFileSync(file, render('patroni/patroni.yml.template', {
      scope: 'portcullis-drill', name,
      restapi_address: `127.0.0.1:${PORTS.rest[i]}`, restapi_user: 'drill', restapi_password: 'drill',
      etcd_hosts: `127.0.0.1:${PORTS.etcdClient}`,
      // A short ttl makes the drill's failover quick; production keeps Patroni's defaults (docs/operators/operations.md).
      ttl: 10, loop_wait: 2, retry_timeout: 4, max_connections: 100,
      archive_dir: path.join(DIR, 'wal-archive'),
      replication_user: 'replicator', client_network: '127.0.0.1/32', auth_method: 'trust',
      pg_address: `127.0.0.1:${PORTS.pg[i]}`, data_dir: path.join(DIR, name), bin_dir: PG_BIN,
      superuser_password: 'drill', replication_password: 'drill', socket_dir: DIR,
    }));
    log(`Patroni ${name}: PostgreSQL 15 on ${PORTS.pg[i]}, REST on ${PORTS.rest[i]}`);
    patroni.push(start(`patroni-${name}`, 'patroni', [file], { asPostgres: true }));
    if (i === 0) await until('node1 leading', 90_000, async () => (await fetch(`http://127.0.0.1:${PORTS.rest[0]}/primary`)).status === 200);
  }
  await until('node2 a streaming synchronous standby', 120_000, async () => {
    const cluster = (await (await fetch(`http://127.0.0.1:${PORTS.rest[0]}/cluster`)).json()) as { members: { name: string; role: string; state: string }[] };
    return cluster.members.some((m) => m.name === 'node2' && m.role === 'sync_standby' && ['streaming', 'running'].includes(m.state));
  });

  const servers = (check: string) => [0, 1].map((i) => `    server node${i + 1} 127.0.0.1:${PORTS.pg[i]} maxconn 100 check port ${PORTS.rest[i]}`).join('\n') + check;
  writeFileSync(path.join(DIR, 'haproxy.cfg'), render('haproxy/haproxy.cfg.template', {
    stats_bind: `127.0.0.1:${PORTS.stats}`, primary_bind: `127.0.0.1:${PORTS.primary}`, replica_bind: `127.0.0.1:${PORTS.replica}`,
    check_interval: '1s', primary_servers: servers(''), replica_servers: servers(''),
  }));
  log(`HAProxy: primary ${PORTS.primary}, replicas ${PORTS.replica}`);
  start('haproxy', 'haproxy', ['-db', '-f', path.join(DIR, 'haproxy.cfg')]);
  await until('HAProxy reaching the primary', 30_000, async () => (await query(PORTS.primary, 'SELECT NOT pg_is_in_recovery() AS p'))[0]?.p);

  log('base backup for the point-in-time recovery');
  // Taken from the leader directly (an operator would take it from a replica: the same files, no load on the primary).
  asPostgres('pg_basebackup', ['-h', '127.0.0.1', '-p', String(PORTS.pg[0]), '-U', 'postgres', '-D', path.join(DIR, 'base-backup'), '-X', 'stream', '-c', 'fast']);

  const gateways: string[] = [];
  for (const [i, port] of PORTS.gateways.entries()) {
    const name = `gateway-${'ab'[i]}`;
    start(name, process.execPath, [path.join(ROOT, 'dist/main.js')], {
      env: {
        NODE_ENV: 'production', GATEWAY_MODE: 'development', NODE_OPTIONS: '', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: path.join(DIR, name),
        DATABASE_URL: `postgres://postgres@127.0.0.1:${PORTS.primary}/postgres`,
        DATABASE_REPLICA_URL: `postgres://postgres@127.0.0.1:${PORTS.replica}/postgres`,
        VAULT_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`, ADMIN_TOKEN: 'drill',
        DEMO_MERCHANT_KEY: MERCHANT.key, DEMO_MERCHANT_PASSWORD: MERCHANT.password, DEMO_NOTIFICATION_URL: callbackUrl,
        LOG_LEVEL: 'warn',
      },
    });
    const url = `http://127.0.0.1:${port}`;
    await until(`${name} ready`, 60_000, async () => (await fetch(`${url}/ready`)).ok);
    log(`${name} (compiled, WORKERS=on) at ${url}`);
    gateways.push(url);
  }
  return { patroni, gateways };
}

async function query<T = any>(port: number, text: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 3000 });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end().catch(() => undefined);
  }
}

function stopAll(): void {
  for (const child of children.reverse()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of ['node1', 'node2', 'restore']) {
    const pidFile = path.join(DIR, dir, 'postmaster.pid');
    if (!existsSync(pidFile)) continue;
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

// ---------------------------------------------------------------------------------------------- the merchant

const upper = (s: string) => s.replace(/[a-z]/g, (c) => c.toUpperCase());
const rev = (s: string) => [...s].reverse().join('');
const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
const f1 = () => md5(upper(rev(EMAIL) + MERCHANT.password + rev(CARD.slice(0, 6) + CARD.slice(-4))));
const f2 = (transId: string) => md5(upper(rev(EMAIL) + MERCHANT.password + transId + rev(CARD.slice(0, 6) + CARD.slice(-4))));

let orders = 0;
function saleForm(extra: Record<string, string> = {}): string {
  return new URLSearchParams({
    action: 'SALE', client_key: MERCHANT.key, order_id: `drill-${process.pid}-${++orders}`, order_amount: '12.34', order_currency: 'USD',
    order_description: 'Drill', card_number: CARD, card_exp_month: '01', card_exp_year: '2038', card_cvv2: '123',
    payer_first_name: 'Dora', payer_last_name: 'Drill', payer_address: 'Street 1', payer_country: 'US', payer_state: 'CA',
    payer_city: 'City', payer_zip: '12345', payer_email: EMAIL, payer_phone: '199999999', payer_ip: '10.0.0.1',
    term_url_3ds: 'https://shop.example/3ds', ...extra, hash: f1(),
  }).toString();
}
const followUpForm = (action: string, transId: string, extra: Record<string, string> = {}) =>
  new URLSearchParams({ action, client_key: MERCHANT.key, trans_id: transId, ...extra, hash: f2(transId) }).toString();
function sessionJson(): string {
  const order = { number: `drill-s-${process.pid}-${++orders}`, amount: '10.00', currency: 'USD', description: 'Drill session' };
  const hash = sha1(md5(upper(order.number + order.amount + order.currency + order.description + MERCHANT.password)));
  return JSON.stringify({ merchant_key: MERCHANT.key, operation: 'purchase', methods: ['card'], order, cancel_url: 'https://shop.example/c', success_url: 'https://shop.example/s', hash });
}

// ---------------------------------------------------------------------------------------------- callbacks

const received = new Map<string, number>();
const listener = createServer((req: IncomingMessage, res: ServerResponse) => {
  const id = String(req.headers['x-callback-id']);
  req.resume();
  req.on('end', () => {
    received.set(id, (received.get(id) ?? 0) + 1);
    res.end('OK');
  });
});
let callbackUrl = '';

// ---------------------------------------------------------------------------------------------- the load

interface RequestRecord {
  start: number;
  end: number;
  ok: boolean;
}
type Acked = { kind: 'sale' | 'auth' | 'capture' | 'refund'; id: string } | { kind: 'session'; id: string };

class Load {
  readonly requests: RequestRecord[] = [];
  readonly acked: Acked[] = [];
  private running = true;
  private next = 0;

  constructor(private readonly gateways: string[]) {}

  private async send(pathName: string, body: string, json = false): Promise<any | undefined> {
    const base = this.gateways[this.next++ % this.gateways.length];
    const start = Date.now();
    try {
      const res = await fetch(base + pathName, {
        method: 'POST',
        headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
        body,
        signal: AbortSignal.timeout(20_000),
      });
      const answer = (await res.json()) as any;
      const ok = res.status === 200 && answer.result !== 'ERROR';
      this.requests.push({ start, end: Date.now(), ok });
      return ok ? answer : undefined;
    } catch {
      this.requests.push({ start, end: Date.now(), ok: false });
      return undefined;
    }
  }

  async flow(i: number): Promise<void> {
    switch (i % 4) {
      case 0: {
        const a = await this.send('/post', saleForm());
        if (a?.status === 'SETTLED') this.acked.push({ kind: 'sale', id: a.trans_id });
        return;
      }
      case 1: {
        const a = await this.send('/api/v1/session', sessionJson(), true);
        const id = typeof a?.redirect_url === 'string' ? a.redirect_url.split('/checkout/')[1] : undefined;
        if (id) this.acked.push({ kind: 'session', id });
        return;
      }
      case 2: {
        const held = await this.send('/post', saleForm({ auth: 'Y' }));
        if (held?.status !== 'PENDING') return;
        this.acked.push({ kind: 'auth', id: held.trans_id });
        const c = await this.send('/post', followUpForm('CAPTURE', held.trans_id));
        if (c?.result === 'SUCCESS' && c.status === 'SETTLED') this.acked.push({ kind: 'capture', id: held.trans_id });
        return;
      }
      default: {
        const paid = await this.send('/post', saleForm());
        if (paid?.status !== 'SETTLED') return;
        this.acked.push({ kind: 'sale', id: paid.trans_id });
        const r = await this.send('/post', followUpForm('CREDITVOID', paid.trans_id, { amount: '12.34' }));
        if (r?.result === 'ACCEPTED') this.acked.push({ kind: 'refund', id: paid.trans_id });
      }
    }
  }

  start(workers: number): Promise<void> {
    const worker = async (w: number) => {
      for (let i = w; this.running; i += workers) await this.flow(i);
    };
    return Promise.all(Array.from({ length: workers }, (_, w) => worker(w))).then(() => undefined);
  }

  stop(): void {
    this.running = false;
  }
}

/** Closed-loop S2S SALEs on both nodes for `seconds`: SALEs per second and median latency. */
async function saleRate(gateways: string[], seconds: number, concurrency = 16): Promise<{ rps: number; p50: number }> {
  const until = Date.now() + seconds * 1000;
  const latencies: number[] = [];
  let n = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (Date.now() < until) {
      const t = performance.now();
      const res = await fetch(`${gateways[n++ % gateways.length]}/post`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: saleForm() });
      const a = (await res.json()) as { status?: string };
      if (a.status === 'SETTLED') latencies.push(performance.now() - t);
    }
  }));
  latencies.sort((x, y) => x - y);
  return { rps: latencies.length / seconds, p50: latencies[Math.floor(latencies.length / 2)] ?? NaN };
}

async function setSynchronous(on: boolean): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${PORTS.rest[0]}/config`, {
    method: 'PATCH',
    headers: { authorization: REST_AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ synchronous_mode: on }),
  });
  if (!res.ok) throw new Error(`PATCH /config: ${res.status} ${await res.text()}`);
  await until(`synchronous_mode ${on}`, 60_000, async () => {
    const [row] = await query<{ names: string }>(PORTS.pg[0]!, 'SELECT current_setting(\'synchronous_standby_names\') AS names');
    return on ? row!.names !== '' : row!.names === '';
  });
}

// ---------------------------------------------------------------------------------------------- the drill

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('the drill runs PostgreSQL and Patroni as the postgres user: run it as root');
  for (const bin of ['patroni', 'etcd', 'haproxy']) {
    if (spawnSync('which', [bin]).status !== 0) throw new Error(`${bin} missing: apt-get install -y patroni etcd-server haproxy`);
  }
  const ports = [PORTS.etcdClient, PORTS.etcdPeer, ...PORTS.pg, ...PORTS.rest, PORTS.primary, PORTS.replica, PORTS.stats, ...PORTS.gateways, PORTS.restore];
  for (const p of ports) if (!(await portFree(p))) throw new Error(`port ${p} is taken (set DRILL_PORT_BASE)`);
  if (!existsSync(path.join(ROOT, 'dist/main.js'))) throw new Error('dist/ missing: npm run build');

  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  callbackUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callbacks`;
  const stack = await startStack();

  log(`synchronous replication's cost on S2S SALE (${SYNC_COST_S} s per load, 16 connections, both nodes)`);
  await saleRate(stack.gateways, 3); // warm-up: JIT, pools, caches
  const syncA = await saleRate(stack.gateways, SYNC_COST_S);
  await setSynchronous(false);
  const async = await saleRate(stack.gateways, SYNC_COST_S);
  await setSynchronous(true);
  const syncB = await saleRate(stack.gateways, SYNC_COST_S);
  const sync = { rps: (syncA.rps + syncB.rps) / 2, p50: (syncA.p50 + syncB.p50) / 2 };
  log(`  synchronous: ${syncA.rps.toFixed(0)} / ${syncB.rps.toFixed(0)} SALE/s (p50 ${syncA.p50.toFixed(1)} / ${syncB.p50.toFixed(1)} ms); asynchronous: ${async.rps.toFixed(0)} SALE/s (p50 ${async.p50.toFixed(1)} ms)`);
  await until('node2 the synchronous standby again', 60_000, async () => {
    const cluster = (await (await fetch(`http://127.0.0.1:${PORTS.rest[0]}/cluster`)).json()) as { members: { name: string; role: string }[] };
    return cluster.members.some((m) => m.name === 'node2' && m.role === 'sync_standby');
  });

  log(`steady mixed load: ${LOAD_WORKERS} clients on both nodes`);
  const load = new Load(stack.gateways);
  const loadStarted = Date.now();
  const running = load.start(LOAD_WORKERS);
  await sleep(BEFORE_KILL_S * 1000);

  const killedAt = Date.now();
  const leaderPid = Number(readFileSync(path.join(DIR, 'node1', 'postmaster.pid'), 'utf8').split('\n')[0]);
  stack.patroni[0]!.kill('SIGKILL');
  process.kill(leaderPid, 'SIGKILL');
  log(`kill -9: node1's Patroni (pid ${stack.patroni[0]!.pid}) and postmaster (pid ${leaderPid}): the primary's machine is gone`);
  const promotedAt = await until('node2 promoted', 120_000, async () => (await fetch(`http://127.0.0.1:${PORTS.rest[1]}/primary`)).status === 200 && Date.now());
  log(`node2 promoted ${((promotedAt - killedAt) / 1000).toFixed(1)} s after the kill`);
  await until('12 s without a failed request', 180_000, async () => {
    const failures = load.requests.filter((r) => !r.ok);
    const last = failures.length ? Math.max(...failures.map((r) => r.end)) : killedAt;
    return Date.now() - last > 12_000 && Date.now() - promotedAt > 12_000;
  });
  load.stop();
  await running;
  const loadEnded = Date.now();
  log(`load stopped: ${load.requests.length} requests, ${load.acked.length} operations acknowledged`);

  // ------------------------------------------------------------------------------------------ checks
  const primary = PORTS.primary;
  log('waiting for the callback outbox to drain (a claim cut by the failover waits out its lease)');
  const drainStarted = Date.now();
  await until('callbacks delivered', 240_000, async () => (await query<{ n: string }>(primary, `SELECT count(*)::text AS n FROM callbacks WHERE status = 'pending'`))[0]!.n === '0');
  const drainSeconds = (Date.now() - drainStarted) / 1000;

  const paymentIds = [...new Set(load.acked.filter((a) => a.kind !== 'session').map((a) => a.id))];
  const payments = new Map((await query<{ id: string; status: string }>(primary, 'SELECT id, status FROM payments WHERE id = ANY($1)', [paymentIds])).map((r) => [r.id, r.status]));
  const sessionIds = load.acked.filter((a) => a.kind === 'session').map((a) => a.id);
  const sessions = new Set((await query<{ id: string }>(primary, 'SELECT id FROM sessions WHERE id = ANY($1)', [sessionIds])).map((r) => r.id));
  const expected: Record<string, readonly string[]> = {
    sale: ['settled', 'refund'], auth: ['pending', 'settled'], capture: ['settled'], refund: ['refund'],
  };
  const lost = load.acked.filter((a) => (a.kind === 'session' ? !sessions.has(a.id) : !expected[a.kind]!.includes(payments.get(a.id) ?? 'missing')));

  const callbacks = await query<{ id: string; payment_id: string; status: string }>(primary, 'SELECT id, payment_id, status FROM callbacks WHERE payment_id = ANY($1)', [paymentIds]);
  const withCallback = new Set(callbacks.map((c) => c.payment_id));
  const undelivered = callbacks.filter((c) => c.status !== 'delivered' || !received.has(c.id)).length + paymentIds.filter((id) => !withCallback.has(id)).length;
  const repeats = [...received.values()].filter((n) => n > 1).length;

  const doubleOrders = await query(primary, 'SELECT order_id FROM payments GROUP BY merchant_id, order_id HAVING count(*) > 1');
  const doubleTransactions = await query(primary, `SELECT payment_id, type FROM transactions WHERE status = 'success' AND type <> 'refund' GROUP BY 1, 2 HAVING count(*) > 1`);
  const overRefunded = await query(primary, `SELECT p.id FROM payments p JOIN transactions t ON t.payment_id = p.id AND t.type = 'refund' AND t.status = 'success' GROUP BY p.id, p.amount HAVING sum(t.amount) > p.amount`);
  const doubles = doubleOrders.length + doubleTransactions.length + overRefunded.length;

  const failed = load.requests.filter((r) => !r.ok);
  const window = failed.length ? (Math.max(...failed.map((r) => r.end)) - Math.min(...failed.map((r) => r.start))) / 1000 : 0;
  const rate = (from: number, to: number) => load.requests.filter((r) => r.ok && r.end >= from && r.end < to).length / ((to - from) / 1000);
  const before = rate(Math.max(loadStarted, killedAt - 10_000), killedAt);
  const after = rate(loadEnded - 10_000, loadEnded);

  // ------------------------------------------------------------------------------------------ PITR
  log('point-in-time recovery: base backup + archived WAL, restored to a moment after the load');
  await sleep(1100);
  const target = (await query<{ t: string }>(primary, 'SELECT now()::text AS t'))[0]!.t;
  await sleep(1100);
  const late = (await (await fetch(`${stack.gateways[0]}/post`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: saleForm() })).json()) as { trans_id: string };
  const wal = (await query<{ wal: string }>(primary, 'SELECT pg_walfile_name(pg_switch_wal()) AS wal'))[0]!.wal;
  await until('WAL archived', 60_000, async () => existsSync(path.join(DIR, 'wal-archive', wal)));
  const restoreDir = path.join(DIR, 'restore');
  spawnSync('cp', ['-a', path.join(DIR, 'base-backup'), restoreDir]);
  writeFileSync(path.join(restoreDir, 'recovery.signal'), '');
  writeFileSync(path.join(restoreDir, 'postgresql.auto.conf'), [
    `restore_command = 'cp ${path.join(DIR, 'wal-archive')}/%f %p'`,
    `recovery_target_time = '${target}'`, `recovery_target_timeline = 'latest'`, `recovery_target_action = 'promote'`,
    `port = ${PORTS.restore}`, `archive_mode = off`, `synchronous_standby_names = ''`, `hba_file = '${path.join(restoreDir, 'pg_hba.conf')}'`,
    `ident_file = '${path.join(restoreDir, 'pg_ident.conf')}'`, `unix_socket_directories = '${DIR}'`, `listen_addresses = '127.0.0.1'`,
  ].join('\n') + '\n');
  chownSync(restoreDir, pgUser.uid, pgUser.gid);
  spawnSync('chown', ['-R', 'postgres:postgres', restoreDir]);
  const restoreStarted = Date.now();
  asPostgres('pg_ctl', ['-D', restoreDir, '-l', path.join(DIR, 'restore.log'), '-w', '-t', '300', 'start']);
  await until('restored cluster promoted', 300_000, async () => (await query<{ r: boolean }>(PORTS.restore, 'SELECT pg_is_in_recovery() AS r'))[0]!.r === false);
  const restoreSeconds = (Date.now() - restoreStarted) / 1000;
  const restored = new Set((await query<{ id: string }>(PORTS.restore, 'SELECT id FROM payments WHERE id = ANY($1)', [[...paymentIds, late.trans_id]])).map((r) => r.id));
  const missingAfterRestore = paymentIds.filter((id) => payments.has(id) && !restored.has(id)).length;
  const lateRestored = restored.has(late.trans_id);
  asPostgres('pg_ctl', ['-D', restoreDir, '-m', 'fast', '-w', 'stop']);

  // ------------------------------------------------------------------------------------------ report
  const report = {
    acknowledged: load.acked.length,
    acknowledgedByKind: Object.fromEntries(['sale', 'session', 'auth', 'capture', 'refund'].map((k) => [k, load.acked.filter((a) => a.kind === k).length])),
    requests: load.requests.length,
    lost: lost.length,
    callbacksNeverDelivered: undelivered,
    callbacksDelivered: callbacks.length,
    callbacksReceivedMoreThanOnce: repeats,
    outboxDrainSeconds: drainSeconds,
    doubleCharges: doubles,
    failedRequests: failed.length,
    failedWindowSeconds: window,
    promotionSeconds: (promotedAt - killedAt) / 1000,
    throughputBefore: before,
    throughputAfter: after,
    syncSaleRps: sync.rps,
    asyncSaleRps: async.rps,
    syncCostRatio: sync.rps / async.rps,
    syncP50Ms: sync.p50,
    asyncP50Ms: async.p50,
    pitr: { target, restoreSeconds, acknowledgedMissing: missingAfterRestore, paymentAfterTargetPresent: lateRestored },
  };
  writeFileSync(path.join(DIR, 'drill-report.json'), JSON.stringify(report, null, 2));
  const lines = [
    '',
    'Failover drill (Patroni 3 + etcd 3.4 + HAProxy 2.6, PostgreSQL 15, one synchronous standby, two compiled gateway nodes)',
    `  acknowledged operations          ${report.acknowledged} (${Object.entries(report.acknowledgedByKind).map(([k, v]) => `${k} ${v}`).join(', ')})`,
    `  acknowledged payments lost       ${report.lost}`,
    `  callbacks never delivered        ${report.callbacksNeverDelivered} (of ${report.callbacksDelivered}; ${repeats} received more than once, at-least-once; outbox drained ${drainSeconds.toFixed(0)} s after the load)`,
    `  double charges                   ${report.doubleCharges}`,
    `  failed requests                  ${report.failedRequests} of ${report.requests}, within a window of ${window.toFixed(1)} s (promotion ${report.promotionSeconds.toFixed(1)} s after kill -9)`,
    `  throughput before / after        ${before.toFixed(0)} / ${after.toFixed(0)} requests/s (ratio ${(after / before).toFixed(2)})`,
    `  synchronous replication cost     S2S SALE ${sync.rps.toFixed(0)} vs ${async.rps.toFixed(0)}/s asynchronous: ratio ${report.syncCostRatio.toFixed(2)}; p50 ${sync.p50.toFixed(1)} vs ${async.p50.toFixed(1)} ms`,
    `  point-in-time recovery           restored to ${target} in ${restoreSeconds.toFixed(1)} s across the timeline switch: ${missingAfterRestore} acknowledged payments missing, payment made after the target ${lateRestored ? 'PRESENT (wrong)' : 'absent'}`,
    `  report: ${path.join(DIR, 'drill-report.json')}; logs in ${DIR}`,
  ];
  console.log(lines.join('\n'));
  const pass = report.lost === 0 && report.callbacksNeverDelivered === 0 && report.doubleCharges === 0 && missingAfterRestore === 0 && !lateRestored;
  process.exitCode = pass ? 0 : 1;
}

process.on('SIGINT', () => {
  stopAll();
  process.exit(130);
});
main()
  .catch((err) => {
    console.error(`drill failed: ${(err as Error).message}`);
    process.exitCode = 1;
  })
  .finally(() => {
    stopAll();
    listener.close();
    for (const dir of ['node1', 'node2', 'base-backup', 'restore', 'etcd']) rmSync(path.join(DIR, dir), { recursive: true, force: true });
    setTimeout(() => process.exit(), 500).unref();
  });
