/**
 * Defending a dispute (issue 29): evidence files (PDF, PNG or JPEG by their magic bytes, within size and count
 * limits, kept in PostgreSQL) and texts uploaded by an operator, then submitted: to the acquirer through its
 * connector's dispute port where it has one, otherwise recorded as submitted by hand. A submission moves the
 * dispute by `information_supplied` (history and audit say how it was submitted and which evidence it carried).
 * Deadlines: the live disputes due soon (or overdue) are listed, and the dispute worker alerts each deadline once.
 */
import { createHash } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import type { AuditActor } from '../../store/audit-repo.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isUuid, newId } from '../../domain/ids.ts';
import {
  DEADLINE_ALERT_MS, DEFAULT_RATIO_THRESHOLD, EVIDENCE_LIMITS, overThreshold, ratioBp, EVIDENCE_TYPES, deadlineState, evidenceTypeOf, isClosed, nextState, type DeadlineState, type Dispute,
} from '../../domain/disputes.ts';
import {
  disputeRatioRows, disputesDueBefore, evidenceContent, getDispute, insertEvidence, listEvidence, markEvidenceSubmitted, recordDeadlineAlert, type EvidenceRow,
} from '../../store/disputes-repo.ts';
import { appendAudit } from '../../store/audit-repo.ts';
import { getPayment } from '../../store/payments-repo.ts';
import { findMidById } from '../../store/merchants-repo.ts';
import { merchantModes, type KeyMode } from '../../store/key-mode.ts';
import { midAccess } from '../connector-access.ts';
import { applyDisputeChange } from './apply.ts';
import { disputeView, merchantThresholds, type AuditScope, type DisputeView } from './admin.ts';

export interface EvidenceInput {
  file_name?: string;
  content_base64?: string;
  text?: string;
}

export interface EvidenceView {
  id: string; kind: string; file_name: string | null; content_type: string; size: number; sha256: string; created_by: string; created_at: string; submitted_at: string | null;
}

const evidenceView = (e: EvidenceRow): EvidenceView => ({
  id: e.id, kind: e.kind, file_name: e.fileName, content_type: e.contentType, size: e.size, sha256: e.sha256, created_by: e.createdBy,
  created_at: e.createdAt.toISOString(), submitted_at: e.submittedAt?.toISOString() ?? null,
});

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MB = (n: number) => `${n / (1024 * 1024)} MB`;

async function disputeOrNotFound(ctx: ServiceContext, id: string): Promise<Dispute> {
  const d = isUuid(id) ? await getDispute(ctx.db, id) : undefined;
  if (!d) throw new GatewayError('notFound');
  return d;
}

/** Adds a file or a text to a live dispute's evidence; checks type by magic bytes, sizes and counts. */
export async function addEvidence(ctx: ServiceContext, actor: AuditActor, disputeId: string, input: EvidenceInput, auditScope: AuditScope = {}): Promise<EvidenceView> {
  const dispute = await disputeOrNotFound(ctx, disputeId);
  const hasFile = input.content_base64 !== undefined, hasText = input.text !== undefined;
  if (hasFile === hasText) throw GatewayError.field('content_base64', 'Send either a file (content_base64) or a text, not both.');
  let content: Uint8Array, contentType: string;
  if (hasFile) {
    const b64 = input.content_base64!.replace(/\s+/g, '');
    if (!BASE64.test(b64) || b64.length === 0) throw GatewayError.field('content_base64', 'This value should be the file in base64.');
    content = Buffer.from(b64, 'base64');
    if (content.length > EVIDENCE_LIMITS.fileBytes) throw GatewayError.field('content_base64', `The file is larger than ${MB(EVIDENCE_LIMITS.fileBytes)}.`);
    const type = evidenceTypeOf(content);
    if (!type) throw GatewayError.field('content_base64', `The file should be one of ${EVIDENCE_TYPES.map((t) => t.contentType).join(', ')} (told by its content).`);
    contentType = type;
  } else {
    const text = input.text!.trim();
    if (text.length === 0 || text.length > EVIDENCE_LIMITS.textChars) throw GatewayError.field('text', `This value should be 1 to ${EVIDENCE_LIMITS.textChars} characters long.`);
    content = Buffer.from(text, 'utf8');
    contentType = 'text/plain; charset=utf-8';
  }
  if (isClosed(dispute)) throw new GatewayError('disputeEventNotAllowed');
  const existing = await listEvidence(ctx.db, dispute.id);
  if (existing.length >= EVIDENCE_LIMITS.items) throw GatewayError.field('content_base64', `A dispute takes at most ${EVIDENCE_LIMITS.items} pieces of evidence.`);
  if (existing.reduce((a, e) => a + e.size, 0) + content.length > EVIDENCE_LIMITS.totalBytes) throw GatewayError.field('content_base64', `A dispute's evidence takes at most ${MB(EVIDENCE_LIMITS.totalBytes)} in all.`);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await insertEvidence(tx, {
      id: newId(), disputeId: dispute.id, kind: hasFile ? 'file' : 'text', fileName: hasFile ? (input.file_name ?? null) : null, contentType,
      size: content.length, sha256: createHash('sha256').update(content).digest('hex'), createdBy: actor.name, createdAt: now, content,
    });
    await appendAudit(tx, { actor, action: 'dispute.evidence_added', objectType: 'dispute', objectId: dispute.id, details: { evidence_id: row.id, kind: row.kind, content_type: contentType, size: row.size, sha256: row.sha256 }, ...auditScope }, now);
    return evidenceView(row);
  });
}

export async function evidenceOf(ctx: ServiceContext, disputeId: string): Promise<EvidenceView[]> {
  const dispute = await disputeOrNotFound(ctx, disputeId);
  return (await listEvidence(ctx.db, dispute.id)).map(evidenceView);
}

export async function evidenceFile(ctx: ServiceContext, disputeId: string, evidenceId: string): Promise<{ contentType: string; fileName: string; content: Buffer }> {
  const e = isUuid(disputeId) && isUuid(evidenceId) ? await evidenceContent(ctx.db, disputeId, evidenceId) : undefined;
  if (!e) throw new GatewayError('notFound');
  const ext = { 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg' }[e.contentType] ?? 'txt';
  return { contentType: e.contentType, fileName: `evidence-${e.id}.${ext}`, content: e.content };
}

export interface SubmissionView extends DisputeView {
  submission: { method: 'acquirer' | 'manual'; reference: string | null; evidence: string[] };
}

/**
 * Submits the evidence not yet submitted: through the acquirer's dispute port where the MID's connector has one,
 * otherwise recorded as sent by hand (`manual`). The dispute moves by information_supplied (409 where the table
 * does not allow it); nothing to submit is refused.
 */
export async function submitDefence(ctx: ServiceContext, actor: AuditActor, disputeId: string, input: { note?: string }, auditScope: AuditScope = {}): Promise<SubmissionView> {
  const dispute = await disputeOrNotFound(ctx, disputeId);
  if (!nextState(dispute, 'information_supplied')) throw new GatewayError('disputeEventNotAllowed');
  const pending = (await listEvidence(ctx.db, dispute.id)).filter((e) => e.submittedAt === null);
  if (pending.length === 0) throw GatewayError.field('evidence', 'Upload evidence before submitting the defence.');
  const payment = await getPayment(ctx.db, dispute.paymentId);
  const mid = payment?.midId ? await findMidById(ctx.db, payment.midId) : undefined;
  const port = mid ? ctx.connectors.get(mid.connector)?.disputeDefence : undefined;
  let submission: SubmissionView['submission'] = { method: 'manual', reference: null, evidence: pending.map((e) => e.id).sort() };
  if (port && mid && payment) {
    const items = await Promise.all(pending.map((e) => evidenceContent(ctx.db, dispute.id, e.id)));
    const { reference } = await port.submitDefence(midAccess(ctx, mid), {
      paymentId: payment.id, paymentRef: typeof payment.details.connectorRef === 'string' ? payment.details.connectorRef : undefined, disputeRef: dispute.externalRef,
      reasonCode: dispute.reasonCode,
      texts: items.filter((e) => e?.kind === 'text').map((e) => e!.content.toString('utf8')),
      files: items.filter((e) => e?.kind === 'file').map((e) => ({ name: e!.fileName, contentType: e!.contentType, content: e!.content })),
    });
    submission = { ...submission, method: 'acquirer', reference };
  }
  const { dispute: moved } = await applyDisputeChange(ctx, {
    paymentId: dispute.paymentId, disputeId: dispute.id, source: 'operator', event: 'information_supplied', actor: actor.name, audit: actor, auditScope,
    details: { submission: submission.method, ...(submission.reference ? { reference: submission.reference } : {}), evidence: submission.evidence, ...(input.note ? { note: input.note } : {}) },
    // The evidence sent, and only it (not a piece uploaded meanwhile), is marked submitted with the dispute's move.
    within: async (tx) => { await markEvidenceSubmitted(tx, dispute.id, submission.evidence, ctx.clock.now()); },
  });
  return { ...disputeView(moved), submission };
}

export interface DueView extends DisputeView {
  deadline: DeadlineState;
}

/**
 * Live disputes whose deadline passes within `withinDays` (overdue ones included), soonest first; `mode`: test
 * keys' (sandbox merchants') or live keys' only (issue 25 item 26).
 */
export async function disputesDueSoon(ctx: ServiceContext, withinDays = DEADLINE_ALERT_MS / 86_400_000, limit = 200, mode?: KeyMode): Promise<DueView[]> {
  const due = await disputesDueBefore(ctx.db, ctx.clock.now(), withinDays * 86_400_000, limit, mode);
  return due.map(({ clockNow, ...d }) => ({ ...disputeView(d), deadline: deadlineState(d, clockNow) }));
}

/**
 * The dispute worker's alert: each live dispute whose deadline is within DEADLINE_ALERT_MS (or passed) is
 * alerted once per deadline (a warning in the log that an operator's alerting reads, with its merchant's key `mode`:
 * an alert on live ones matches `"mode":"live"`; the /metrics gauges count them). Answers how many were alerted this time.
 */
export async function alertDeadlines(ctx: ServiceContext): Promise<number> {
  const now = ctx.clock.now();
  let alerted = 0;
  let modes: Map<string, KeyMode> | undefined;
  for (const d of await disputesDueBefore(ctx.db, now, DEADLINE_ALERT_MS, 500)) {
    if (!d.dueAt || !(await recordDeadlineAlert(ctx.db, d.id, d.dueAt, now))) continue;
    alerted += 1;
    modes ??= await merchantModes(ctx.db);
    ctx.logger.warn({ alert: 'dispute_deadline', dispute_id: d.id, payment_id: d.paymentId, merchant_id: d.merchantId, mode: modes.get(d.merchantId) ?? 'live', due_at: d.dueAt.toISOString(), deadline: deadlineState(d, d.clockNow), status: d.status },
      'dispute deadline near: defend or accept it before it passes');
  }
  return alerted;
}

/**
 * /metrics: live disputes due soon and overdue, per merchant; and the current month's (UTC) dispute and
 * fraud-dispute ratios per merchant, MID and currency in basis points (integers: 90 = 0.90 %), with whether the
 * month is over the monitoring threshold (VDMP's default, docs/operators/disputes.md). Every series carries `mode`
 * (test: a test key's, i.e. a sandbox merchant's; live: a live key's), issue 25 item 26: an alert reads
 * `{mode="live"}` and a sandbox chargeback never pages anyone.
 */
export async function disputeMetricLines(ctx: Pick<ServiceContext, 'db' | 'clock'>): Promise<string[]> {
  const now = ctx.clock.now();
  const due = await disputesDueBefore(ctx.db, now, DEADLINE_ALERT_MS, 10_000);
  const modes = await merchantModes(ctx.db);
  const modeOf = (merchantId: string) => modes.get(merchantId) ?? 'live';
  const counts = new Map<string, { due_soon: number; overdue: number }>();
  for (const d of due) {
    const c = counts.get(d.merchantId) ?? { due_soon: 0, overdue: 0 };
    const state = deadlineState(d, d.clockNow);
    if (state === 'due_soon' || state === 'overdue') c[state] += 1;
    counts.set(d.merchantId, c);
  }
  const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, ' ');
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  const ratios = await disputeRatioRows(ctx.db, from, to);
  const thresholdFor = await merchantThresholds(ctx);
  const labels = (r: { merchantId: string; midId: string | null; currency: string }) => `merchant="${esc(r.merchantId)}",mid="${esc(r.midId ?? '')}",currency="${esc(r.currency)}",mode="${modeOf(r.merchantId)}"`;
  return [
    '# HELP portcullis_dispute_ratio_basis_points Chargebacks raised this month (UTC) per payment captured in it, in basis points, per merchant, MID, currency and key mode.',
    '# TYPE portcullis_dispute_ratio_basis_points gauge',
    ...ratios.map((r) => `portcullis_dispute_ratio_basis_points{${labels(r)}} ${ratioBp(r.disputeCount, r.settledCount)}`),
    '# HELP portcullis_fraud_dispute_ratio_basis_points Fraud chargebacks raised this month (UTC) per payment captured in it, in basis points.',
    '# TYPE portcullis_fraud_dispute_ratio_basis_points gauge',
    ...ratios.map((r) => `portcullis_fraud_dispute_ratio_basis_points{${labels(r)}} ${ratioBp(r.fraudCount, r.settledCount)}`),
    `# HELP portcullis_dispute_over_threshold 1 when this month's chargebacks are over the monitoring threshold (the merchant's own, else the platform's, default ${DEFAULT_RATIO_THRESHOLD.ratioBp} bp and ${DEFAULT_RATIO_THRESHOLD.minCount} chargebacks).`,
    '# TYPE portcullis_dispute_over_threshold gauge',
    ...ratios.map((r) => `portcullis_dispute_over_threshold{${labels(r)}} ${overThreshold(r.disputeCount, r.settledCount, thresholdFor(r.merchantId)) ? 1 : 0}`),
    `# HELP portcullis_disputes_due_soon Live disputes whose deadline passes within ${DEADLINE_ALERT_MS / 86_400_000} days, per merchant and key mode.`,
    '# TYPE portcullis_disputes_due_soon gauge',
    ...[...counts].map(([m, c]) => `portcullis_disputes_due_soon{merchant="${esc(m)}",mode="${modeOf(m)}"} ${c.due_soon}`),
    '# HELP portcullis_disputes_overdue Live disputes whose deadline has passed, per merchant and key mode.',
    '# TYPE portcullis_disputes_overdue gauge',
    ...[...counts].map(([m, c]) => `portcullis_disputes_overdue{merchant="${esc(m)}",mode="${modeOf(m)}"} ${c.overdue}`),
  ];
}
