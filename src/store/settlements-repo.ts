/**
 * Settlement statements, reserve releases and merchant payouts (issue 27). Each writer runs in the caller's
 * transaction and is safe with any number of nodes: a statement locks its merchant's pending balance row and is
 * unique per (merchant, currency, period end); a reserve release is a compare-and-set on the statement; a payout
 * is unique per statement. Their entries are keyed by the statement or payout, so nothing posts twice.
 */
import type { Sql } from './database.ts';

export interface Statement {
  id: string;
  merchantId: string;
  currency: string;
  periodFrom: Date;
  periodTo: Date;
  gross: bigint;
  fees: bigint;
  reserveHeld: bigint;
  reserveReleaseAt: Date | null;
  reserveReleasedAt: Date | null;
  net: bigint;
  /** The merchant's available balance just before the statement's entries (negative: carried over). */
  openingAvailable: bigint;
  transactions: number;
  createdAt: Date;
  payout: { id: string; amount: bigint; bankReference: string; paidBy: string | null; paidAt: Date } | null;
}

interface StatementRow {
  id: string; merchant_id: string; currency: string; period_from: Date | string; period_to: Date | string; gross: string | bigint; fees: string | bigint;
  reserve_held: string | bigint; reserve_release_at: Date | string | null; reserve_released_at: Date | string | null; net: string | bigint; opening_available: string | bigint; transactions: number; created_at: Date | string;
  payout_id?: string | null; payout_amount?: string | bigint | null; bank_reference?: string | null; paid_by?: string | null; paid_at?: Date | string | null;
}

const date = (v: Date | string | null | undefined) => (v == null ? null : new Date(v));

const toStatement = (r: StatementRow): Statement => ({
  id: r.id, merchantId: r.merchant_id, currency: r.currency, periodFrom: new Date(r.period_from), periodTo: new Date(r.period_to),
  gross: BigInt(r.gross), fees: BigInt(r.fees), reserveHeld: BigInt(r.reserve_held), reserveReleaseAt: date(r.reserve_release_at),
  reserveReleasedAt: date(r.reserve_released_at), net: BigInt(r.net), openingAvailable: BigInt(r.opening_available), transactions: r.transactions, createdAt: new Date(r.created_at),
  payout: r.payout_id ? { id: r.payout_id, amount: BigInt(r.payout_amount!), bankReference: r.bank_reference!, paidBy: r.paid_by ?? null, paidAt: new Date(r.paid_at!) } : null,
});

const WITH_PAYOUT = `SELECT s.*, p.id AS payout_id, p.amount AS payout_amount, p.bank_reference, p.paid_by, p.paid_at
  FROM settlement_statements s LEFT JOIN merchant_payouts p ON p.statement_id = s.id`;

/** The (merchant, currency) pairs that have a pending account: the candidates for settlement. */
export async function pendingAccounts(sql: Sql): Promise<{ merchantId: string; currency: string }[]> {
  const rows = await sql.query<{ account: string; currency: string }>("SELECT account, currency FROM ledger_accounts WHERE account LIKE 'merchant:%:pending' ORDER BY account, currency");
  return rows.map((r) => ({ merchantId: r.account.slice('merchant:'.length, -':pending'.length), currency: r.currency }));
}

/**
 * Locks a merchant's balances in a currency for the rest of the transaction, in account order (as postings take
 * them): one settler at a time. Answers the balances locked (debit positive), by account.
 */
export async function lockMerchantAccounts(sql: Sql, merchantId: string, currency: string): Promise<Map<string, bigint>> {
  const rows = await sql.query<{ account: string; balance: string | bigint }>(
    "SELECT account, balance FROM ledger_accounts WHERE account LIKE $1 AND currency = $2 ORDER BY account FOR UPDATE",
    [`merchant:${merchantId.replace(/[%_\\]/g, '\\$&')}:%`, currency],
  );
  return new Map(rows.map((r) => [r.account, BigInt(r.balance)]));
}

/** Locks a merchant's pending balance in a currency for the rest of the transaction (one settler at a time). */
export async function lockPending(sql: Sql, pendingAccount: string, currency: string): Promise<boolean> {
  const rows = await sql.query('SELECT 1 FROM ledger_accounts WHERE account = $1 AND currency = $2 FOR UPDATE', [pendingAccount, currency]);
  return rows.length > 0;
}

/** Where the next statement of a merchant in a currency starts: the last one's end (undefined: none yet). */
export async function lastPeriodEnd(sql: Sql, merchantId: string, currency: string): Promise<Date | undefined> {
  const [row] = await sql.query<{ end: Date | string | null }>('SELECT max(period_to) AS end FROM settlement_statements WHERE merchant_id = $1 AND currency = $2', [merchantId, currency]);
  return row?.end ? new Date(row.end) : undefined;
}

/** What a period moved on the pending and fees accounts: the sums (debit positive) and the causes counted. */
export async function periodSums(sql: Sql, accounts: { pending: string; fees: string }, currency: string, from: Date | undefined, to: Date): Promise<{ pending: bigint; fees: bigint; causes: number }> {
  const [row] = await sql.query<{ pending: string; fees: string; causes: number }>(
    `SELECT coalesce(sum(amount) FILTER (WHERE account = $1), 0)::text AS pending, coalesce(sum(amount) FILTER (WHERE account = $2), 0)::text AS fees,
            count(DISTINCT ref)::int AS causes
     FROM ledger_entries WHERE account IN ($1, $2) AND currency = $3 AND created_at >= $4 AND created_at < $5
       AND event NOT IN ('settlement', 'settlement_fees', 'settlement_return')`,
    [accounts.pending, accounts.fees, currency, from ?? new Date(0), to],
  );
  return { pending: BigInt(row?.pending ?? '0'), fees: BigInt(row?.fees ?? '0'), causes: row?.causes ?? 0 };
}

/** Inserts a statement; undefined when one for that period end exists already (another node made it). */
export async function insertStatement(sql: Sql, s: Omit<Statement, 'reserveReleasedAt' | 'payout'>): Promise<Statement | undefined> {
  const [row] = await sql.query<StatementRow>(
    `INSERT INTO settlement_statements (id, merchant_id, currency, period_from, period_to, gross, fees, reserve_held, reserve_release_at, net, transactions, created_at, opening_available)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (merchant_id, currency, period_to) DO NOTHING RETURNING *`,
    [s.id, s.merchantId, s.currency, s.periodFrom, s.periodTo, s.gross.toString(), s.fees.toString(), s.reserveHeld.toString(), s.reserveReleaseAt, s.net.toString(), s.transactions, s.createdAt, s.openingAvailable.toString()],
  );
  return row && toStatement(row);
}

/** Claims statements whose reserve is due, marking them released (a compare-and-set; others' claims skipped). */
export async function claimDueReserves(sql: Sql, now: Date, limit: number): Promise<Statement[]> {
  const rows = await sql.query<StatementRow>(
    `UPDATE settlement_statements SET reserve_released_at = $1
     WHERE id IN (SELECT id FROM settlement_statements WHERE reserve_released_at IS NULL AND reserve_held > 0 AND reserve_release_at <= $1
                  ORDER BY reserve_release_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       AND reserve_released_at IS NULL
     RETURNING *`,
    [now, limit],
  );
  return rows.map(toStatement);
}

export async function getStatement(sql: Sql, id: string): Promise<Statement | undefined> {
  const [row] = await sql.query<StatementRow>(`${WITH_PAYOUT} WHERE s.id = $1`, [id]);
  return row && toStatement(row);
}

export async function listStatements(sql: Sql, filter: { merchantId?: string; unpaid?: boolean; limit: number }): Promise<Statement[]> {
  const rows = await sql.query<StatementRow>(
    `${WITH_PAYOUT} WHERE ($1::text IS NULL OR s.merchant_id = $1) AND (NOT $2 OR p.id IS NULL) ORDER BY s.period_to DESC, s.id LIMIT $3`,
    [filter.merchantId ?? null, filter.unpaid ?? false, filter.limit],
  );
  return rows.map(toStatement);
}

/** A merchant's running balance of one account in a currency (0 when it has none), locked for the transaction. */
export async function balanceForUpdate(sql: Sql, account: string, currency: string): Promise<bigint> {
  const [row] = await sql.query<{ balance: string | bigint }>('SELECT balance FROM ledger_accounts WHERE account = $1 AND currency = $2 FOR UPDATE', [account, currency]);
  return BigInt(row?.balance ?? 0);
}

/** Running balances of accounts (0 for those without one), one read. */
export async function balancesOfAccounts(sql: Sql, keys: readonly { account: string; currency: string }[]): Promise<Map<string, bigint>> {
  if (keys.length === 0) return new Map();
  const rows = await sql.query<{ account: string; currency: string; balance: string | bigint }>(
    'SELECT account, currency, balance FROM ledger_accounts WHERE (account, currency) IN (SELECT * FROM unnest($1::text[], $2::text[]))',
    [keys.map((k) => k.account), keys.map((k) => k.currency)],
  );
  return new Map(rows.map((r) => [`${r.account} ${r.currency}`, BigInt(r.balance)]));
}

/** Records a statement's payout; undefined when it was paid already. */
export async function insertPayout(sql: Sql, p: { id: string; statementId: string; merchantId: string; currency: string; amount: bigint; bankReference: string; paidBy: string | null; paidAt: Date }): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO merchant_payouts (id, statement_id, merchant_id, currency, amount, bank_reference, paid_by, paid_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (statement_id) DO NOTHING RETURNING id`,
    [p.id, p.statementId, p.merchantId, p.currency, p.amount.toString(), p.bankReference, p.paidBy, p.paidAt],
  );
  return rows.length > 0;
}

export interface StatementLine {
  createdAt: Date;
  ref: string;
  paymentId: string | null;
  event: string;
  account: string;
  amount: bigint;
}

/** The merchant's accounts a statement's lines come from, in the order the statement lists them. */
export const STATEMENT_ACCOUNTS = ['pending', 'fees', 'available', 'reserve'] as const;

/**
 * One page of a statement's lines on one of the merchant's accounts, after `after` (keyset: created_at, ref,
 * event, so each page is one range of the index on (account, currency, created_at)): every entry made in the
 * period but other statements' own, then (`own`) the statement's own entries.
 */
export async function statementLines(sql: Sql, s: Statement, kind: (typeof STATEMENT_ACCOUNTS)[number], after: { createdAt: Date; ref: string; event: string } | undefined, limit: number): Promise<StatementLine[]> {
  const rows = await sql.query<{ created_at: Date | string; ref: string; payment_id: string | null; event: string; account: string; amount: string | bigint }>(
    `SELECT created_at, ref, payment_id, event, account, amount FROM ledger_entries
     WHERE account = $1 AND currency = $2 AND created_at >= $3 AND created_at < $4
       AND event NOT IN ('settlement', 'settlement_fees', 'settlement_return', 'reserve_hold')
       AND ($5::timestamptz IS NULL OR (created_at, ref, event) > ($5, $6, $7))
     ORDER BY created_at, ref, event LIMIT $8`,
    [`merchant:${s.merchantId}:${kind}`, s.currency, s.periodFrom, s.periodTo, after?.createdAt ?? null, after?.ref ?? '', after?.event ?? '', limit],
  );
  return rows.map(toLine);
}

/** A CSV field as the statement writes it, quoted when it holds a quote, comma or line break (SQL). */
const csvSql = (column: string) => `CASE WHEN ${column} ~ '[",\r\n]' THEN '"' || replace(${column}, '"', '""') || '"' ELSE ${column} END`;

/** A page of CSV text and the key of its last line (to ask for the next page). */
export interface CsvPage {
  text: string;
  lines: number;
  last: { createdAt: string; ref: string; event: string } | undefined;
}

/**
 * One page of a statement's lines on one of the merchant's accounts, as CSV text made by the database (the lines
 * of statementLines, written as the statement's CSV writes them: created_at as ISO 8601 UTC with milliseconds,
 * ref, payment_id, event, the account's kind, the amount in decimal with the currency's exponent, the currency):
 * one string per page, no object per line (a statement may hold millions). The keyset continues after `after`
 * (created_at as the database's own text, so it round-trips exactly).
 */
export async function statementCsvPage(sql: Sql, s: Statement, kind: (typeof STATEMENT_ACCOUNTS)[number], exponent: number, after: CsvPage['last'], limit: number): Promise<CsvPage> {
  const [row] = await sql.query<{ text: string | null; lines: number; last_at: string | null; last_ref: string | null; last_event: string | null }>(
    `WITH page AS (
       SELECT created_at, ref, payment_id, event, amount FROM ledger_entries
       WHERE account = $1 AND currency = $2 AND created_at >= $3 AND created_at < $4
         AND event NOT IN ('settlement', 'settlement_fees', 'settlement_return', 'reserve_hold')
         AND ($5::timestamptz IS NULL OR (created_at, ref, event) > ($5, $6, $7))
       ORDER BY created_at, ref, event LIMIT $8),
     tail AS (SELECT created_at, ref, event FROM page ORDER BY created_at DESC, ref DESC, event DESC LIMIT 1)
     SELECT string_agg(
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || ',' || ${csvSql('ref')} || ',' || coalesce(${csvSql('payment_id')}, '') || ',' ||
              event || ',' || $9 || ',' || round(amount::numeric / power(10::numeric, $10::int), $10::int)::text || ',' || $11 || E'\n', '' ORDER BY created_at, ref, event) AS text,
            count(*)::int AS lines,
            (SELECT created_at::text FROM tail) AS last_at, (SELECT ref FROM tail) AS last_ref, (SELECT event FROM tail) AS last_event
     FROM page`,
    [`merchant:${s.merchantId}:${kind}`, s.currency, s.periodFrom, s.periodTo, after?.createdAt ?? null, after?.ref ?? '', after?.event ?? '', limit, kind, exponent, s.currency.replace(/[",\r\n]/g, '')],
  );
  return {
    text: row?.text ?? '', lines: row?.lines ?? 0,
    last: row?.last_at ? { createdAt: row.last_at, ref: row.last_ref!, event: row.last_event! } : undefined,
  };
}

/** The statement's own entries (settlement, fees deducted, reserve held) on the merchant's accounts. */
export async function statementOwnLines(sql: Sql, s: Statement): Promise<StatementLine[]> {
  const rows = await sql.query<{ created_at: Date | string; ref: string; payment_id: string | null; event: string; account: string; amount: string | bigint }>(
    "SELECT created_at, ref, payment_id, event, account, amount FROM ledger_entries WHERE ref = $1 AND account LIKE 'merchant:%' ORDER BY event, account",
    [`statement:${s.id}`],
  );
  return rows.map(toLine);
}

const toLine = (r: { created_at: Date | string; ref: string; payment_id: string | null; event: string; account: string; amount: string | bigint }): StatementLine => ({
  createdAt: new Date(r.created_at), ref: r.ref, paymentId: r.payment_id, event: r.event, account: r.account, amount: BigInt(r.amount),
});
