/**
 * Capture, void and credit-void of APM payments (S2S APM CAPTURE, VOID, CREDITVOID), with the rules of every
 * follow-up (services/follow-ups.ts); only the port differs: the merchant's APM provider.
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../store/merchants-repo.ts';
import type { Payment } from '../../store/payments-repo.ts';
import { captureWith, refundWith, voidWith, type FollowUpOrigin, type FollowUpPort, type FollowUpResult } from '../follow-ups.ts';
import { apmConnector } from './connector.ts';

export type ApmFollowUpResult = FollowUpResult;

const reference = (p: Payment): string => (typeof p.details.connectorRef === 'string' ? p.details.connectorRef : p.id);

function apmPort(ctx: ServiceContext, merchant: Merchant): FollowUpPort {
  const connector = apmConnector(ctx, merchant);
  return {
    capture: (p, amount) => connector.capture({ reference: reference(p), amount, currency: p.currency }),
    refund: (p, amount) => connector.refund({ reference: reference(p), amount, currency: p.currency }),
    reverse: (p) => connector.reverse({ reference: reference(p), amount: p.amount, currency: p.currency }),
    void: (p) => connector.void({ reference: reference(p) }),
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
