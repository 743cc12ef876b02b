/**
 * The console's home figures (issue 31 item 5, migration 140): grouped counts of payments over a range of UTC days
 * and the period before it, read from the daily rollup for days that ended more than a day ago (filled here on
 * first read) and from payments for the last two days. The write path of a payment never touches the rollup.
 */
import type { Sql } from './database.ts';
import { merchantOfMode, type KeyMode } from './key-mode.ts';
import { APPROVED_STATUSES } from './admin-stats-repo.ts';
import type { Day, FigureGrouping, FigureOutcome, FigureRow } from '../domain/payment-figures.ts';

const APPROVED = `ARRAY[${APPROVED_STATUSES.map((s) => `'${s}'`).join(', ')}]`;

/** The column each grouping reads (a fixed table, never the caller's text). */
const GROUP_COLUMN: Readonly<Record<FigureGrouping, string>> = { merchant: 'merchant_id', mid: 'mid_id', connector: 'connector' };

/**
 * One row per payment created in [from, until) (SQL expressions of timestamptz), with the fields the figures group
 * by. A Hosted Checkout session's tries are one payment: its approved try, else its latest. Payouts (credit) are not
 * payments here. `scope` is the SQL of a merchant filter, or ''.
 */
function paymentsSql(from: string, until: string, scope: string): string {
  return `SELECT (p.created_at AT TIME ZONE 'UTC')::date AS day, p.merchant_id, coalesce(p.mid_id, '') AS mid_id,
            coalesce(m.connector, '') AS connector, p.currency,
            CASE WHEN p.status = ANY(${APPROVED}) THEN 'approved' WHEN p.status = 'decline' THEN 'declined' ELSE 'other' END AS outcome,
            CASE WHEN p.status = 'decline' THEN coalesce(p.decline_reason, '') ELSE '' END AS decline_reason, p.amount
       FROM (SELECT DISTINCT ON (coalesce(session_id, id)) created_at, merchant_id, mid_id, currency, status, decline_reason, amount
               FROM payments
              WHERE created_at >= ${from} AND created_at < ${until} AND operation <> 'credit'${scope}
              ORDER BY coalesce(session_id, id), (status = ANY(${APPROVED})) DESC, created_at DESC, seq DESC) p
       LEFT JOIN mids m ON m.id = p.mid_id`;
}

const daysBetween = (from: Day, until: Day) => Math.round((Date.parse(until) - Date.parse(from)) / 86_400_000);

const utcMidnight = (param: string) => `(${param}::date::timestamp AT TIME ZONE 'UTC')`;

/**
 * Counts the days in [from, until) not counted yet into the rollup, claiming each in the same statement (a day
 * another node is counting waits for it and is then skipped). Only days whose outcomes no longer move belong here.
 */
export async function countDays(sql: Sql, from: Day, until: Day, at: Date): Promise<void> {
  if (from >= until) return;
  // Most reads find every day counted already: a read, then no write statement at all.
  const [known] = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_figures_days WHERE day >= $1::date AND day < $2::date', [from, until]);
  if (known && known.n === daysBetween(from, until)) return;
  await sql.query(
    `WITH claimed AS (
       INSERT INTO payment_figures_days (day, counted_at)
       SELECT d::date, $3 FROM generate_series($1::date, $2::date - 1, interval '1 day') AS d
       ON CONFLICT (day) DO NOTHING RETURNING day
     ), span AS (SELECT min(day) AS first, max(day) + 1 AS after FROM claimed)
     INSERT INTO payment_figures_daily (day, merchant_id, mid_id, connector, currency, outcome, decline_reason, payments, amount)
     SELECT day, merchant_id, mid_id, connector, currency, outcome, decline_reason, count(*), sum(amount)
       FROM (${paymentsSql(utcMidnight('(SELECT first FROM span)'), utcMidnight('(SELECT after FROM span)'), '')}) t
      WHERE day IN (SELECT day FROM claimed)
      GROUP BY day, merchant_id, mid_id, connector, currency, outcome, decline_reason`,
    [from, until, at],
  );
}

export interface FigureQuery {
  /** First day of the previous period, first day of the range, the day after the range. */
  previousFrom: Day;
  from: Day;
  until: Day;
  /** Days from here on are counted from payments, earlier ones read from the rollup. */
  liveFrom: Day;
  by: FigureGrouping;
  /** Only these merchants' payments (the portal's scope, or an operator's filter); undefined: all. */
  merchantIds?: readonly string[];
  /** Only test keys' (sandbox merchants') or live keys' payments (issue 25 item 26); undefined: both. */
  mode?: KeyMode;
}

/**
 * One statement, three groupings (GROUPING SETS): per day, per `by` key and per decline reason, each split by
 * period, currency and outcome.
 */
export async function figureRows(sql: Sql, q: FigureQuery): Promise<FigureRow[]> {
  const scope = `${q.merchantIds ? ' AND merchant_id = ANY($5::text[])' : ''}${q.mode ? ` AND ${merchantOfMode('merchant_id', q.mode)}` : ''}`;
  const key = GROUP_COLUMN[q.by];
  const rows = await sql.query<{ period: 'current' | 'previous'; day: string | Date | null; key: string | null; reason: string | null; currency: string | null; outcome: FigureOutcome; payments: string | number | bigint; amount: string | number | bigint; grouping: number }>(
    `WITH counted AS (
       SELECT day, merchant_id, mid_id, connector, currency, outcome, decline_reason, payments, amount
         FROM payment_figures_daily WHERE day >= $1::date AND day < least($4::date, $3::date)${scope}
       UNION ALL
       SELECT day, merchant_id, mid_id, connector, currency, outcome, decline_reason, 1, amount
         FROM (${paymentsSql(utcMidnight('greatest($1::date, $4::date)'), utcMidnight('$3::date'), scope)}) live
     ), dated AS (
       SELECT CASE WHEN day >= $2::date THEN 'current' ELSE 'previous' END AS period, day, ${key} AS key, currency, outcome, decline_reason, payments, amount
         FROM counted
     )
     SELECT period, day::text AS day, key, decline_reason AS reason, currency, outcome, sum(payments)::bigint AS payments, sum(amount)::bigint AS amount,
            GROUPING(day, key, decline_reason) AS grouping
       FROM dated
      GROUP BY GROUPING SETS ((period, day, currency, outcome), (period, key, currency, outcome), (period, decline_reason, outcome))`,
    [q.previousFrom, q.from, q.until, q.liveFrom, ...(q.merchantIds ? [q.merchantIds] : [])],
  );
  // GROUPING(day, key, reason) is a bit mask with 1 for each column NOT grouped: 3 = per day, 5 = per key, 6 = per reason.
  return rows.map((r) => ({
    period: r.period, outcome: r.outcome, payments: Number(r.payments), amountMinor: BigInt(r.amount ?? 0),
    ...(r.currency !== null ? { currency: r.currency } : {}),
    ...(Number(r.grouping) === 3 ? { day: String(r.day).slice(0, 10) } : Number(r.grouping) === 5 ? { key: r.key ?? '' } : { reason: r.reason ?? '' }),
  }));
}

/** Names of the merchants and MIDs among `ids` (ids of either kind). */
export async function figureNames(sql: Sql, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.query<{ id: string; name: string }>(
    'SELECT id, name FROM merchants WHERE id = ANY($1::text[]) UNION ALL SELECT id, name FROM mids WHERE id = ANY($1::text[])',
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.name]));
}
