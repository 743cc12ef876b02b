/**
 * Payments and their transactions. Every state change is a compare-and-set: the UPDATE names the state it
 * expects, and an empty result means another request won.
 */
import type { Sql } from './database.ts';
import type { PaymentStatus } from '../domain/payment-state.ts';
import type { ThreeDsAttributes } from '../connectors/types.ts';

export type Channel = 'checkout' | 's2s_card' | 's2s_apm';

export interface PayerInfo {
  email?: string;
  name?: string;
  firstName?: string;
  lastName?: string;
  ip?: string;
  phone?: string;
  birthDate?: string;
  country?: string;
  state?: string;
  city?: string;
  address?: string;
  zip?: string;
  district?: string;
  houseNumber?: string;
}

/** Facts about the payment that vary by channel and connector; kept as one document. */
export interface PaymentDetails {
  cardMask?: string;
  cardExpiry?: string; // MM/YYYY
  first6Last4?: string;
  brand?: string;
  connectorRef?: string;
  connectorState?: Record<string, string>;
  rrn?: string;
  approvalCode?: string;
  lastTransId?: string;
  reqToken?: boolean;
  recurringInit?: boolean;
  linkTarget?: string;
  termUrl3ds?: string;
  browser?: Record<string, string>;
  [key: string]: unknown;
}

export interface Payment {
  id: string;
  merchantId: string;
  sessionId: string | null;
  channel: Channel;
  operation: string;
  orderId: string;
  amount: bigint;
  currency: string;
  description: string;
  status: PaymentStatus;
  auth: boolean;
  capturedAmount: bigint;
  refundedAmount: bigint;
  midId: string | null;
  vaultId: string | null;
  cardToken: string | null;
  payer: PayerInfo;
  threeDs: ThreeDsAttributes | null;
  declineReason: string | null;
  customData: Record<string, unknown> | null;
  callbackUrl: string | null;
  details: PaymentDetails;
  pendingOperation: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

interface PaymentRow {
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

export function toPayment(r: PaymentRow): Payment {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    sessionId: r.session_id,
    channel: r.channel,
    operation: r.operation,
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

const INSERT_COLUMNS = `id, merchant_id, session_id, channel, operation, order_id, amount, currency, description, status, auth,
  mid_id, vault_id, card_token, payer, custom_data, callback_url, details, pending_operation, three_ds, decline_reason, created_at, updated_at`;

export function paymentInsertParams(p: NewPayment): unknown[] {
  return [
    p.id, p.merchantId, p.sessionId ?? null, p.channel, p.operation, p.orderId, p.amount, p.currency, p.description, p.status, p.auth,
    p.midId ?? null, p.vaultId ?? null, p.cardToken ?? null, JSON.stringify(p.payer ?? {}), p.customData ? JSON.stringify(p.customData) : null,
    p.callbackUrl ?? null, JSON.stringify(p.details ?? {}), p.pendingOperation ?? null, p.threeDs ? JSON.stringify(p.threeDs) : null,
    p.declineReason ?? null, p.now, p.now,
  ];
}

/** `INSERT INTO payments (...) VALUES ($n...)` with placeholders starting at `from`. */
export function paymentInsertSql(from = 1): string {
  const placeholders = Array.from({ length: 23 }, (_, i) => `$${i + from}`).join(', ');
  return `INSERT INTO payments (${INSERT_COLUMNS}) VALUES (${placeholders})`;
}

export async function insertPayment(sql: Sql, p: NewPayment): Promise<Payment> {
  const [row] = await sql.query<PaymentRow>(`${paymentInsertSql()} RETURNING *`, paymentInsertParams(p));
  return toPayment(row as PaymentRow);
}

/** A payment and its first transaction in one statement (the transaction names the payment it creates). */
export async function insertPaymentWithTransaction(sql: Sql, p: NewPayment, t: NewTransaction): Promise<Payment> {
  const params = paymentInsertParams(p);
  const n = params.length;
  const [row] = await sql.query<PaymentRow>(
    `WITH p AS (${paymentInsertSql()} RETURNING *),
       t AS (INSERT INTO transactions (id, payment_id, type, status, amount, details, created_at)
             VALUES ($${n + 1}, (SELECT id FROM p), $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}, $${n + 6}))
     SELECT * FROM p`,
    [...params, t.id, t.type, t.status, t.amount, JSON.stringify(t.details ?? {}), t.now],
  );
  return toPayment(row as PaymentRow);
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
  status: { column: 'status' },
  capturedAmount: { column: 'captured_amount' },
  refundedAmount: { column: 'refunded_amount' },
  midId: { column: 'mid_id' },
  vaultId: { column: 'vault_id' },
  cardToken: { column: 'card_token' },
  payer: { column: 'payer', json: true },
  threeDs: { column: 'three_ds', json: true },
  declineReason: { column: 'decline_reason' },
  customData: { column: 'custom_data', json: true },
  callbackUrl: { column: 'callback_url' },
  pendingOperation: { column: 'pending_operation' },
} as const satisfies Record<string, { column: string; json?: boolean }>;

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
  for (const [key, spec] of Object.entries(SETTABLE) as [keyof typeof SETTABLE, { column: string; json?: boolean }][]) {
    if (!(key in patch)) continue;
    const value = patch[key];
    sets.push(`${spec.column} = ${param(spec.json && value != null ? JSON.stringify(value) : value ?? null)}`);
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
  return { text: `UPDATE payments SET ${sets.join(', ')} WHERE ${where.join(' AND ')} RETURNING *`, params };
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

/**
 * updatePayment and, only when it applied, the status of one of its transactions, in one statement: a
 * connector's answer is written in a single round trip, atomic without a transaction of its own.
 */
export async function updatePaymentAndTransaction(
  sql: Sql, id: string, expect: Expectation, patch: PaymentPatch, now: Date,
  transaction: { id: string; status: TransactionStatus; details?: Record<string, unknown> },
): Promise<Payment | undefined> {
  const { text, params } = updateStatement(id, expect, patch, now);
  const n = params.length;
  const [row] = await sql.query<PaymentRow>(
    `WITH u AS (${text}),
       t AS (UPDATE transactions SET status = $${n + 1}, details = details || $${n + 2}::jsonb WHERE id = $${n + 3} AND EXISTS (SELECT 1 FROM u))
     SELECT * FROM u`,
    [...params, transaction.status, JSON.stringify(transaction.details ?? {}), transaction.id],
  );
  return row && toPayment(row);
}

/** Payments whose connector call has been in flight longer than the cutoff (a crash left them). */
export async function findStalledPayments(sql: Sql, before: Date, limit: number): Promise<Payment[]> {
  const rows = await sql.query<PaymentRow>(
    'SELECT * FROM payments WHERE pending_operation IS NOT NULL AND updated_at < $1 ORDER BY updated_at LIMIT $2',
    [before, limit],
  );
  return rows.map(toPayment);
}

// --- transactions -----------------------------------------------------------------------------------

export type TransactionType = 'sale' | 'auth' | '3ds' | 'redirect' | 'capture' | 'refund' | 'reversal' | 'void' | 'credit' | 'debit' | 'chargeback' | 'recurring' | 'retry';
export type TransactionStatus = 'success' | 'fail' | 'waiting' | 'undefined';

export interface Transaction {
  id: string;
  paymentId: string;
  type: TransactionType;
  status: TransactionStatus;
  amount: bigint;
  details: Record<string, unknown>;
  createdAt: Date;
}

export type NewTransaction = Omit<Transaction, 'createdAt' | 'details'> & { details?: Record<string, unknown>; now: Date };

export async function insertTransaction(sql: Sql, t: NewTransaction): Promise<void> {
  await sql.query(
    'INSERT INTO transactions (id, payment_id, type, status, amount, details, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [t.id, t.paymentId, t.type, t.status, t.amount, JSON.stringify(t.details ?? {}), t.now],
  );
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID.test(s);
