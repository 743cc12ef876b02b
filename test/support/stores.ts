/**
 * Runs a test body against both stores: embedded PGlite and the PostgreSQL server from TEST_DATABASE_URL
 * (default postgres://127.0.0.1:5432/test). When no server answers, the PostgreSQL half is skipped with
 * the reason printed, never passed silently.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPglite, openPostgres, type Database } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type StoreKind = 'pglite' | 'postgres';

let probe: Promise<string | undefined> | undefined;

/** Undefined when PostgreSQL answers, else why it does not. */
export function postgresUnavailable(): Promise<string | undefined> {
  probe ??= (async () => {
    // A few tries: on a loaded 2-core machine (browsers and embedded stores starting beside it) one connection
    // can take seconds to be accepted, which says nothing about whether the server is there.
    let error: Error | undefined;
    for (let attempt = 0; attempt < PROBE_ATTEMPTS; attempt++) {
      error = await connectOnce();
      if (!error) return undefined;
    }
    const reason = `PostgreSQL at ${TEST_DATABASE_URL} unavailable (${error?.message}); PostgreSQL tests skipped`;
    // CI sets REQUIRE_POSTGRES: there a missing server is a failure, not a skip.
    if (process.env.REQUIRE_POSTGRES) throw new Error(reason.replace('tests skipped', 'required by REQUIRE_POSTGRES'));
    console.warn(`# SKIP ${reason}`);
    return reason;
  })();
  return probe;
}

const PROBE_ATTEMPTS = 3;

/** One connection and one query: undefined when the server answered, else its error. */
async function connectOnce(): Promise<Error | undefined> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    return err as Error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface TestStore {
  db: Database;
  /** Drops what the store created (the PostgreSQL schema); closes the connection. */
  dispose(): Promise<void>;
}

/** A fresh, migrated store of the given kind. PostgreSQL gets its own schema so test files can run in parallel. */
export async function openTestStore(kind: StoreKind): Promise<TestStore> {
  if (kind === 'pglite') {
    const db = await openPglite();
    await migrate(db);
    return { db, dispose: () => db.close() };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const db = await openPostgres({ url: TEST_DATABASE_URL, schema, max: 10 });
  await migrate(db);
  return {
    db,
    async dispose() {
      await db.close();
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/** The two store kinds, each with the reason to skip it (if any), for `describe(name, { skip })`. */
export async function storeKinds(): Promise<{ kind: StoreKind; skip: string | false }[]> {
  const reason = await postgresUnavailable();
  return [
    { kind: 'pglite', skip: false },
    { kind: 'postgres', skip: reason ?? false },
  ];
}
