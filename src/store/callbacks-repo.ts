/**
 * The callback outbox (decisions D7, design principles 4 and 8). Payment services enqueue inside the
 * transaction of the state change; dispatchers on any node claim due rows with a lease
 * (`FOR UPDATE SKIP LOCKED` + `locked_until`) and settle them only while the lease token is still theirs.
 * All instants come from the caller's Clock, never from the database's now().
 */
import type { Database, Sql } from './database.ts';
import { newId } from '../domain/ids.ts';
import { columnArrays, groupCommitted, jsonRows, jsonRowsParam, type BatchColumn } from './group-commit.ts';
import { encodeForm, type FormFields } from '../domain/form-encoding.ts';
import { afterTimeout, HEALTHY_URL, type CallbackProtocol, type UrlHealth } from '../domain/callback-policy.ts';
import type { DeliveryState } from '../domain/callback-delivery.ts';

export type CallbackStatus = 'pending' | 'delivered' | 'failed';

export interface CallbackRecord {
  id: string;
  merchantId: string;
  paymentId: string | null;
  url: string;
  protocol: CallbackProtocol;
  fields: FormFields;
  status: CallbackStatus;
  /** Attempts of the current delivery (a resend starts again at 0; the attempt log keeps all). */
  attempts: number;
  nextAttemptAt: Date;
  lockedUntil: Date | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

/** A callback this dispatcher holds until `lockedUntil`; settle it with `leaseToken`. */
export interface ClaimedCallback extends CallbackRecord {
  leaseToken: string;
  lockedUntil: Date;
  /** The exact form body to POST. */
  body: string;
}

export interface CallbackAttemptRecord extends AttemptInput {
  id: bigint;
}

export interface CallbackWithAttempts extends CallbackRecord {
  attemptLog: CallbackAttemptRecord[];
  /** The earliest earlier callback of the same payment still pending: this one waits behind it (sent in order). */
  behind: { id: string; attempts: number; nextAttemptAt: Date; lastError: string | null } | null;
  /** Until when its URL is blocked (it may lie in the past: a block that ended); null: never blocked. */
  blockedUntil: Date | null;
  /** The exact form body sent (encoded once, at enqueue). */
  body: string;
  /** Its place in the newest-first order, exact to the stored instant: [created_at as the store prints it, id] (a list's cursor). */
  position: [string, string];
}

interface CallbackRow {
  id: string;
  merchant_id: string;
  payment_id: string | null;
  url: string;
  protocol: CallbackProtocol;
  fields: FormFields;
  status: CallbackStatus;
  attempts: number;
  next_attempt_at: Date;
  locked_until: Date | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
  lease_token: string | null;
  body: string | null;
}

interface AttemptRow {
  id: bigint;
  callback_id: string;
  attempted_at: Date;
  http_status: number | null;
  outcome: string;
  error: string | null;
  duration_ms: number;
}

const toRecord = (r: CallbackRow): CallbackRecord => ({
  id: r.id,
  merchantId: r.merchant_id,
  paymentId: r.payment_id,
  url: r.url,
  protocol: r.protocol,
  fields: r.fields,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  lockedUntil: r.locked_until,
  lastError: r.last_error,
  createdAt: r.created_at,
  deliveredAt: r.delivered_at,
});

const toAttempt = (r: AttemptRow): CallbackAttemptRecord => ({
  id: r.id,
  callbackId: r.callback_id,
  attemptedAt: r.attempted_at,
  httpStatus: r.http_status,
  outcome: r.outcome,
  error: r.error,
  durationMs: r.duration_ms,
});

/** S2S callbacks leave out parameters without a value; Checkout ones send RRN/ARN empty (wire-reference 4.1). */
export function callbackBody(protocol: CallbackProtocol, fields: FormFields): string {
  return encodeForm(fields, { omitEmptyStrings: protocol === 's2s' });
}

/** bigint amounts and the like are stored as strings: they are sent as strings anyway. */
const fieldsJson = (fields: FormFields): string =>
  JSON.stringify(fields, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));

export interface EnqueueCallbackInput {
  /** The stable event id (UUID) the receiver uses to drop repeats; generated when absent. */
  id?: string;
  merchantId: string;
  paymentId?: string | null;
  url: string;
  protocol: CallbackProtocol;
  /** Signed fields, hash included; nested values (custom_data) become bracket keys. */
  fields: FormFields;
  now: Date;
}

/**
 * Adds a callback to the outbox, due at once. Call it with the transaction that changes the payment state, so
 * both commit or neither does. Enqueueing an id that exists already keeps the existing row (idempotent).
 */
export async function enqueueCallback(tx: Sql, input: EnqueueCallbackInput): Promise<string> {
  const [id] = await enqueueCallbacks(tx, [input]);
  return id as string;
}

const ENQUEUE_ONE = `INSERT INTO callbacks (id, merchant_id, payment_id, url, protocol, fields, body, next_attempt_at, created_at)
  VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7, $8, $8)
  ON CONFLICT (id) DO NOTHING`;

const ENQUEUE_MANY = `INSERT INTO callbacks (id, merchant_id, payment_id, url, protocol, fields, body, next_attempt_at, created_at)
  SELECT id, merchant_id, payment_id, url, protocol, fields::jsonb, body, now, now
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
    AS c(id, merchant_id, payment_id, url, protocol, fields, body, now)
  ON CONFLICT (id) DO NOTHING`;

/**
 * Callbacks written by this process so far (committed or not): a request that saw it move while it ran may have
 * written one, and wakes the dispatcher when its answer is out (gateway.ts); others leave it to its poll.
 */
let enqueuedHere = 0;
export const callbacksEnqueuedHere = (): number => enqueuedHere;

/**
 * A callback written by another table's statement, as the columns of that statement's batch (payments-repo.ts: an
 * outcome's update writes its callback in the same statement): an absent callback is a row of NULLs.
 */
export const CALLBACK_BATCH_COLUMNS: readonly BatchColumn[] = [
  ['cb_id', 'text'], ['cb_merchant_id', 'text'], ['cb_payment_id', 'text'], ['cb_url', 'text'], ['cb_protocol', 'text'],
  ['cb_fields', 'jsonb'], ['cb_body', 'text'], ['cb_now', 'timestamptz'],
];

/** A callback's values in the order of CALLBACK_BATCH_COLUMNS (counted as enqueued here, as enqueueCallbacks does). */
export function callbackBatchParams(input: EnqueueCallbackInput | undefined): unknown[] {
  if (!input) return [null, null, null, null, null, null, null, null];
  enqueuedHere++;
  return [input.id ?? newId(), input.merchantId, input.paymentId ?? null, input.url, input.protocol, fieldsJson(input.fields), callbackBody(input.protocol, input.fields), input.now];
}

/** The INSERT of the callbacks in the rows of `source`, whose columns are CALLBACK_BATCH_COLUMNS' prefixed with `prefix`. */
export const insertCallbacksFrom = (source: string, prefix: string): string =>
  `INSERT INTO callbacks (id, merchant_id, payment_id, url, protocol, fields, body, next_attempt_at, created_at)
     SELECT ${prefix}cb_id, ${prefix}cb_merchant_id, ${prefix}cb_payment_id, ${prefix}cb_url, ${prefix}cb_protocol, ${prefix}cb_fields, ${prefix}cb_body, ${prefix}cb_now, ${prefix}cb_now
     FROM ${source} WHERE ${prefix}cb_id IS NOT NULL
     ON CONFLICT (id) DO NOTHING`;

/** enqueueCallback for several callbacks, in one statement, in the order given (the order they are sent in). */
export async function enqueueCallbacks(tx: Sql, inputs: readonly EnqueueCallbackInput[]): Promise<string[]> {
  enqueuedHere += inputs.length;
  const rows = inputs.map((input) => [
    input.id ?? newId(), input.merchantId, input.paymentId ?? null, input.url, input.protocol,
    fieldsJson(input.fields), callbackBody(input.protocol, input.fields), input.now,
  ]);
  if (rows.length === 1) await tx.query(ENQUEUE_ONE, rows[0]);
  else if (rows.length > 1) await tx.query(ENQUEUE_MANY, columnArrays(rows));
  return rows.map((row) => row[0] as string);
}

export interface ClaimOptions {
  now: Date;
  limit: number;
  /** How long the claim holds; after that another dispatcher may take the callback (crash recovery). */
  lockMs: number;
}

/**
 * Claims up to `limit` due callbacks whose URL is not blocked. Rows another transaction is claiming are
 * skipped, and rows under a live lease are not due, so no two dispatchers hold one callback at once.
 */
export async function claimDue(db: Sql, opts: ClaimOptions): Promise<ClaimedCallback[]> {
  const leaseToken = newId();
  const lockedUntil = new Date(opts.now.getTime() + opts.lockMs);
  const rows = await db.query<CallbackRow>(
    `WITH due AS MATERIALIZED (
       SELECT d.id FROM callbacks d
       WHERE d.status = 'pending' AND d.next_attempt_at <= $1
         AND (d.locked_until IS NULL OR d.locked_until <= $1)
         AND NOT EXISTS (SELECT 1 FROM callback_url_health h WHERE h.url = d.url AND h.blocked_until > $1)
         -- In order per payment: an earlier callback still pending (or retrying) holds the later ones back.
         AND NOT EXISTS (SELECT 1 FROM callbacks e WHERE e.payment_id = d.payment_id AND e.status = 'pending' AND e.seq < d.seq)
       ORDER BY d.next_attempt_at, d.seq
       LIMIT $4
       FOR UPDATE OF d SKIP LOCKED)
     UPDATE callbacks c SET locked_until = $2, lease_token = $3
     FROM due WHERE c.id = due.id
     RETURNING c.*`,
    [opts.now, lockedUntil, leaseToken, opts.limit],
  );
  return rows
    .map((r) => ({ ...toRecord(r), leaseToken, lockedUntil, body: r.body ?? callbackBody(r.protocol, r.fields) }))
    .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime());
}

export interface AttemptInput {
  callbackId: string;
  attemptedAt: Date;
  httpStatus: number | null;
  outcome: string;
  error: string | null;
  durationMs: number;
}

/** Appends to the attempt log; recorded even when the lease was lost, since the POST did happen. */
export async function recordAttempt(sql: Sql, a: AttemptInput): Promise<void> {
  await sql.query(
    `INSERT INTO callback_attempts (callback_id, attempted_at, http_status, outcome, error, duration_ms)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [a.callbackId, a.attemptedAt, a.httpStatus, a.outcome, a.error, Math.round(a.durationMs)],
  );
}

export interface Lease {
  id: string;
  leaseToken: string;
}

/** Runs a lease-fenced update; false when the lease is no longer ours (expired and taken over). */
async function updateHeld(sql: Sql, lease: Lease, set: string, params: unknown[]): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE callbacks SET ${set}, locked_until = NULL, lease_token = NULL
     WHERE id = $1 AND lease_token = $2 AND status = 'pending' RETURNING id`,
    [lease.id, lease.leaseToken, ...params],
  );
  return rows.length > 0;
}

export function scheduleRetry(sql: Sql, lease: Lease & { nextAttemptAt: Date; error: string }): Promise<boolean> {
  return updateHeld(sql, lease, `attempts = attempts + 1, next_attempt_at = $3, last_error = $4`, [
    lease.nextAttemptAt,
    lease.error,
  ]);
}

export function markFailed(sql: Sql, lease: Lease & { error: string }): Promise<boolean> {
  return updateHeld(sql, lease, `status = 'failed', attempts = attempts + 1, last_error = $3`, [lease.error]);
}

/** A delivered attempt to settle: the attempt, the URL's health (a delivery resets its timeouts) and the callback. */
export interface DeliveredSettlement extends Lease {
  url: string;
  attempt: AttemptInput;
  now: Date;
}

const DELIVERED_COLUMNS: BatchColumn[] = [
  ['ord', 'int4'], ['id', 'text'], ['lease', 'text'], ['now', 'timestamptz'], ['url', 'text'],
  ['attempted_at', 'timestamptz'], ['http_status', 'int4'], ['outcome', 'text'], ['error', 'text'], ['duration_ms', 'int4'],
];

/**
 * The attempt log, the URL's health (a delivery resets its timeout count, policy afterSuccess) and the callback
 * delivered, for many deliveries, as one statement (atomic as a transaction would be).
 */
const SETTLE_DELIVERED = `WITH v AS MATERIALIZED (SELECT * FROM ${jsonRows('v', DELIVERED_COLUMNS)}),
  a AS (INSERT INTO callback_attempts (callback_id, attempted_at, http_status, outcome, error, duration_ms)
        SELECT id, attempted_at, http_status, outcome, error, duration_ms FROM v),
  h AS (UPDATE callback_url_health SET timeouts = '{}' WHERE url IN (SELECT url FROM v) AND cardinality(timeouts) > 0),
  d AS (UPDATE callbacks c SET status = 'delivered', attempts = c.attempts + 1, delivered_at = v.now, last_error = NULL,
          locked_until = NULL, lease_token = NULL
        FROM v WHERE c.id = v.id AND c.lease_token = v.lease AND c.status = 'pending' RETURNING v.ord)
  SELECT ord FROM d`;

async function settleDeliveredMany(sql: Sql, items: readonly DeliveredSettlement[]): Promise<boolean[]> {
  const rows = await sql.query<{ ord: number }>(SETTLE_DELIVERED, [jsonRowsParam(items.map((s, ord) => [
    ord, s.id, s.leaseToken, s.now, s.url, s.attempt.attemptedAt, s.attempt.httpStatus, s.attempt.outcome, s.attempt.error, Math.round(s.attempt.durationMs),
  ]))]);
  const held = new Set(rows.map((r) => Number(r.ord)));
  return items.map((_, ord) => held.has(ord));
}

/**
 * A delivery's attempt log, URL health and settlement in one statement, shared with the deliveries settled at the
 * same time (group commit): the dispatcher's ten POSTs in flight settled in a transaction of four statements each,
 * and a SALE with a callback cost its payment's statements several times over. False when the lease was lost (the
 * attempt is logged all the same: the POST did happen).
 */
export const settleDelivered = groupCommitted<DeliveredSettlement, boolean>({
  one: async (sql, s) => (await settleDeliveredMany(sql, [s]))[0] ?? false,
  many: settleDeliveredMany,
});

/** Puts a claimed callback back without counting an attempt (its URL got blocked while it waited). */
export function deferCallback(sql: Sql, lease: Lease & { until: Date; reason: string }): Promise<boolean> {
  return updateHeld(sql, lease, `next_attempt_at = $3, last_error = $4`, [lease.until, lease.reason]);
}

/** Gives a claimed callback back untried (a stopping node): due as it was, free for any dispatcher at once. */
export function releaseCallback(sql: Sql, lease: Lease): Promise<boolean> {
  return updateHeld(sql, lease, 'next_attempt_at = next_attempt_at', []);
}

// ---- URL health (the block rule's memory, shared by every merchant using the URL) ----

export async function getUrlHealth(sql: Sql, url: string): Promise<UrlHealth> {
  const [row] = await sql.query<{ timeouts: Date[]; blocked_until: Date | null }>(
    'SELECT timeouts, blocked_until FROM callback_url_health WHERE url = $1',
    [url],
  );
  return row ? { timeouts: row.timeouts, blockedUntil: row.blocked_until } : HEALTHY_URL;
}

const BLOCKED_ONE = 'SELECT blocked_until FROM callback_url_health WHERE url = $1 AND blocked_until > $2';
const BLOCKED_MANY = `SELECT v.ord, h.blocked_until FROM ${jsonRows('v', [['ord', 'int4'], ['url', 'text'], ['now', 'timestamptz']])}
  JOIN callback_url_health h ON h.url = v.url AND h.blocked_until > v.now`;

/** Whether URLs are blocked, asked at the same time, in one statement (a dispatcher asks before each POST). */
const blockedGrouped = groupCommitted<{ url: string; now: Date }, Date | undefined>({
  one: async (sql, q) => (await sql.query<{ blocked_until: Date }>(BLOCKED_ONE, [q.url, q.now]))[0]?.blocked_until,
  many: async (sql, qs) => {
    const rows = await sql.query<{ ord: number; blocked_until: Date }>(BLOCKED_MANY, [jsonRowsParam(qs.map((q, ord) => [ord, q.url, q.now]))]);
    const until = new Map(rows.map((r) => [Number(r.ord), r.blocked_until]));
    return qs.map((_, ord) => until.get(ord));
  },
});

/** When the URL is blocked at `now`: until when; else undefined. */
export function urlBlockedUntil(sql: Sql, url: string, now: Date): Promise<Date | undefined> {
  return blockedGrouped(sql, { url, now });
}

/**
 * Counts a timeout of `url` at `at` and blocks the URL on the fifth within the window. Must run inside a
 * transaction: the row lock serialises dispatchers counting timeouts of one URL at once.
 */
export async function recordUrlTimeout(tx: Sql, url: string, at: Date): Promise<UrlHealth & { justBlocked: boolean }> {
  await tx.query('INSERT INTO callback_url_health (url) VALUES ($1) ON CONFLICT (url) DO NOTHING', [url]);
  const [row] = await tx.query<{ timeouts: Date[]; blocked_until: Date | null }>(
    'SELECT timeouts, blocked_until FROM callback_url_health WHERE url = $1 FOR UPDATE',
    [url],
  );
  const next = afterTimeout({ timeouts: row?.timeouts ?? [], blockedUntil: row?.blocked_until ?? null }, at);
  await tx.query('UPDATE callback_url_health SET timeouts = $2::timestamptz[], blocked_until = $3 WHERE url = $1', [
    url,
    next.timeouts.map((t) => t.toISOString()),
    next.blockedUntil,
  ]);
  return next;
}

/**
 * Admin: lifts a block and clears the count. With `now`, callbacks of the URL that were waiting for the block
 * to end become due at once. False when the URL had no block and no count.
 */
export function unblockUrl(db: Database, url: string, now?: Date): Promise<boolean> {
  return db.transaction(async (tx) => (await unblockUrlIn(tx, url, now)) !== undefined);
}

/** unblockUrl() inside the caller's transaction: the URL's health before (undefined when there was nothing to lift). */
export async function unblockUrlIn(tx: Sql, url: string, now?: Date): Promise<UrlHealth | undefined> {
  const [row] = await tx.query<{ blocked_until: Date | null; timeouts: Date[] }>(
    'SELECT blocked_until, timeouts FROM callback_url_health WHERE url = $1 FOR UPDATE',
    [url],
  );
  if (!row || (row.blocked_until === null && row.timeouts.length === 0)) return undefined;
  await tx.query(`UPDATE callback_url_health SET timeouts = '{}', blocked_until = NULL WHERE url = $1`, [url]);
  if (now && row.blocked_until && row.blocked_until > now) {
    await tx.query(
      `UPDATE callbacks SET next_attempt_at = $2
       WHERE url = $1 AND status = 'pending' AND next_attempt_at > $2 AND next_attempt_at <= $3`,
      [url, now, row.blocked_until],
    );
  }
  return { timeouts: row.timeouts, blockedUntil: row.blocked_until };
}

export interface BlockedUrl {
  url: string;
  blockedUntil: Date;
  timeouts: Date[];
  /** Callbacks to this URL still to be delivered, and the merchants they belong to. */
  waiting: number;
  merchantIds: string[];
}

/** URLs blocked at `now`, the block ending last first. Few rows: one per URL that timed out five times. */
export async function listBlockedUrls(sql: Sql, now: Date, limit: number): Promise<BlockedUrl[]> {
  const rows = await sql.query<{ url: string; blocked_until: Date; timeouts: Date[]; waiting: string; merchant_ids: string[] | null }>(
    `SELECT h.url, h.blocked_until, h.timeouts,
            (SELECT count(*) FROM callbacks c WHERE c.status = 'pending' AND c.url = h.url) AS waiting,
            (SELECT array_agg(DISTINCT c.merchant_id) FROM callbacks c WHERE c.status = 'pending' AND c.url = h.url) AS merchant_ids
       FROM callback_url_health h
      WHERE h.blocked_until > $1
      ORDER BY h.blocked_until DESC, h.url
      LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => ({
    url: r.url, blockedUntil: new Date(r.blocked_until), timeouts: r.timeouts.map((t) => new Date(t)),
    waiting: Number(r.waiting), merchantIds: r.merchant_ids ?? [],
  }));
}

// ---- admin side: event log and resend ----

export interface CallbackFilter {
  merchantId?: string;
  /** Any of these merchants (the portal's scope). */
  merchantIds?: readonly string[];
  paymentId?: string;
  /** One callback (with its attempt log and wait state). */
  id?: string;
  status?: CallbackStatus;
  /** Issue 25, item 26: test keys' (sandbox merchants') callbacks only, or live keys' only. */
  mode?: 'test' | 'live';
  /** The event it reports, as callbackEventOf names it (sale, refund, test, ..., lower case). */
  event?: string;
  /** The delivery state as deliveryOf computes it at `now` (which the filter then needs). */
  state?: { state: DeliveryState; now: Date };
  /** Only callbacks after this position in the newest-first order (a cursor's `position`). */
  after?: readonly [string, string];
  /** Newest first; default 100, at most 1000. */
  limit?: number;
}

/**
 * The SQL condition on a callbacks row `x` that holds when deliveryOf would give it `state` at the instant in
 * parameter `now` (a `$n`): the same order of tests (sending, waiting behind, blocked, due, retrying, scheduled).
 */
export function deliveryStateCondition(state: DeliveryState, now: string): string {
  const pending = "x.status = 'pending'";
  const sending = `(x.locked_until IS NOT NULL AND x.locked_until > ${now})`;
  const behind = "EXISTS (SELECT 1 FROM callbacks e WHERE e.payment_id = x.payment_id AND e.status = 'pending' AND e.seq < x.seq)";
  const blocked = `EXISTS (SELECT 1 FROM callback_url_health h WHERE h.url = x.url AND h.blocked_until > ${now})`;
  const free = `${pending} AND NOT ${sending} AND NOT ${behind} AND NOT ${blocked}`;
  switch (state) {
    case 'delivered': return "x.status = 'delivered'";
    case 'failed': return "x.status = 'failed'";
    case 'sending': return `${pending} AND ${sending}`;
    case 'waiting_behind': return `${pending} AND NOT ${sending} AND ${behind}`;
    case 'blocked': return `${pending} AND NOT ${sending} AND NOT ${behind} AND ${blocked}`;
    case 'due': return `${free} AND x.next_attempt_at <= ${now}`;
    case 'retrying': return `${free} AND x.next_attempt_at > ${now} AND x.attempts > 0`;
    case 'scheduled': return `${free} AND x.next_attempt_at > ${now} AND x.attempts = 0`;
  }
}

/** The SQL of callbackEventOf: `type` (Checkout) or `action` (S2S), lower case; `unknown` when neither. */
const EVENT_SQL = "lower(coalesce(nullif(x.fields->>'type', ''), nullif(x.fields->>'action', ''), 'unknown'))";

export async function getCallback(sql: Sql, id: string): Promise<CallbackRecord | undefined> {
  const [row] = await sql.query<CallbackRow>('SELECT * FROM callbacks WHERE id = $1', [id]);
  return row && toRecord(row);
}

/** Callbacks matching the filter, newest first, each with its attempt log in order. */
export async function listCallbacks(sql: Sql, filter: CallbackFilter = {}): Promise<CallbackWithAttempts[]> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (column: string, value: unknown) => {
    if (value === undefined) return;
    params.push(value);
    conditions.push(`${column} = $${params.length}`);
  };
  add('x.merchant_id', filter.merchantId);
  if (filter.merchantIds !== undefined) {
    params.push([...filter.merchantIds]);
    conditions.push(`x.merchant_id = ANY($${params.length}::text[])`);
  }
  add('x.payment_id', filter.paymentId);
  add('x.id', filter.id);
  add('x.status', filter.status);
  if (filter.mode !== undefined) conditions.push(`x.merchant_id IN (SELECT m.id FROM merchants m WHERE m.sandbox = ${filter.mode === 'test' ? 'true' : 'false'})`);
  if (filter.event !== undefined) {
    params.push(filter.event);
    conditions.push(`${EVENT_SQL} = $${params.length}`);
  }
  if (filter.state !== undefined) {
    const now = `$${params.length + 1}::timestamptz`;
    const condition = deliveryStateCondition(filter.state.state, now);
    if (condition.includes(now)) params.push(filter.state.now); // delivered and failed do not depend on the instant
    conditions.push(`(${condition})`);
  }
  if (filter.after !== undefined) {
    params.push(filter.after[0], filter.after[1]);
    const at = `$${params.length - 1}::timestamptz`;
    conditions.push(`(x.created_at < ${at} OR (x.created_at = ${at} AND x.id > $${params.length}::text))`);
  }
  params.push(Math.min(Math.max(filter.limit ?? 100, 1), 1000));
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  const rows = await sql.query<CallbackRow & WaitRow & { position_at: string; attempt_rows: (Omit<AttemptRow, 'id' | 'attempted_at'> & { id: string; attempted_at: string })[] }>(
    `SELECT c.*, c.created_at::text AS position_at, b.id AS behind_id, b.attempts AS behind_attempts, b.next_attempt_at AS behind_next, b.last_error AS behind_error,
            h.blocked_until AS url_blocked_until,
            (SELECT COALESCE(json_agg(json_build_object('id', a.id::text, 'callback_id', a.callback_id, 'attempted_at', a.attempted_at, 'http_status', a.http_status,
                      'outcome', a.outcome, 'error', a.error, 'duration_ms', a.duration_ms) ORDER BY a.id), '[]'::json)
               FROM callback_attempts a WHERE a.callback_id = c.id) AS attempt_rows
       FROM (SELECT x.* FROM callbacks x ${where} ORDER BY x.created_at DESC, x.id LIMIT $${params.length}) c
       LEFT JOIN LATERAL (
         SELECT e.id, e.attempts, e.next_attempt_at, e.last_error FROM callbacks e
          WHERE c.status = 'pending' AND e.payment_id = c.payment_id AND e.status = 'pending' AND e.seq < c.seq
          ORDER BY e.seq LIMIT 1) b ON true
       LEFT JOIN callback_url_health h ON h.url = c.url AND c.status = 'pending'
      ORDER BY c.created_at DESC, c.id`,
    params,
  );
  // The attempt log comes in the same statement as the callback (one snapshot): read apart, a delivery settled in
  // between showed its attempt beside a callback still pending.
  return rows.map((r) => ({
    ...toRecord(r), attemptLog: r.attempt_rows.map((a) => toAttempt({ ...a, id: BigInt(a.id), attempted_at: new Date(a.attempted_at) })), body: r.body ?? callbackBody(r.protocol, r.fields),
    behind: r.behind_id ? { id: r.behind_id, attempts: r.behind_attempts ?? 0, nextAttemptAt: new Date(r.behind_next!), lastError: r.behind_error } : null,
    blockedUntil: r.url_blocked_until ? new Date(r.url_blocked_until) : null,
    position: [r.position_at, r.id] as [string, string],
  }));
}

interface WaitRow {
  behind_id: string | null;
  behind_attempts: number | null;
  behind_next: Date | null;
  behind_error: string | null;
  url_blocked_until: Date | null;
}

/**
 * Admin: sends a failed or delivered callback again, as a new delivery (attempt count and schedule start over;
 * the attempt log keeps the earlier ones). The event id stays, so a receiver that processed it can drop it.
 * False when there is no such callback or it is still pending.
 */
export async function resendCallback(sql: Sql, id: string, now: Date): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE callbacks SET status = 'pending', attempts = 0, next_attempt_at = $2, locked_until = NULL,
       lease_token = NULL, last_error = NULL, delivered_at = NULL
     WHERE id = $1 AND status IN ('failed', 'delivered') RETURNING id`,
    [id, now],
  );
  return rows.length > 0;
}

/** What resendCallbackNow did: sent again from the start, made due now, or left alone because it is being sent. */
export type ResendNowResult = 'resent' | 'due_now' | 'sending';

/**
 * Admin "resend now" (issue 11): a failed or delivered callback is sent again as resendCallback does; a pending
 * one (still retrying) becomes due at once, keeping its attempt count and its row (no duplicate event). One that
 * a dispatcher holds under a live lease is being sent at this moment and is left to it. The row is locked while
 * it is read, so the answer describes what the update did. Undefined when there is no such callback.
 */
export async function resendCallbackNow(tx: Sql, id: string, now: Date): Promise<ResendNowResult | undefined> {
  const [current] = await tx.query<{ status: CallbackStatus; live_lease: boolean }>(
    'SELECT status, (locked_until IS NOT NULL AND locked_until > $2) AS live_lease FROM callbacks WHERE id = $1 FOR UPDATE',
    [id, now],
  );
  if (!current) return undefined;
  if (current.status !== 'pending') return (await resendCallback(tx, id, now)) ? 'resent' : undefined;
  if (current.live_lease) return 'sending';
  await tx.query("UPDATE callbacks SET next_attempt_at = $2 WHERE id = $1 AND status = 'pending'", [id, now]);
  return 'due_now';
}
