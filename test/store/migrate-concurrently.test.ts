/**
 * Migration 192 (issue 24) rebuilds two indexes of payments and ledger_entries and drops a third. Upgrading a
 * PostgreSQL database in use, it runs outside a transaction (its first line: src/store/migrate.ts NO_TRANSACTION),
 * so the index builds never lock the tables against writes: a payment written while the migration waits for the
 * writes in flight goes through. Each case below puts back the database as release 1.0.0 left it (192 not applied,
 * the indexes as 013, 110 and 150 made them) in a store of its own, then starts gateways' migrations on it.
 */
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openTestStore, postgresUnavailable, TEST_DATABASE_URL, type TestStore } from '../support/stores.ts';
import { openPostgres, type Database } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';

const skip = (await postgresUnavailable()) ?? false;

/** The schema as it was before migration 192 (the definitions of migrations 013, 110 and 150). */
const BEFORE_192 = `
  DELETE FROM schema_migrations WHERE version = 192;
  ALTER TABLE risk_evaluations RESET (fillfactor);
  ALTER TABLE transactions RESET (fillfactor);
  ALTER TABLE payment_attempts RESET (fillfactor);
  CREATE INDEX payments_session_declined ON payments (session_id) WHERE status = 'decline';
  DROP INDEX payments_connector_ref;
  CREATE INDEX payments_connector_ref ON payments ((details->>'connectorRef')) WHERE mid_id IS NOT NULL;
  DROP INDEX ledger_entries_fee_lines;
  CREATE INDEX ledger_entries_fee_lines ON ledger_entries (account, created_at, ref, event) WHERE event IN ('fee', 'fee_refund');`;

const schemaOf = async (db: Database): Promise<string> => (await db.query<{ s: string }>('SELECT current_schema() AS s'))[0]!.s;

async function clientOn(schema: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
  await client.connect();
  return client;
}

/** The indexes of the three tables 192 touches, by name, with their definitions. */
async function indexes(db: Database): Promise<Map<string, string>> {
  const rows = await db.query<{ name: string; def: string }>(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('payments', 'ledger_entries')`,
  );
  return new Map(rows.map((r) => [r.name, r.def]));
}

async function assertMigrated(db: Database): Promise<void> {
  const found = await indexes(db);
  assert.match(found.get('payments_connector_ref') ?? '', /mid_id IS NOT NULL\) AND \(\(details ->> 'connectorRef'::text\) IS NOT NULL\)/);
  assert.match(found.get('ledger_entries_fee_lines') ?? '', /account ~~ 'merchant:%'::text/);
  assert.equal(found.has('payments_session_declined'), false);
  assert.deepEqual([...found.keys()].filter((name) => name.endsWith('_192')), [], 'no index left under its building name');
  const invalid = await db.query("SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND NOT i.indisvalid");
  assert.equal(invalid.length, 0, 'every index valid');
  const [applied] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations WHERE version = 192');
  assert.equal(applied!.n, 1);
  const fillfactors = await db.query<{ relname: string; reloptions: string[] }>(
    "SELECT relname, reloptions FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relname IN ('risk_evaluations', 'transactions', 'payment_attempts') ORDER BY relname",
  );
  assert.deepEqual(fillfactors.map((r) => [r.relname, r.reloptions]), [['payment_attempts', ['fillfactor=75']], ['risk_evaluations', ['fillfactor=60']], ['transactions', ['fillfactor=80']]]);
}

describe('migration 192 upgrading a PostgreSQL database in use (postgres)', { skip }, () => {
  let store: TestStore | undefined;
  const closing: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close().catch(() => undefined);
    await store?.dispose();
    store = undefined;
  });

  it('leaves payments open to writes while it waits for the writes in flight, and two nodes apply it once', async () => {
    store = await openTestStore('postgres');
    await store.db.query(BEFORE_192);
    const schema = await schemaOf(store.db);
    // A write in flight on payments (an old node's payment, say): the index builds wait for it to end.
    const inFlight = await clientOn(schema);
    closing.push(() => inFlight.end());
    await inFlight.query('BEGIN');
    await inFlight.query('LOCK TABLE payments IN ROW EXCLUSIVE MODE');
    // Two new nodes start together, each migrating.
    const second = await openPostgres({ url: TEST_DATABASE_URL, schema, max: 2 });
    closing.push(() => second.close());
    const migrations = [migrate(store.db), migrate(second)];
    const watcher = await clientOn(schema);
    closing.push(() => watcher.end());
    for (let waited = 0; ; waited += 25) {
      const [row] = (await watcher.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query ILIKE '%INDEX CONCURRENTLY%' AND wait_event_type = 'Lock'")).rows as { n: number }[];
      if (row!.n > 0) break;
      assert.ok(waited < 10_000, 'the migration reached its index builds');
      await new Promise((r) => setTimeout(r, 25));
    }
    // Another payment is written meanwhile: a migration holding payments locked would make it wait past the timeout.
    const writer = await clientOn(schema);
    closing.push(() => writer.end());
    await writer.query("SET lock_timeout = '2s'");
    await writer.query("UPDATE payments SET status = status WHERE id = 'none'");
    await inFlight.query('COMMIT');
    const [first, other] = await Promise.all(migrations);
    assert.deepEqual([...first!, ...other!].filter((v) => v === 192), [192], 'applied by one of the two nodes');
    await assertMigrated(store.db);
  });

  it('ends where it should when run again after stopping half-way (its building index left behind)', async () => {
    store = await openTestStore('postgres');
    await store.db.query(BEFORE_192);
    // As a crash could leave it: the session index dropped, the new connector index built, the old one gone, and
    // the fee lines' new index half-built (here, on the wrong columns).
    await store.db.query(`
      DROP INDEX payments_session_declined;
      CREATE INDEX payments_connector_ref_192 ON payments ((details->>'connectorRef')) WHERE mid_id IS NOT NULL AND (details->>'connectorRef') IS NOT NULL;
      DROP INDEX payments_connector_ref;
      CREATE INDEX ledger_entries_fee_lines_192 ON ledger_entries (ref);`);
    assert.deepEqual(await migrate(store.db), [192]);
    await assertMigrated(store.db);
    assert.deepEqual(await migrate(store.db), [], 'nothing left to apply');
  });
});
