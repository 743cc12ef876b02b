/**
 * Scheduled reports (migration 151; issue 30): users' subscriptions, the reports made for them, and each report's
 * text as gzip chunks. A due subscription is claimed by a compare-and-set lease (FOR UPDATE SKIP LOCKED, then
 * lease_token and leased_until), and its report is finished in one transaction only while the lease is still the
 * claimer's (finishReport): one report per period whatever the number of nodes.
 */
import type { Sql } from './database.ts';
import type { ReportCadence, ReportDelivery, ReportKind } from '../domain/reports.ts';

export interface ReportSubscription {
  id: string;
  userId: string;
  kind: ReportKind;
  merchantId: string | null;
  query: Record<string, string>;
  savedViewId: string | null;
  cadence: ReportCadence;
  delivery: ReportDelivery;
  keepDays: number;
  nextPeriodTo: Date;
  createdAt: Date;
}

interface SubscriptionRow {
  id: string; user_id: string; kind: ReportKind; merchant_id: string | null; query: Record<string, string> | string; saved_view_id: string | null;
  cadence: ReportCadence; delivery: ReportDelivery; keep_days: number; next_period_to: Date | string; created_at: Date | string; lease_token?: string | null;
}

const toSubscription = (r: SubscriptionRow): ReportSubscription => ({
  id: r.id, userId: r.user_id, kind: r.kind, merchantId: r.merchant_id, query: typeof r.query === 'string' ? JSON.parse(r.query) : r.query,
  savedViewId: r.saved_view_id, cadence: r.cadence, delivery: r.delivery, keepDays: Number(r.keep_days), nextPeriodTo: new Date(r.next_period_to), createdAt: new Date(r.created_at),
});

export async function insertSubscription(sql: Sql, s: ReportSubscription): Promise<ReportSubscription> {
  const [row] = await sql.query<SubscriptionRow>(
    `INSERT INTO report_subscriptions (id, user_id, kind, merchant_id, query, saved_view_id, cadence, delivery, keep_days, next_period_to, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
    [s.id, s.userId, s.kind, s.merchantId, JSON.stringify(s.query), s.savedViewId, s.cadence, s.delivery, s.keepDays, s.nextPeriodTo, s.createdAt],
  );
  return toSubscription(row!);
}

export async function subscriptionsOf(sql: Sql, userId: string): Promise<ReportSubscription[]> {
  return (await sql.query<SubscriptionRow>('SELECT * FROM report_subscriptions WHERE user_id = $1 ORDER BY created_at, id', [userId])).map(toSubscription);
}

export async function countSubscriptions(sql: Sql, userId: string): Promise<number> {
  const [row] = await sql.query<{ n: string | number }>('SELECT count(*) AS n FROM report_subscriptions WHERE user_id = $1', [userId]);
  return Number(row?.n ?? 0);
}

/** Deletes one of the user's subscriptions (and its reports); false when the user has none of that id. */
export async function deleteSubscription(sql: Sql, userId: string, id: string): Promise<boolean> {
  return (await sql.query('DELETE FROM report_subscriptions WHERE id = $1 AND user_id = $2 RETURNING id', [id, userId])).length > 0;
}

export interface ClaimedSubscription extends ReportSubscription {
  leaseToken: string;
}

/**
 * Claims the oldest due subscription (its next period ended at or before `dueBefore`) that no live lease holds:
 * rows another node is claiming are skipped, and a claimed row is not due again until its lease ends.
 */
export async function claimDueSubscription(sql: Sql, opts: { now: Date; dueBefore: Date; leaseUntil: Date; leaseToken: string }): Promise<ClaimedSubscription | undefined> {
  const [row] = await sql.query<SubscriptionRow>(
    `UPDATE report_subscriptions s SET lease_token = $1, leased_until = $2
      WHERE s.id = (SELECT id FROM report_subscriptions
                     WHERE next_period_to <= $3 AND (leased_until IS NULL OR leased_until <= $4)
                     ORDER BY next_period_to, id LIMIT 1 FOR UPDATE SKIP LOCKED)
        AND (s.leased_until IS NULL OR s.leased_until <= $4)
      RETURNING s.*`,
    [opts.leaseToken, opts.leaseUntil, opts.dueBefore, opts.now],
  );
  return row ? { ...toSubscription(row), leaseToken: opts.leaseToken } : undefined;
}

/** Moves a claimed subscription to its next period without a report (its user may no longer read it); false: the lease was lost. */
export async function skipPeriod(sql: Sql, id: string, leaseToken: string, nextPeriodTo: Date): Promise<boolean> {
  return (await sql.query(
    'UPDATE report_subscriptions SET next_period_to = $3, lease_token = NULL, leased_until = NULL WHERE id = $1 AND lease_token = $2 RETURNING id',
    [id, leaseToken, nextPeriodTo],
  )).length > 0;
}

/** Lets go of a claim (a failed run): the subscription is due again at the next pass. */
export async function releaseLease(sql: Sql, id: string, leaseToken: string): Promise<void> {
  await sql.query('UPDATE report_subscriptions SET lease_token = NULL, leased_until = NULL WHERE id = $1 AND lease_token = $2', [id, leaseToken]);
}

export interface Report {
  id: string;
  subscriptionId: string;
  userId: string;
  kind: ReportKind;
  cadence: ReportCadence;
  merchantIds: string[];
  periodFrom: Date;
  periodTo: Date;
  status: 'producing' | 'ready';
  lines: number;
  bytes: number;
  mailState: 'none' | 'due' | 'sending' | 'sent' | 'failed';
  createdAt: Date;
  expiresAt: Date;
}

interface ReportRow {
  id: string; subscription_id: string; user_id: string; kind: ReportKind; cadence: ReportCadence; merchant_ids: string[] | string;
  period_from: Date | string; period_to: Date | string; status: 'producing' | 'ready'; lines: string | number; bytes: string | number;
  mail_state: Report['mailState']; created_at: Date | string; expires_at: Date | string;
}

const toReport = (r: ReportRow): Report => ({
  id: r.id, subscriptionId: r.subscription_id, userId: r.user_id, kind: r.kind, cadence: r.cadence,
  merchantIds: typeof r.merchant_ids === 'string' ? JSON.parse(r.merchant_ids) : r.merchant_ids,
  periodFrom: new Date(r.period_from), periodTo: new Date(r.period_to), status: r.status, lines: Number(r.lines), bytes: Number(r.bytes),
  mailState: r.mail_state, createdAt: new Date(r.created_at), expiresAt: new Date(r.expires_at),
});

/** A report being written (not listed until finishReport marks it ready). */
export async function insertReport(sql: Sql, r: Pick<Report, 'id' | 'subscriptionId' | 'userId' | 'kind' | 'cadence' | 'merchantIds' | 'periodFrom' | 'periodTo' | 'createdAt' | 'expiresAt'>): Promise<void> {
  await sql.query(
    `INSERT INTO reports (id, subscription_id, user_id, kind, cadence, merchant_ids, period_from, period_to, status, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'producing', $9, $10)`,
    [r.id, r.subscriptionId, r.userId, r.kind, r.cadence, JSON.stringify(r.merchantIds), r.periodFrom, r.periodTo, r.createdAt, r.expiresAt],
  );
}

export async function appendChunk(sql: Sql, reportId: string, seq: number, data: Buffer): Promise<void> {
  await sql.query('INSERT INTO report_chunks (report_id, seq, data) VALUES ($1, $2, $3)', [reportId, seq, data]);
}

/**
 * In one transaction: the subscription moves to its next period, only while `leaseToken` still holds it, and the
 * report is then ready (its e-mail due when mailed). False, and nothing changed: the lease was lost to another node.
 */
export async function finishReport(sql: Sql, f: { reportId: string; subscriptionId: string; leaseToken: string; nextPeriodTo: Date; lines: number; bytes: number; mail: boolean }): Promise<boolean> {
  const moved = await sql.query(
    'UPDATE report_subscriptions SET next_period_to = $3, lease_token = NULL, leased_until = NULL WHERE id = $1 AND lease_token = $2 RETURNING id',
    [f.subscriptionId, f.leaseToken, f.nextPeriodTo],
  );
  if (moved.length === 0) return false;
  await sql.query(`UPDATE reports SET status = 'ready', lines = $2, bytes = $3, mail_state = $4 WHERE id = $1`, [f.reportId, f.lines, f.bytes, f.mail ? 'due' : 'none']);
  return true;
}

export async function deleteReport(sql: Sql, id: string): Promise<void> {
  await sql.query('DELETE FROM reports WHERE id = $1', [id]);
}

/** The user's ready reports not expired yet, newest first. */
export async function reportsOf(sql: Sql, userId: string, now: Date, limit = 200): Promise<Report[]> {
  return (await sql.query<ReportRow>(
    `SELECT * FROM reports WHERE user_id = $1 AND status = 'ready' AND expires_at > $2 ORDER BY period_to DESC, created_at DESC, id DESC LIMIT $3`, [userId, now, limit],
  )).map(toReport);
}

export async function findReport(sql: Sql, id: string): Promise<Report | undefined> {
  const [row] = await sql.query<ReportRow>('SELECT * FROM reports WHERE id = $1', [id]);
  return row && toReport(row);
}

/** The chunk after `afterSeq` (one in memory at a time), undefined at the end. */
export async function nextChunk(sql: Sql, reportId: string, afterSeq: number): Promise<{ seq: number; data: Buffer } | undefined> {
  const [row] = await sql.query<{ seq: number; data: Uint8Array }>('SELECT seq, data FROM report_chunks WHERE report_id = $1 AND seq > $2 ORDER BY seq LIMIT 1', [reportId, afterSeq]);
  return row && { seq: Number(row.seq), data: Buffer.from(row.data) };
}

/** Deletes the reports past their expiry, and reports a crashed node left half-written before `staleBefore`. */
export async function pruneReports(sql: Sql, now: Date, staleBefore: Date): Promise<number> {
  return (await sql.query(
    `DELETE FROM reports WHERE expires_at <= $1 OR (status = 'producing' AND created_at < $2) RETURNING id`, [now, staleBefore],
  )).length;
}

export interface MailClaim { report: Report; email: string; delivery: ReportDelivery }

/** Claims one ready report whose e-mail is due (or whose sender's claim ran out), with its user's address. */
export async function claimReportMail(sql: Sql, now: Date, claimUntil: Date): Promise<MailClaim | undefined> {
  const [row] = await sql.query<ReportRow>(
    `UPDATE reports r SET mail_state = 'sending', mail_claimed_until = $2
      WHERE r.id = (SELECT id FROM reports
                     WHERE status = 'ready' AND (mail_state = 'due' OR (mail_state = 'sending' AND mail_claimed_until <= $1))
                     ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING r.*`,
    [now, claimUntil],
  );
  if (!row) return undefined;
  const [user] = await sql.query<{ email: string }>('SELECT email FROM merchant_users WHERE id = $1', [row.user_id]);
  return { report: toReport(row), email: user?.email ?? '', delivery: 'email' };
}

/** Records how a claimed e-mail went: sent, or due again (failed for good after `maxAttempts`). */
export async function finishReportMail(sql: Sql, id: string, sent: boolean, maxAttempts: number): Promise<void> {
  await sql.query(
    `UPDATE reports SET mail_attempts = mail_attempts + 1, mail_claimed_until = NULL,
            mail_state = CASE WHEN $2::boolean THEN 'sent' WHEN mail_attempts + 1 >= $3 THEN 'failed' ELSE 'due' END
      WHERE id = $1`,
    [id, sent, maxAttempts],
  );
}
