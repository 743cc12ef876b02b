import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Database, Sql } from './database.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

async function migrationFiles(): Promise<string[]> {
  return (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();
}

/** Versions of the migrations shipped with this build that the store has not applied (readiness). */
export async function pendingMigrations(db: Sql): Promise<number[]> {
  const files = await migrationFiles();
  const [table] = await db.query<{ present: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`);
  const applied = table?.present
    ? new Set((await db.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version))
    : new Set<number>();
  return files.map((f) => Number.parseInt(f, 10)).filter((v) => !applied.has(v));
}

/**
 * The advisory lock every node takes to migrate, so that nodes starting together apply each migration once. It is
 * the schema's (the gateway's tables live in one): stores in other schemas of the same database (the test suite's)
 * neither wait for each other nor become a snapshot an index build waits for while they wait for it.
 */
const MIGRATION_LOCK = '715517, hashtext(current_schema())';
/** How often a node waiting for another's migration outside a transaction asks for the lock again. */
const LOCK_POLL_MS = 100;

/**
 * A migration whose first line is this comment runs outside a transaction, one statement at a time, when it
 * upgrades a PostgreSQL database already in use: its CREATE INDEX CONCURRENTLY and DROP INDEX CONCURRENTLY then
 * leave the tables open to writes while an index is built (a transaction would hold the table locked throughout,
 * and a payments table of millions of rows takes minutes). Such a file must converge when run again from any
 * point, since a crash in the middle leaves what it did so far: it drops what it is about to build (IF EXISTS)
 * before building it, under a name of its own, and renames it last. Statements end with a semicolon at a line's end.
 */
const NO_TRANSACTION = /^--\s*migrate:\s*no-transaction\b/;

/**
 * Applies the numbered SQL files in migrations/ that have not run yet, each in its own transaction (or, for a file
 * marked NO_TRANSACTION upgrading a PostgreSQL database in use, outside one).
 */
export async function migrate(db: Database): Promise<number[]> {
  await db.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  // Two nodes starting at once must not both migrate: serialise on an advisory lock.
  const applied = new Set(
    (await db.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version),
  );
  // A new database (nothing applied yet) has no one to keep waiting: every file runs in a transaction there.
  const inUse = applied.size > 0;
  const files = await migrationFiles();
  const done: number[] = [];
  for (const file of files) {
    const version = Number.parseInt(file, 10);
    if (applied.has(version)) continue;
    const sql = await readFile(path.join(MIGRATIONS_DIR, file), 'utf8');
    const outside = NO_TRANSACTION.test(sql) && inUse && db.session !== undefined;
    const ran = outside ? await applyOutsideTransaction(db, version, file, sql) : await applyInTransaction(db, version, file, sql);
    if (ran) done.push(version);
  }
  return done;
}

async function applyInTransaction(db: Database, version: number, file: string, text: string): Promise<boolean> {
  // CONCURRENTLY is refused in a transaction block; in one, the plain statement does the same work.
  const sql = NO_TRANSACTION.test(text) ? text.replace(/\bCONCURRENTLY\s+/g, '') : text;
  return db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    const again = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [version]);
    if (again.length > 0) return false;
    // PostgreSQL runs a file's statements as one simple query (one round trip; 55 files of about 240
    // statements: about half the client's CPU, 190 -> 100 ms, and 15 % of the server's per empty database);
    // PGlite's query takes one statement at a time.
    if (db.kind === 'postgres') await tx.query(sql);
    else await execScript(tx, sql);
    await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, file]);
    return true;
  });
}

/**
 * A NO_TRANSACTION file on a database in use: its statements one by one on a connection of its own, under the
 * session-level form of the same advisory lock (released with the connection, even if the process dies).
 */
async function applyOutsideTransaction(db: Database, version: number, file: string, sql: string): Promise<boolean> {
  return db.session!(async (conn) => {
    // Asked again and again rather than waited for: a statement waiting for the lock holds a snapshot, and the
    // holder's CREATE INDEX CONCURRENTLY waits for every older snapshot to go (a deadlock).
    while (!(await conn.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${MIGRATION_LOCK}) AS locked`))[0]?.locked) {
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    }
    const again = await conn.query('SELECT 1 FROM schema_migrations WHERE version = $1', [version]);
    if (again.length > 0) return false;
    await execScript(conn, sql);
    await conn.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, file]);
    return true;
  });
}

/** Runs a multi-statement script; statements are split on semicolons at line ends. */
async function execScript(tx: { query(text: string): Promise<unknown> }, sql: string): Promise<void> {
  const statements = sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter(Boolean);
  for (const statement of statements) await tx.query(statement);
}
