/**
 * `npm run bench:reconciliation` (and the last step of `npm run bench`): an Adyen Settlement details report of
 * BENCH_RECON_ROWS (default 1,000,000) rows imported and matched through the admin API, on PostgreSQL. The payments
 * and their ledger postings are seeded by INSERT ... SELECT generate_series; the report is generated while it is
 * sent (never held whole) with deliberate differences (every 1,000th amount wrong, every 5,000th payment absent,
 * 100 unknown rows) and posted as the request body to POST /admin/v1/reconciliation/imports, which reads it line
 * by line. A run of a tenth of the rows goes first, so that the two runs' peak resident memory show whether memory
 * stays flat as the file grows. Target (issue 28): the 1,000,000-row import and match in under 120 s, in constant
 * memory. The store is BENCH_DATABASE_URL or TEST_DATABASE_URL, in a schema of its own that is dropped after.
 * pgbench (bench/pgbench.ts: the payment-shaped write, 16 clients) runs for 5 s just before each run, and the
 * rows per second are printed beside its rate: on a shared machine the ratio means something, the rate alone not.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import pg from 'pg';
import { openPostgres, type Database } from '../src/store/database.ts';
import { migrate } from '../src/store/migrate.ts';
import { assembleGateway } from '../src/gateway.ts';
import { loadConfig } from '../src/config.ts';
import { keyringFromEnv } from '../src/store/card-vault.ts';
import { createLogger } from '../src/logger.ts';
import { ManualClock } from '../src/domain/clock.ts';
import { insertMerchant, insertMid } from '../src/store/merchants-repo.ts';
import { newId } from '../src/domain/ids.ts';
import { ADYEN_COLUMNS } from '../src/domain/reconciliation/layouts.ts';
import { formatAmount } from '../src/domain/money.ts';
import { pgbenchVersion, preparePgbench, type Pgbench } from './pgbench.ts';

const BENCH_KEYRING = keyringFromEnv(undefined, () => randomBytes(32));
const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const total = Number(process.env.BENCH_RECON_ROWS ?? 1_000_000);
const CHUNK = 200_000;
const TOKEN = `bench-admin-${randomBytes(8).toString('hex')}`;
const TARGET_S = 120;
const DAY = new Date('2030-06-01T00:00:00Z');

const psp = (i: number) => `PSP${String(i).padStart(13, '0')}`;
const amountOf = (i: number) => 100 + (i % 10_000); // minor units, EUR
const feeOf = (i: number) => 10 + (i % 7);

/** Payments 0..n-1 of the MID, each settled, with its sale posted on the MID's receivable. */
async function seed(db: Database, merchantId: string, midId: string, offset: number, n: number): Promise<void> {
  for (let from = offset; from < offset + n; from += CHUNK) {
    const to = Math.min(offset + n, from + CHUNK);
    await db.query(
      `INSERT INTO payments (id, merchant_id, channel, operation, order_id, amount, currency, status, captured_amount, mid_id, details, created_at, updated_at)
       SELECT 'p-' || i, $1, 's2s_card', 'SALE', 'o-' || i, 100 + i % 10000, 'EUR', 'settled', 100 + i % 10000, $2,
              jsonb_build_object('connectorRef', 'PSP' || lpad(i::text, 13, '0'), 'brand', 'visa'), $3::timestamptz + (i % 86400) * interval '1 second', $3::timestamptz
       FROM generate_series($4::int, $5::int - 1) AS i`,
      [merchantId, midId, DAY, from, to],
    );
    await db.query(
      `INSERT INTO ledger_entries (ref, event, account, currency, amount, payment_id, created_at)
       SELECT 'tx-' || i, 'sale', e.account, 'EUR', e.sign * (100 + i % 10000), 'p-' || i, $3::timestamptz + (i % 86400) * interval '1 second'
       FROM generate_series($4::int, $5::int - 1) AS i, (VALUES ($1, 1), ($2, -1)) AS e(account, sign)`,
      [`acquirer:${midId}:receivable`, `merchant:${merchantId}:pending`, DAY, from, to],
    );
  }
}

/** The report's lines, generated as they are sent: n rows from payment `offset`, with the differences. */
async function* report(offset: number, n: number, batch: string): AsyncGenerator<string> {
  yield `${ADYEN_COLUMNS.join(',')}\n`;
  const blank = new Array<string>(ADYEN_COLUMNS.length - 23).fill('').join(',');
  let net = 0n;
  let lines: string[] = [];
  const row = (ref: string, merchantRef: string, amount: number, fee: number, at: string) => {
    const netCredit = amount - fee;
    net += BigInt(netCredit);
    return `Portcullis,PortcullisECOM,${ref},${merchantRef},visa,${at},UTC,Settled,${ref}M,EUR,,${formatAmount(BigInt(amount), 'EUR')},1,EUR,,${formatAmount(BigInt(netCredit), 'EUR')},,${formatAmount(BigInt(fee), 'EUR')},,,visaclassic,,${batch},${blank}`;
  };
  for (let i = offset; i < offset + n; i++) {
    if (i % 5_000 === 4_999) continue; // absent: missing
    const amount = amountOf(i) + (i % 1_000 === 999 ? 1 : 0); // wrong amount: mismatched
    lines.push(row(psp(i), `p-${i}`, amount, feeOf(i), `2030-06-03 ${String(Math.floor((i % 86400) / 3600)).padStart(2, '0')}:00:00`));
    if (lines.length === 1_000) { yield `${lines.join('\n')}\n`; lines = []; }
  }
  for (let u = 0; u < 100; u++) lines.push(row(`UNKNOWN${String(u).padStart(9, '0')}`, `nobody-${u}`, 99_999_00 + u, 0, '2030-06-03 12:00:00'));
  lines.push(`Portcullis,PortcullisECOM,,,,2030-06-03 23:00:00,UTC,MerchantPayout,,,,,,EUR,${formatAmount(net, 'EUR')},,,,,,,,${batch},${blank}`);
  yield `${lines.join('\n')}\n`;
}

async function upload(base: string, midId: string, body: Readable): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/admin/v1/reconciliation/imports?mid_id=${midId}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/csv' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    body.pipe(req);
  });
}

async function main(): Promise<void> {
  const schema = `bench_recon_${randomBytes(4).toString('hex')}`;
  const db = await openPostgres({ url, schema, max: 5 });
  const warm = Math.max(1_000, Math.floor(total / 10));
  try {
    await migrate(db);
    const merchantId = newId();
    const midId = newId();
    await insertMerchant(db, BENCH_KEYRING, { id: merchantId, name: 'Bench reconciliation', key: `bench-rc-${randomBytes(4).toString('hex')}`, password: randomBytes(16).toString('hex'), sandbox: true });
    await insertMid(db, { id: midId, merchantId, name: 'Adyen', connector: 'sandbox-card', paymentMode: 'SMS/DMS' });
    const seeded = async (offset: number, n: number) => {
      process.stdout.write(`seeding ${n} payments and their postings... `);
      const started = performance.now();
      await seed(db, merchantId, midId, offset, n);
      await db.query('ANALYZE payments');
      await db.query('ANALYZE ledger_entries');
      console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);
    };
    console.log('\nReconciliation benchmark');

    const clock = new ManualClock('2030-06-04T09:00:00Z');
    const config = { ...loadConfig({}), port: 0, adminToken: TOKEN };
    const gateway = await assembleGateway({ config, db, clock, keyring: BENCH_KEYRING, logger: createLogger('silent') });
    const base = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const pgbench: Pgbench | undefined = pgbenchVersion() ? await preparePgbench(url) : undefined;
    try {
      await db.query("INSERT INTO recon_profiles (mid_id, settlement_days, window_days, reconcile_from, updated_at) VALUES ($1, 1, 1, '2030-05-01', now())", [midId]);
      const run = async (offset: number, n: number, batch: string) => {
        const beside = pgbench?.run(5);
        const pgbenchText = !beside ? 'pgbench not on the PATH' : 'tps' in beside ? `pgbench ${Math.round(beside.tps)} tps just before` : `pgbench failed: ${beside.error}`;
        global.gc?.();
        const rssBefore = process.memoryUsage().rss;
        let peak = rssBefore;
        const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 100);
        const t0 = performance.now();
        const res = await upload(base, midId, Readable.from(report(offset, n, batch)));
        clearInterval(sampler);
        const seconds = (performance.now() - t0) / 1000;
        if (res.status !== 200) throw new Error(`import answered ${res.status}: ${res.text.slice(0, 2000)}`);
        const batchView = (JSON.parse(res.text) as { batch: { rows: number; counts: Record<string, number>; flagged: boolean } }).batch;
        const rate = batchView.rows / seconds;
        console.log(`${batchView.rows} rows imported and matched in ${seconds.toFixed(1)} s (${Math.round(rate)} rows/s; ${pgbenchText}${beside && 'tps' in beside ? `: ${(rate / beside.tps).toFixed(2)} rows per pgbench transaction` : ''}): ${JSON.stringify(batchView.counts)}, flagged ${batchView.flagged}`);
        console.log(`  resident memory of the process (gateway and the client generating the file): ${(rssBefore / 1e6).toFixed(0)} MB before, ${(peak / 1e6).toFixed(0)} MB at most (+${((peak - rssBefore) / 1e6).toFixed(0)} MB)`);
        return { seconds, growth: peak - rssBefore };
      };
      // Each run's payments are seeded just before it, so that the first run does not find the second's missing.
      await seeded(0, warm);
      const small = await run(0, warm, 'warm');
      await seeded(warm, total);
      const big = await run(warm, total, 'bench');
      console.log(`Memory: +${(small.growth / 1e6).toFixed(0)} MB for ${warm} rows, +${(big.growth / 1e6).toFixed(0)} MB for ${total} rows (${big.growth < small.growth * 3 + 50e6 ? 'flat' : 'GROWS with the file'})`);
      console.log(`Target: ${total} rows imported and matched in under ${TARGET_S} s: ${big.seconds.toFixed(1)} s ${big.seconds < TARGET_S ? 'MET' : 'NOT MET'}`);
    } finally {
      await pgbench?.close();
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
