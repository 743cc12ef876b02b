/**
 * The merchant defends its disputes in the portal (issue 29 item 5, issue 30): the list of its disputes with where
 * each stands against its deadline, one with its history and evidence, then the defence: evidence files and the
 * defence text, submitted, or the dispute accepted. Every function checks the role (reading: payments.read;
 * defending: disputes.write) and that the dispute is one of the user's merchants' (else 404), then calls the
 * operators' own dispute services (services/disputes/): the same limits, transitions, submission port and audit,
 * the audit entry also in the merchant's own log with the merchant user.
 */
import type { ServiceContext } from '../context.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isUuid } from '../../domain/ids.ts';
import { deadlineState, DISPUTE_STAGES, DISPUTE_STATUSES, type DeadlineState, type Dispute } from '../../domain/disputes.ts';
import { getDispute, listDisputes } from '../../store/disputes-repo.ts';
import { actOnDispute, disputeView, readDispute, type DisputeView } from '../disputes/admin.ts';
import { addEvidence, evidenceFile, evidenceOf, submitDefence, type EvidenceInput, type EvidenceView, type SubmissionView } from '../disputes/defence.ts';
import { merchantClock } from '../schedules/test-clock.ts';
import { auditScope, mustMay, mustOwn, portalActor, type PortalUser } from './scope.ts';

export interface PortalDisputeQuery { merchant_id?: string; status?: string; stage?: string; limit?: number }

/** The dispute, if it is one of the user's merchants' (else 404, as an unknown one). */
async function ownDispute(ctx: ServiceContext, user: PortalUser, id: string): Promise<Dispute> {
  const dispute = isUuid(id) ? await getDispute(ctx.db, id) : undefined;
  if (!dispute || !user.merchantIds.includes(dispute.merchantId)) throw new GatewayError('notFound');
  return dispute;
}

/** The disputes of the user's merchants (or of the one named), newest first, each with its deadline state on its merchant's clock. */
export async function portalDisputes(ctx: ServiceContext, user: PortalUser, q: PortalDisputeQuery): Promise<(DisputeView & { deadline: DeadlineState })[]> {
  mustMay(user, 'payments.read');
  if (q.merchant_id !== undefined) mustOwn(user, q.merchant_id);
  const problems = [];
  if (q.status !== undefined && !(DISPUTE_STATUSES as readonly string[]).includes(q.status)) problems.push({ field: 'status', message: `should be one of ${DISPUTE_STATUSES.join(', ')}.` });
  if (q.stage !== undefined && !(DISPUTE_STAGES as readonly string[]).includes(q.stage)) problems.push({ field: 'stage', message: `should be one of ${DISPUTE_STAGES.join(', ')}.` });
  if (problems.length > 0) throw GatewayError.invalid(problems);
  const limit = q.limit ?? 100;
  const merchants = q.merchant_id !== undefined ? [q.merchant_id] : user.merchantIds;
  const rows = (await Promise.all(merchants.map((merchantId) => listDisputes(ctx.db, {
    merchantId, limit, ...(q.status !== undefined ? { status: q.status } : {}), ...(q.stage !== undefined ? { stage: q.stage } : {}),
  })))).flat();
  rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
  const clocks = new Map<string, Date>();
  for (const merchantId of new Set(rows.map((d) => d.merchantId))) clocks.set(merchantId, (await merchantClock(ctx, merchantId)).now());
  return rows.slice(0, limit).map((d) => ({ ...disputeView(d), deadline: deadlineState(d, clocks.get(d.merchantId)!) }));
}

/** One dispute with its history, deadline state and evidence. */
export async function portalDispute(ctx: ServiceContext, user: PortalUser, id: string): Promise<Awaited<ReturnType<typeof readDispute>> & { evidence: EvidenceView[] }> {
  mustMay(user, 'payments.read');
  const dispute = await ownDispute(ctx, user, id);
  const [read, evidence] = await Promise.all([readDispute(ctx, dispute.id), evidenceOf(ctx, dispute.id)]);
  return { ...read, evidence };
}

/** One piece of evidence as uploaded. */
export async function portalEvidenceFile(ctx: ServiceContext, user: PortalUser, id: string, evidenceId: string): Promise<Awaited<ReturnType<typeof evidenceFile>>> {
  mustMay(user, 'payments.read');
  const dispute = await ownDispute(ctx, user, id);
  return evidenceFile(ctx, dispute.id, evidenceId);
}

/** A file (PDF, PNG, JPEG) or the defence text, within the operators' limits; audited in the merchant's log. */
export async function portalAddEvidence(ctx: ServiceContext, user: PortalUser, id: string, input: EvidenceInput): Promise<EvidenceView> {
  mustMay(user, 'disputes.write');
  const dispute = await ownDispute(ctx, user, id);
  return addEvidence(ctx, portalActor(user), dispute.id, input, auditScope(user, dispute.merchantId));
}

/** Submits the evidence not yet submitted (the acquirer's dispute port, or recorded for the operators to send by hand). */
export async function portalSubmitDefence(ctx: ServiceContext, user: PortalUser, id: string, input: { note?: string }): Promise<SubmissionView> {
  mustMay(user, 'disputes.write');
  const dispute = await ownDispute(ctx, user, id);
  return submitDefence(ctx, portalActor(user), dispute.id, input, auditScope(user, dispute.merchantId));
}

/** Accepts the dispute: the merchant does not defend it (the chargeback stands); 409 where the table does not allow it. */
export async function portalAcceptDispute(ctx: ServiceContext, user: PortalUser, id: string, input: { note?: string }): Promise<DisputeView> {
  mustMay(user, 'disputes.write');
  const dispute = await ownDispute(ctx, user, id);
  return actOnDispute(ctx, portalActor(user), dispute.id, { event: 'accept', ...(input.note ? { note: input.note } : {}) }, auditScope(user, dispute.merchantId));
}
