import { createHash } from 'node:crypto';
import pg from 'pg';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';

/** Anything that can run SQL: the database itself or an open transaction. */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<T[]>;
}

/** One PostgreSQL dialect, two drivers: embedded PGlite or a PostgreSQL server through node-postgres. */
export interface Database extends Sql {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * LISTEN on a dedicated connection (PostgreSQL server only: PGlite lives in one process). `onEvent` gets each
   * notification's payload, and `undefined` whenever the connection was lost and is back, since notifications
   * sent meanwhile are gone. Returns the function that stops listening.
   */
  listen?(channel: string, onEvent: (payload: string | undefined) => void): Promise<() => Promise<void>>;
  /**
   * Runs fn on one connection of its own, outside any transaction, and closes that connection after it (so nothing
   * it set, a session-level lock say, outlives fn): for statements a transaction block refuses (CREATE INDEX
   * CONCURRENTLY). PostgreSQL server only; PGlite has one connection, the database itself.
   */
  session?<T>(fn: (conn: Sql) => Promise<T>): Promise<T>;
}

const INT8_OID = 20;

/**
 * The store could not be reached or could not take the statement (connection refused, reset or timed out, the
 * server shutting down or still in recovery, a read-only standby): channels answer 503, never 500.
 */
export class StoreUnavailableError extends Error {
  override readonly cause: unknown;
  constructor(cause: unknown) {
    super(`store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'StoreUnavailableError';
    this.cause = cause;
  }
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
/** SQLSTATEs meaning "not now" rather than "not this": admin/crash shutdown, starting up, too many clients, read-only standby. */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '25006']);
const DRIVER_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|not queryable/i;

/** True when err says the database is out of reach (see StoreUnavailableError), not that the statement is wrong. */
export function isConnectionFailure(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  const e = err as { code?: unknown; message?: unknown } | undefined;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith('08')) return true;
  return typeof e?.message === 'string' && DRIVER_MESSAGES.test(e.message);
}

const unavailableOr = (err: unknown): unknown => (isConnectionFailure(err) && !(err instanceof StoreUnavailableError) ? new StoreUnavailableError(err) : err);

/** bigint parameters travel as decimal strings: both drivers accept that for int8 columns. */
function toParams(params: readonly unknown[] = []): unknown[] {
  return params.map((p) => (typeof p === 'bigint' ? p.toString() : p));
}

export interface PgliteOptions {
  /** A data directory to start from (one made by `dump()`), instead of creating a new cluster: a copy is far quicker. */
  loadDataDir?: Blob;
}

export async function openPglite(dataDir?: string, opts: PgliteOptions = {}): Promise<Database & { dump(): Promise<Blob> }> {
  const db = await PGlite.create(dataDir ?? 'memory://', {
    parsers: { [pgliteTypes.INT8]: (v: string) => BigInt(v) },
    ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
  });
  const run = (q: { query: PGlite['query'] }) => async <T>(text: string, params?: readonly unknown[]) =>
    (await q.query<T>(text, toParams(params))).rows;
  return {
    kind: 'pglite',
    query: run(db),
    transaction: (fn) => db.transaction((tx) => fn({ query: run(tx) })),
    close: () => db.close(),
    // Its data directory as an uncompressed tarball (after a checkpoint), for `loadDataDir`.
    dump: async () => {
      await db.query('CHECKPOINT');
      return db.dumpDataDir('none');
    },
  };
}

export interface PostgresOptions {
  url: string;
  /** Schema used as search_path (tests give each run its own). */
  schema?: string;
  max?: number;
  /** How long failing connection attempts are retried before the store is reported unavailable. Default 2 s. */
  connectRetryMs?: number;
  /** How long one connection attempt may take. Default 3 s. */
  connectTimeoutMs?: number;
  /**
   * Commits return before their WAL reaches the disk (synchronous_commit = off): for the test suite's throwaway
   * schemas, where a commit's flush (about 10 ms on a loaded test machine) is only waiting; never for a gateway.
   */
  asynchronousCommit?: boolean;
}

/**
 * Statements with parameters run as named prepared statements: each connection parses them once, which is
 * most of a short statement's cost on the server.
 */
const statementNames = new Map<string, string>();
function prepared(text: string, params?: readonly unknown[]): pg.QueryConfig | string {
  if (!params || params.length === 0) return text;
  let name = statementNames.get(text);
  if (!name) {
    name = `s${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    if (statementNames.size < 5000) statementNames.set(text, name);
  }
  return { name, text, values: toParams(params) };
}

/**
 * Session settings of every connection. Plans are made afresh at each execution (force_custom_plan), for the
 * tables as they are then. PostgreSQL otherwise settles, after five executions, on a generic plan that it
 * keeps for the life of the connection; and so does every foreign-key check. Made while a table was small (a
 * new installation, a test schema) it scans the table, and keeps scanning it once it has grown, until an
 * ANALYZE happens to invalidate it, which never comes where autovacuum is off. In the benchmark, half the
 * runs drifted that way, at 150 µs more database time per sale. Planning is not free (100 to 170 µs for the
 * batched writes), which is why group commit keeps statements few; docs/decisions.md has the measurements.
 * JIT compilation is off: PostgreSQL estimates 100 rows for any set-returning function over a JSON parameter, so a
 * batched read over jsonb_array_elements (the screens' reads) crossed jit_above_cost and spent about 23 ms
 * compiling a statement that runs in 0.3 ms; the gateway's statements are short, and none gains from it.
 */
function sessionOptions(opts: Pick<PostgresOptions, 'schema' | 'asynchronousCommit'>): string {
  return [
    ...(opts.schema ? [`-c search_path=${opts.schema}`] : []),
    '-c plan_cache_mode=force_custom_plan',
    '-c jit=off',
    ...(opts.asynchronousCommit ? ['-c synchronous_commit=off'] : []),
  ].join(' ');
}

export async function openPostgres(opts: PostgresOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 20,
    // pg closes a connection after 10 s idle, and the next burst reopens it: a backend start and cold caches
    // in the middle of the load, with every write of a group commit queued behind the statement that landed
    // on it. Idle connections are kept five minutes instead; they never keep the process alive.
    idleTimeoutMillis: 5 * 60_000,
    allowExitOnIdle: true,
    // A host that vanished (a failed machine) answers nothing: give up on it rather than wait for the kernel.
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 3_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    options: sessionOptions(opts),
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (v: string) => BigInt(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  pool.on('error', () => {
    /* an idle client lost its connection; the pool replaces it */
  });
  // A connection can also die while checked out between two statements (the server shut down or was killed: a
  // FATAL arrives with no query to fail). Without a listener that 'error' event would end the process; with
  // one, the next statement on it fails as a connection failure and the connection is dropped at release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  if (opts.schema) {
    const c = await pool.connect();
    try {
      await c.query(`CREATE SCHEMA IF NOT EXISTS "${opts.schema}"`);
    } finally {
      c.release();
    }
  }
  const connect = (begin: boolean) => connectRetrying(pool, begin, opts.connectRetryMs ?? DEFAULT_CONNECT_RETRY_MS);
  const query = async <T>(text: string, params?: readonly unknown[]): Promise<T[]> => {
    for (let attempt = 1; ; attempt++) {
      const client = await connect(false);
      try {
        const rows = (await client.query(prepared(text, params))).rows as T[];
        client.release();
        return rows;
      } catch (err) {
        const lost = isConnectionFailure(err);
        // A dead connection is dropped, never handed out again.
        client.release(lost ? (err as Error) : undefined);
        // A connection that died under a lone SELECT changed nothing: reading again is safe. Anything else may
        // have been applied before the connection died, so it is reported, never repeated.
        if (lost && attempt === 1 && READ_ONLY.test(text)) continue;
        throw unavailableOr(err);
      }
    }
  };
  return {
    kind: 'postgres',
    query,
    async transaction(fn) {
      const client = await connect(true);
      // COMMIT and ROLLBACK too wait for any statement still running or queued (never sent before it).
      const tx = oneAtATime(client);
      let failure: unknown;
      try {
        const result = await fn(tx);
        await tx.query('COMMIT');
        return result;
      } catch (err) {
        failure = err;
        if (!isConnectionFailure(err)) await tx.query('ROLLBACK').catch(() => undefined);
        throw unavailableOr(err);
      } finally {
        client.release(failure !== undefined && isConnectionFailure(failure) ? (failure as Error) : undefined);
      }
    },
    async session(fn) {
      const client = await connect(false);
      try {
        return await fn(oneAtATime(client));
      } catch (err) {
        throw unavailableOr(err);
      } finally {
        client.release(true);
      }
    },
    close: () => pool.end(),
    listen: (channel, onEvent) => listenOn({ connectionString: opts.url, options: sessionOptions(opts) }, channel, onEvent),
  };
}

/**
 * A transaction's statements, run one at a time on its connection in the order they are made: a statement made
 * while another is running (a Promise.all over the transaction, a page's lookup sent while the page before is
 * written) is sent when the one before it is done, failed or not. pg queued such statements itself, but warns that
 * it does ("Calling client.query() when the client is already executing a query is deprecated") and pg 9 refuses
 * them. pg sent a queued statement only after the one before finished too, so the order and the pace are pg's.
 */
function oneAtATime(client: pg.PoolClient): Sql {
  let last: Promise<unknown> = Promise.resolve();
  return {
    query<T>(text: string, params?: readonly unknown[]): Promise<T[]> {
      const run = last.then(async () => (await client.query(prepared(text, params))).rows as T[]);
      last = run.catch(() => undefined);
      return run;
    },
  };
}

/** A client of its own that LISTENs, reconnecting (with a pause) whenever its connection drops. */
async function listenOn(config: pg.ClientConfig, channel: string, onEvent: (payload: string | undefined) => void): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const c = new pg.Client(config);
    c.on('notification', (msg) => {
      if (msg.channel === channel) onEvent(msg.payload);
    });
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    try {
      await c.connect();
      await c.query(`LISTEN "${channel.replace(/"/g, '')}"`);
    } catch (err) {
      await c.end().catch(() => undefined);
      throw err;
    }
    client = c;
  };
  const scheduleRetry = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      if (!stopped) connect().then(() => onEvent(undefined), scheduleRetry);
    }, 1000);
    retry.unref();
  };
  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = undefined;
    c.end().catch(() => undefined);
    scheduleRetry();
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };
}

const READ_ONLY = /^\s*SELECT\b/i;
const DEFAULT_CONNECT_RETRY_MS = 2_000;

/**
 * A connection from the pool, opened afresh when needed, with BEGIN sent when `begin`. Failing to connect (or a
 * pooled connection found dead at BEGIN) sent nothing that could change data, so it is retried with backoff for
 * up to retryMs (long enough for a proxy to switch to a promoted standby's address, short enough for a request);
 * after that the store is reported unavailable.
 */
async function connectRetrying(pool: pg.Pool, begin: boolean, retryMs: number): Promise<pg.PoolClient> {
  const deadline = Date.now() + retryMs;
  for (let pause = 50; ; pause = Math.min(pause * 2, 500)) {
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      if (begin) await client.query('BEGIN');
      return client;
    } catch (err) {
      client?.release(err as Error);
      if (!isConnectionFailure(err) || Date.now() + pause > deadline) throw unavailableOr(err);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
