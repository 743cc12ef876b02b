/**
 * The S2S APM answer bodies (wire-reference 3.3 and the platform's S2S APM document): which fields each
 * action returns, in the platform's order, amounts as canonical decimal strings, dates `YYYY-MM-DD hh:mm:ss`.
 */
import type { PaymentMoney } from '../../domain/ledger/postings.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Payment } from '../../domain/model/payment.ts';
import type { ApmStep } from '../../services/apm/payments.ts';
import type { ApmFollowUpResult } from '../../services/apm/follow-ups.ts';
import { apmS2sStatus } from '../../services/apm/details.ts';
import { apmRedirect } from '../../services/apm/payer-redirect.ts';
import { descriptorOf } from '../../services/apm/callback.ts';
import { optionalFields } from '../../services/callbacks/fields.ts';
import { formatAmount } from '../../domain/money.ts';
import { wireDate } from '../../domain/clock.ts';

export type Answer = Record<string, unknown>;

const DEFAULT_DECLINE_REASON = 'Declined by processing';
const FOLLOW_UP_RESULTS = { approved: 'SUCCESS', declined: 'DECLINED', pending: 'UNDEFINED' } as const;

function resultOf(step: ApmStep): string {
  if (step.kind === 'processing') return 'UNDEFINED';
  if (step.kind === 'payer') return 'REDIRECT';
  return step.payment.status === 'decline' ? 'DECLINED' : 'SUCCESS';
}

const amounts = (p: Payment): Answer => ({ amount: formatAmount(p.amount, p.currency), currency: p.currency });

/** SALE: decided at once (SUCCESS, DECLINED), the payer's turn (REDIRECT) or no answer yet (UNDEFINED). */
export function saleAnswer(step: ApmStep, merchant: Merchant, baseUrl: string): Answer {
  const p = step.payment;
  const body: Answer = {
    action: 'SALE',
    result: resultOf(step),
    status: apmS2sStatus(p),
    order_id: p.orderId,
    trans_id: p.id,
    trans_date: wireDate(p.updatedAt),
  };
  const redirect = step.kind === 'payer' ? apmRedirect(baseUrl, p) : undefined;
  if (redirect) {
    // The platform sends `[]` when a redirect has no parameters.
    const params = Object.keys(redirect.params).length > 0 ? redirect.params : [];
    Object.assign(body, { redirect_url: redirect.url, redirect_params: params, redirect_method: redirect.method });
  } else {
    body.descriptor = descriptorOf(merchant);
  }
  if (p.status === 'decline') body.decline_reason = p.declineReason ?? DEFAULT_DECLINE_REASON;
  return Object.assign(body, amounts(p));
}

export function captureAnswer(r: ApmFollowUpResult, merchant: Merchant, amount: bigint): Answer {
  const p = r.payment;
  const body: Answer = {
    action: 'CAPTURE',
    result: FOLLOW_UP_RESULTS[r.outcome.kind],
    status: apmS2sStatus(p),
    order_id: p.orderId,
    trans_id: p.id,
    trans_date: wireDate(p.updatedAt),
    descriptor: descriptorOf(merchant),
    amount: formatAmount(amount, p.currency),
    currency: p.currency,
  };
  if (r.outcome.kind === 'declined') body.decline_reason = r.outcome.reason;
  return body;
}

export function voidAnswer(r: ApmFollowUpResult): Answer {
  const p = r.payment;
  const body: Answer = { action: 'VOID', result: FOLLOW_UP_RESULTS[r.outcome.kind], status: apmS2sStatus(p), order_id: p.orderId, trans_id: p.id, trans_date: wireDate(p.updatedAt) };
  if (r.outcome.kind === 'declined') body.decline_reason = r.outcome.reason;
  return body;
}

/** CREDITVOID answers only that the request was taken; the outcome comes by callback. */
export function acceptedAnswer(action: string, p: Payment): Answer {
  return { action, result: 'ACCEPTED', order_id: p.orderId, trans_id: p.id };
}

export function payoutAnswer(p: Payment, settled: boolean): Answer {
  const result = !settled ? 'UNDEFINED' : p.status === 'decline' ? 'DECLINED' : 'SUCCESS';
  const body: Answer = { action: 'CREDIT2VIRTUAL', result, status: apmS2sStatus(p), order_id: p.orderId, trans_id: p.id, trans_date: wireDate(p.updatedAt) };
  if (p.status === 'decline') body.decline_reason = p.declineReason ?? DEFAULT_DECLINE_REASON;
  return Object.assign(body, amounts(p));
}

/** GET_TRANS_STATUS, with the optional fields the merchant's Protocol Mapping enables for status answers. */
export function statusAnswer(p: Payment, merchant?: Merchant, money?: PaymentMoney): Answer {
  const body: Answer = { action: 'GET_TRANS_STATUS', result: 'SUCCESS', status: apmS2sStatus(p), order_id: p.orderId, trans_id: p.id };
  if (p.status === 'decline') body.decline_reason = p.declineReason ?? DEFAULT_DECLINE_REASON;
  return merchant ? Object.assign(body, optionalFields(merchant.settings.statusFields ?? [], p, false, money)) : body;
}
