/**
 * `npm run bench:search` (and the end of `npm run bench`): the operators' payment search (GET /admin/v1/payments)
 * over 1,000,000 payments on PostgreSQL, timed over HTTP per filter kind, p50 and p95 printed. Target: e-mail,
 * last 4, order id and a rare status (chargebacks, one payment in a thousand) under 50 ms at p95.
 *
 * The payments are seeded by INSERT ... SELECT generate_series, with migration 012's indexes dropped first and
 * built again after (the time that takes is printed: it is what migration 012 costs on such a table). Each
 * search's plan is checked with EXPLAIN: a sequential scan of payments fails the run.
 * BENCH_SEARCH_PAYMENTS (default 1000000) and BENCH_SEARCH_REQUESTS (default 200 per filter) tune it; the store is
 * BENCH_DATABASE_URL or TEST_DATABASE_URL, in a schema of its own that is dropped after.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgres, type Database } from '../src/store/database.ts';
import { migrate } from '../src/store/migrate.ts';
import { assembleGateway } from '../src/gateway.ts';
import { loadConfig } from '../src/config.ts';
import { keyringFromEnv } from '../src/store/card-vault.ts';
import { createLogger } from '../src/logger.ts';
import { insertMerchant, insertMid } from '../src/store/merchants-repo.ts';
import { newId } from '../src/domain/ids.ts';
import { searchStatement, type PaymentSearch } from '../src/store/payment-search-repo.ts';
import { decodeCursor } from '../src/services/admin/payment-search.ts';
import { BINS, CHUNK, dropMigration012Indexes, migration012Statements, seedPayments } from './seed-payments.ts';

/** The vault keys of this run: the merchants written before the gateway starts are sealed with them. */
const BENCH_KEYRING = keyringFromEnv(undefined, () => randomBytes(32));

const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const total = Number(process.env.BENCH_SEARCH_PAYMENTS ?? 1_000_000);
const requests = Number(process.env.BENCH_SEARCH_REQUESTS ?? 200);
const TARGET_P95_MS = 50;
const MERCHANTS = 20;
const EMAILS = Math.max(1, Math.floor(total / 5));
const TOKEN = `bench-admin-${randomBytes(8).toString('hex')}`;

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

interface FilterKind {
  name: string;
  /** The query string of request n, and the store search it means (for EXPLAIN). */
  query(n: number): string;
  search(n: number): PaymentSearch;
  /** Whether the target applies to it. */
  target: boolean;
}

const rnd = (n: number, salt: number) => (n * 2654435761 + salt * 40503) % 4294967296;

function kinds(merchants: string[]): FilterKind[] {
  const email = (n: number) => `payer${rnd(n, 1) % EMAILS}@example.com`;
  const last4 = (n: number) => String(rnd(n, 2) % 10000).padStart(4, '0');
  const order = (n: number) => `ORD-${rnd(n, 3) % total}`;
  const merchant = (n: number) => merchants[rnd(n, 4) % merchants.length]!;
  /** The merchant that payment ORD-k belongs to (k % 20), so that order and merchant together find it. */
  const orderMerchant = (n: number) => merchants[(rnd(n, 3) % total) % MERCHANTS]!;
  return [
    { name: 'e-mail', target: true, query: (n) => `email=${encodeURIComponent(email(n).toUpperCase())}`, search: (n) => ({ email: email(n) }) },
    { name: 'card last 4', target: true, query: (n) => `card_last4=${last4(n)}`, search: (n) => ({ cardLast4: last4(n) }) },
    { name: 'order id', target: true, query: (n) => `order_id=${order(n)}`, search: (n) => ({ orderId: order(n) }) },
    { name: 'order id + merchant', target: true, query: (n) => `order_id=${order(n)}&merchant_id=${orderMerchant(n)}`, search: (n) => ({ orderId: order(n), merchantId: orderMerchant(n) }) },
    { name: 'card first 6 + last 4', target: false, query: (n) => `card_first6=${BINS[n % BINS.length]}&card_last4=${last4(n)}`, search: (n) => ({ cardFirst6: BINS[n % BINS.length], cardLast4: last4(n) }) },
    { name: 'status, rare (chargeback)', target: true, query: () => 'status=chargeback', search: () => ({ status: 'chargeback' }) },
    { name: 'status + merchant, rare', target: true, query: (n) => `status=chargeback&merchant_id=${merchant(n)}`, search: (n) => ({ status: 'chargeback', merchantId: merchant(n) }) },
    { name: 'status, common (settled)', target: false, query: () => 'status=settled', search: () => ({ status: 'settled' }) },
    { name: 'merchant, newest', target: false, query: (n) => `merchant_id=${merchant(n)}`, search: (n) => ({ merchantId: merchant(n) }) },
    { name: 'everything, newest', target: false, query: () => '', search: () => ({}) },
  ];
}

/** The indexes a plan uses; throws on a sequential scan of payments. */
async function planOf(db: Database, search: PaymentSearch, after?: { createdAt: Date; id: string }): Promise<string[]> {
  const { text, params } = searchStatement(search, 51, after);
  const rows = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, params);
  const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
  if (/Seq Scan on payments/.test(plan)) throw new Error(`sequential scan of payments for ${JSON.stringify(search)}:\n${plan}`);
  return [...new Set([...plan.matchAll(/(?:Index Only Scan|Index Scan)(?: Backward)? using (\w+)|Bitmap Index Scan on (\w+)/g)].map((m) => (m[1] ?? m[2])!))];
}

async function time(base: string, query: string): Promise<{ ms: number; body: { payments: unknown[]; next_cursor: string | null } }> {
  const started = performance.now();
  const res = await fetch(`${base}/admin/v1/payments?${query}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const body = (await res.json()) as { payments: unknown[]; next_cursor: string | null };
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`search ${query} answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms, body };
}

async function main(): Promise<void> {
  const schema = `bench_search_${randomBytes(4).toString('hex')}`;
  const db = await openPostgres({ url, schema, max: 10 });
  try {
    await migrate(db);
    const merchants = Array.from({ length: MERCHANTS }, () => newId());
    for (const [i, id] of merchants.entries()) {
      await insertMerchant(db, BENCH_KEYRING, { id, name: `Bench ${i}`, key: `bench-search-${i}-${randomBytes(4).toString('hex')}`, password: randomBytes(16).toString('hex'), sandbox: true });
      await insertMid(db, { id: newId(), merchantId: id, name: 'Sandbox', connector: 'sandbox-card', paymentMode: 'SMS/DMS' });
    }
    const statements = await migration012Statements();
    await dropMigration012Indexes(db, statements);
    // All but the last chunk without migration 012's indexes (a bulk build is faster than a million inserts
    // into them); the last chunk after, so that the write cost of the indexes shows side by side.
    const before012 = Math.max(0, total - CHUNK);
    const shape = { merchants, emails: EMAILS, now: new Date() };
    process.stdout.write(`\nAdmin payment search benchmark: seeding ${before012} payments... `);
    let started = performance.now();
    const without = await seedPayments(db, shape, 0, before012);
    console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);
    started = performance.now();
    for (const statement of statements) await db.query(statement);
    console.log(`migration 012 (its ${statements.length} indexes) on ${before012} payments: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const withIndexes = await seedPayments(db, shape, before012, total);
    const last = without.at(-1);
    console.log(`bulk insert of the last ${total - before012} payments with migration 012's indexes: ${withIndexes[0]!.toFixed(1)} s`
      + (last === undefined ? '' : ` (the chunk before, without them: ${last.toFixed(1)} s; ratio ${(withIndexes[0]! / last).toFixed(2)})`));
    await db.query('ANALYZE payments');

    const config = { ...loadConfig({}), port: 0, adminToken: TOKEN };
    const gateway = await assembleGateway({ config, db, keyring: BENCH_KEYRING, logger: createLogger('silent') });
    const base = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      console.log(`search: ${requests} sequential requests per filter over HTTP, page of 50, PostgreSQL (Node ${process.version})`);
      console.log('filter                    p50 ms   p95 ms   max ms   rows/page  index used');
      let met = true;
      for (const kind of kinds(merchants)) {
        for (let n = 0; n < 10; n++) await time(base, kind.query(n)); // warm the connections and the plan cache
        const latencies: number[] = [];
        let rows = 0;
        for (let n = 0; n < requests; n++) {
          const { ms, body } = await time(base, kind.query(n + 10));
          latencies.push(ms);
          rows += body.payments.length;
        }
        latencies.sort((a, b) => a - b);
        const p95 = percentile(latencies, 95);
        if (kind.target && p95 >= TARGET_P95_MS) met = false;
        const indexes = await planOf(db, kind.search(0));
        console.log(`${kind.name.padEnd(24)} ${percentile(latencies, 50).toFixed(1).padStart(7)} ${p95.toFixed(1).padStart(8)} ${latencies.at(-1)!.toFixed(1).padStart(8)} ${(rows / requests).toFixed(1).padStart(10)}  ${indexes.join(', ')}`);
      }
      // A later page: the cursor continues the same index range.
      const first = await time(base, 'card_last4=0042');
      const after = first.body.next_cursor ? decodeCursor(first.body.next_cursor) : undefined;
      if (after) {
        const later = await time(base, `card_last4=0042&cursor=${encodeURIComponent(first.body.next_cursor!)}`);
        console.log(`card last 4, page 2 by cursor: ${later.ms.toFixed(1)} ms, ${later.body.payments.length} rows, index ${(await planOf(db, { cardLast4: '0042' }, after)).join(', ')}`);
      }
      console.log(`Target: e-mail, last 4, order id and a rare status under ${TARGET_P95_MS} ms at p95 over ${total} payments: ${met ? 'MET' : 'NOT MET'}`);
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
