/**
 * An acquirer's daily dispute file (issue 29), imported by an operator with the file's mapping profile
 * (domain/dispute-file.ts): read whole first, and a file with any problem imports nothing (400, one entry per
 * line). Each row is then applied as the acquirer's notice (source csv_import) to the payment of the MID it
 * names: a row already imported changes nothing (the same file twice imports once), a row for no payment of the
 * MID, or one the table or the total rule refuses, is kept as unmatched. Audited with the file's digest and counts.
 */
import { createHash } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import type { AuditActor } from '../../store/audit-repo.ts';
import type { DisputeNotice } from '../../connectors/types.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isUuid } from '../../domain/ids.ts';
import { checkDisputeProfile, readDisputeFile, type DisputeFileProfile } from '../../domain/dispute-file.ts';
import { appendAudit } from '../../store/audit-repo.ts';
import { findMidById } from '../../store/merchants-repo.ts';
import { applyDisputeNotices } from './notices.ts';

/** At most this many problems are named (the count of the others follows). */
const MAX_PROBLEMS = 50;

export interface DisputeImportInput {
  mid_id: string;
  file_name?: string;
  profile: DisputeFileProfile;
  content: string;
}

export interface DisputeImportView {
  mid_id: string; file_name: string | null; sha256: string; rows: number; applied: number; unchanged: number; unmatched: number;
}

export async function importDisputeFile(ctx: ServiceContext, actor: AuditActor, input: DisputeImportInput): Promise<DisputeImportView> {
  const mid = isUuid(input.mid_id) ? await findMidById(ctx.db, input.mid_id) : undefined;
  if (!mid) throw GatewayError.field('mid_id', 'This value should be the id of a MID.');
  const profileProblems = checkDisputeProfile(input.profile);
  if (profileProblems.length > 0) throw GatewayError.invalid(profileProblems);
  const { rows, problems } = readDisputeFile(input.content, input.profile);
  if (problems.length > 0) {
    const named = problems.slice(0, MAX_PROBLEMS).map((p) => ({ field: `line ${p.line}`, message: p.message }));
    if (problems.length > MAX_PROBLEMS) named.push({ field: 'file', message: `and ${problems.length - MAX_PROBLEMS} more problems.` });
    throw GatewayError.invalid(named);
  }
  const sha256 = createHash('sha256').update(input.content).digest('hex');
  const notices: DisputeNotice[] = rows.map((r) => ({
    paymentRef: r.paymentRef, event: r.event, acquirerEvent: r.rawEvent, disputeRef: r.disputeRef,
    noticeKey: `csv:${mid.id}:${r.paymentRef}:${r.disputeRef}:${r.rawEvent}`,
    amount: r.amount, currency: r.currency, ...(r.reasonCode ? { reasonCode: r.reasonCode } : {}), ...(r.dueAt ? { dueAt: r.dueAt } : {}), ...(r.bankDate ? { bankDate: r.bankDate } : {}),
    payload: { file_sha256: sha256, line: r.line, payment_reference: r.paymentRef, dispute_reference: r.disputeRef, event: r.rawEvent },
  }));
  const results = await applyDisputeNotices(ctx, 'csv_import', mid.id, notices);
  const count = (k: string) => results.filter((x) => x === k).length;
  const view: DisputeImportView = {
    mid_id: mid.id, file_name: input.file_name ?? null, sha256, rows: rows.length, applied: count('applied'), unchanged: count('unchanged'), unmatched: count('unmatched'),
  };
  await appendAudit(ctx.db, { actor, action: 'dispute.import', objectType: 'mid', objectId: mid.id, details: { ...view } }, ctx.clock.now());
  return view;
}
