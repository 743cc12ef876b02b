/**
 * The portal's other exports (issue 30, reports): a merchant's refunds and disputes, newest first, in keyset pages
 * on (created_at, id), each page's lines read as their columns only. Refunds are the refund transactions of the
 * merchants' payments; disputes are read by disputes_merchant (merchant_id, created_at).
 */
import type { Sql } from './database.ts';

export interface ExportWindow {
  merchantIds: readonly string[];
  createdFrom?: Date;
  /** Exclusive. */
  createdTo?: Date;
}

export interface Cursor { createdAt: string; id: string }

export interface RefundLine {
  id: string;
  payment_id: string;
  merchant_id: string;
  order_id: string;
  created_at: string;
  status: string;
  amount: string;
  currency: string;
  reason: string | null;
  initiated_by: string | null;
}

export interface DisputeLine {
  id: string;
  payment_id: string;
  merchant_id: string;
  order_id: string | null;
  created_at: string;
  stage: string;
  status: string;
  amount: string;
  currency: string;
  reason_code: string | null;
  category: string;
  due_at: string | null;
}

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The window's conditions on the merchant column `merchant` and the (created_at, id) pair of alias `row`. */
function windowConditions(merchant: string, row: string, w: ExportWindow, after: Cursor | undefined, params: unknown[]): string[] {
  const param = (v: unknown) => { params.push(v); return `$${params.length}`; };
  const out = [w.merchantIds.length === 1 ? `${merchant} = ${param(w.merchantIds[0])}` : `${merchant} = ANY(${param([...w.merchantIds])}::text[])`];
  if (w.createdFrom) out.push(`${row}.created_at >= ${param(w.createdFrom)}`);
  if (w.createdTo) out.push(`${row}.created_at < ${param(w.createdTo)}`);
  if (after) out.push(`(${row}.created_at, ${row}.id) < (${param(after.createdAt)}::timestamptz, ${param(after.id)}::text)`);
  return out;
}

export async function refundLines(sql: Sql, w: ExportWindow, limit: number, after?: Cursor): Promise<RefundLine[]> {
  const params: unknown[] = [];
  const conditions = windowConditions('p.merchant_id', 't', w, after, params);
  params.push(limit);
  return sql.query<RefundLine>(
    `SELECT t.id, t.payment_id, p.merchant_id, p.order_id, ${ISO('t.created_at')} AS created_at, t.status, t.amount::text AS amount, p.currency,
            COALESCE(t.details->'initiatedBy'->>'reason', t.details->>'reason') AS reason, t.details->'initiatedBy'->>'name' AS initiated_by
       FROM transactions t JOIN payments p ON p.id = t.payment_id
      WHERE t.type = 'refund' AND ${conditions.join(' AND ')}
      ORDER BY t.created_at DESC, t.id DESC LIMIT $${params.length}`,
    params,
  );
}

export async function disputeLines(sql: Sql, w: ExportWindow, limit: number, after?: Cursor): Promise<DisputeLine[]> {
  const params: unknown[] = [];
  const conditions = windowConditions('d.merchant_id', 'd', w, after, params);
  params.push(limit);
  return sql.query<DisputeLine>(
    `SELECT d.id, d.payment_id, d.merchant_id, p.order_id, ${ISO('d.created_at')} AS created_at, d.stage, d.status, d.amount::text AS amount, d.currency,
            d.reason_code, d.category, ${ISO('d.due_at')} AS due_at
       FROM disputes d LEFT JOIN payments p ON p.id = d.payment_id
      WHERE ${conditions.join(' AND ')}
      ORDER BY d.created_at DESC, d.id DESC LIMIT $${params.length}`,
    params,
  );
}

export interface CallbackLine {
  id: string;
  merchant_id: string;
  payment_id: string | null;
  created_at: string;
  url: string;
  fields: Record<string, unknown> | string;
  status: string;
  attempts: number;
  last_error: string | null;
  delivered_at: string | null;
}

/** The merchants' callbacks, newest first (callbacks_merchant), with the fields they carried. */
export async function callbackLines(sql: Sql, w: ExportWindow, limit: number, after?: Cursor): Promise<CallbackLine[]> {
  const params: unknown[] = [];
  const conditions = windowConditions('c.merchant_id', 'c', w, after, params);
  params.push(limit);
  return sql.query<CallbackLine>(
    `SELECT c.id, c.merchant_id, c.payment_id, ${ISO('c.created_at')} AS created_at, c.url, c.fields, c.status, c.attempts, c.last_error, ${ISO('c.delivered_at')} AS delivered_at
       FROM callbacks c WHERE ${conditions.join(' AND ')}
      ORDER BY c.created_at DESC, c.id DESC LIMIT $${params.length}`,
    params,
  );
}

export interface FeeLine {
  /** The entry's key as one cursor id: `ref/event`. */
  id: string;
  created_at: string;
  merchant_id: string;
  payment_id: string | null;
  order_id: string | null;
  transaction_id: string;
  transaction_type: string | null;
  transaction_amount: string | null;
  event: string;
  /** Signed, the merchant fees account's way: a fee charged positive, a fee given back negative. */
  amount: string;
  currency: string;
}

/** The predicate of ledger_entries_fee_lines (migration 192) beside the event's: repeated, so the planner knows it holds. */
const FEE_LINES_ACCOUNTS = "e.account LIKE 'merchant:%'";

/**
 * The merchants' fee lines (issue 30, fees export): each fee or fee given back posted to a merchant's fees account
 * with the payment and the transaction it was charged on, newest first, by ledger_entries_fee_lines (migrations 150, 192).
 */
export async function feeLines(sql: Sql, w: ExportWindow, limit: number, after?: Cursor): Promise<FeeLine[]> {
  const params: unknown[] = [];
  const param = (v: unknown) => { params.push(v); return `$${params.length}`; };
  const accounts = w.merchantIds.map((id) => `merchant:${id}:fees`);
  const conditions = [accounts.length === 1 ? `e.account = ${param(accounts[0])}` : `e.account = ANY(${param(accounts)}::text[])`, `e.event IN ('fee', 'fee_refund')`, FEE_LINES_ACCOUNTS];
  if (w.createdFrom) conditions.push(`e.created_at >= ${param(w.createdFrom)}`);
  if (w.createdTo) conditions.push(`e.created_at < ${param(w.createdTo)}`);
  if (after) {
    const [ref, event] = [after.id.slice(0, after.id.lastIndexOf('/')), after.id.slice(after.id.lastIndexOf('/') + 1)];
    conditions.push(`(e.created_at, e.ref, e.event) < (${param(after.createdAt)}::timestamptz, ${param(ref)}::text, ${param(event)}::text)`);
  }
  params.push(limit);
  return sql.query<FeeLine>(
    `SELECT e.ref || '/' || e.event AS id, ${ISO('e.created_at')} AS created_at, split_part(e.account, ':', 2) AS merchant_id, e.payment_id, p.order_id,
            e.ref AS transaction_id, t.type AS transaction_type, t.amount::text AS transaction_amount, e.event, e.amount::text AS amount, e.currency
       FROM ledger_entries e LEFT JOIN payments p ON p.id = e.payment_id LEFT JOIN transactions t ON t.id = e.ref
      WHERE ${conditions.join(' AND ')}
      ORDER BY e.created_at DESC, e.ref DESC, e.event DESC LIMIT $${params.length}`,
    params,
  );
}
