/**
 * The ledger's rows (issue 27): entries (append-only), running balances kept by the statement that writes the
 * entries, fee schedule versions and each merchant's money terms. Entries are written either by a statement of
 * their own inside the caller's transaction (insertEntries) or folded into the state change's own statement
 * (postingCtes, used by payments-repo.ts's outcome updates), so that no state change is ever without its entries.
 */
import type { Sql } from './database.ts';
import type { LedgerEntry } from '../domain/ledger/postings.ts';
import type { FeeRow, FeeSchedule } from '../domain/ledger/fees.ts';
import type { SettlementFrequency } from '../domain/ledger/periods.ts';

/** An entry as one JSON row of a statement parameter: [ref, event, account, currency, amount, payment_id]. */
export type EntryRow = [string, string, string, string, string, string | null];

export const entryRow = (e: LedgerEntry): EntryRow => [e.ref, e.event, e.account, e.currency, e.amount.toString(), e.paymentId];

/** The JSON parameter of a list of entries. */
export const entriesParam = (entries: readonly LedgerEntry[]): string => JSON.stringify(entries.map(entryRow));

/**
 * Two data-modifying CTEs that post the entries `source` yields (a FROM item with the columns ref, event,
 * account, currency, amount, payment_id, created_at): the entries (a cause already posted posts nothing again:
 * the key makes posting idempotent) and the running balances of the entries written, one upsert per account,
 * taken in account order so that concurrent postings lock balances in one order and never deadlock.
 */
export function postingCtes(source: string): string {
  return `ledger_e AS (INSERT INTO ledger_entries (ref, event, account, currency, amount, payment_id, created_at)
       SELECT ref, event, account, currency, amount, payment_id, created_at FROM ${source}
       ON CONFLICT DO NOTHING RETURNING account, currency, amount),
     ledger_a AS (INSERT INTO ledger_accounts AS la (account, currency, balance, entries)
       SELECT account, currency, sum(amount), count(*) FROM ledger_e GROUP BY account, currency ORDER BY account, currency
       ON CONFLICT (account, currency) DO UPDATE SET balance = la.balance + EXCLUDED.balance, entries = la.entries + EXCLUDED.entries)`;
}

/** The FROM item of postingCtes for entries carried as a JSON array column `column` of the rows of `rows`. */
export function entriesOfRows(rows: string, column: string, paymentId: string, createdAt: string): string {
  return `(SELECT x->>0 AS ref, x->>1 AS event, x->>2 AS account, x->>3 AS currency, (x->>4)::bigint AS amount,
      COALESCE(x->>5, ${paymentId}) AS payment_id, ${createdAt} AS created_at
    FROM ${rows} CROSS JOIN LATERAL jsonb_array_elements(${column}) AS x) AS le`;
}

/**
 * Posts entries in a statement of their own (the caller's transaction makes them atomic with its change), carried
 * as one typed array per column (unnest): thousands of entries a statement with nothing to parse per field.
 */
export async function insertEntries(sql: Sql, entries: readonly LedgerEntry[], now: Date): Promise<number> {
  if (entries.length === 0) return 0;
  const n = entries.length;
  const refs = new Array<string>(n), events = new Array<string>(n), accounts = new Array<string>(n), currencies = new Array<string>(n);
  const amounts = new Array<string>(n), payments = new Array<string | null>(n);
  for (let i = 0; i < n; i++) {
    const e = entries[i]!;
    refs[i] = e.ref; events[i] = e.event; accounts[i] = e.account; currencies[i] = e.currency; amounts[i] = e.amount.toString(); payments[i] = e.paymentId;
  }
  const rows = await sql.query<{ n: number }>(
    `WITH ${postingCtes('(SELECT x.*, $7::timestamptz AS created_at FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[]) AS x(ref, event, account, currency, amount, payment_id)) AS le')}
     SELECT count(*)::int AS n FROM ledger_e`,
    [refs, events, accounts, currencies, amounts, payments, now],
  );
  return rows[0]?.n ?? 0;
}

export interface StoredEntry {
  ref: string;
  event: string;
  account: string;
  currency: string;
  amount: bigint;
  paymentId: string | null;
  createdAt: Date;
}

interface EntryDbRow { ref: string; event: string; account: string; currency: string; amount: string | bigint; payment_id: string | null; created_at: Date | string }

const toEntry = (r: EntryDbRow): StoredEntry => ({ ref: r.ref, event: r.event, account: r.account, currency: r.currency, amount: BigInt(r.amount), paymentId: r.payment_id, createdAt: new Date(r.created_at) });

export async function entriesOfPayment(sql: Sql, paymentId: string): Promise<StoredEntry[]> {
  const rows = await sql.query<EntryDbRow>('SELECT * FROM ledger_entries WHERE payment_id = $1 ORDER BY created_at, ref, event, amount DESC', [paymentId]);
  return rows.map(toEntry);
}

/** The entries of several payments (one read). */
export async function entriesOfPayments(sql: Sql, paymentIds: readonly string[]): Promise<StoredEntry[]> {
  if (paymentIds.length === 0) return [];
  const rows = await sql.query<EntryDbRow>('SELECT * FROM ledger_entries WHERE payment_id = ANY($1::text[]) ORDER BY created_at, ref, event, amount DESC', [paymentIds]);
  return rows.map(toEntry);
}

/** The fees a payment has been charged so far, net of fees given back (what a void gives back). */
export async function feesChargedOf(sql: Sql, paymentId: string, feesAccount: string): Promise<bigint> {
  const [row] = await sql.query<{ fees: string | null }>('SELECT sum(amount)::text AS fees FROM ledger_entries WHERE payment_id = $1 AND account = $2', [paymentId, feesAccount]);
  return BigInt(row?.fees ?? '0');
}

export interface AccountBalance {
  account: string;
  currency: string;
  balance: bigint;
  entries: number;
}

/** Running balances of the accounts whose names start with `prefix` (a merchant's: `merchant:<id>:`). */
export async function balancesOf(sql: Sql, prefix: string): Promise<AccountBalance[]> {
  const rows = await sql.query<{ account: string; currency: string; balance: string | bigint; entries: string | bigint }>(
    "SELECT * FROM ledger_accounts WHERE account LIKE $1 || '%' ORDER BY currency, account", [prefix.replace(/[%_\\]/g, '\\$&')],
  );
  return rows.map((r) => ({ account: r.account, currency: r.currency, balance: BigInt(r.balance), entries: Number(r.entries) }));
}

/** Accounts whose running balance differs from the sum of their entries (none, when the ledger is sound). */
export async function balanceMismatches(sql: Sql): Promise<{ account: string; currency: string; balance: bigint; sum: bigint }[]> {
  const rows = await sql.query<{ account: string; currency: string; balance: string; sum: string }>(
    `SELECT coalesce(a.account, s.account) AS account, coalesce(a.currency, s.currency) AS currency,
            coalesce(a.balance, 0)::text AS balance, coalesce(s.sum, 0)::text AS sum
     FROM ledger_accounts a FULL JOIN (SELECT account, currency, sum(amount) AS sum FROM ledger_entries GROUP BY account, currency) s
       ON s.account = a.account AND s.currency = a.currency
     WHERE coalesce(a.balance, 0) <> coalesce(s.sum, 0)`,
  );
  return rows.map((r) => ({ account: r.account, currency: r.currency, balance: BigInt(r.balance), sum: BigInt(r.sum) }));
}

/** Each currency's sum of entries (zero, when every posting was balanced). */
export async function currencySums(sql: Sql): Promise<Map<string, bigint>> {
  const rows = await sql.query<{ currency: string; sum: string }>('SELECT currency, sum(amount)::text AS sum FROM ledger_entries GROUP BY currency');
  return new Map(rows.map((r) => [r.currency, BigInt(r.sum)]));
}

// --- fee schedules and money terms --------------------------------------------------------------------------

interface FeeRowJson { operation: FeeRow['operation']; method: string; region: FeeRow['region']; currency: string; rate_ppm: string; fixed: string; min: string; max: string | null }

const rowToJson = (r: FeeRow): FeeRowJson => ({ operation: r.operation, method: r.method, region: r.region, currency: r.currency, rate_ppm: r.ratePpm.toString(), fixed: r.fixed.toString(), min: r.min.toString(), max: r.max === null ? null : r.max.toString() });
const rowFromJson = (r: FeeRowJson): FeeRow => ({ operation: r.operation, method: r.method, region: r.region, currency: r.currency, ratePpm: BigInt(r.rate_ppm), fixed: BigInt(r.fixed), min: BigInt(r.min), max: r.max === null ? null : BigInt(r.max) });

interface ScheduleDbRow { id: string; merchant_id: string | null; effective_from: Date | string; rows: FeeRowJson[]; created_by: string | null; created_at: Date | string }

export interface StoredFeeSchedule extends FeeSchedule {
  createdBy: string | null;
  createdAt: Date;
}

const toSchedule = (r: ScheduleDbRow): StoredFeeSchedule => ({
  id: r.id, merchantId: r.merchant_id, effectiveFrom: new Date(r.effective_from), rows: r.rows.map(rowFromJson), createdBy: r.created_by, createdAt: new Date(r.created_at),
});

/** Inserts a version; undefined when the owner has a version from that instant already. */
export async function insertFeeSchedule(sql: Sql, s: Omit<StoredFeeSchedule, 'createdAt'>, now: Date): Promise<StoredFeeSchedule | undefined> {
  const [row] = await sql.query<ScheduleDbRow>(
    `INSERT INTO fee_schedules (id, merchant_id, effective_from, rows, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (COALESCE(merchant_id, ''), effective_from) DO NOTHING RETURNING *`,
    [s.id, s.merchantId, s.effectiveFrom, JSON.stringify(s.rows.map(rowToJson)), s.createdBy, now],
  );
  return row && toSchedule(row);
}

/** Every version of a merchant's schedule and of the platform's default (merchantId null: the platform's only). */
export async function feeSchedulesOf(sql: Sql, merchantId: string | null): Promise<StoredFeeSchedule[]> {
  const rows = await sql.query<ScheduleDbRow>('SELECT * FROM fee_schedules WHERE merchant_id IS NULL OR merchant_id = $1 ORDER BY merchant_id NULLS FIRST, effective_from', [merchantId]);
  return rows.map(toSchedule);
}

export interface MoneyTerms {
  merchantId: string;
  country: string | null;
  settlementDelayDays: number;
  /** Daily, or weekly up to the cut-off weekday (domain/ledger/periods.ts). */
  settlementFrequency: SettlementFrequency;
  settlementCutoffWeekday: number;
  reservePpm: bigint;
  reserveDays: number;
  /** Where the merchant is paid (SEPA payouts): the account holder, IBAN and BIC. */
  payoutAccount: { name: string | null; iban: string | null; bic: string | null };
}

export const DEFAULT_TERMS = (merchantId: string): MoneyTerms => ({
  merchantId, country: null, settlementDelayDays: 2, settlementFrequency: 'daily', settlementCutoffWeekday: 1, reservePpm: 0n, reserveDays: 0,
  payoutAccount: { name: null, iban: null, bic: null },
});

interface TermsRow {
  merchant_id: string; country: string | null; settlement_delay_days: number; settlement_frequency: SettlementFrequency; settlement_cutoff_weekday: number;
  reserve_ppm: string | bigint; reserve_days: number; payout_account_name: string | null; payout_iban: string | null; payout_bic: string | null;
}

const toTerms = (r: TermsRow): MoneyTerms => ({
  merchantId: r.merchant_id, country: r.country, settlementDelayDays: r.settlement_delay_days, settlementFrequency: r.settlement_frequency,
  settlementCutoffWeekday: r.settlement_cutoff_weekday, reservePpm: BigInt(r.reserve_ppm), reserveDays: r.reserve_days,
  payoutAccount: { name: r.payout_account_name, iban: r.payout_iban, bic: r.payout_bic },
});

/** The terms of several merchants (one read); those without a row have the defaults. */
export async function moneyTermsOfMany(sql: Sql, merchantIds: readonly string[]): Promise<Map<string, MoneyTerms>> {
  const rows = merchantIds.length === 0 ? [] : await sql.query<TermsRow>('SELECT * FROM merchant_money_terms WHERE merchant_id = ANY($1::text[])', [merchantIds]);
  const found = new Map(rows.map((r) => [r.merchant_id, toTerms(r)]));
  return new Map(merchantIds.map((id) => [id, found.get(id) ?? DEFAULT_TERMS(id)]));
}

export async function moneyTermsOf(sql: Sql, merchantId: string): Promise<MoneyTerms> {
  const [r] = await sql.query<TermsRow>('SELECT * FROM merchant_money_terms WHERE merchant_id = $1', [merchantId]);
  return r ? toTerms(r) : DEFAULT_TERMS(merchantId);
}

export async function saveMoneyTerms(sql: Sql, t: MoneyTerms, now: Date): Promise<void> {
  await sql.query(
    `INSERT INTO merchant_money_terms (merchant_id, country, settlement_delay_days, reserve_ppm, reserve_days, updated_at, settlement_frequency, settlement_cutoff_weekday,
       payout_account_name, payout_iban, payout_bic) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (merchant_id) DO UPDATE SET country = $2, settlement_delay_days = $3, reserve_ppm = $4, reserve_days = $5, updated_at = $6,
       settlement_frequency = $7, settlement_cutoff_weekday = $8, payout_account_name = $9, payout_iban = $10, payout_bic = $11`,
    [t.merchantId, t.country, t.settlementDelayDays, t.reservePpm.toString(), t.reserveDays, now, t.settlementFrequency, t.settlementCutoffWeekday,
      t.payoutAccount.name, t.payoutAccount.iban, t.payoutAccount.bic],
  );
}
