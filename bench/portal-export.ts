/**
 * `npm run bench:export` (and the end of `npm run bench`): the merchant portal's CSV export of 1,000,000 payments
 * (issue 30: under 60 s, in constant memory), over HTTP as a merchant user downloads it: invited by an operator,
 * password set through the e-mailed link, signed in, GET /portal/v1/payments/export. Prints the time, the rows
 * and bytes read, and the gateway process's resident memory before and at its peak during the download. Then the
 * same for a merchant group's user (a business of two shops): the first shop's payments and BENCH_EXPORT_GROUP_EXTRA
 * (default 250000) of a second shop, created in between them, each shop's keyset pages merged newest first.
 * BENCH_EXPORT_PAYMENTS (default 1000000) tunes it; the store is BENCH_DATABASE_URL or TEST_DATABASE_URL, in a
 * schema of its own that is dropped after.
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { openPostgres } from '../src/store/database.ts';
import { migrate } from '../src/store/migrate.ts';
import { assembleGateway } from '../src/gateway.ts';
import { loadConfig } from '../src/config.ts';
import { keyringFromEnv } from '../src/store/card-vault.ts';
import { createLogger } from '../src/logger.ts';
import { insertMerchant, insertMid } from '../src/store/merchants-repo.ts';
import { newId } from '../src/domain/ids.ts';
import { dropMigration012Indexes, migration012Statements, seedPayments } from './seed-payments.ts';

const BENCH_KEYRING = keyringFromEnv(undefined, () => randomBytes(32));
const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const total = Number(process.env.BENCH_EXPORT_PAYMENTS ?? 1_000_000);
const groupExtra = Number(process.env.BENCH_EXPORT_GROUP_EXTRA ?? 250_000);
const TARGET_S = 60;
const TOKEN = `bench-admin-${randomBytes(8).toString('hex')}`;
const PASSWORD = `bench passphrase ${randomBytes(8).toString('hex')}`;

async function call(base: string, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { ...opts.headers, ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** A merchant user as the portal makes one: invited by an operator, password set through the mailed link, signed in. */
async function signedInUser(base: string, business: { merchant_id: string } | { group_id: string }): Promise<string> {
  const email = `finance-${randomBytes(4).toString('hex')}@shop.example`;
  await call(base, 'POST', '/admin/v1/merchant-users', { body: { email, role: 'finance', ...business }, headers: { authorization: `Bearer ${TOKEN}` } });
  const outbox = await call(base, 'GET', `/sandbox/outbox/messages?to=${encodeURIComponent(email)}`);
  const token = /#token=([A-Za-z0-9_-]+)/.exec(outbox.body.messages[0]?.link ?? '')?.[1];
  if (!token) throw new Error('no invitation in the sandbox outbox');
  await call(base, 'POST', '/portal/v1/invitation', { body: { token, password: PASSWORD } });
  const session = await call(base, 'POST', '/portal/v1/session', { body: { email, password: PASSWORD } });
  return (session.headers.get('set-cookie') ?? '').split(';')[0]!;
}

/** Reads the export to its end, counting lines and bytes, while the process's resident memory is sampled. */
async function download(base: string, cookie: string, path = '/portal/v1/payments/export'): Promise<{ seconds: number; cpuSeconds: number; lines: number; bytes: number; rssBefore: number; rssPeak: number }> {
  const rssBefore = process.memoryUsage().rss;
  const cpuBefore = process.cpuUsage();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => { rssPeak = Math.max(rssPeak, process.memoryUsage().rss); }, 50);
  const started = performance.now();
  try {
    const res = await fetch(`${base}${path}`, { headers: { cookie } });
    if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}: ${await res.text()}`);
    let lines = 0;
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      for (const byte of chunk) if (byte === 10) lines++;
    }
    const cpu = process.cpuUsage(cpuBefore);
    return { seconds: (performance.now() - started) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, lines, bytes, rssBefore, rssPeak };
  } finally {
    clearInterval(sampler);
  }
}

const mb = (n: number) => (n / 1024 / 1024).toFixed(0);

async function main(): Promise<void> {
  const schema = `bench_export_${randomBytes(4).toString('hex')}`;
  const db = await openPostgres({ url, schema, max: 10 });
  try {
    await migrate(db);
    const merchantId = newId();
    await insertMerchant(db, BENCH_KEYRING, { id: merchantId, name: 'Bench export', key: `bench-export-${randomBytes(4).toString('hex')}`, password: randomBytes(16).toString('hex'), sandbox: true });
    await insertMid(db, { id: newId(), merchantId, name: 'Sandbox', connector: 'sandbox-card', paymentMode: 'SMS/DMS' });
    const statements = await migration012Statements();
    await dropMigration012Indexes(db, statements);
    process.stdout.write(`\nPortal export benchmark: seeding ${total} payments of one merchant... `);
    let started = performance.now();
    const now = new Date();
    await seedPayments(db, { merchants: [merchantId], emails: Math.max(1, Math.floor(total / 5)), now }, 0, total);
    // The group's second shop: its payments fall between the first shop's (1.25 s later each), so the merge interleaves them.
    const secondShop = newId();
    await insertMerchant(db, BENCH_KEYRING, { id: secondShop, name: 'Bench export, second shop', key: `bench-export-${randomBytes(4).toString('hex')}`, password: randomBytes(16).toString('hex'), sandbox: true });
    await seedPayments(db, { merchants: [secondShop], emails: Math.max(1, Math.floor(groupExtra / 5)), now: new Date(now.getTime() - 1250) }, 0, groupExtra);
    for (const statement of statements) await db.query(statement);
    await db.query('ANALYZE payments');
    console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);

    const config = { ...loadConfig({}), port: 0, adminToken: TOKEN };
    const gateway = await assembleGateway({ config, db, keyring: BENCH_KEYRING, logger: createLogger('silent') });
    const base = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const cookie = await signedInUser(base, { merchant_id: merchantId });
      started = performance.now();
      const r = await download(base, cookie);
      const rows = r.lines - 1;
      console.log(`GET /portal/v1/payments/export over HTTP (PostgreSQL, Node ${process.version}): ${rows} rows, ${mb(r.bytes)} MB in ${r.seconds.toFixed(1)} s (${Math.round(rows / r.seconds)} rows/s)`);
      // On a machine other work loads, the wall time is the process's share of the CPU: its own CPU seconds say what it cost.
      console.log(`CPU time of the process (gateway and reader) during the download: ${r.cpuSeconds.toFixed(1)} s; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`);
      console.log(`resident memory of the process (gateway and reader): ${mb(r.rssBefore)} MB before, ${mb(r.rssPeak)} MB at its peak (+${mb(r.rssPeak - r.rssBefore)} MB for ${mb(r.bytes)} MB streamed)`);
      if (rows !== total) throw new Error(`the export held ${rows} rows, not ${total}`);
      console.log(`Target: the export of ${total} payments under ${TARGET_S} s: ${r.seconds < TARGET_S ? 'MET' : 'NOT MET'}`);

      // A merchant group's user: both shops' payments, each shop one range of its index, merged newest first.
      const group = await call(base, 'POST', '/admin/v1/merchant-groups', { body: { name: 'Bench group', merchant_ids: [merchantId, secondShop] }, headers: { authorization: `Bearer ${TOKEN}` } });
      const groupCookie = await signedInUser(base, { group_id: group.body.id });
      const g = await download(base, groupCookie);
      const groupRows = g.lines - 1;
      console.log(`GET /portal/v1/payments/export for a group of 2 shops: ${groupRows} rows, ${mb(g.bytes)} MB in ${g.seconds.toFixed(1)} s (${Math.round(groupRows / g.seconds)} rows/s); CPU ${g.cpuSeconds.toFixed(1)} s; load average ${loadavg()[0]!.toFixed(1)}`);
      console.log(`resident memory during the group's export: ${mb(g.rssBefore)} MB before, ${mb(g.rssPeak)} MB at its peak (+${mb(g.rssPeak - g.rssBefore)} MB for ${mb(g.bytes)} MB streamed)`);
      if (groupRows !== total + groupExtra) throw new Error(`the group's export held ${groupRows} rows, not ${total + groupExtra}`);
    } finally {
      await gateway.close();
    }
  } finally {
    await db.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
