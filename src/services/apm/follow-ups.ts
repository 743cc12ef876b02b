/**
 * Capture, void and credit-void of APM payments (S2S APM CAPTURE, VOID, CREDITVOID), with the rules of every
 * follow-up (services/follow-ups.ts); only the port differs: the merchant's APM provider.
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { captureWith, refundWith, voidWith, type FollowUpOrigin, type FollowUpPort, type FollowUpResult } from '../follow-ups.ts';
import { connectorOfPayment } from './provider-route.ts';

export type ApmFollowUpResult = FollowUpResult;

const reference = (p: Payment): string => (typeof p.details.connectorRef === 'string' ? p.details.connectorRef : p.id);

/** The port of the payment's own provider (its provider MID's, or the merchant's default connector). */
function apmPort(ctx: ServiceContext, merchant: Merchant): FollowUpPort {
  const of = (p: Payment) => connectorOfPayment(ctx, merchant, p);
  return {
    capture: async (p, amount) => (await of(p)).capture({ reference: reference(p), amount, currency: p.currency }),
    refund: async (p, amount) => (await of(p)).refund({ reference: reference(p), amount, currency: p.currency }),
    reverse: async (p) => (await of(p)).reverse({ reference: reference(p), amount: p.amount, currency: p.currency }),
    void: async (p) => (await of(p)).void({ reference: reference(p) }),
  };
}

/** CAPTURE of a held authorization: in full, or once in part. */
export const captureApm = (ctx: ServiceContext, merchant: Merchant, payment: Payment, amount?: bigint, origin?: FollowUpOrigin) =>
  captureWith(ctx, merchant, apmPort(ctx, merchant), payment, amount, origin);

/** VOID: only a SETTLED payment with nothing refunded; a held authorization answers "Void is not allowed." */
export const voidApm = (ctx: ServiceContext, merchant: Merchant, payment: Payment, origin?: FollowUpOrigin) => voidWith(ctx, merchant, apmPort(ctx, merchant), payment, origin);

/** CREDITVOID: releases a held authorization (REVERSAL, whole amount), or refunds a settled payment. */
export const creditVoidApm = (ctx: ServiceContext, merchant: Merchant, payment: Payment, amount?: bigint, origin?: FollowUpOrigin) =>
  refundWith(ctx, merchant, apmPort(ctx, merchant), payment, amount, origin);
