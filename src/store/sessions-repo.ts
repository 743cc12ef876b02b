import type { Sql } from './database.ts';
import { paymentInsertParams, paymentInsertSql, type NewPayment } from './payments-repo.ts';

/** What the merchant asked for when opening the session, validated. */
export interface SessionRequest {
  methods: string[];
  parameters: Record<string, Record<string, unknown>>;
  successUrl: string;
  cancelUrl: string;
  expiryUrl?: string;
  errorUrl?: string;
  urlTarget?: string;
  reqToken: boolean;
  recurringInit: boolean;
  auth: boolean;
  customData?: Record<string, unknown>;
  customer?: { name?: string; email?: string; birthDate?: string; ip?: string };
  billingAddress?: Record<string, string>;
  payerIp?: string;
  cardTokens?: string[];
  scheduleId?: string;
  scheduleStartDate?: string;
  paymentScheduleAmount?: string;
  payee?: Record<string, unknown>;
  vatCalc?: boolean;
}

export interface Session {
  id: string;
  merchantId: string;
  operation: 'purchase' | 'debit' | 'credit';
  orderNumber: string;
  amount: bigint;
  currency: string;
  description: string;
  request: SessionRequest;
  expiresAt: Date;
  status: 'open' | 'paid';
  paymentId: string | null;
  createdAt: Date;
}

interface SessionRow {
  id: string;
  merchant_id: string;
  operation: Session['operation'];
  order_number: string;
  amount: bigint;
  currency: string;
  description: string;
  request: SessionRequest;
  expires_at: Date;
  status: Session['status'];
  payment_id: string | null;
  created_at: Date;
}

const toSession = (r: SessionRow): Session => ({
  id: r.id,
  merchantId: r.merchant_id,
  operation: r.operation,
  orderNumber: r.order_number,
  amount: BigInt(r.amount),
  currency: r.currency,
  description: r.description,
  request: r.request,
  expiresAt: new Date(r.expires_at),
  status: r.status,
  paymentId: r.payment_id,
  createdAt: new Date(r.created_at),
});

/** The session and its first payment (status prepare) in one statement: one round trip. */
export async function insertSessionWithPayment(sql: Sql, s: Omit<Session, 'status'>, payment: NewPayment): Promise<void> {
  const sessionParams = [s.id, s.merchantId, s.operation, s.orderNumber, s.amount, s.currency, s.description, JSON.stringify(s.request), s.expiresAt, s.paymentId, s.createdAt];
  await sql.query(
    `WITH new_session AS (
       INSERT INTO sessions (id, merchant_id, operation, order_number, amount, currency, description, request, expires_at, payment_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id)
     ${paymentInsertSql(12).replace('VALUES (', 'SELECT ').replace(/\)$/, ' FROM new_session')}`,
    [...sessionParams, ...paymentInsertParams(payment)],
  );
}

export async function getSession(sql: Sql, id: string): Promise<Session | undefined> {
  if (id.length > 64) return undefined;
  const [row] = await sql.query<SessionRow>('SELECT * FROM sessions WHERE id = $1', [id]);
  return row && toSession(row);
}

/** Marks the session paid; only one payment of a session can ever succeed. */
export async function markSessionPaid(sql: Sql, id: string, paymentId: string): Promise<boolean> {
  const rows = await sql.query('UPDATE sessions SET status = $3, payment_id = $2 WHERE id = $1 AND status = $4 RETURNING id', [id, paymentId, 'paid', 'open']);
  return rows.length === 1;
}

/** Points the session at a new attempt after a declined one (compare-and-set on the previous attempt). */
export async function switchSessionPayment(sql: Sql, id: string, fromPaymentId: string | null, toPaymentId: string): Promise<boolean> {
  const rows = await sql.query(
    'UPDATE sessions SET payment_id = $3 WHERE id = $1 AND status = $4 AND payment_id IS NOT DISTINCT FROM $2 RETURNING id',
    [id, fromPaymentId, toPaymentId, 'open'],
  );
  return rows.length === 1;
}
