/**
 * `npm run bench:backtest` (and part of `npm run bench`): issue 26's "backtest of one rule set over 1,000,000
 * payments in under 60 s", measured for real: 1,000,000 payments of one merchant seeded in PostgreSQL (about 29
 * days of them, one every 2.5 s), then the admin API's backtest, over HTTP as an operator runs it
 * (POST /admin/v1/risk/rules/:merchant/backtest with the 50-rule set of bench/risk-rules.ts over the last 30 days):
 * the service's store paging (5,000 rows a statement), the replay of every payment and the tally included.
 * BENCH_BACKTEST_PAYMENTS (default 1000000) tunes it; the store is BENCH_DATABASE_URL or TEST_DATABASE_URL, in a
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
import { FIFTY } from './risk-rules.ts';

const BENCH_KEYRING = keyringFromEnv(undefined, () => randomBytes(32));
const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const total = Number(process.env.BENCH_BACKTEST_PAYMENTS ?? 1_000_000);
const TARGET_S = 60;
const DAYS = 30; // 1,000,000 payments 2.5 s apart span 28.9 days
const TOKEN = `bench-admin-${randomBytes(8).toString('hex')}`;

async function main(): Promise<void> {
  const schema = `bench_backtest_${randomBytes(4).toString('hex')}`;
  const db = await openPostgres({ url, schema, max: 10 });
  try {
    await migrate(db);
    const merchantId = newId();
    await insertMerchant(db, BENCH_KEYRING, { id: merchantId, name: 'Bench backtest', key: `bench-backtest-${randomBytes(4).toString('hex')}`, password: randomBytes(16).toString('hex'), sandbox: false });
    await insertMid(db, { id: newId(), merchantId, name: 'Live', connector: 'sandbox-card', paymentMode: 'SMS/DMS' });
    const statements = await migration012Statements();
    await dropMigration012Indexes(db, statements);
    process.stdout.write(`\nRisk backtest benchmark: seeding ${total} payments of one merchant... `);
    let started = performance.now();
    await seedPayments(db, { merchants: [merchantId], emails: Math.max(1, Math.floor(total / 5)), now: new Date() }, 0, total);
    for (const statement of statements) await db.query(statement);
    await db.query('ANALYZE payments');
    console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);

    if (process.env.BENCH_EXPLAIN) {
      const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ANALYZE SELECT p.id, p.merchant_id, m.sandbox, p.mid_id, p.channel, p.operation, p.auth, p.amount, p.currency, p.status, p.created_at, p.payer, p.custom_data,
            CASE WHEN p.details ? 'apm' OR p.channel = 's2s_apm' THEN coalesce(p.details->'apm'->>'method', p.details->>'brand', 'apm') ELSE 'card' END AS method,
            left(p.details->>'first6Last4', 6) AS first6, p.details->>'brand' AS brand, (p.details->>'merchantInitiated')::boolean AS mit,
            e.evaluation->'velocity' AS velocity
     FROM payments p JOIN merchants m ON m.id = p.merchant_id LEFT JOIN risk_evaluations e ON e.payment_id = p.id
     WHERE ($1::text IS NULL OR p.merchant_id = $1) AND p.created_at >= $2 AND p.created_at <= $3
       AND ($4::timestamptz IS NULL OR (p.created_at, p.id) > ($4::timestamptz, $5::text))
     ORDER BY p.created_at, p.id LIMIT $6`, [merchantId, new Date(Date.now() - DAYS * 86_400_000), new Date(), null, '', 5000]);
      console.log(plan.map((r) => r['QUERY PLAN']).join('\n'));
    }
    const config = { ...loadConfig({}), port: 0, adminToken: TOKEN };
    const gateway = await assembleGateway({ config, db, keyring: BENCH_KEYRING, logger: createLogger('silent') });
    const base = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const cpuBefore = process.cpuUsage();
      started = performance.now();
      const res = await fetch(`${base}/admin/v1/risk/rules/${merchantId}/backtest`, {
        method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ rules: FIFTY, days: DAYS }),
      });
      const text = await res.text();
      const seconds = (performance.now() - started) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      if (res.status !== 200) throw new Error(`the backtest answered ${res.status}: ${text}`);
      const view = JSON.parse(text) as { payments: number; counts: Record<string, number> };
      console.log(`POST /admin/v1/risk/rules/:merchant/backtest over HTTP (PostgreSQL, Node ${process.version}), 50 rules with 3 velocity conditions, last ${DAYS} days: `
        + `${view.payments} payments in ${seconds.toFixed(1)} s (${Math.round(view.payments / seconds)} payments/s); counts ${JSON.stringify(view.counts)}`);
      console.log(`CPU time of the gateway process during the backtest: ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`);
      if (view.payments !== total) throw new Error(`the backtest replayed ${view.payments} payments, not ${total}`);
      console.log(`Target: the backtest of ${total} payments under ${TARGET_S} s: ${seconds < TARGET_S ? 'MET' : 'NOT MET'}`);
      if (seconds >= TARGET_S) process.exitCode = 1;
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
