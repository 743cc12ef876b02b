/**
 * The integrity check of a provider's decided answer (an APM initiation or payout): the amount, currency and
 * reference it reports must be the payment's, or nothing is applied and the payment is held for an operator, as
 * card outcomes are (card-payments.ts). The re-check leaves a held payment alone.
 */
import type { ServiceContext } from '../context.ts';
import { holdForOperator } from '../../store/payments-repo.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { integrityMismatches } from '../../domain/integrity.ts';
import type { ApmOutcome } from '../../connectors/apm-types.ts';

/** The held payment when the outcome does not match it; undefined when it may be applied. */
export async function heldForIntegrity(ctx: ServiceContext, payment: Payment, operation: string, outcome: ApmOutcome): Promise<Payment | undefined> {
  if (outcome.kind !== 'approved' && outcome.kind !== 'declined') return undefined;
  const mismatches = integrityMismatches({ amount: payment.amount, currency: payment.currency, reference: payment.id }, outcome.reported);
  if (mismatches.length === 0) return undefined;
  const why = { reason: 'integrity', mismatches, outcome: outcome.kind, reference: outcome.reference ?? null };
  const held = await holdForOperator(ctx.db, payment.id, { status: payment.status, pendingOperation: operation }, why, ctx.clock.now());
  ctx.logger.warn({ paymentId: payment.id, mismatches }, 'provider outcome does not match the payment; held for an operator');
  return held ?? payment;
}
