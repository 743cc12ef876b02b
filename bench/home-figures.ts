/**
 * `npm run bench:figures` (and `npm run bench`): the console home's figures (GET /admin/v1/stats/figures, issue 31
 * item 5) over 1,000,000 payments spread over the last 365 days on PostgreSQL, timed over HTTP: the first read of
 * each range (which counts its closed days into the rollup) and then p50/p95 of repeated reads. Target: p95 under
 * 200 ms at 1,000,000 payments.
 *
 * Seed: payment i of merchant i % 20 on that merchant's MID (connectors alternating; odd merchants live keys, even
 * ones test keys, so `mode=test|live` (issue 25 item 26) reads half the payments each), created i * 31.5 s before now;
 * 70 % approved, 20 % declined (four reasons), 10 % left in 3-D Secure; every tenth payment and the one after it are
 * two tries of one Hosted Checkout session. The bench's schema drops payments' foreign key to sessions (no session
 * rows are seeded). BENCH_FIGURES_PAYMENTS (default 1000000) and BENCH_FIGURES_REQUESTS (default 50 per range) tune
 * it; the store is BENCH_DATABASE_URL or TEST_DATABASE_URL, in a schema of its own that is dropped after.
 */
import { randomBytes } from 'node:crypto';
import { dropBenchSchema, runBench } from './bench-schema.ts';
import { openPostgres, type Database } from '../src/store/database.ts';
import { migrate } from '../src/store/migrate.ts';
import { assembleGateway } from '../src/gateway.ts';
import { loadConfig } from '../src/config.ts';
import { keyringFromEnv } from '../src/store/card-vault.ts';
import { createLogger } from '../src/logger.ts';
import { insertMerchant, insertMid } from '../src/store/merchants-repo.ts';
import { newId } from '../src/domain/ids.ts';
import { addDays, dayOf } from '../src/domain/payment-figures.ts';
import { figureRows } from '../src/store/payment-figures-repo.ts';

const KEYRING = keyringFromEnv(undefined, () => randomBytes(32));
const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const total = Number(process.env.BENCH_FIGURES_PAYMENTS ?? 1_000_000);
const requests = Number(process.env.BENCH_FIGURES_REQUESTS ?? 50);
const TARGET_P95_MS = 200;
const MERCHANTS = 20;
const CHUNK = 100_000;
const SPACING_MS = 31_500;
const TOKEN = `bench-figures-${randomBytes(8).toString('hex')}`;

async function seed(db: Database, merchants: string[], mids: string[], now: Date): Promise<void> {
  for (let start = 0; start < total; start += CHUNK) {
    await db.query(
      `INSERT INTO payments (id, merchant_id, mid_id, session_id, channel, operation, order_id, amount, currency, status, decline_reason, created_at, updated_at)
       SELECT gen_random_uuid()::text, ($1::text[])[1 + i % ${MERCHANTS}], ($2::text[])[1 + i % ${MERCHANTS}],
         CASE WHEN i % 10 IN (0, 1) THEN 'S-' || (i / 10) END, 'checkout', 'purchase', 'ORD-' || i, 100 + (i::bigint * 7919) % 100000,
         (ARRAY['EUR','USD','GBP'])[1 + i % 3],
         CASE WHEN i % 10 = 1 THEN 'decline' WHEN i % 10 < 8 THEN 'settled' WHEN i % 10 = 8 THEN 'decline' ELSE '3ds' END,
         CASE WHEN i % 10 IN (1, 8) THEN (ARRAY['Insufficient funds','Do not honour','Expired card','Suspected fraud'])[1 + (i / 10) % 4] END,
         $3::timestamptz - (i::bigint * ${SPACING_MS}) * interval '1 millisecond', $3::timestamptz - (i::bigint * ${SPACING_MS}) * interval '1 millisecond'
       FROM generate_series($4::int, $5::int) AS i`,
      [merchants, mids, now, start, Math.min(total, start + CHUNK) - 1],
    );
  }
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

async function time(base: string, query: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${base}/admin/v1/stats/figures?${query}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`figures ${query} answered ${res.status}: ${body}`);
  return performance.now() - started;
}

/** Execution time of figureRows' statement for the last 30 days, as EXPLAIN ANALYZE reports it. */
async function explainDefault(db: Database, today: string): Promise<string> {
  const statements: { text: string; params: readonly unknown[] }[] = [];
  const spy = { query: async <T>(text: string, params: readonly unknown[] = []): Promise<T[]> => { statements.push({ text, params }); return [] as T[]; } };
  await figureRows(spy, { previousFrom: addDays(today, -59), from: addDays(today, -29), until: addDays(today, 1), liveFrom: addDays(today, -1), by: 'merchant' });
  const { text, params } = statements[0]!;
  const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ANALYZE ${text}`, params);
  return plan.map((r) => r['QUERY PLAN']).filter((l) => /Execution Time|Planning Time/.test(l)).map((l) => l.trim()).join(', ');
}

async function main(): Promise<void> {
  const schema = `bench_figures_${randomBytes(4).toString('hex')}`;
  const db = await openPostgres({ url, schema, max: 10 });
  try {
    await migrate(db);
    await db.query('ALTER TABLE payments DROP CONSTRAINT IF EXISTS payments_session_id_fkey');
    const merchants = Array.from({ length: MERCHANTS }, () => newId());
    const mids = Array.from({ length: MERCHANTS }, () => newId());
    for (const [i, id] of merchants.entries()) {
      await insertMerchant(db, KEYRING, { id, name: `Bench ${i}`, key: `bench-figures-${i}-${randomBytes(4).toString('hex')}`, password: randomBytes(16).toString('hex'), sandbox: i % 2 === 0 });
      await insertMid(db, { id: mids[i]!, merchantId: id, name: `MID ${i}`, connector: i % 2 ? 'akurateco' : 'sandbox-card', paymentMode: 'SMS/DMS' });
    }
    const now = new Date();
    process.stdout.write(`\nConsole home figures benchmark: seeding ${total} payments over ${Math.round((total * SPACING_MS) / 86_400_000)} days... `);
    const seeded = performance.now();
    await seed(db, merchants, mids, now);
    console.log(`${((performance.now() - seeded) / 1000).toFixed(1)} s`);
    await db.query('ANALYZE payments');

    const gateway = await assembleGateway({ config: { ...loadConfig({}), port: 0, adminToken: TOKEN }, db, keyring: KEYRING, logger: createLogger('silent') });
    const base = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const today = dayOf(now);
    const ranges = [
      { name: 'today', query: `from=${today}&to=${today}` },
      { name: 'last 7 days', query: `from=${addDays(today, -6)}&to=${today}` },
      { name: 'last 30 days (default)', query: '' },
      { name: 'last 30 days by MID', query: 'by=mid' },
      { name: 'last 30 days, one merchant', query: `merchant_id=${merchants[3]}` },
      { name: 'last 30 days, live keys', query: 'mode=live' },
      { name: 'last 90 days, test keys by MID', query: `from=${addDays(today, -89)}&to=${today}&by=mid&mode=test` },
      { name: 'last 90 days by connector', query: `from=${addDays(today, -89)}&to=${today}&by=connector` },
      { name: 'last 182 days (364 read)', query: `from=${addDays(today, -181)}&to=${today}` },
    ];
    try {
      console.log(`figures: first read, then ${requests} sequential requests per range over HTTP, PostgreSQL (Node ${process.version})`);
      console.log('range                            first ms   p50 ms   p95 ms   max ms');
      let met = true;
      for (const range of ranges) {
        const first = await time(base, range.query);
        const latencies: number[] = [];
        for (let n = 0; n < requests; n++) latencies.push(await time(base, range.query));
        latencies.sort((a, b) => a - b);
        const p95 = percentile(latencies, 95);
        if (p95 >= TARGET_P95_MS) met = false;
        console.log(`${range.name.padEnd(32)} ${first.toFixed(1).padStart(8)} ${percentile(latencies, 50).toFixed(1).padStart(8)} ${p95.toFixed(1).padStart(8)} ${latencies.at(-1)!.toFixed(1).padStart(8)}`);
      }
      // The database's own time for the default range (no HTTP, no JSON), to tell the statement from the machine's load.
      const explained = await explainDefault(db, today);
      console.log(`the default range's statement in PostgreSQL (EXPLAIN ANALYZE): ${explained}`);
      const rollup = await db.query<{ rows: string; days: string }>('SELECT (SELECT count(*) FROM payment_figures_daily)::text AS rows, (SELECT count(*) FROM payment_figures_days)::text AS days');
      console.log(`rollup: ${rollup[0]!.rows} rows for ${rollup[0]!.days} days`);
      console.log(`Target: p95 under ${TARGET_P95_MS} ms at ${total} payments (repeated reads): ${met ? 'MET' : 'NOT MET'}`);
    } finally {
      await gateway.close();
    }
  } finally {
    await db.close();
    await dropBenchSchema(url, schema);
  }
}

runBench(main);
