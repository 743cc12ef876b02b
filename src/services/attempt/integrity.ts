/**
 * Step 8 of an attempt: the integrity check of a decided answer (Hyperswitch's): the amount, currency and
 * reference the acquirer or provider reports must be the payment's, or nothing is applied and the payment is held
 * for an operator (GET /admin/v1/payments/needs-operator; resolved by POST .../resolve). The ONE hold: card
 * attempts (their cascade, their notifications, their re-check), APM initiations and payouts, and the schedule
 * runner's charges. A held payment stays in flight; the re-check leaves it alone and no callback is written
 * until an operator decides.
 */
import type { ServiceContext } from '../context.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { holdForOperator } from '../../store/payments-repo.ts';
import { integrityMismatches, type Mismatch, type ReportedFacts } from '../../domain/integrity.ts';

/** A decided answer as the check reads it (a card connector's or an APM provider's). */
export interface Answer {
  kind: string;
  reported?: ReportedFacts;
  reference?: string;
}

const decided = (a: Answer): boolean => a.kind === 'approved' || a.kind === 'declined';

/** What a decided answer reports otherwise than the payment (none for an undecided answer). Pure. */
export function mismatchesOf(payment: Pick<Payment, 'id' | 'amount' | 'currency'>, answer: Answer): Mismatch[] {
  if (!decided(answer)) return [];
  return integrityMismatches({ amount: payment.amount, currency: payment.currency, reference: payment.id }, answer.reported);
}

/**
 * The held payment when a decided answer does not match it (held with a compare-and-set on the claim
 * `operation`; the payment as read when someone moved it first); undefined when the answer may be applied.
 */
export async function heldForIntegrity(ctx: ServiceContext, payment: Payment, operation: string, answer: Answer): Promise<Payment | undefined> {
  const mismatches = mismatchesOf(payment, answer);
  if (mismatches.length === 0) return undefined;
  const why = { reason: 'integrity', mismatches, outcome: answer.kind, reference: answer.reference ?? null };
  const held = await holdForOperator(ctx.db, payment.id, { status: payment.status, pendingOperation: operation }, why, ctx.clock.now());
  ctx.logger.warn({ paymentId: payment.id, mismatches }, 'acquirer outcome does not match the payment; held for an operator');
  return held ?? payment;
}
