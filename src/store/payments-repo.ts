/**
 * Payments and their transactions. Every state change is a compare-and-set: the UPDATE names the state it
 * expects, and an empty result means another request won.
 */
import { channel } from 'node:diagnostics_channel';
import type { Database, Sql } from './database.ts';
import { CALLBACK_BATCH_COLUMNS, callbackBatchParams, enqueueCallbacks, insertCallbacksFrom, type EnqueueCallbackInput } from './callbacks-repo.ts';
import { groupCommitted, jsonRows, jsonRowsParam, type BatchColumn } from './group-commit.ts';
import type { PaymentStatus } from '../domain/payment-state.ts';
import type { Operation } from '../domain/operations.ts';
import { REVIEW_OPERATION } from '../domain/operations.ts';
import { isUuid } from '../domain/ids.ts';
import type { AttemptOpening, AttemptResult } from '../domain/model/attempt.ts';
import { ATTEMPT_RESULT_SET, attemptResultParams, CURRENT_ATTEMPT, NEXT_ATTEMPT_SEQ } from './attempts-repo.ts';
import { entriesOfRows, entriesParam, postingCtes } from './ledger-repo.ts';
import { merchantOfMode, type KeyMode } from './key-mode.ts';
import { outcomeCountCtes, screenCtes, screenParam, type ScreenParts, type ScreenRecord } from './risk-repo.ts';
import type { LedgerEntry } from '../domain/ledger/postings.ts';
import type { Channel, NeedsOperator, PayerInfo, Payment, PaymentDetails, ThreeDsAttributes, Transaction, TransactionStatus, TransactionType } from '../domain/model/payment.ts';

export interface PaymentRow {
  id: string;
  merchant_id: string;
  session_id: string | null;
  channel: Channel;
  operation: string;
  order_id: string;
  amount: bigint;
  currency: string;
  description: string;
  status: PaymentStatus;
  auth: boolean;
  captured_amount: bigint;
  refunded_amount: bigint;
  mid_id: string | null;
  vault_id: string | null;
  card_token: string | null;
  payer: PayerInfo;
  three_ds: ThreeDsAttributes | null;
  decline_reason: string | null;
  custom_data: Record<string, unknown> | null;
  callback_url: string | null;
  details: PaymentDetails;
  pending_operation: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/**
 * The columns of a PaymentRow, for the writes that answer the payment they changed: named rather than `*`, so that
 * the driver parses no column the answer does not use (the hot SALE's update answers one such row per payment).
 */
export const PAYMENT_ROW_COLUMNS = 'id, merchant_id, session_id, channel, operation, order_id, amount, currency, description, status, auth, captured_amount, refunded_amount, mid_id, vault_id, card_token, payer, three_ds, decline_reason, custom_data, callback_url, details, pending_operation, version, created_at, updated_at';

export function toPayment(r: PaymentRow): Payment {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    sessionId: r.session_id,
    channel: r.channel,
    operation: r.operation as Operation,
    orderId: r.order_id,
    amount: BigInt(r.amount),
    currency: r.currency,
    description: r.description,
    status: r.status,
    auth: r.auth,
    capturedAmount: BigInt(r.captured_amount),
    refundedAmount: BigInt(r.refunded_amount),
    midId: r.mid_id,
    vaultId: r.vault_id,
    cardToken: r.card_token,
    payer: r.payer ?? {},
    threeDs: r.three_ds,
    declineReason: r.decline_reason,
    customData: r.custom_data,
    callbackUrl: r.callback_url,
    details: r.details ?? {},
    pendingOperation: r.pending_operation,
    version: r.version,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

export type NewPayment = Pick<Payment, 'id' | 'merchantId' | 'channel' | 'operation' | 'orderId' | 'amount' | 'currency' | 'description' | 'status' | 'auth'> &
  Partial<Pick<Payment, 'sessionId' | 'midId' | 'vaultId' | 'cardToken' | 'payer' | 'customData' | 'callbackUrl' | 'details' | 'pendingOperation' | 'threeDs' | 'declineReason'>> & { now: Date };

/** The columns a new payment is written with, in the order of paymentInsertParams, with their types. */
export const PAYMENT_COLUMNS: readonly BatchColumn[] = [
  ['id', 'text'], ['merchant_id', 'text'], ['session_id', 'text'], ['channel', 'text'], ['operation', 'text'], ['order_id', 'text'],
  ['amount', 'int8'], ['currency', 'text'], ['description', 'text'], ['status', 'text'], ['auth', 'bool'], ['mid_id', 'text'],
  ['vault_id', 'text'], ['card_token', 'text'], ['payer', 'jsonb'], ['custom_data', 'jsonb'], ['callback_url', 'text'], ['details', 'jsonb'],
  ['pending_operation', 'text'], ['three_ds', 'jsonb'], ['decline_reason', 'text'], ['created_at', 'timestamptz'], ['updated_at', 'timestamptz'],
];
export const PAYMENT_COLUMN_LIST = PAYMENT_COLUMNS.map(([name]) => name).join(', ');

/** The JSON columns of a new payment, as written. */
interface PaymentJson {
  payer: string;
  customData: string | null;
  details: string;
  threeDs: string | null;
}

const paymentJson = (p: NewPayment): PaymentJson => ({
  payer: JSON.stringify(p.payer ?? {}),
  customData: p.customData ? JSON.stringify(p.customData) : null,
  details: JSON.stringify(p.details ?? {}),
  threeDs: p.threeDs ? JSON.stringify(p.threeDs) : null,
});

export function paymentInsertParams(p: NewPayment, json = paymentJson(p)): unknown[] {
  return [
    p.id, p.merchantId, p.sessionId ?? null, p.channel, p.operation, p.orderId, p.amount, p.currency, p.description, p.status, p.auth,
    p.midId ?? null, p.vaultId ?? null, p.cardToken ?? null, json.payer, json.customData,
    p.callbackUrl ?? null, json.details, p.pendingOperation ?? null, json.threeDs,
    p.declineReason ?? null, p.now, p.now,
  ];
}

/** `INSERT INTO payments (...) VALUES ($n...)` with placeholders starting at `from`. */
export function paymentInsertSql(from = 1): string {
  const placeholders = PAYMENT_COLUMNS.map((_, i) => `$${i + from}`).join(', ');
  return `INSERT INTO payments (${PAYMENT_COLUMN_LIST}) VALUES (${placeholders})`;
}

export async function insertPayment(sql: Sql, p: NewPayment): Promise<Payment> {
  const [row] = await sql.query<PaymentRow>(`${paymentInsertSql()} RETURNING *`, paymentInsertParams(p));
  return toPayment(row as PaymentRow);
}

interface PaymentWithTransaction {
  payment: NewPayment;
  transaction: NewTransaction;
  /** The acquirer attempt the transaction opens (its first: the payment is new). */
  attempt?: AttemptOpening;
  /** The risk screen's record of the attempt (its evaluation and counters), written by the same statement. */
  screened?: ScreenRecord;
}

const transactionInsertParams = (t: NewTransaction): unknown[] => [t.id, t.type, t.status, t.amount, JSON.stringify(t.details ?? {}), t.now];

/**
 * The transaction's placeholders follow the payment's, in the order of transactionInsertParams; its payment_id
 * is the payment's own id parameter (no lookup of the row just inserted).
 */
const insertWithTransaction = (attempt: boolean, screened: ScreenParts | undefined): string => {
  const at = (name: string) => `$${PAYMENT_COLUMNS.findIndex(([column]) => column === name) + 1}`;
  const [id, type, status, amount, details, createdAt, midId, connector, why] = Array.from({ length: 9 }, (_, i) => `$${PAYMENT_COLUMNS.length + 1 + i}`);
  const screen = `$${PAYMENT_COLUMNS.length + 7 + (attempt ? 3 : 0)}`;
  return `WITH p AS (${paymentInsertSql()} RETURNING id),
  t AS (INSERT INTO transactions (id, payment_id, type, status, amount, details, created_at)
        VALUES (${id}, ${at('id')}, ${type}, ${status}, ${amount}, ${details}, ${createdAt}))${attempt ? `,
  a AS (INSERT INTO payment_attempts (id, payment_id, seq, mid_id, connector, why, status, amount, currency, created_at)
        VALUES (${id}, ${at('id')}, 1, ${midId}, ${connector}, ${why}, 'pending', ${amount}, ${at('currency')}, ${createdAt}))` : ''}${screened ? `,
  ${screenCtes(`${screen}::jsonb`, screened)}` : ''}
  SELECT id FROM p`;
};

/** Without a risk screen, then with one by the lists it writes (screenCtes leaves an empty list's CTE out). */
const SCREEN_VARIANTS: readonly (ScreenParts | undefined)[] = [undefined, ...[false, true].flatMap((counters) => [false, true].map((members) => ({ counters, members })))];
const screenVariant = (parts: ScreenParts | undefined): number => (parts ? 1 + (parts.counters ? 2 : 0) + (parts.members ? 1 : 0) : 0);

/**
 * The statement of one payment by whether it opens an acquirer attempt (the attempt's parameters follow the
 * transaction's) and whether it carries the risk screen's record (its parameter last), by screenVariant.
 */
const INSERT_WITH_TRANSACTION = [false, true].map((attempt) => SCREEN_VARIANTS.map((screened) => insertWithTransaction(attempt, screened)));
const attemptOpeningParams = (a: AttemptOpening | undefined): unknown[] => (a ? [a.midId, a.connector, a.why] : [null, null, null]);

/** The same write for many payments: the rows travel as one JSON parameter (jsonRows). */
const INSERT_MANY_COLUMNS: readonly BatchColumn[] = [
  ...PAYMENT_COLUMNS,
  ['tx_id', 'text'], ['tx_type', 'text'], ['tx_status', 'text'], ['tx_amount', 'int8'], ['tx_details', 'jsonb'], ['tx_created_at', 'timestamptz'],
  ['at_mid_id', 'text'], ['at_connector', 'text'], ['at_why', 'text'],
];
const insertManySql = (screened: ScreenParts | undefined): string => `WITH i AS (SELECT * FROM ${jsonRows('i', INSERT_MANY_COLUMNS)}),
    p AS (INSERT INTO payments (${PAYMENT_COLUMN_LIST}) SELECT ${PAYMENT_COLUMN_LIST} FROM i RETURNING id),
    t AS (INSERT INTO transactions (id, payment_id, type, status, amount, details, created_at)
          SELECT tx_id, id, tx_type, tx_status, tx_amount, tx_details, tx_created_at FROM i),
    a AS (INSERT INTO payment_attempts (id, payment_id, seq, mid_id, connector, why, status, amount, currency, created_at)
          SELECT tx_id, id, 1, at_mid_id, at_connector, at_why, 'pending', tx_amount, currency, tx_created_at FROM i WHERE at_why IS NOT NULL)${screened ? `,
    ${screenCtes('$2::jsonb', screened)}` : ''}
    SELECT id FROM p`;
/**
 * The batch, and the batch with the risk screens of those of its payments that have one (their records in $2,
 * summed per counter row), by screenVariant.
 */
const INSERT_MANY_WITH_TRANSACTIONS = SCREEN_VARIANTS.map(insertManySql);

const parsedOrNull = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/**
 * A payment as the database holds it once inserted: column defaults applied, JSON columns parsed from the text
 * written (so keys left undefined are dropped, as jsonb drops them). The inserts below return only ids, which
 * spares the database and the driver a row of 27 columns per payment on the hot path.
 */
function asInserted(p: NewPayment, json = paymentJson(p)): Payment {
  return {
    id: p.id,
    merchantId: p.merchantId,
    sessionId: p.sessionId ?? null,
    channel: p.channel,
    operation: p.operation,
    orderId: p.orderId,
    amount: p.amount,
    currency: p.currency,
    description: p.description,
    status: p.status,
    auth: p.auth,
    capturedAmount: 0n,
    refundedAmount: 0n,
    midId: p.midId ?? null,
    vaultId: p.vaultId ?? null,
    cardToken: p.cardToken ?? null,
    payer: JSON.parse(json.payer) as PayerInfo,
    threeDs: parsedOrNull(json.threeDs),
    declineReason: p.declineReason ?? null,
    customData: parsedOrNull(json.customData),
    callbackUrl: p.callbackUrl ?? null,
    details: JSON.parse(json.details) as PaymentDetails,
    pendingOperation: p.pendingOperation ?? null,
    version: 0,
    createdAt: p.now,
    updatedAt: p.now,
  };
}

async function insertOneWithTransaction(sql: Sql, { payment, transaction, attempt, screened }: PaymentWithTransaction): Promise<Payment> {
  const json = paymentJson(payment);
  const params = [...paymentInsertParams(payment, json), ...transactionInsertParams(transaction)];
  if (attempt) params.push(...attemptOpeningParams(attempt));
  const screen = screened && screenParam([screened]);
  if (screen) params.push(screen.json);
  await sql.query(INSERT_WITH_TRANSACTION[attempt ? 1 : 0]![screenVariant(screen?.parts)]!, params);
  return asInserted(payment, json);
}

async function insertManyWithTransactions(sql: Sql, items: readonly PaymentWithTransaction[]): Promise<Payment[]> {
  const json = items.map(({ payment }) => paymentJson(payment));
  const rows = items.map(({ payment, transaction, attempt }, i) => [...paymentInsertParams(payment, json[i]), ...transactionInsertParams(transaction), ...attemptOpeningParams(attempt)]);
  const screens = items.flatMap((item) => (item.screened ? [item.screened] : []));
  const screen = screens.length > 0 ? screenParam(screens) : undefined;
  const inserted = screen
    ? await sql.query<{ id: string }>(INSERT_MANY_WITH_TRANSACTIONS[screenVariant(screen.parts)]!, [jsonRowsParam(rows), screen.json])
    : await sql.query<{ id: string }>(INSERT_MANY_WITH_TRANSACTIONS[0]!, [jsonRowsParam(rows)]);
  const ids = new Set(inserted.map((row) => row.id));
  return items.map(({ payment }, i) => {
    if (!ids.has(payment.id)) throw new Error(`payment ${payment.id} missing from its batch insert`);
    return asInserted(payment, json[i]);
  });
}

const insertGroupCommitted = groupCommitted<PaymentWithTransaction, Payment>({ one: insertOneWithTransaction, many: insertManyWithTransactions });

/** What the payment-writes channel publishes: a write's arguments, as given. */
export type PaymentWrite =
  | { kind: 'insert'; args: Parameters<typeof insertPaymentWithTransaction> }
  | { kind: 'update'; args: Parameters<typeof updatePaymentAndTransaction> };

/**
 * The payment writes of the attempt's record and outcome steps, published as they are asked for (node's
 * diagnostics_channel: nothing is built when nobody subscribes). `npm run bench` records a SALE's two writes with
 * it and replays them alone, to tell the cost of a SALE's database writes from the gateway's own work per SALE.
 */
export const paymentWrites = channel('portcullis:payment-writes');

/**
 * A payment and its first transaction in one statement (the transaction names the payment it creates), with the
 * acquirer attempt the transaction opens when there is one, and the risk screen's record of the attempt when
 * given (risk-repo.ts screenCtes). Outside a transaction, writes made at the same time share one statement
 * (group commit).
 */
export function insertPaymentWithTransaction(sql: Sql, p: NewPayment, t: NewTransaction, attempt?: AttemptOpening, screened?: ScreenRecord): Promise<Payment> {
  if (paymentWrites.hasSubscribers) paymentWrites.publish({ kind: 'insert', args: [sql, p, t, attempt, screened] } satisfies PaymentWrite);
  const item: PaymentWithTransaction = { payment: p, transaction: t };
  if (attempt) item.attempt = attempt;
  if (screened) item.screened = screened;
  return insertGroupCommitted(sql, item);
}

export async function getPayment(sql: Sql, id: string): Promise<Payment | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await sql.query<PaymentRow>('SELECT * FROM payments WHERE id = $1', [id]);
  return row && toPayment(row);
}

export async function getMerchantPayment(sql: Sql, merchantId: string, id: string): Promise<Payment | undefined> {
  const payment = await getPayment(sql, id);
  return payment?.merchantId === merchantId ? payment : undefined;
}

/** Newest first. */
export async function findPaymentsByOrder(sql: Sql, merchantId: string, orderId: string, limit: number): Promise<Payment[]> {
  const rows = await sql.query<PaymentRow>(
    'SELECT * FROM payments WHERE merchant_id = $1 AND order_id = $2 ORDER BY created_at DESC, seq DESC LIMIT $3',
    [merchantId, orderId, limit],
  );
  return rows.map(toPayment);
}

/** Columns a compare-and-set may change, with how each is written. */
const SETTABLE = {
  status: { column: 'status', type: 'text' },
  capturedAmount: { column: 'captured_amount', type: 'int8' },
  refundedAmount: { column: 'refunded_amount', type: 'int8' },
  midId: { column: 'mid_id', type: 'text' },
  vaultId: { column: 'vault_id', type: 'text' },
  cardToken: { column: 'card_token', type: 'text' },
  payer: { column: 'payer', type: 'jsonb', json: true },
  threeDs: { column: 'three_ds', type: 'jsonb', json: true },
  declineReason: { column: 'decline_reason', type: 'text' },
  customData: { column: 'custom_data', type: 'jsonb', json: true },
  callbackUrl: { column: 'callback_url', type: 'text' },
  pendingOperation: { column: 'pending_operation', type: 'text' },
} as const satisfies Record<string, { column: string; type: string; json?: boolean }>;
type Settable = keyof typeof SETTABLE;
const SETTABLE_KEYS = Object.keys(SETTABLE) as Settable[];

/** A patched column's value as a statement parameter. */
function settableParam(key: Settable, value: unknown): unknown {
  return 'json' in SETTABLE[key] && value != null ? JSON.stringify(value) : value ?? null;
}

export type PaymentPatch = Partial<Pick<Payment, keyof typeof SETTABLE>> & {
  /** Merged into details (jsonb ||). */
  details?: PaymentDetails;
  /** Adds to refunded_amount atomically. */
  addRefunded?: bigint;
};

export interface Expectation {
  status?: PaymentStatus | readonly PaymentStatus[];
  /** null: no operation in flight. */
  pendingOperation?: string | null;
  /** Guard for amount reservations: refunded_amount + addRefunded must stay within this. */
  refundCeiling?: bigint;
  /** The version read: no other write may have happened since (for changes the status alone cannot guard). */
  version?: number;
}

/** The compare-and-set UPDATE of updatePayment, as SQL and parameters (placeholders from $1). */
function updateStatement(id: string, expect: Expectation, patch: PaymentPatch, now: Date): { text: string; params: unknown[] } {
  const params: unknown[] = [id, now];
  const sets: string[] = ['updated_at = $2', 'version = version + 1'];
  const where: string[] = ['id = $1'];
  const param = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  for (const key of SETTABLE_KEYS) {
    if (key in patch) sets.push(`${SETTABLE[key].column} = ${param(settableParam(key, patch[key]))}`);
  }
  if (patch.details) sets.push(`details = details || ${param(JSON.stringify(patch.details))}::jsonb`);
  if (patch.addRefunded !== undefined) sets.push(`refunded_amount = refunded_amount + ${param(patch.addRefunded)}`);
  if (expect.status !== undefined) {
    const statuses = typeof expect.status === 'string' ? [expect.status] : [...expect.status];
    where.push(`status = ANY(${param(statuses)}::text[])`);
  }
  if (expect.pendingOperation === null) where.push('pending_operation IS NULL');
  else if (expect.pendingOperation !== undefined) where.push(`pending_operation = ${param(expect.pendingOperation)}`);
  if (expect.version !== undefined) where.push(`version = ${param(expect.version)}`);
  if (expect.refundCeiling !== undefined) {
    where.push(`refunded_amount + ${param(patch.addRefunded ?? 0n)} <= ${param(expect.refundCeiling)}`);
  }
  return { text: `UPDATE payments SET ${sets.join(', ')} WHERE ${where.join(' AND ')} RETURNING ${PAYMENT_ROW_COLUMNS}`, params };
}

/**
 * Compare-and-set: applies the patch only when the payment still is as expected. Returns the updated
 * payment, or undefined when another writer got there first (or the expectation does not hold).
 */
export async function updatePayment(sql: Sql, id: string, expect: Expectation, patch: PaymentPatch, now: Date): Promise<Payment | undefined> {
  const { text, params } = updateStatement(id, expect, patch, now);
  const [row] = await sql.query<PaymentRow>(text, params);
  return row && toPayment(row);
}

/** The callback an applied update causes, built from the updated payment, to be written with it. */
export type OutboxOf = (updated: Payment) => EnqueueCallbackInput | undefined;

/**
 * The callback of an update and the payment as it was read before it. The update's statement writes the callback
 * built from that payment as the update leaves it (asUpdated), guarded by its version: nothing else wrote the
 * payment since, so the row it returns is the one the callback was built from. Should something have, the update
 * is written again as before: in a transaction with the callback built from the row it returns.
 */
export interface Outbox {
  of: OutboxOf;
  prior: Payment;
}

/**
 * A JSON value as a jsonb column gives it back: as JSON.stringify writes it (undefined members dropped, toJSON
 * applied, numbers that are not finite null), with object keys in jsonb's order. `over` is merged into an object
 * as jsonb's || merges it (its members replace the object's, its undefined ones leave them). One pass, no text:
 * this runs for every outcome with a callback.
 */
function asJsonb<T>(value: T, over?: Record<string, unknown>): T {
  if (value === null || value === undefined) return value;
  return (over ? jsonbObject(value as Record<string, unknown>, over) : jsonbValue(value)) as T;
}

function jsonbValue(value: unknown): unknown {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      break;
    default:
      return undefined; // undefined, functions and symbols: left out of objects, null in arrays
  }
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return jsonbValue(withJson.toJSON());
  if (Array.isArray(value)) return value.map((item) => jsonbValue(item) ?? null);
  return jsonbObject(value as Record<string, unknown>);
}

function jsonbObject(base: Record<string, unknown>, over?: Record<string, unknown>): Record<string, unknown> {
  const members = new Map<string, unknown>();
  for (const source of over ? [base, over] : [base]) {
    for (const key of Object.keys(source)) {
      const member = jsonbValue(source[key]);
      if (member !== undefined) members.set(key, member);
    }
  }
  const keys = [...members.keys()];
  if (!keys.every((key, i) => i === 0 || jsonbKeyOrder(keys[i - 1]!, key) < 0)) keys.sort(jsonbKeyOrder);
  const ordered: Record<string, unknown> = {};
  for (const key of keys) ordered[key] = members.get(key);
  return ordered;
}

const isAscii = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
};

/** jsonb orders an object's keys by their length in bytes, then bytewise; ASCII keys compare as JavaScript strings do. */
function jsonbKeyOrder(a: string, b: string): number {
  if (isAscii(a) && isAscii(b)) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ab.length - bb.length || Buffer.compare(ab, bb);
}

/**
 * A payment as an update of `patch` at `now` leaves it, when nothing else wrote it since `prior` was read (the
 * version guard makes sure): the patched columns set, details merged as jsonb's || merges them, JSON columns as
 * the database gives them back (toPayment).
 */
export function asUpdated(prior: Payment, patch: PaymentPatch, now: Date): Payment {
  const next: Payment = {
    ...prior, payer: asJsonb(prior.payer), threeDs: asJsonb(prior.threeDs), customData: asJsonb(prior.customData),
    details: asJsonb(prior.details, patch.details),
    updatedAt: now, version: prior.version + 1,
  };
  const fields = next as unknown as Record<string, unknown>;
  for (const key of SETTABLE_KEYS) {
    if (key in patch) fields[key] = 'json' in SETTABLE[key] ? asJsonb(patch[key] ?? null) : patch[key] ?? null;
  }
  next.payer ??= {};
  next.details ??= {};
  return next;
}

interface PaymentAndTransactionUpdate {
  id: string;
  expect: Expectation;
  patch: PaymentPatch;
  now: Date;
  transaction: TransactionResult;
  outbox?: OutboxOf;
  /**
   * Set when the callback rides in the update's statement (Outbox): the expectation without the version guard,
   * for the update written again as before should the guarded one miss. `callback` is then the one built ahead.
   */
  unguarded?: Expectation;
  callback?: EnqueueCallbackInput;
  /** The ledger entries the change posts, written by the same statement only when it applies. */
  entries?: readonly LedgerEntry[];
  /** Its shape (shapeOfUpdate), worked out once: the group commit's key and the batch's statement both need it. */
  shape?: UpdateShape | null;
}

/** A transaction's new status, and what it answers of the payment's current acquirer attempt (if it answers one). */
export interface TransactionResult {
  id: string;
  status: TransactionStatus;
  details?: Record<string, unknown>;
  attempt?: AttemptResult;
  /**
   * The acquirer attempt's final outcome, counted under the keys its risk screen counted it (risk-repo.ts
   * outcomeCountCtes) by the same statement, only when the update applies. Its CTEs come before the ledger's in
   * the statement's text: PostgreSQL runs the data-modifying CTEs the main query does not read last one first,
   * so the ledger's balances are locked before the risk counters, in the order of the transactions that post and
   * then count in two statements (post.ts), and the two never deadlock.
   */
  riskOutcome?: 'approved' | 'declined';
}

/** Runs a write that has a callback to go with it in a transaction of its own, unless it is in one already. */
function withOutbox<T>(sql: Sql, outbox: boolean, write: (sql: Sql) => Promise<T>): Promise<T> {
  return outbox && 'transaction' in sql ? (sql as Database).transaction(write) : write(sql);
}

/** The callbacks of the updates that applied, in one statement. */
async function writeOutbox(sql: Sql, updates: readonly PaymentAndTransactionUpdate[], results: readonly (Payment | undefined)[]): Promise<void> {
  const callbacks = updates.flatMap((u, i) => {
    const updated = results[i];
    const callback = updated && u.outbox?.(updated);
    return callback ? [callback] : [];
  });
  if (callbacks.length > 0) await enqueueCallbacks(sql, callbacks);
}

async function updateOneWithTransaction(sql: Sql, u: PaymentAndTransactionUpdate): Promise<Payment | undefined> {
  if (u.unguarded) return (await updateManyWithTransactions(sql, [u]))[0];
  return withOutbox(sql, u.outbox !== undefined, async (tx) => {
    const updated = await updateOneRow(tx, u);
    await writeOutbox(tx, [u], [updated]);
    return updated;
  });
}

async function updateOneRow(sql: Sql, u: PaymentAndTransactionUpdate): Promise<Payment | undefined> {
  const { text, params } = updateStatement(u.id, u.expect, u.patch, u.now);
  const n = params.length;
  const attempt = u.transaction.attempt;
  const posting = u.entries !== undefined && u.entries.length > 0;
  const entriesAt = n + 4 + (attempt ? 6 : 0);
  const risk = u.transaction.riskOutcome;
  const riskAt = entriesAt + (posting ? 1 : 0);
  const [row] = await sql.query<PaymentRow>(
    `WITH u AS (${text}),
       t AS (UPDATE transactions SET status = $${n + 1}, details = details || $${n + 2}::jsonb WHERE id = $${n + 3} AND EXISTS (SELECT 1 FROM u))${attempt ? `,
       a AS (UPDATE payment_attempts SET ${ATTEMPT_RESULT_SET({ status: `$${n + 4}`, code: `$${n + 5}`, retry: `$${n + 6}`, stop: `$${n + 7}`, ref: `$${n + 8}`, finishedAt: `$${n + 9}::timestamptz` })}
             WHERE payment_id = $1 AND seq = ${CURRENT_ATTEMPT('$1')} AND EXISTS (SELECT 1 FROM u))` : ''}${risk ? `,
       ${outcomeCountCtes(`(SELECT u.id AS payment_id, $${riskAt}::text AS outcome, u.updated_at AS at FROM u) AS r`)}` : ''}${posting ? `,
       ${postingCtes(entriesOfRows('u', `$${entriesAt}::jsonb`, 'u.id', 'u.updated_at'))}` : ''}
     SELECT * FROM u`,
    [...params, u.transaction.status, JSON.stringify(u.transaction.details ?? {}), u.transaction.id, ...(attempt ? attemptResultParams(attempt, u.now) : []), ...(posting ? [entriesParam(u.entries!)] : []), ...(risk ? [risk] : [])],
  );
  return row && toPayment(row);
}

/**
 * What a batched update needs to know of an update's shape: the columns it sets and how it is guarded.
 * Updates of one shape share a statement; null means the update is always written alone.
 */
interface UpdateShape {
  keys: Settable[];
  details: boolean;
  status: boolean;
  pending: 'null' | 'value' | 'any';
  /** The update answers the payment's current acquirer attempt. */
  attempt: boolean;
  /** Posts ledger entries (a column of their own, folded into the statement). */
  ledger: boolean;
  /** Counts the attempt's outcome for the risk engine (a column of its own, folded into the statement). */
  risk: boolean;
  /** Guarded by the version read, with the callback built ahead written by the statement (Outbox). */
  callback: boolean;
  /** All of the above as one string (shapeKey): updates of one key share a statement. */
  key: string;
}

function shapeOf({ expect, patch, transaction, entries, unguarded }: PaymentAndTransactionUpdate): UpdateShape | null {
  if ((expect.version !== undefined && !unguarded) || expect.refundCeiling !== undefined || patch.addRefunded !== undefined) return null;
  const shape: UpdateShape = {
    keys: SETTABLE_KEYS.filter((key) => key in patch),
    details: patch.details !== undefined,
    status: expect.status !== undefined,
    pending: expect.pendingOperation === null ? 'null' : expect.pendingOperation === undefined ? 'any' : 'value',
    attempt: transaction.attempt !== undefined,
    ledger: (entries?.length ?? 0) > 0,
    risk: transaction.riskOutcome !== undefined,
    callback: unguarded !== undefined,
    key: '',
  };
  shape.key = shapeKey(shape);
  return shape;
}

const shapeKey = (shape: UpdateShape): string => `${shape.keys.join(',')}|${shape.details}|${shape.status}|${shape.pending}|${shape.attempt}|${shape.ledger}|${shape.risk}|${shape.callback}`;

/** An update's shape, worked out at its first use and kept with it. */
function shapeOfUpdate(update: PaymentAndTransactionUpdate): UpdateShape | null {
  if (update.shape === undefined) update.shape = shapeOf(update);
  return update.shape;
}

const batchedUpdateSql = new Map<string, string>();

/**
 * The compare-and-set of updateOneWithTransaction for many payments at once: each row of v is one update,
 * numbered by ord. Two updates of one payment in a batch cannot both apply (a row is updated once per
 * statement), so the one left out sees a lost compare-and-set, exactly as if it had come second.
 */
function batchedUpdateStatement(shape: UpdateShape): string {
  const key = shape.key;
  const cached = batchedUpdateSql.get(key);
  if (cached) return cached;
  const columns: BatchColumn[] = [['ord', 'int4'], ['id', 'text'], ['now', 'timestamptz']];
  const sets = ['updated_at = v.now', 'version = p.version + 1'];
  for (const k of shape.keys) {
    columns.push([SETTABLE[k].column, SETTABLE[k].type]);
    sets.push(`${SETTABLE[k].column} = v.${SETTABLE[k].column}`);
  }
  if (shape.details) {
    columns.push(['details', 'jsonb']);
    sets.push('details = p.details || v.details');
  }
  const where = ['p.id = v.id'];
  if (shape.status) {
    columns.push(['expect_status', 'text']);
    where.push("p.status = ANY(string_to_array(v.expect_status, ','))");
  }
  if (shape.pending === 'null') where.push('p.pending_operation IS NULL');
  if (shape.pending === 'value') {
    columns.push(['expect_pending', 'text']);
    where.push('p.pending_operation = v.expect_pending');
  }
  columns.push(['tx_id', 'text'], ['tx_status', 'text'], ['tx_details', 'jsonb']);
  if (shape.attempt) columns.push(['at_status', 'text'], ['at_code', 'text'], ['at_retry', 'text'], ['at_stop', 'text'], ['at_ref', 'text'], ['at_finished', 'timestamptz']);
  if (shape.ledger) columns.push(['entries', 'jsonb']);
  if (shape.risk) columns.push(['risk_outcome', 'text']);
  if (shape.callback) {
    columns.push(['expect_version', 'int4'], ...CALLBACK_BATCH_COLUMNS);
    where.push('p.version = v.expect_version');
  }
  const text = `WITH v AS (SELECT * FROM ${jsonRows('v', columns)}),
    u AS (UPDATE payments p SET ${sets.join(', ')} FROM v WHERE ${where.join(' AND ')}
          RETURNING v.ord AS batch_ord, v.tx_id AS batch_tx_id, v.tx_status AS batch_tx_status, v.tx_details AS batch_tx_details${shape.ledger ? ', v.entries AS batch_entries' : ''}${shape.risk ? ', v.risk_outcome AS batch_risk_outcome' : ''}${shape.callback ? `, ${CALLBACK_BATCH_COLUMNS.map(([name]) => `v.${name} AS batch_${name}`).join(', ')}` : ''}, p.*),
    t AS (UPDATE transactions tr SET status = u.batch_tx_status, details = tr.details || u.batch_tx_details FROM u WHERE tr.id = u.batch_tx_id)${shape.attempt ? `,
    a AS (UPDATE payment_attempts pa SET ${ATTEMPT_RESULT_SET({ status: 'v.at_status', code: 'v.at_code', retry: 'v.at_retry', stop: 'v.at_stop', ref: 'v.at_ref', finishedAt: 'v.at_finished' })}
          FROM u JOIN v ON v.ord = u.batch_ord WHERE pa.payment_id = u.id AND pa.seq = ${CURRENT_ATTEMPT('u.id')})` : ''}${shape.risk ? `,
    ${outcomeCountCtes('(SELECT u.id AS payment_id, u.batch_risk_outcome AS outcome, u.updated_at AS at FROM u) AS r')}` : ''}${shape.ledger ? `,
    ${postingCtes(entriesOfRows('u', 'u.batch_entries', 'u.id', 'u.updated_at'))}` : ''}${shape.callback ? `,
    c AS (${insertCallbacksFrom('u', 'batch_')})` : ''}
    SELECT batch_ord, ${PAYMENT_ROW_COLUMNS} FROM u`;
  batchedUpdateSql.set(key, text);
  return text;
}

/** One row of a batched update's parameters, in the column order of batchedUpdateStatement. */
function batchedUpdateRow(u: PaymentAndTransactionUpdate, shape: UpdateShape, ord: number): unknown[] {
  const row: unknown[] = [ord, u.id, u.now];
  for (const key of shape.keys) row.push(settableParam(key, u.patch[key]));
  if (shape.details) row.push(JSON.stringify(u.patch.details));
  if (shape.status) row.push(typeof u.expect.status === 'string' ? u.expect.status : (u.expect.status ?? []).join(','));
  if (shape.pending === 'value') row.push(u.expect.pendingOperation);
  row.push(u.transaction.id, u.transaction.status, JSON.stringify(u.transaction.details ?? {}));
  if (shape.attempt) row.push(...attemptResultParams(u.transaction.attempt!, u.now));
  if (shape.ledger) row.push(entriesParam(u.entries ?? []));
  if (shape.risk) row.push(u.transaction.riskOutcome);
  if (shape.callback) row.push(u.expect.version, ...callbackBatchParams(u.callback));
  return row;
}

async function updateManyWithTransactions(db: Sql, items: readonly PaymentAndTransactionUpdate[]): Promise<(Payment | undefined)[]> {
  const shape = shapeOfUpdate(items[0]!)!;
  const statement = async (sql: Sql) => {
    const rows = await sql.query<PaymentRow & { batch_ord: number }>(batchedUpdateStatement(shape), [jsonRowsParam(items.map((u, ord) => batchedUpdateRow(u, shape, ord)))]);
    const applied = new Map(rows.map((row) => [row.batch_ord, row]));
    return items.map((_, ord) => {
      const row = applied.get(ord);
      return row && toPayment(row);
    });
  };
  if (shape.callback) return writtenAgainWhereMissed(db, items, await statement(db));
  return withOutbox(db, items[0]!.outbox !== undefined, async (sql) => {
    const results = await statement(sql);
    await writeOutbox(sql, items, results);
    return results;
  });
}

/**
 * The updates whose version guard missed (the payment was written since it was read, or the compare-and-set does not
 * hold), written again as before: without the guard, in a transaction with the callback built from the row.
 */
async function writtenAgainWhereMissed(sql: Sql, items: readonly PaymentAndTransactionUpdate[], results: (Payment | undefined)[]): Promise<(Payment | undefined)[]> {
  for (const [i, u] of items.entries()) {
    if (results[i] || !u.unguarded) continue;
    const { unguarded, callback: _built, shape: _shape, ...rest } = u;
    results[i] = await updateOneWithTransaction(sql, { ...rest, expect: unguarded });
  }
  return results;
}

/** Updates of one shape (and with or without a callback) share a statement; other shapes are written alone. */
const updateGroupCommitted = groupCommitted<PaymentAndTransactionUpdate, Payment | undefined>({
  one: updateOneWithTransaction,
  many: updateManyWithTransactions,
  keyOf: (update) => {
    const shape = shapeOfUpdate(update);
    return shape ? `${shape.key}|${update.outbox ? 'outbox' : ''}` : undefined;
  },
});

/**
 * updatePayment and, only when it applied, the status of one of its transactions (and the answer of the payment's
 * current acquirer attempt, `transaction.attempt`), in one statement: a connector's answer is written in a single
 * round trip, atomic without a transaction of its own. With
 * `outbox`, the callback the update causes is written with it, atomically (by the same statement: Outbox); with `entries`, the ledger entries it
 * posts are written by the same statement (services/attempt/post.ts). Outside a transaction, updates of
 * the same shape made at the same time share their statements (group commit).
 */
export function updatePaymentAndTransaction(
  sql: Sql, id: string, expect: Expectation, patch: PaymentPatch, now: Date,
  transaction: TransactionResult,
  outbox?: Outbox,
  entries?: readonly LedgerEntry[],
): Promise<Payment | undefined> {
  if (paymentWrites.hasSubscribers) paymentWrites.publish({ kind: 'update', args: [sql, id, expect, patch, now, transaction, outbox, entries] } satisfies PaymentWrite);
  const update: PaymentAndTransactionUpdate = { id, expect, patch, now, transaction };
  // A caller's own version guard (an operator's) must hold as given: such an update keeps its transaction.
  if (outbox && expect.version !== undefined && expect.version !== outbox.prior.version) update.outbox = outbox.of;
  else if (outbox) {
    update.outbox = outbox.of;
    update.unguarded = expect;
    update.expect = { ...expect, version: outbox.prior.version };
    try {
      const callback = outbox.of(asUpdated(outbox.prior, patch, now));
      if (callback) update.callback = callback;
    } catch (err) {
      return Promise.reject(err);
    }
  }
  if (entries && entries.length > 0) update.entries = entries;
  return updateGroupCommitted(sql, update);
}

/**
 * A payment whose operation in flight was handed to an operator: details.needsOperator names the attempt
 * (its transaction, the payment's lastTransId), so a later operation of the same payment is not covered by it.
 */
export const NEEDS_OPERATOR = `(details->'needsOperator' IS NOT NULL AND details->'needsOperator'->>'transId' IS NOT DISTINCT FROM details->>'lastTransId')`;

/**
 * Payments whose connector call has been in flight longer than the cutoff (a crash left them), unless an operator
 * has them. A payment held for a risk review has no call in flight: its review's deadline ends it.
 */
export async function findStalledPayments(sql: Sql, before: Date, limit: number): Promise<Payment[]> {
  const rows = await sql.query<PaymentRow>(
    `SELECT * FROM payments WHERE pending_operation IS NOT NULL AND pending_operation <> '${REVIEW_OPERATION}' AND updated_at < $1 AND NOT ${NEEDS_OPERATOR} ORDER BY updated_at LIMIT $2`,
    [before, limit],
  );
  return rows.map(toPayment);
}

/**
 * Flags a stalled payment for an operator, once: a compare-and-set on the updated_at the caller read, so of
 * several workers exactly one flags it. Returns the flagged payment, or undefined when another writer came first.
 */
export async function flagForOperator(sql: Sql, payment: Pick<Payment, 'id' | 'updatedAt'>, now: Date): Promise<Payment | undefined> {
  const [row] = await sql.query<PaymentRow>(
    `UPDATE payments p SET updated_at = $3, version = p.version + 1,
       details = p.details || jsonb_build_object('needsOperator', jsonb_build_object(
         'operation', p.pending_operation,
         'transId', p.details->>'lastTransId',
         'since', COALESCE((SELECT t.created_at FROM transactions t WHERE t.id = p.details->>'lastTransId'), p.updated_at)))
     WHERE p.id = $1 AND p.updated_at = $2 AND p.pending_operation IS NOT NULL RETURNING p.*`,
    [payment.id, payment.updatedAt, now],
  );
  return row && toPayment(row);
}

/**
 * Holds a payment for an operator instead of applying a connector's outcome (the integrity check failed): the
 * operation stays in flight, the flag names it and records why. A compare-and-set on the claim the caller holds.
 * The payment's current acquirer attempt stays open (pending), its stop `integrity`, in the same statement.
 */
export async function holdForOperator(sql: Sql, id: string, expect: { status: PaymentStatus; pendingOperation: string }, why: Record<string, unknown>, now: Date): Promise<Payment | undefined> {
  const [row] = await sql.query<PaymentRow>(
    `WITH h AS (UPDATE payments p SET updated_at = $4, version = p.version + 1,
       details = p.details || jsonb_build_object('needsOperator', jsonb_build_object(
         'operation', p.pending_operation,
         'transId', p.details->>'lastTransId',
         'since', COALESCE((SELECT t.created_at FROM transactions t WHERE t.id = p.details->>'lastTransId'), p.updated_at)) || $5::jsonb)
     WHERE p.id = $1 AND p.status = $2 AND p.pending_operation = $3 RETURNING p.*),
     a AS (UPDATE payment_attempts SET stop = 'integrity' WHERE payment_id = $1 AND seq = ${CURRENT_ATTEMPT('$1')} AND EXISTS (SELECT 1 FROM h))
     SELECT * FROM h`,
    [id, expect.status, expect.pendingOperation, now, JSON.stringify(why)],
  );
  return row && toPayment(row);
}

/** The payments an operator has to resolve, longest waiting first; `mode`: test or live keys' only (issue 25 item 26). */
export async function findPaymentsNeedingOperator(sql: Sql, filter: { merchantId?: string; mode?: KeyMode; limit: number }): Promise<Payment[]> {
  const rows = await sql.query<PaymentRow>(
    `SELECT * FROM payments WHERE pending_operation IS NOT NULL AND ${NEEDS_OPERATOR} AND ($1::text IS NULL OR merchant_id = $1) AND ${merchantOfMode('merchant_id', filter.mode)}
     ORDER BY updated_at, id LIMIT $2`,
    [filter.merchantId ?? null, filter.limit],
  );
  return rows.map(toPayment);
}

/** The operator flag of a payment's current operation, if it has one. */
export function needsOperatorOf(p: Payment): NeedsOperator | undefined {
  const flag = p.details.needsOperator;
  return p.pendingOperation && flag && (flag.transId ?? undefined) === p.details.lastTransId ? flag : undefined;
}

// --- transactions -----------------------------------------------------------------------------------

export type NewTransaction = Omit<Transaction, 'createdAt' | 'details'> & { details?: Record<string, unknown>; now: Date };

const INSERT_TRANSACTION = 'INSERT INTO transactions (id, payment_id, type, status, amount, details, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)';

/** The transaction and the acquirer attempt it opens (numbered after the payment's last), in one statement. */
const INSERT_TRANSACTION_AND_ATTEMPT = `WITH t AS (${INSERT_TRANSACTION})
  INSERT INTO payment_attempts (id, payment_id, seq, mid_id, connector, why, status, amount, currency, created_at)
  SELECT $1, $2, ${NEXT_ATTEMPT_SEQ('$2')}, $8, $9, $10, 'pending', $5, p.currency, $7 FROM payments p WHERE p.id = $2`;

/** A transaction of a payment; with `attempt`, the acquirer attempt it opens, in the same statement. */
export async function insertTransaction(sql: Sql, t: NewTransaction, attempt?: AttemptOpening): Promise<void> {
  const params = [t.id, t.paymentId, t.type, t.status, t.amount, JSON.stringify(t.details ?? {}), t.now];
  await sql.query(attempt ? INSERT_TRANSACTION_AND_ATTEMPT : INSERT_TRANSACTION, attempt ? [...params, ...attemptOpeningParams(attempt)] : params);
}

export async function updateTransactionStatus(sql: Sql, id: string, status: TransactionStatus, details?: Record<string, unknown>): Promise<void> {
  await sql.query('UPDATE transactions SET status = $2, details = details || $3::jsonb WHERE id = $1', [id, status, JSON.stringify(details ?? {})]);
}

export async function listTransactions(sql: Sql, paymentId: string): Promise<Transaction[]> {
  const rows = await sql.query<{ id: string; payment_id: string; type: TransactionType; status: TransactionStatus; amount: bigint; details: Record<string, unknown>; created_at: Date }>(
    'SELECT * FROM transactions WHERE payment_id = $1 ORDER BY created_at, id',
    [paymentId],
  );
  return rows.map((r) => ({ id: r.id, paymentId: r.payment_id, type: r.type, status: r.status, amount: BigInt(r.amount), details: r.details, createdAt: new Date(r.created_at) }));
}


/** The tries of a Hosted Checkout session (its order), in the order they were made (migration 141's index). */
export async function paymentsOfSession(sql: Sql, sessionId: string, limit = 50): Promise<Pick<Payment, 'id' | 'status' | 'amount' | 'currency' | 'declineReason' | 'createdAt'>[]> {
  const rows = await sql.query<{ id: string; status: Payment['status']; amount: string | bigint; currency: string; decline_reason: string | null; created_at: Date }>(
    'SELECT id, status, amount, currency, decline_reason, created_at FROM payments WHERE session_id = $1 ORDER BY created_at, id LIMIT $2',
    [sessionId, limit],
  );
  return rows.map((r) => ({ id: r.id, status: r.status, amount: BigInt(r.amount), currency: r.currency, declineReason: r.decline_reason, createdAt: new Date(r.created_at) }));
}
