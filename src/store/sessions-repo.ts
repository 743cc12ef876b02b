import type { Sql } from './database.ts';
import { PAYMENT_COLUMNS, PAYMENT_COLUMN_LIST, paymentInsertParams, paymentInsertSql, type NewPayment } from './payments-repo.ts';
import { columnArrays, groupCommitted, unnestRows, type BatchColumn } from './group-commit.ts';

/** What the merchant asked for when opening the session, validated. */
export interface SessionRequest {
  methods: string[];
  parameters: Record<string, Record<string, unknown>>;
  successUrl: string;
  /** Optional, as the platform's docs and SDKs treat it: a cancel without one goes to errorUrl, else a gateway page. */
  cancelUrl?: string;
  expiryUrl?: string;
  errorUrl?: string;
  urlTarget?: string;
  /** The merchant's choice of the hosted pages' language (a BCP 47 tag); the payer's own choice wins. */
  locale?: string;
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
  /** Operation credit: the payout's recipient (they override the name a card_token's holder gives). */
  payeeFirstName?: string;
  payeeLastName?: string;
  payeeBillingAddress?: Record<string, unknown>;
  vatCalc?: boolean;
  /** recurring_consent_required: the hosted page asks the payer to agree to the schedule's later charges. */
  recurringConsentRequired?: boolean;
  /** The top-level accountId (crypto example), forwarded to the methods whose parameters name it. */
  accountId?: string;
  /** Set on sessions opened by `POST /api/v1/session/token` (hosted payment fields). */
  hostedFields?: { returnUrl: string };
  /** The card the hosted fields collected last (the PAN is in the vault), until an attempt takes it. */
  collectedCard?: CollectedCard;
  /** A payment attempt started (hosted payment fields): the session can no longer be updated. */
  attempted?: boolean;
  /**
   * The vault row of the card collected last. Unlike collectedCard it outlives the attempt that takes the card,
   * so the row stays referenced until the attempt's payment names it (purgeUnreferencedCards).
   */
  cardVaultId?: string;
}

/** A card collected by the hosted fields: a vault row and what may be shown of it. Never the PAN or the CVV. */
export interface CollectedCard {
  vaultId: string;
  mask: string;
  /** MM/YYYY */
  expiry: string;
  /** Browser details the field frame reported, snake_case as the callbacks name them. */
  browser?: Record<string, string>;
  /** The payer's device id the card frame posted. */
  deviceId?: string;
  collectedAt: string;
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

const SESSION_COLUMNS: readonly BatchColumn[] = [
  ['id', 'text'], ['merchant_id', 'text'], ['operation', 'text'], ['order_number', 'text'], ['amount', 'int8'], ['currency', 'text'],
  ['description', 'text'], ['request', 'jsonb'], ['expires_at', 'timestamptz'], ['payment_id', 'text'], ['created_at', 'timestamptz'],
];
const SESSION_COLUMN_LIST = SESSION_COLUMNS.map(([name]) => name).join(', ');

interface SessionWithPayment {
  session: Omit<Session, 'status'>;
  payment: NewPayment;
}

const sessionInsertParams = (s: Omit<Session, 'status'>): unknown[] =>
  [s.id, s.merchantId, s.operation, s.orderNumber, s.amount, s.currency, s.description, JSON.stringify(s.request), s.expiresAt, s.paymentId, s.createdAt];

const INSERT_WITH_PAYMENT = `WITH new_session AS (
    INSERT INTO sessions (${SESSION_COLUMN_LIST}) VALUES (${SESSION_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id)
  ${paymentInsertSql(SESSION_COLUMNS.length + 1).replace('VALUES (', 'SELECT ').replace(/\)$/, ' FROM new_session')}`;

/** The same write for many sessions; the session columns are prefixed s_ where they meet the payment's. */
const INSERT_MANY_WITH_PAYMENTS = `WITH i AS (SELECT * FROM ${unnestRows('i', [...SESSION_COLUMNS.map(([name, type]): BatchColumn => [`s_${name}`, type]), ...PAYMENT_COLUMNS])}),
    new_sessions AS (INSERT INTO sessions (${SESSION_COLUMN_LIST}) SELECT ${SESSION_COLUMNS.map(([name]) => `s_${name}`).join(', ')} FROM i RETURNING id)
  INSERT INTO payments (${PAYMENT_COLUMN_LIST}) SELECT ${PAYMENT_COLUMNS.map(([name]) => `i.${name}`).join(', ')} FROM i JOIN new_sessions ON new_sessions.id = i.s_id`;

const sessionRow = ({ session, payment }: SessionWithPayment): unknown[] => [...sessionInsertParams(session), ...paymentInsertParams(payment)];

/**
 * The session and its first payment (status prepare) in one statement: one round trip. Outside a
 * transaction, sessions opened at the same time share one statement (group commit).
 */
const insertGroupCommitted = groupCommitted<SessionWithPayment, void>({
  one: async (sql, item) => {
    await sql.query(INSERT_WITH_PAYMENT, sessionRow(item));
  },
  many: async (sql, items) => {
    await sql.query(INSERT_MANY_WITH_PAYMENTS, columnArrays(items.map(sessionRow)));
    return items.map(() => undefined);
  },
});

export function insertSessionWithPayment(sql: Sql, session: Omit<Session, 'status'>, payment: NewPayment): Promise<void> {
  return insertGroupCommitted(sql, { session, payment });
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
  // The attempt replaced must be a finished decline as this statement sees it: one still under way could be paid too.
  const rows = await sql.query(
    `UPDATE sessions SET payment_id = $3 WHERE id = $1 AND status = $4 AND payment_id IS NOT DISTINCT FROM $2
       AND ($2::text IS NULL OR EXISTS (SELECT 1 FROM payments WHERE id = $2 AND status = 'decline' AND pending_operation IS NULL))
     RETURNING id`,
    [id, fromPaymentId, toPaymentId, 'open'],
  );
  return rows.length === 1;
}

// --- hosted payment fields ----------------------------------------------------------------------------

/** Records the card the hosted fields collected (replacing an earlier one) on an open, unexpired session. */
export async function recordCollectedCard(sql: Sql, id: string, card: CollectedCard, now: Date): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE sessions SET request = request || jsonb_build_object('collectedCard', $2::jsonb, 'cardVaultId', $4::text)
     WHERE id = $1 AND status = 'open' AND expires_at > $3 RETURNING id`,
    [id, JSON.stringify(card), now, card.vaultId],
  );
  return rows.length === 1;
}

/**
 * Starts a payment attempt of an open session: marks it attempted (no update is accepted after that) and
 * takes the collected card, in one statement, so two racing attempts cannot both take the same card.
 * Undefined when the session is not open any more; `card` is null when no card was waiting.
 */
export async function beginSessionAttempt(sql: Sql, id: string, now: Date): Promise<{ card: CollectedCard | null } | undefined> {
  const [row] = await sql.query<{ card: CollectedCard | null }>(
    `WITH old AS (SELECT id, request->'collectedCard' AS card FROM sessions WHERE id = $1 AND status = 'open' AND expires_at > $2 FOR UPDATE)
     UPDATE sessions s SET request = (s.request - 'collectedCard') || '{"attempted": true}'::jsonb
     FROM old WHERE s.id = old.id RETURNING old.card`,
    [id, now],
  );
  return row && { card: row.card ?? null };
}

export interface SessionOrderChange {
  amount: bigint;
  currency: string;
  description: string;
  /** Merged into the stored request (top-level keys replaced). */
  request: Partial<SessionRequest>;
  /** Merged into the first payment's payer. */
  payer: Record<string, string>;
  /** Replaces the custom_data the payment's callbacks return, when given. */
  customData?: Record<string, unknown>;
}

/**
 * Changes the order (and payer data) of a session no one has tried to pay yet, and its payment with it.
 * False when the session is paid, expired, attempted, or its payment is no longer untouched.
 */
export async function updateUnattemptedSession(sql: Sql, id: string, change: SessionOrderChange, now: Date): Promise<boolean> {
  const rows = await sql.query(
    `WITH s AS (
       UPDATE sessions SET amount = $2, currency = $3, description = $4, request = request || $5::jsonb
       WHERE id = $1 AND status = 'open' AND expires_at > $7 AND COALESCE(request->>'attempted', 'false') <> 'true'
         AND EXISTS (SELECT 1 FROM payments p WHERE p.id = sessions.payment_id AND p.status = 'prepare' AND p.pending_operation IS NULL)
       RETURNING payment_id)
     UPDATE payments SET amount = $2, currency = $3, description = $4, payer = payer || $6::jsonb, custom_data = COALESCE($8::jsonb, custom_data),
       updated_at = $7, version = version + 1
     WHERE id = (SELECT payment_id FROM s) AND status = 'prepare' AND pending_operation IS NULL
     RETURNING id`,
    [id, change.amount, change.currency, change.description, JSON.stringify(change.request), JSON.stringify(change.payer), now,
      change.customData === undefined ? null : JSON.stringify(change.customData)],
  );
  return rows.length === 1;
}

/**
 * The session's declined attempts (payments under it), leaving out those declined for the given reasons. Read
 * through payments_session, among the session's few payments (migration 192 dropped the index of declines alone).
 */
export async function countDeclinedAttempts(sql: Sql, sessionId: string, notCounted: readonly string[]): Promise<number> {
  const [row] = await sql.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM payments WHERE session_id = $1 AND status = 'decline' AND (decline_reason IS NULL OR NOT (decline_reason = ANY($2::text[])))",
    [sessionId, notCounted],
  );
  return Number(row?.n ?? 0);
}
