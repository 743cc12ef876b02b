/**
 * Runs a test body against both stores: embedded PGlite and the PostgreSQL server from TEST_DATABASE_URL
 * (default postgres://127.0.0.1:5432/test). When no server answers, the PostgreSQL half is skipped with
 * the reason printed, never passed silently.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openPglite, openPostgres, type Database } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';

/**
 * pg 9 refuses a statement sent on a client that is running another; pg 8 queues it and warns (once a process):
 * "Calling client.query() when the client is already executing a query is deprecated". Every test file on the
 * stores fails on that warning, with the stack that sent the statement (the warning's own).
 */
process.on('warning', (warning) => {
  if (warning.name === 'DeprecationWarning' && warning.message.includes('already executing a query')) {
    throw new Error(`pg: a statement was sent on a client already running one (pg 9 refuses it)\n${warning.stack ?? ''}`);
  }
});

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
    const db = await openPglite(undefined, { loadDataDir: await pgliteTemplate() });
    // Nothing to apply when the template is current; still run, as a gateway's start-up would.
    await migrate(db);
    return { db, dispose: () => db.close() };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  // A throwaway schema's commits (its migrations' 57, the tests' own) need not wait for their WAL to reach the disk:
  // visibility is the same; only a crash of the server could lose them, and no test crashes the shared server.
  const db = await openPostgres({ url: TEST_DATABASE_URL, schema, max: 10, asynchronousCommit: true });
  await migrate(db);
  return {
    db,
    async dispose() {
      await db.close();
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL, options: ASYNCHRONOUS_COMMIT });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/** The session setting of asynchronousCommit (src/store/database.ts), for the clients made here. */
const ASYNCHRONOUS_COMMIT = '-c synchronous_commit=off';

const MIGRATIONS_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../src/store/migrations');
const TEMPLATE_DIR = path.join(tmpdir(), 'portcullis-test-pglite');

let template: Promise<Blob> | undefined;
/** What the template holds beyond the migrations (part of its name): the gateway's database alone. */
const TEMPLATE_FORM = 'postgres database only (template0 and template1 dropped)\0';

/**
 * A new PGlite cluster costs about 3 s of CPU (initdb) and the migrations another 0.6 s; loading a copy of a
 * migrated one about 1 s. The copy is made once per set of migrations and PGlite version and kept in the
 * temporary directory, so every test process (they run in parallel) shares it; its name is the digest of what
 * went into it, so a new or changed migration makes a new one. The copy holds the one database the gateway uses:
 * template0 and template1 (PostgreSQL's templates for CREATE DATABASE, which no test runs on PGlite) are dropped
 * before the dump, so each load unpacks 29 MB instead of 44 (about 0.1 s of CPU less per store: 550-620 -> 465-483
 * ms for PGlite.create and a first query, three interleaved pairs).
 */
function pgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    const digest = createHash('sha256');
    digest.update(TEMPLATE_FORM);
    // The package's own description (its version); it exports no ./package.json, so found beside its entry point.
    digest.update(await readFile(path.join(path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), '../package.json')));
    for (const name of (await readdir(MIGRATIONS_DIR)).sort()) digest.update(`\0${name}\0`).update(await readFile(path.join(MIGRATIONS_DIR, name)));
    const file = path.join(TEMPLATE_DIR, `${digest.digest('hex').slice(0, 32)}.tar`);
    const made = await readFile(file).catch(() => undefined);
    if (made) return new Blob([made]);
    const db = await openPglite();
    await migrate(db);
    for (const name of ['template1', 'template0']) {
      await db.query(`ALTER DATABASE ${name} IS_TEMPLATE false`);
      await db.query(`DROP DATABASE ${name}`);
    }
    const blob = await db.dump();
    await db.close();
    // Written aside and renamed: a process reading it never sees half a file.
    await mkdir(TEMPLATE_DIR, { recursive: true });
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(partial, Buffer.from(await blob.arrayBuffer()));
    await rename(partial, file);
    await pruneTemplates(file);
    return blob;
  })();
  return template;
}

/** A day old: another checkout's run (other migrations) may still load its template meanwhile. */
const TEMPLATE_KEPT_MS = 24 * 3600_000;

/** Templates of older migrations (and partial writes of dead processes) would pile up in the temporary directory. */
async function pruneTemplates(current: string): Promise<void> {
  for (const name of await readdir(TEMPLATE_DIR).catch(() => [] as string[])) {
    const full = path.join(TEMPLATE_DIR, name);
    if (full === current) continue;
    const made = await stat(full).then((s) => s.mtimeMs, () => undefined);
    if (made !== undefined && Date.now() - made > TEMPLATE_KEPT_MS) await rm(full, { force: true });
  }
}

/** The two store kinds, each with the reason to skip it (if any), for `describe(name, { skip })`. */
export async function storeKinds(): Promise<{ kind: StoreKind; skip: string | false }[]> {
  const reason = await postgresUnavailable();
  return [
    { kind: 'pglite', skip: false },
    { kind: 'postgres', skip: reason ?? false },
  ];
}
