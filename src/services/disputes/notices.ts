/**
 * Acquirers' dispute notices (issue 29), verified by their connector: each applied to the dispute it names, or,
 * when it names no payment of the MID (or the dispute table refuses it, e.g. more than remains captured), kept as
 * unmatched for an operator to look at. Never dropped, never a 5xx; a notice sent again changes nothing.
 */
import type { ServiceContext } from '../context.ts';
import type { DisputeNotice } from '../../connectors/types.ts';
import type { DisputeSource } from '../../domain/disputes.ts';
import { GatewayError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { getPayment } from '../../store/payments-repo.ts';
import { insertUnmatched } from '../../store/disputes-repo.ts';
import { applyDisputeChange } from './apply.ts';

export type NoticeResult = 'applied' | 'unchanged' | 'unmatched';

/** Applies the notices in order; answers what became of each. */
export async function applyDisputeNotices(ctx: ServiceContext, source: DisputeSource, midId: string, notices: readonly DisputeNotice[]): Promise<NoticeResult[]> {
  const results: NoticeResult[] = [];
  for (const notice of notices) results.push(await applyNotice(ctx, source, midId, notice));
  return results;
}

async function applyNotice(ctx: ServiceContext, source: DisputeSource, midId: string, notice: DisputeNotice): Promise<NoticeResult> {
  const payment = notice.paymentRef ? await getPayment(ctx.db, notice.paymentRef).catch(() => undefined) : undefined;
  const matched = payment && payment.midId === midId && (notice.currency === undefined || notice.currency === payment.currency);
  if (!payment || !matched) return keepUnmatched(ctx, source, midId, notice, 'no payment of this MID');
  if (notice.signature === 'unverifiable') return keepUnmatched(ctx, source, midId, notice, 'signature not verifiable');
  try {
    const { applied } = await applyDisputeChange(ctx, {
      paymentId: payment.id, source, externalRef: notice.disputeRef, event: notice.event, noticeKey: notice.noticeKey, actor: source,
      ...(notice.amount !== undefined ? { amount: notice.amount } : {}), ...(notice.reasonCode ? { reasonCode: notice.reasonCode } : {}),
      ...(notice.dueAt ? { dueAt: notice.dueAt } : {}), ...(notice.bankDate ? { bankDate: notice.bankDate } : {}),
      details: { acquirer_event: notice.acquirerEvent },
    });
    return applied ? 'applied' : 'unchanged';
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    return keepUnmatched(ctx, source, midId, notice, err.message);
  }
}

async function keepUnmatched(ctx: ServiceContext, source: DisputeSource, midId: string, notice: DisputeNotice, why: string): Promise<NoticeResult> {
  await insertUnmatched(ctx.db, {
    id: newId(), source, noticeKey: notice.noticeKey, event: notice.acquirerEvent, paymentRef: notice.paymentRef ?? null, midId,
    payload: { ...notice.payload, why, ...(notice.signature ? { signature: notice.signature } : {}) }, receivedAt: ctx.clock.now(),
  });
  return 'unmatched';
}
