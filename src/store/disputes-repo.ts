/**
 * Disputes (issue 29): the dispute rows (changed by compare-and-set on version), their history and the notices
 * that matched no payment. The service writes a change, its history row, its ledger entries and its callback in
 * one transaction.
 */
import type { Sql } from './database.ts';
import type { Dispute, DisputeHistoryEntry, DisputeState, UnmatchedNotice } from '../domain/disputes.ts';
import { merchantOfMode, midOfMode, modeOfSandbox, type KeyMode } from './key-mode.ts';

interface DisputeRow {
  id: string; payment_id: string; merchant_id: string; source: Dispute['source']; external_ref: string | null; amount: string | bigint; currency: string;
  reason_code: string | null; category: Dispute['category']; stage: Dispute['stage']; status: Dispute['status']; due_at: Date | string | null;
  bank_date: string | null; version: number; created_at: Date | string; updated_at: Date | string;
}

const toDispute = (r: DisputeRow): Dispute => ({
  id: r.id, paymentId: r.payment_id, merchantId: r.merchant_id, source: r.source, externalRef: r.external_ref, amount: BigInt(r.amount), currency: r.currency,
  reasonCode: r.reason_code, category: r.category, stage: r.stage, status: r.status, dueAt: r.due_at === null ? null : new Date(r.due_at),
  bankDate: r.bank_date, version: r.version, createdAt: new Date(r.created_at), updatedAt: new Date(r.updated_at),
});

export async function insertDispute(sql: Sql, d: Omit<Dispute, 'version' | 'updatedAt'>): Promise<Dispute> {
  const [row] = await sql.query<DisputeRow>(
    `INSERT INTO disputes (id, payment_id, merchant_id, source, external_ref, amount, currency, reason_code, category, stage, status, due_at, bank_date, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14) RETURNING *`,
    [d.id, d.paymentId, d.merchantId, d.source, d.externalRef, d.amount.toString(), d.currency, d.reasonCode, d.category, d.stage, d.status, d.dueAt, d.bankDate, d.createdAt],
  );
  return toDispute(row!);
}

/** Compare-and-set: the new state (and amount, deadline) only if the dispute is still at `version`. */
export async function updateDispute(sql: Sql, id: string, version: number, patch: DisputeState & { amount: bigint; dueAt: Date | null; reasonCode: string | null; category: Dispute['category'] }, now: Date): Promise<Dispute | undefined> {
  const [row] = await sql.query<DisputeRow>(
    `UPDATE disputes SET stage = $3, status = $4, amount = $5, due_at = $6, reason_code = $7, category = $8, version = version + 1, updated_at = $9
     WHERE id = $1 AND version = $2 RETURNING *`,
    [id, version, patch.stage, patch.status, patch.amount.toString(), patch.dueAt, patch.reasonCode, patch.category, now],
  );
  return row && toDispute(row);
}

export async function getDispute(sql: Sql, id: string): Promise<Dispute | undefined> {
  const [row] = await sql.query<DisputeRow>('SELECT * FROM disputes WHERE id = $1', [id]);
  return row && toDispute(row);
}

export async function findDisputeByRef(sql: Sql, paymentId: string, source: string, externalRef: string): Promise<Dispute | undefined> {
  const [row] = await sql.query<DisputeRow>('SELECT * FROM disputes WHERE payment_id = $1 AND source = $2 AND external_ref = $3', [paymentId, source, externalRef]);
  return row && toDispute(row);
}

export async function disputesOfPayment(sql: Sql, paymentId: string): Promise<Dispute[]> {
  const rows = await sql.query<DisputeRow>('SELECT * FROM disputes WHERE payment_id = $1 ORDER BY created_at, id', [paymentId]);
  return rows.map(toDispute);
}

/** `mode`: test (sandbox merchants', a test key's) or live disputes only (issue 25 item 26). */
export interface DisputeFilter { merchantId?: string; status?: string; stage?: string; paymentId?: string; mode?: 'test' | 'live'; limit: number }

export async function listDisputes(sql: Sql, filter: DisputeFilter): Promise<Dispute[]> {
  const rows = await sql.query<DisputeRow>(
    `SELECT * FROM disputes WHERE ($1::text IS NULL OR merchant_id = $1) AND ($2::text IS NULL OR status = $2)
       AND ($4::text IS NULL OR stage = $4) AND ($5::text IS NULL OR payment_id = $5)
       AND ($6::boolean IS NULL OR merchant_id IN (SELECT m.id FROM merchants m WHERE m.sandbox = $6))
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    [filter.merchantId ?? null, filter.status ?? null, filter.limit, filter.stage ?? null, filter.paymentId ?? null, filter.mode === undefined ? null : filter.mode === 'test'],
  );
  return rows.map(toDispute);
}

/** Locks the payment's row for the transaction: the disputes of one payment change one at a time (the total rule). */
export async function lockPaymentForDispute(sql: Sql, paymentId: string): Promise<void> {
  await sql.query('SELECT id FROM payments WHERE id = $1 FOR UPDATE', [paymentId]);
}

// --- history ------------------------------------------------------------------------------------------------

interface EventRow {
  id: string; dispute_id: string; event: DisputeHistoryEntry['event']; notice_key: string | null; actor: string; from_stage: Dispute['stage'] | null;
  from_status: Dispute['status'] | null; to_stage: Dispute['stage']; to_status: Dispute['status']; money: DisputeHistoryEntry['money']; details: Record<string, unknown>; created_at: Date | string;
}

const toEvent = (r: EventRow): DisputeHistoryEntry => ({
  id: r.id, disputeId: r.dispute_id, event: r.event, noticeKey: r.notice_key, actor: r.actor,
  from: r.from_stage && r.from_status ? { stage: r.from_stage, status: r.from_status } : null, to: { stage: r.to_stage, status: r.to_status },
  money: r.money, details: r.details, createdAt: new Date(r.created_at),
});

export async function insertDisputeEvent(sql: Sql, e: DisputeHistoryEntry): Promise<void> {
  await sql.query(
    `INSERT INTO dispute_events (id, dispute_id, event, notice_key, actor, from_stage, from_status, to_stage, to_status, money, details, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [e.id, e.disputeId, e.event, e.noticeKey, e.actor, e.from?.stage ?? null, e.from?.status ?? null, e.to.stage, e.to.status, e.money, JSON.stringify(e.details), e.createdAt],
  );
}

export async function historyOf(sql: Sql, disputeId: string): Promise<DisputeHistoryEntry[]> {
  const rows = await sql.query<EventRow>('SELECT * FROM dispute_events WHERE dispute_id = $1 ORDER BY created_at, id', [disputeId]);
  return rows.map(toEvent);
}

/** Whether a notice with this key was seen already (applied, or stored as unmatched). */
export async function noticeSeen(sql: Sql, noticeKey: string): Promise<boolean> {
  const rows = await sql.query<{ one: number }>(
    'SELECT 1 AS one FROM dispute_events WHERE notice_key = $1 UNION ALL SELECT 1 FROM unmatched_dispute_notices WHERE notice_key = $1 LIMIT 1', [noticeKey],
  );
  return rows.length > 0;
}

// --- unmatched notices --------------------------------------------------------------------------------------

interface UnmatchedRow {
  id: string; source: UnmatchedNotice['source']; notice_key: string; event: string; payment_ref: string | null; mid_id: string | null;
  payload: Record<string, unknown>; received_at: Date | string; mid_name: string | null; sandbox: boolean | null;
}

/** Stores a notice that names no known payment; a duplicate stores nothing. */
export async function insertUnmatched(sql: Sql, n: UnmatchedNotice): Promise<boolean> {
  const rows = await sql.query<{ id: string }>(
    `INSERT INTO unmatched_dispute_notices (id, source, notice_key, event, payment_ref, mid_id, payload, received_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (notice_key) DO NOTHING RETURNING id`,
    [n.id, n.source, n.noticeKey, n.event, n.paymentRef, n.midId, JSON.stringify(n.payload), n.receivedAt],
  );
  return rows.length > 0;
}

/** A listed notice with its MID's name and mode (null when no MID was recorded). */
export interface ListedUnmatched extends UnmatchedNotice { midName: string | null; mode: KeyMode | null }

/** `mode`: notices for test (sandbox merchants') or live MIDs only; a notice without a MID has neither. */
export interface UnmatchedFilter { midId?: string; mode?: KeyMode; limit: number }

export async function listUnmatched(sql: Sql, f: UnmatchedFilter): Promise<ListedUnmatched[]> {
  const rows = await sql.query<UnmatchedRow>(
    `SELECT u.*, x.name AS mid_name, m.sandbox FROM unmatched_dispute_notices u
       LEFT JOIN mids x ON x.id = u.mid_id LEFT JOIN merchants m ON m.id = x.merchant_id
     WHERE ($1::text IS NULL OR u.mid_id = $1) AND ${midOfMode('u.mid_id', f.mode)}
     ORDER BY u.received_at DESC, u.id DESC LIMIT $2`,
    [f.midId ?? null, f.limit],
  );
  return rows.map((r) => ({
    id: r.id, source: r.source, noticeKey: r.notice_key, event: r.event, paymentRef: r.payment_ref, midId: r.mid_id, payload: r.payload,
    receivedAt: new Date(r.received_at), midName: r.mid_name, mode: r.sandbox === null ? null : modeOfSandbox(r.sandbox),
  }));
}

// --- monitoring ---------------------------------------------------------------------------------------------

export interface RatioRow {
  merchantId: string;
  midId: string | null;
  currency: string;
  settledCount: bigint;
  settledAmount: bigint;
  disputeCount: bigint;
  disputeAmount: bigint;
  fraudCount: bigint;
  fraudAmount: bigint;
}

/**
 * Per merchant, MID and currency: the payments captured in [from, to) and the chargebacks (first stage and later)
 * raised in it, fraud ones apart.
 */
export async function disputeRatioRows(sql: Sql, from: Date, to: Date, mode?: KeyMode): Promise<RatioRow[]> {
  const rows = await sql.query<{ merchant_id: string; mid_id: string | null; currency: string; sn: string; sa: string; dn: string; da: string; fn: string; fa: string }>(
    `WITH s AS (SELECT merchant_id, mid_id, currency, count(*) AS n, sum(captured_amount) AS a FROM payments
                WHERE captured_amount > 0 AND created_at >= $1 AND created_at < $2 AND ${merchantOfMode('merchant_id', mode)} GROUP BY merchant_id, mid_id, currency),
          d AS (SELECT p.merchant_id, p.mid_id, d.currency, count(*) AS n, sum(d.amount) AS a,
                       count(*) FILTER (WHERE d.category = 'fraud') AS fn, coalesce(sum(d.amount) FILTER (WHERE d.category = 'fraud'), 0) AS fa
                FROM disputes d JOIN payments p ON p.id = d.payment_id
                WHERE d.stage <> 'inquiry' AND d.created_at >= $1 AND d.created_at < $2 AND ${merchantOfMode('p.merchant_id', mode)} GROUP BY p.merchant_id, p.mid_id, d.currency)
     SELECT coalesce(s.merchant_id, d.merchant_id) AS merchant_id, coalesce(s.mid_id, d.mid_id) AS mid_id, coalesce(s.currency, d.currency) AS currency,
            coalesce(s.n, 0)::text AS sn, coalesce(s.a, 0)::text AS sa, coalesce(d.n, 0)::text AS dn, coalesce(d.a, 0)::text AS da, coalesce(d.fn, 0)::text AS fn, coalesce(d.fa, 0)::text AS fa
     FROM s FULL JOIN d ON d.merchant_id = s.merchant_id AND d.mid_id IS NOT DISTINCT FROM s.mid_id AND d.currency = s.currency
     ORDER BY 1, 2 NULLS FIRST, 3`,
    [from, to],
  );
  return rows.map((r) => ({
    merchantId: r.merchant_id, midId: r.mid_id, currency: r.currency, settledCount: BigInt(r.sn), settledAmount: BigInt(r.sa),
    disputeCount: BigInt(r.dn), disputeAmount: BigInt(r.da), fraudCount: BigInt(r.fn), fraudAmount: BigInt(r.fa),
  }));
}

// --- the sandbox's timeline ---------------------------------------------------------------------------------

export interface SandboxStepRow {
  id: string; disputeId: string; merchantId: string; seq: number; event: string; runAt: Date; dueAt: Date | null;
}

export async function insertSandboxSteps(sql: Sql, steps: readonly SandboxStepRow[]): Promise<void> {
  for (const s of steps) {
    await sql.query('INSERT INTO sandbox_dispute_steps (id, dispute_id, merchant_id, seq, event, run_at, due_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [s.id, s.disputeId, s.merchantId, s.seq, s.event, s.runAt, s.dueAt]);
  }
}

/** Steps whose time has come on their merchant's clock (the real `now` shifted by the merchant's test clock), in order. */
export async function dueSandboxSteps(sql: Sql, now: Date, limit: number): Promise<SandboxStepRow[]> {
  const rows = await sql.query<{ id: string; dispute_id: string; merchant_id: string; seq: number; event: string; run_at: Date | string; due_at: Date | string | null }>(
    `SELECT s.* FROM sandbox_dispute_steps s LEFT JOIN test_clocks c ON c.merchant_id = s.merchant_id
     WHERE s.done_at IS NULL AND s.run_at <= $1::timestamptz + COALESCE(c.offset_ms, 0) * interval '1 millisecond'
     ORDER BY s.run_at, s.dispute_id, s.seq LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => ({ id: r.id, disputeId: r.dispute_id, merchantId: r.merchant_id, seq: r.seq, event: r.event, runAt: new Date(r.run_at), dueAt: r.due_at === null ? null : new Date(r.due_at) }));
}

/** Compare-and-set: true for the one writer that marks the step done. */
export async function markSandboxStepDone(sql: Sql, id: string, now: Date): Promise<boolean> {
  const rows = await sql.query('UPDATE sandbox_dispute_steps SET done_at = $2 WHERE id = $1 AND done_at IS NULL RETURNING id', [id, now]);
  return rows.length > 0;
}

// --- defence: evidence and deadlines ------------------------------------------------------------------------

export interface EvidenceRow {
  id: string; disputeId: string; kind: 'file' | 'text'; fileName: string | null; contentType: string; size: number; sha256: string;
  createdBy: string; createdAt: Date; submittedAt: Date | null;
}

interface EvidenceDbRow {
  id: string; dispute_id: string; kind: 'file' | 'text'; file_name: string | null; content_type: string; size: number; sha256: string;
  created_by: string; created_at: Date | string; submitted_at: Date | string | null; content?: Uint8Array;
}

const toEvidence = (r: EvidenceDbRow): EvidenceRow => ({
  id: r.id, disputeId: r.dispute_id, kind: r.kind, fileName: r.file_name, contentType: r.content_type, size: Number(r.size), sha256: r.sha256,
  createdBy: r.created_by, createdAt: new Date(r.created_at), submittedAt: r.submitted_at === null ? null : new Date(r.submitted_at),
});

export async function insertEvidence(sql: Sql, e: Omit<EvidenceRow, 'submittedAt'> & { content: Uint8Array }): Promise<EvidenceRow> {
  const [row] = await sql.query<EvidenceDbRow>(
    `INSERT INTO dispute_evidence (id, dispute_id, kind, file_name, content_type, size, sha256, content, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     RETURNING id, dispute_id, kind, file_name, content_type, size, sha256, created_by, created_at, submitted_at`,
    [e.id, e.disputeId, e.kind, e.fileName, e.contentType, e.size, e.sha256, Buffer.from(e.content), e.createdBy, e.createdAt],
  );
  return toEvidence(row!);
}

export async function listEvidence(sql: Sql, disputeId: string): Promise<EvidenceRow[]> {
  const rows = await sql.query<EvidenceDbRow>(
    'SELECT id, dispute_id, kind, file_name, content_type, size, sha256, created_by, created_at, submitted_at FROM dispute_evidence WHERE dispute_id = $1 ORDER BY created_at, id',
    [disputeId],
  );
  return rows.map(toEvidence);
}

export async function evidenceContent(sql: Sql, disputeId: string, id: string): Promise<(EvidenceRow & { content: Buffer }) | undefined> {
  const [row] = await sql.query<EvidenceDbRow>('SELECT * FROM dispute_evidence WHERE dispute_id = $1 AND id = $2', [disputeId, id]);
  return row && { ...toEvidence(row), content: Buffer.from(row.content!) };
}

/** Marks the evidence not yet submitted as carried by a submission at `now`; answers their ids. */
export async function markEvidenceSubmitted(sql: Sql, disputeId: string, ids: readonly string[], now: Date): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    'UPDATE dispute_evidence SET submitted_at = $2 WHERE dispute_id = $1 AND id = ANY($3::text[]) AND submitted_at IS NULL RETURNING id', [disputeId, now, ids]);
  return rows.map((r) => r.id).sort();
}

/**
 * Live disputes whose deadline passes within `windowMs` of their merchant's clock (the real clock `now` plus the
 * merchant's sandbox test-clock offset: a sandbox dispute's deadline is set on that clock), soonest first by the
 * time left. Each comes with its merchant's `now`, to compare its deadline against. `mode`: test or live keys'
 * merchants' only (issue 25 item 26).
 */
export async function disputesDueBefore(sql: Sql, now: Date, windowMs: number, limit: number, mode?: KeyMode): Promise<(Dispute & { clockNow: Date })[]> {
  const rows = await sql.query<DisputeRow & { offset_ms: string | number }>(
    `SELECT d.*, COALESCE(c.offset_ms, 0) AS offset_ms FROM disputes d LEFT JOIN test_clocks c ON c.merchant_id = d.merchant_id
     WHERE d.due_at IS NOT NULL AND d.status IN ('open', 'evidence_required', 'evidence_submitted') AND ${merchantOfMode('d.merchant_id', mode)}
       AND d.due_at <= $1::timestamptz + (COALESCE(c.offset_ms, 0) + $2::bigint) * interval '1 millisecond'
     ORDER BY d.due_at - COALESCE(c.offset_ms, 0) * interval '1 millisecond', d.id LIMIT $3`,
    [now, windowMs, limit],
  );
  return rows.map((r) => ({ ...toDispute(r), clockNow: new Date(now.getTime() + Number(r.offset_ms)) }));
}

/** Records the alert of a dispute's deadline; true for the one writer that records it first. */
export async function recordDeadlineAlert(sql: Sql, disputeId: string, dueAt: Date, now: Date): Promise<boolean> {
  const rows = await sql.query('INSERT INTO dispute_deadline_alerts (dispute_id, due_at, alerted_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING dispute_id', [disputeId, dueAt, now]);
  return rows.length > 0;
}

// --- the monitoring threshold -------------------------------------------------------------------------------

export async function readThreshold(sql: Sql): Promise<{ ratioBp: bigint; minCount: bigint } | undefined> {
  const [row] = await sql.query<{ ratio_bp: string | bigint; min_count: string | bigint }>('SELECT ratio_bp, min_count FROM dispute_thresholds WHERE id = 1');
  return row && { ratioBp: BigInt(row.ratio_bp), minCount: BigInt(row.min_count) };
}

export async function writeThreshold(sql: Sql, t: { ratioBp: bigint; minCount: bigint }, by: string, now: Date): Promise<void> {
  await sql.query(
    `INSERT INTO dispute_thresholds (id, ratio_bp, min_count, updated_at, updated_by) VALUES (1, $1, $2, $3, $4)
     ON CONFLICT (id) DO UPDATE SET ratio_bp = EXCLUDED.ratio_bp, min_count = EXCLUDED.min_count, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`,
    [t.ratioBp.toString(), t.minCount.toString(), now, by],
  );
}

export type Threshold = { ratioBp: bigint; minCount: bigint };

/** The merchants' own thresholds, by merchant id. */
export async function readMerchantThresholds(sql: Sql): Promise<Map<string, Threshold>> {
  const rows = await sql.query<{ merchant_id: string; ratio_bp: string | bigint; min_count: string | bigint }>('SELECT merchant_id, ratio_bp, min_count FROM dispute_merchant_thresholds');
  return new Map(rows.map((r) => [r.merchant_id, { ratioBp: BigInt(r.ratio_bp), minCount: BigInt(r.min_count) }]));
}

export async function writeMerchantThreshold(sql: Sql, merchantId: string, t: Threshold, by: string, now: Date): Promise<void> {
  await sql.query(
    `INSERT INTO dispute_merchant_thresholds (merchant_id, ratio_bp, min_count, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (merchant_id) DO UPDATE SET ratio_bp = EXCLUDED.ratio_bp, min_count = EXCLUDED.min_count, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`,
    [merchantId, t.ratioBp.toString(), t.minCount.toString(), now, by],
  );
}

/** Removes a merchant's own threshold (the platform's applies again); true when there was one. */
export async function deleteMerchantThreshold(sql: Sql, merchantId: string): Promise<boolean> {
  return (await sql.query('DELETE FROM dispute_merchant_thresholds WHERE merchant_id = $1 RETURNING merchant_id', [merchantId])).length > 0;
}
