/**
 * The sandbox raises a chargeback on a sandbox payment (issue 29), so merchants can test their handling: an
 * operator's act opens it with a notice of chargeback (the payment's merchant must be a sandbox merchant), and the
 * timeline of domain/disputes.ts (chargeback with its deadline, end of the defence period, decision) plays on the
 * merchant's test clock: `POST /sandbox/test-clock/advance` moves the deadlines' time as it moves the schedules'.
 * Each step is applied through apply.ts as an acquirer's notice (source `sandbox`), with its own notice key, so a
 * step run twice changes nothing and one the dispute has moved past (defended, accepted) is ignored.
 */
import type { ServiceContext } from '../context.ts';
import type { AuditActor } from '../../store/audit-repo.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isUuid, newId } from '../../domain/ids.ts';
import { parseAmount } from '../../domain/money.ts';
import { SANDBOX_TIMELINE_DEFAULTS, sandboxTimeline, type DisputeEvent, type SandboxTimelineOptions } from '../../domain/disputes.ts';
import { dueSandboxSteps, getDispute, insertSandboxSteps, markSandboxStepDone } from '../../store/disputes-repo.ts';
import { getPayment } from '../../store/payments-repo.ts';
import { findMerchantById } from '../../store/merchants-repo.ts';
import { merchantClock } from '../schedules/test-clock.ts';
import { applyDisputeChange } from './apply.ts';
import { disputeView, type DisputeView } from './admin.ts';

export interface SandboxChargebackInput {
  amount?: string;
  reason_code?: string;
  notice_days?: number;
  defence_days?: number;
  review_days?: number;
  outcome?: 'won' | 'lost';
}

export interface SandboxChargebackView extends DisputeView {
  timeline: { event: string; at: string; due_at: string | null }[];
}


export async function raiseSandboxChargeback(ctx: ServiceContext, actor: AuditActor, paymentId: string, input: SandboxChargebackInput): Promise<SandboxChargebackView> {
  const payment = isUuid(paymentId) ? await getPayment(ctx.db, paymentId) : undefined;
  if (!payment) throw new GatewayError('notFound');
  const merchant = await findMerchantById(ctx.db, ctx.keyring, payment.merchantId);
  if (!merchant?.sandbox) throw new GatewayError('sandboxDisputeLiveMerchant');
  const amount = input.amount === undefined ? undefined : parseAmount(input.amount, payment.currency);
  if (amount && (!amount.ok || amount.money.minor <= 0n)) throw GatewayError.field('amount', `should be a positive amount in ${payment.currency}.`);
  const options: SandboxTimelineOptions = {
    noticeDays: input.notice_days ?? SANDBOX_TIMELINE_DEFAULTS.noticeDays,
    defenceDays: input.defence_days ?? SANDBOX_TIMELINE_DEFAULTS.defenceDays,
    reviewDays: input.review_days ?? SANDBOX_TIMELINE_DEFAULTS.reviewDays,
    outcome: input.outcome ?? SANDBOX_TIMELINE_DEFAULTS.outcome,
  };
  const now = (await merchantClock(ctx, merchant.id)).now();
  const reasonCode = input.reason_code ?? '13.1';
  const { dispute } = await applyDisputeChange(ctx, {
    paymentId: payment.id, source: 'sandbox', externalRef: `sandbox:${newId()}`, event: 'notification_of_chargeback', actor: actor.name, audit: actor,
    reasonCode, bankDate: now.toISOString().slice(0, 10), ...(amount?.ok ? { amount: amount.money.minor } : {}), details: { sandbox: true },
  });
  const steps = sandboxTimeline(options).map((s) => ({
    id: newId(), disputeId: dispute.id, merchantId: merchant.id, seq: s.seq, event: s.event,
    runAt: new Date(now.getTime() + s.afterMs), dueAt: s.dueAfterMs === undefined ? null : new Date(now.getTime() + s.dueAfterMs),
  }));
  await insertSandboxSteps(ctx.db, steps);
  if (options.noticeDays === 0) await runSandboxSteps(ctx);
  const current = (await getDispute(ctx.db, dispute.id)) ?? dispute;
  return {
    ...disputeView(current),
    timeline: steps.map((s) => ({ event: s.event, at: s.runAt.toISOString(), due_at: s.dueAt?.toISOString() ?? null })),
  };
}

/** One pass: applies the steps whose time has come on their merchant's clock, in order; answers how many ran. */
export async function runSandboxSteps(ctx: ServiceContext, limit = 100): Promise<number> {
  const due = await dueSandboxSteps(ctx.db, ctx.clock.now(), limit);
  for (const step of due) {
    const dispute = await getDispute(ctx.db, step.disputeId);
    if (dispute) {
      try {
        await applyDisputeChange(ctx, {
          paymentId: dispute.paymentId, disputeId: dispute.id, source: 'sandbox', event: step.event as DisputeEvent, noticeKey: `sandbox:${step.id}`, actor: 'sandbox',
          ...(step.dueAt ? { dueAt: step.dueAt } : {}), details: { sandbox_step: step.seq },
        });
      } catch (err) {
        // A step the total rule refuses (the payment was refunded meanwhile) is dropped, as a bank would drop it.
        if (!(err instanceof GatewayError)) throw err;
        ctx.logger.info({ dispute: dispute.id, step: step.seq, reason: err.message }, 'sandbox dispute step not applied');
      }
    }
    await markSandboxStepDone(ctx.db, step.id, ctx.clock.now());
  }
  return due.length;
}

