/**
 * `npm run bench:statement`: a settlement statement of BENCH_STATEMENT_TRANSACTIONS (default 1,000,000) sales on
 * PostgreSQL: the entries seeded by INSERT ... SELECT generate_series (each sale's four legs: receivable, pending,
 * fees, fee revenue; running balances set to their sums), then the statement built by the settlement service and
 * streamed as CSV over HTTP (GET /admin/v1/money/statements/{id}/csv), timed, with the gateway process's peak
 * resident memory sampled while it streams. Target (issue 27): built and streamed in under 60 s, in constant
 * memory. The store is BENCH_DATABASE_URL or TEST_DATABASE_URL, in a schema of its own that is dropped after.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgres } from '../src/store/database.ts';
import { migrate } from '../src/store/migrate.ts';
import { assembleGateway } from '../src/gateway.ts';
import { loadConfig } from '../src/config.ts';
import { keyringFromEnv } from '../src/store/card-vault.ts';
import { createLogger } from '../src/logger.ts';
import { ManualClock } from '../src/domain/clock.ts';
import { insertMerchant } from '../src/store/merchants-repo.ts';
import { newId } from '../src/domain/ids.ts';
import { settleMerchant } from '../src/services/money/settlement.ts';

/** The vault keys of this run: the merchants written before the gateway starts are sealed with them. */
const BENCH_KEYRING = keyringFromEnv(undefined, () => randomBytes(32));

const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const total = Number(process.env.BENCH_STATEMENT_TRANSACTIONS ?? 1_000_000);
const CHUNK = 200_000;
const TOKEN = `bench-admin-${randomBytes(8).toString('hex')}`;
const TARGET_S = 60;

async function main(): Promise<void> {
  const schema = `bench_statement_${randomBytes(4).toString('hex')}`;
  const db = await openPostgres({ url, schema, max: 5 });
  try {
    await migrate(db);
    const merchantId = newId();
    await insertMerchant(db, BENCH_KEYRING, { id: merchantId, name: 'Bench statement', key: `bench-st-${randomBytes(4).toString('hex')}`, password: randomBytes(16).toString('hex'), sandbox: true });
    const day = new Date('2030-06-01T00:00:00Z');
    process.stdout.write(`\nSettlement statement benchmark: seeding ${total} sales (${total * 4} entries)... `);
    let started = performance.now();
    for (let from = 0; from < total; from += CHUNK) {
      const to = Math.min(total, from + CHUNK);
      // Sale i: 1.00 + (i % 100) EUR at day + i ms / 100, fee 2 % (the legs as the posting rules write them).
      await db.query(
        `INSERT INTO ledger_entries (ref, event, account, currency, amount, payment_id, created_at)
         SELECT 'tx-' || i, e.event, e.account, 'EUR', e.sign * CASE WHEN e.event = 'fee' THEN (100 + i % 100) / 50 ELSE 100 + i % 100 END, 'p-' || i,
                $2::timestamptz + (i / 100) * interval '1 millisecond'
         FROM generate_series($3::int, $4::int - 1) AS i,
              (VALUES ('sale', 'acquirer:mid:receivable', 1), ('sale', $1 || ':pending', -1), ('fee', $1 || ':fees', 1), ('fee', 'platform:fee_revenue', -1)) AS e(event, account, sign)`,
        [`merchant:${merchantId}`, day, from, to],
      );
    }
    await db.query(`INSERT INTO ledger_accounts (account, currency, balance, entries) SELECT account, currency, sum(amount), count(*) FROM ledger_entries GROUP BY account, currency`);
    await db.query('ANALYZE ledger_entries');
    console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);

    const clock = new ManualClock('2030-06-04T01:00:00Z');
    const config = { ...loadConfig({}), port: 0, adminToken: TOKEN };
    const gateway = await assembleGateway({ config, db, clock, keyring: BENCH_KEYRING, logger: createLogger('silent') });
    const base = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      started = performance.now();
      const statement = await settleMerchant(gateway.ctx, merchantId, 'EUR');
      if (!statement) throw new Error('no statement was made');
      const built = (performance.now() - started) / 1000;
      const rssBefore = process.memoryUsage().rss;
      let peak = rssBefore;
      const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 100);
      started = performance.now();
      const res = await fetch(`${base}/admin/v1/money/statements/${statement.id}/csv`, { headers: { authorization: `Bearer ${TOKEN}` } });
      let bytes = 0;
      let lines = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        // Counted with indexOf (native), not byte by byte in JavaScript: the client's own work stays out of the figure.
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      }
      clearInterval(sampler);
      const streamed = (performance.now() - started) / 1000;
      console.log(`statement of ${statement.transactions} transactions: built in ${built.toFixed(1)} s; CSV ${lines} lines, ${(bytes / 1e6).toFixed(0)} MB streamed in ${streamed.toFixed(1)} s`);
      console.log(`resident memory of the process (gateway and client): ${(rssBefore / 1e6).toFixed(0)} MB before, ${(peak / 1e6).toFixed(0)} MB at most while streaming`);
      console.log(`Target: a statement of ${total} transactions built and streamed as CSV in under ${TARGET_S} s: ${(built + streamed).toFixed(1)} s ${built + streamed < TARGET_S ? 'MET' : 'NOT MET'}`);
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
