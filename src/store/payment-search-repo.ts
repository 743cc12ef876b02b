/**
 * The operators' payment search (issue 11): every filter is an equality or a range on a column or an indexed
 * expression, pages are newest first on (created_at, id), and the next page starts strictly after the last row
 * shown (keyset paging: stable while payments are being written, and as fast on page 1000 as on page 1).
 * Migration 012 indexes the expressions below; change them together.
 */
import type { Sql } from './database.ts';
import { toPayment } from './payments-repo.ts';
import type { Payment } from '../domain/model/payment.ts';
import type { PaymentStatus } from '../domain/payment-state.ts';

/** The indexed expressions of migration 012, with the predicates of its partial indexes. */
export const SEARCH_EXPRESSIONS = {
  email: { expression: "lower(payer->>'email')", partial: "payer ? 'email'" },
  cardLast4: { expression: "right(details->>'first6Last4', 4)", partial: "details ? 'first6Last4'" },
  cardFirst6: { expression: "left(details->>'first6Last4', 6)", partial: "details ? 'first6Last4'" },
} as const;

export interface PaymentSearch {
  merchantId?: string;
  /** Any of these merchants (the portal's scope). */
  merchantIds?: readonly string[];
  status?: PaymentStatus;
  orderId?: string;
  paymentId?: string;
  /** A transaction id of the payment, or the payment id itself. */
  transId?: string;
  /** Compared case-insensitively. */
  email?: string;
  cardFirst6?: string;
  cardLast4?: string;
  amountFrom?: bigint;
  amountTo?: bigint;
  currency?: string;
  /** card, a wallet (applepay, googlepay), or an alternative method's key (as paymentMethodOf names it). */
  method?: string;
  channel?: string;
  createdFrom?: Date;
  /** Exclusive. */
  createdTo?: Date;
  initiator?: string;
  source?: string;
  sequence?: string;
  /** Only payments with an operation left for an operator. */
  needsOperator?: boolean;
  /** Payments of test keys (sandbox merchants) or of live keys only (issue 25, item 26). */
  mode?: 'test' | 'live';
}

/** Where the next page starts: the last payment of the page before. */
export interface SearchCursor {
  createdAt: Date;
  id: string;
}

/** A cursor whose instant may also be ISO text (an export's lines carry it so, unparsed). */
type CursorAt = SearchCursor | { createdAt: string; id: string };

/**
 * The statuses of migration 026's partial index, which must stay the same list. They are written into the
 * statement as literals (each a fixed value of the state table, never the caller's text): a parameter would hide
 * the value from the planner, which could then not use a partial index.
 */
export const RARE_STATUSES: ReadonlySet<PaymentStatus> = new Set<PaymentStatus>(['3ds', 'redirect', 'refund', 'reversal', 'void', 'chargeback']);

/** A payment handed to an operator: see payments-repo NEEDS_OPERATOR. */
const NEEDS_OPERATOR = `(pending_operation IS NOT NULL AND details->'needsOperator' IS NOT NULL AND details->'needsOperator'->>'transId' IS NOT DISTINCT FROM details->>'lastTransId')`;

/** The WHERE conditions and parameters of a search (placeholders from $1). */
export function searchConditions(s: PaymentSearch, after?: CursorAt): { conditions: string[]; params: unknown[] } {
  const params: unknown[] = [];
  const conditions: string[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const equal = (column: string, value: unknown) => {
    if (value !== undefined) conditions.push(`${column} = ${param(value)}`);
  };
  equal('merchant_id', s.merchantId);
  // One merchant is an equality, so a page is a range of payments_merchant_created in its order (with = ANY the
  // planner reads every matching row and sorts them, for each page: the export of 1,000,000 was quadratic).
  if (s.merchantIds?.length === 1 && s.merchantId === undefined) equal('merchant_id', s.merchantIds[0]);
  else if (s.merchantIds !== undefined) conditions.push(`merchant_id = ANY(${param([...s.merchantIds])}::text[])`);
  if (s.status !== undefined && RARE_STATUSES.has(s.status)) conditions.push(`status = '${s.status}'`);
  else equal('status', s.status);
  equal('order_id', s.orderId);
  equal('id', s.paymentId);
  equal('currency', s.currency);
  equal('channel', s.channel);
  if (s.transId !== undefined) {
    // A transaction's id, or the payment's own: S2S answers and callbacks call the payment id trans_id.
    const id = param(s.transId);
    conditions.push(`id = ANY(ARRAY[${id}::text, (SELECT t.payment_id FROM transactions t WHERE t.id = ${id})])`);
  }
  const bothCardParts = s.cardFirst6 !== undefined && s.cardLast4 !== undefined;
  for (const key of ['email', 'cardLast4', 'cardFirst6'] as const) {
    const value = s[key];
    if (value === undefined || (key === 'cardFirst6' && bothCardParts)) continue;
    const { expression, partial } = SEARCH_EXPRESSIONS[key];
    conditions.push(partial, `${expression} = ${param(key === 'email' ? value.toLowerCase() : value)}`);
  }
  if (bothCardParts) {
    // With both, the last 4 digits lead: 10,000 values against a few hundred BINs, so their index range is short
    // whatever the BIN, where the BIN's range is long and, for a card no payment used, read to its end. The BIN
    // is checked in a form its index does not match, which keeps the planner off that index.
    conditions.push(`substr(details->>'first6Last4', 1, 6) = ${param(s.cardFirst6)}`);
  }
  if (s.amountFrom !== undefined) conditions.push(`amount >= ${param(s.amountFrom)}`);
  if (s.amountTo !== undefined) conditions.push(`amount <= ${param(s.amountTo)}`);
  if (s.createdFrom !== undefined) conditions.push(`created_at >= ${param(s.createdFrom)}`);
  if (s.createdTo !== undefined) conditions.push(`created_at < ${param(s.createdTo)}`);
  // As paymentMethodOf names it: the APM's key, else the wallet's (applepay, googlepay), else card.
  if (s.method !== undefined) conditions.push(`COALESCE(details->'apm'->>'method', details->'wallet'->>'name', 'card') = ${param(s.method)}`);
  for (const key of ['initiator', 'source', 'sequence'] as const) {
    if (s[key] !== undefined) conditions.push(`details->'cof'->>'${key}' = ${param(s[key])}`);
  }
  if (s.needsOperator) conditions.push(NEEDS_OPERATOR);
  // A key's mode is its merchant's: a test key is a sandbox merchant's (merchants are few; the list is short).
  if (s.mode !== undefined) conditions.push(`merchant_id IN (SELECT m.id FROM merchants m WHERE m.sandbox = ${s.mode === 'test' ? 'true' : 'false'})`);
  if (after) conditions.push(`(created_at, id) < (${param(after.createdAt)}::timestamptz, ${param(after.id)}::text)`);
  return { conditions, params };
}

/** The statement of a search page, for the query and for EXPLAIN in the benchmark. */
export function searchStatement(s: PaymentSearch, limit: number, after?: CursorAt, columns = '*'): { text: string; params: unknown[] } {
  const { conditions, params } = searchConditions(s, after);
  params.push(limit);
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  // The table's columns by their qualified names: a bare `created_at` would name the export's output column (the
  // instant as text), whose order no index has, and every page would read and sort all the matching rows.
  return { text: `SELECT ${columns} FROM payments ${where} ORDER BY payments.created_at DESC, payments.id DESC LIMIT $${params.length}`, params };
}

/**
 * A payment as an export line lists it: its columns and the few facts of its documents the line shows, read
 * without the documents themselves (an export reads a million; parsing each payment's JSON was most of its cost).
 * `created_at` is the instant as ISO text (as Date.toISOString writes it), also the page's cursor.
 */
export interface PaymentLine {
  id: string;
  merchant_id: string;
  created_at: string;
  order_id: string;
  status: string;
  amount: string;
  currency: string;
  captured_amount: string;
  refunded_amount: string;
  /** As paymentMethodOf names it: the APM's key, else the wallet's, else card. */
  method: string;
  card: string | null;
  payer_email: string | null;
}

const LINE_COLUMNS = `id, merchant_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, order_id, status,
  amount, currency, captured_amount, refunded_amount, COALESCE(details->'apm'->>'method', details->'wallet'->>'name', 'card') AS method,
  NULLIF(details->>'cardMask', '') AS card, NULLIF(payer->>'email', '') AS payer_email`;

/** Up to `limit` lines of the search, newest first, after the cursor. */
export async function searchPaymentLines(sql: Sql, s: PaymentSearch, limit: number, after?: CursorAt): Promise<PaymentLine[]> {
  const { text, params } = searchStatement(s, limit, after, LINE_COLUMNS);
  return sql.query<PaymentLine>(text, params);
}

/** Up to `limit` payments matching the search, newest first, after the cursor. */
export async function searchPayments(sql: Sql, s: PaymentSearch, limit: number, after?: SearchCursor): Promise<Payment[]> {
  const { text, params } = searchStatement(s, limit, after);
  const rows = await sql.query<Parameters<typeof toPayment>[0]>(text, params);
  return rows.map(toPayment);
}

/** A CSV cell as domain/csv.ts csvCell writes it, in SQL: quoted, a formula's first character neutralised. */
const csvCellSql = (v: string) => `'"' || replace(CASE WHEN left(COALESCE(${v}, ''), 1) IN ('=', '+', '-', '@', E'\\t', E'\\r') THEN '''' || ${v} ELSE COALESCE(${v}, '') END, '"', '""') || '"'`;
/** An amount as domain/money.ts formatAmount writes it: the minor units over 10^exponent, exactly that many decimals. */
const amountSql = (column: string) => `round(p.${column}::numeric / power(10::numeric, COALESCE(e.exponent, 2)), COALESCE(e.exponent, 2))::text`;

/** A page of export lines as the database writes them: one string, how many lines, and the last line's cursor. */
export interface PaymentCsvPage {
  text: string;
  lines: number;
  last?: { createdAt: string; id: string };
}

/**
 * Up to `limit` payments of the search, newest first, after the cursor, as CSV lines written by the database in one
 * string (the export's columns: PaymentLine's, each cell as csvCell quotes it, amounts as formatAmount writes them
 * with `exponents`, the currencies whose exponent is not 2). No object per payment: most of the export of a million
 * was building and formatting them.
 */
export async function searchPaymentCsv(sql: Sql, s: PaymentSearch, limit: number, after: CursorAt | undefined, exponents: Readonly<Record<string, number>>): Promise<PaymentCsvPage> {
  const { text, params } = searchStatement(s, limit, after, 'id, merchant_id, created_at, order_id, status, amount, currency, captured_amount, refunded_amount, details, payer');
  params.push(Object.keys(exponents), Object.values(exponents));
  const [c, x] = [params.length - 1, params.length];
  const cells = [
    'p.id', 'p.merchant_id', `to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`, 'p.order_id', 'p.status', amountSql('amount'), 'p.currency',
    amountSql('captured_amount'), amountSql('refunded_amount'), `COALESCE(p.details->'apm'->>'method', p.details->'wallet'->>'name', 'card')`,
    `NULLIF(p.details->>'cardMask', '')`, `NULLIF(p.payer->>'email', '')`,
  ].map(csvCellSql).join(` || ',' || `);
  const [row] = await sql.query<{ text: string | null; lines: number; last_at: string | null; last_id: string | null }>(
    `WITH page AS (${text}),
     tail AS (SELECT created_at, id FROM page ORDER BY created_at, id LIMIT 1)
     SELECT string_agg(${cells} || E'\\r\\n', '' ORDER BY p.created_at DESC, p.id DESC) AS text, count(*)::int AS lines,
            (SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') FROM tail) AS last_at, (SELECT id FROM tail) AS last_id
       FROM page p LEFT JOIN unnest($${c}::text[], $${x}::int[]) AS e(currency, exponent) ON e.currency = p.currency`,
    params,
  );
  return { text: row?.text ?? '', lines: row?.lines ?? 0, ...(row?.last_at && row.last_id ? { last: { createdAt: row.last_at, id: row.last_id } } : {}) };
}
