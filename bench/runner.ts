/**
 * `npm run bench:runner` (and the end of `npm run bench`): the schedule runner charging 100,000 due payments on
 * PostgreSQL, each through the sandbox connector with its own vaulted card, each with its callback written to
 * the outbox. Prints payments/s; target: all of them in under 60 s.
 * BENCH_RUNNER_PAYMENTS (default 100000), BENCH_RUNNER_LANES (default 4) and BENCH_RUNNER_BATCH (default 250)
 * tune it; the store is BENCH_DATABASE_URL or TEST_DATABASE_URL, in a schema of its own that is dropped after.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgres, type Database } from '../src/store/database.ts';
import { migrate } from '../src/store/migrate.ts';
import { keyringFromEnv, storeCard, type Keyring } from '../src/store/card-vault.ts';
import { insertMerchant, insertMid, MerchantDirectory } from '../src/store/merchants-repo.ts';
import { insertSchedule } from '../src/store/schedules-repo.ts';
import { defaultConnectors } from '../src/connectors/registry.ts';
import { NodeHttpPort } from '../src/connectors/http.ts';
import { sandboxConnectors } from '../src/sandbox/index.ts';
import { systemClock } from '../src/domain/clock.ts';
import { newId } from '../src/domain/ids.ts';
import { createLogger } from '../src/logger.ts';
import { ScheduleRunner } from '../src/workers/schedule-runner.ts';

const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const total = Number(process.env.BENCH_RUNNER_PAYMENTS ?? 100_000);
const lanes = Number(process.env.BENCH_RUNNER_LANES ?? 4);
const batchSize = Number(process.env.BENCH_RUNNER_BATCH ?? 250);
const TARGET_SECONDS = 60;
const CHUNK = 2_000;

/** Runs fn over 0..n-1, `limit` at a time. */
async function times(n: number, limit: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < n) await fn(next++);
  }));
}

/** One merchant, one MID, one schedule, and `total` chains on it whose first payment is due now. */
async function seed(db: Database, keyring: Keyring): Promise<void> {
  const now = new Date();
  const today = now.toISOString().slice(0, 10);
  const merchantId = newId();
  await insertMerchant(db, keyring, { id: merchantId, name: 'Bench Shop', key: `bench-${randomBytes(6).toString('hex')}`, password: randomBytes(16).toString('hex'), sandbox: true, notificationUrl: 'https://shop.example/callbacks' });
  const midId = newId();
  await insertMid(db, { id: midId, merchantId, name: 'Sandbox', connector: 'sandbox-card', paymentMode: 'SMS/DMS' });
  const schedule = await insertSchedule(db, { id: newId(), merchantId, name: 'Monthly', rule: { interval: { length: 1, unit: 'month' }, delay: { kind: 'none' }, paymentsCount: 12 }, now });
  const cards: string[] = new Array(total);
  await times(total, 16, async (i) => {
    cards[i] = (await storeCard(db, keyring, { id: newId(), merchantId, pan: '4111111111111111', expMonth: '01', expYear: '2038', holder: 'John Doe', now })).id;
  });
  for (let from = 0; from < total; from += CHUNK) {
    const rows = cards.slice(from, from + CHUNK).map((vaultId, i) => ({ payment_id: newId(), subscription_id: newId(), token: newId(), vault_id: vaultId, order_id: `bench-${from + i}` }));
    await db.query(
      `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(payment_id text, subscription_id text, token text, vault_id text, order_id text)),
         p AS (INSERT INTO payments (id, merchant_id, channel, operation, order_id, amount, currency, description, status, auth, captured_amount, mid_id, vault_id, payer, details, created_at, updated_at)
               SELECT payment_id, $2, 's2s_card', 'purchase', order_id, 999, 'USD', 'Subscription', 'settled', false, 999, $3, vault_id,
                 '{"email": "doe@example.com"}'::jsonb,
                 jsonb_build_object('recurringInit', true, 'recurring_token', token, 'recurring_init_trans_id', payment_id, 'cardMask', '411111****1111', 'first6Last4', '4111111111', 'cardExpiry', '01/2038'),
                 $5, $5 FROM x RETURNING id)
       INSERT INTO schedule_subscriptions (id, schedule_id, merchant_id, init_payment_id, origin_payment_id, recurring_token, operation, amount, currency,
         started_on, first_date, anchor_day, next_due_date, next_due_at, created_at, updated_at)
       SELECT subscription_id, $4, $2, payment_id, payment_id, token, 'recurring', 999, 'USD', $6, $6, 1, $6, $7, $5, $5 FROM x`,
      [JSON.stringify(rows), merchantId, midId, schedule.id, now, today, new Date(`${today}T00:00:00Z`)],
    );
  }
}

async function main(): Promise<void> {
  const schema = `bench_runner_${randomBytes(4).toString('hex')}`;
  const db = await openPostgres({ url, schema, max: 20 });
  try {
    await migrate(db);
    const keyring = keyringFromEnv(undefined, () => randomBytes(32));
    process.stdout.write(`\nSchedule runner benchmark: seeding ${total} due payments (each with its own vaulted card)... `);
    const seeded = Date.now();
    await seed(db, keyring);
    // A store in service has statistics; a freshly bulk-loaded one needs them before its first plan.
    await db.query('ANALYZE');
    console.log(`${((Date.now() - seeded) / 1000).toFixed(1)} s`);
    const ctx = { db, clock: systemClock, connectors: defaultConnectors(new NodeHttpPort(), sandboxConnectors().cards), keyring, merchants: new MerchantDirectory(db, keyring), baseUrl: 'http://127.0.0.1', logger: createLogger('silent') };
    const runner = new ScheduleRunner(ctx, { batchSize, concurrency: 32 });
    // The lanes are the runner's passes side by side, as start() runs them; driven here to count what each pass wrote.
    let done = 0;
    const lane = async (): Promise<void> => {
      for (;;) {
        const pass = await runner.runOnce();
        done += pass.recorded;
        if (pass.claimed === 0) return;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: lanes }, lane));
    const seconds = (performance.now() - started) / 1000;
    if (done !== total) throw new Error(`charged ${done} of ${total}`);
    const [outbox] = await db.query<{ n: bigint }>("SELECT count(*) AS n FROM callbacks WHERE protocol = 's2s'");
    const [settled] = await db.query<{ n: bigint }>("SELECT count(*) AS n FROM payments WHERE operation = 'recurring' AND status = 'settled'");
    console.log(`runner: ${lanes} lanes x ${batchSize} per claim, PostgreSQL (Node ${process.version})`);
    console.log(`charged ${total} due payments in ${seconds.toFixed(1)} s: ${(total / seconds).toFixed(0)} payments/s (${settled?.n} settled, ${outbox?.n} callbacks in the outbox)`);
    console.log(`Target: ${total} due payments in under ${TARGET_SECONDS} s: ${seconds < TARGET_SECONDS ? 'MET' : 'NOT MET'}`);
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
