/**
 * Capture, refund and void of any payment, whatever paid it: card payments go through the card
 * connector of their MID, alternative-method payments through their provider. Channels call these.
 */
import type { ServiceContext } from './context.ts';
import type { Merchant } from '../domain/model/merchant.ts';
import type { Mid } from '../domain/model/mid.ts';
import type { Payment } from '../domain/model/payment.ts';
import { capture, refund, voidPayment, type FollowUpOrigin, type FollowUpResult } from './follow-ups.ts';
import { apmOf } from './apm/details.ts';
import { captureApm, creditVoidApm, voidApm } from './apm/follow-ups.ts';

export function capturePayment(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], payment: Payment, amount?: bigint, origin?: FollowUpOrigin): Promise<FollowUpResult> {
  return apmOf(payment) ? captureApm(ctx, merchant, payment, amount, origin) : capture(ctx, merchant, mids, payment, amount, origin);
}

export function refundPayment(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], payment: Payment, amount?: bigint, origin?: FollowUpOrigin): Promise<FollowUpResult> {
  return apmOf(payment) ? creditVoidApm(ctx, merchant, payment, amount, origin) : refund(ctx, merchant, mids, payment, amount, origin);
}

export function voidAnyPayment(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], payment: Payment, origin?: FollowUpOrigin): Promise<FollowUpResult> {
  return apmOf(payment) ? voidApm(ctx, merchant, payment, origin) : voidPayment(ctx, merchant, mids, payment, origin);
}
