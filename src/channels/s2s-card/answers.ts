/**
 * The S2S CARD answer bodies (wire-reference 3.2): which fields each action returns, in the platform's
 * order, with amounts as canonical decimal strings and dates as `YYYY-MM-DD hh:mm:ss`.
 */
import type { PaymentMoney } from '../../domain/ledger/postings.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Payment, Transaction } from '../../domain/model/payment.ts';
import type { PaymentStep } from '../../services/attempt/index.ts';
import type { FollowUpResult } from '../../services/follow-ups.ts';
import { payerRedirect, type PayerRedirect } from '../../services/s2s-card/payer-redirect.ts';
import { descriptorOf } from '../../services/callbacks/s2s-card-callback.ts';
import { optionalFields } from '../../services/callbacks/fields.ts';
import { s2sStatus, type PaymentStatus } from '../../domain/payment-state.ts';
import { formatAmount } from '../../domain/money.ts';
import { wireDate } from '../../domain/clock.ts';
import type { Schedule } from '../../services/schedules/schedules.ts';

export type Answer = Record<string, unknown>;

/** How the answer is encoded: /v2/post lists redirect_params as [{name, value}]. */
export interface Dialect {
  v2: boolean;
  baseUrl: string;
}

/** The result a payment's status means right after the request that created it. */
const RESULT_BY_STATUS: Readonly<Record<PaymentStatus, string>> = {
  prepare: 'UNDEFINED', '3ds': 'REDIRECT', redirect: 'REDIRECT', pending: 'SUCCESS', settled: 'SUCCESS', decline: 'DECLINED',
  refund: 'SUCCESS', reversal: 'SUCCESS', void: 'SUCCESS', chargeback: 'SUCCESS',
};

const FOLLOW_UP_RESULTS = { approved: 'SUCCESS', declined: 'DECLINED', pending: 'UNDEFINED' } as const;

const DEFAULT_DECLINE_REASON = 'Declined by processing';

function redirectParams(redirect: PayerRedirect, v2: boolean): unknown {
  const entries = Object.entries(redirect.params);
  // The platform sends `[]` when there are no parameters, on both endpoints.
  if (v2 || entries.length === 0) return entries.map(([name, value]) => ({ name, value }));
  return redirect.params;
}

function recurringFields(p: Payment): Answer {
  const out: Answer = {};
  for (const key of ['recurring_token', 'schedule_id', 'first_recurring_date'] as const) {
    const value = p.details[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}

/** SALE, DEBIT and CREDIT2CARD: the payment as its first step left it. */
export function paymentAnswer(action: string, step: PaymentStep, merchant: Merchant, dialect: Dialect, opts: { cardToken: boolean; amounts: boolean }): Answer {
  const p = step.payment;
  const body: Answer = {
    action,
    result: step.kind === 'processing' ? 'UNDEFINED' : RESULT_BY_STATUS[p.status],
    status: s2sStatus(p.status),
    order_id: p.orderId,
    trans_id: p.id,
    trans_date: wireDate(p.updatedAt),
    descriptor: descriptorOf(merchant, p),
    ...recurringFields(p),
  };
  if (opts.cardToken && p.cardToken) body.card_token = p.cardToken;
  if (opts.amounts) Object.assign(body, { amount: formatAmount(p.amount, p.currency), currency: p.currency });
  if (p.status === 'decline') body.decline_reason = p.declineReason ?? DEFAULT_DECLINE_REASON;
  const redirect = step.kind === 'challenge' || step.kind === 'redirect' ? payerRedirect(dialect.baseUrl, p) : undefined;
  if (redirect) Object.assign(body, { redirect_url: redirect.url, redirect_params: redirectParams(redirect, dialect.v2), redirect_method: redirect.method });
  return body;
}

/** CAPTURE and VOID: the outcome of the follow-up and the payment status it left. */
export function followUpAnswer(action: 'CAPTURE' | 'VOID', r: FollowUpResult, merchant: Merchant, amount?: bigint): Answer {
  const p = r.payment;
  const body: Answer = {
    action,
    result: FOLLOW_UP_RESULTS[r.outcome.kind],
    status: s2sStatus(p.status),
    order_id: p.orderId,
    trans_id: p.id,
    trans_date: wireDate(p.updatedAt),
  };
  if (action === 'CAPTURE') Object.assign(body, { descriptor: descriptorOf(merchant, p), amount: formatAmount(amount ?? p.amount, p.currency), currency: p.currency });
  if (r.outcome.kind === 'declined') body.decline_reason = r.outcome.reason;
  return body;
}

/** CREDITVOID and RETRY answer only that the request was taken; the outcome comes by callback. */
export function acceptedAnswer(action: string, p: Payment): Answer {
  return { action, result: 'ACCEPTED', order_id: p.orderId, trans_id: p.id };
}

/** GET_TRANS_STATUS and GET_TRANS_STATUS_BY_ORDER. */
export function statusAnswer(action: string, p: Payment, merchant: Merchant, money?: PaymentMoney): Answer {
  const body: Answer = { action, result: 'SUCCESS', status: s2sStatus(p.status), order_id: p.orderId, trans_id: p.id };
  if (p.status === 'decline') body.decline_reason = p.declineReason ?? DEFAULT_DECLINE_REASON;
  Object.assign(body, recurringFields(p));
  // The documented misspelling too, for parsers written against the docs (D1).
  if (typeof body.schedule_id === 'string') body.shedule_id = body.schedule_id;
  const enabled = merchant.settings.statusFields ?? [];
  if (enabled.includes('card') && p.details.cardMask) {
    body.card = p.details.cardMask;
    if (p.details.cardExpiry) body.card_expiration_date = p.details.cardExpiry;
  }
  return Object.assign(body, optionalFields(enabled, p, false, money));
}

/** GET_TRANS_DETAILS: the status plus payer, amount, masked card and every transaction of the payment. */
export function detailsAnswer(p: Payment, merchant: Merchant, transactions: readonly Transaction[], money?: PaymentMoney): Answer {
  const { action: _action, result: _result, ...status } = statusAnswer('GET_TRANS_DETAILS', p, merchant, money);
  const name = [p.payer.firstName, p.payer.lastName].filter(Boolean).join(' ') || p.payer.name;
  return {
    action: 'GET_TRANS_DETAILS',
    result: 'SUCCESS',
    ...status,
    ...(name ? { name } : {}),
    ...(p.payer.email ? { mail: p.payer.email } : {}),
    ...(p.payer.ip ? { ip: p.payer.ip } : {}),
    amount: formatAmount(p.amount, p.currency),
    currency: p.currency,
    ...(p.details.cardMask ? { card: p.details.cardMask } : {}),
    transactions: transactions.map((t) => ({ date: wireDate(t.createdAt), type: t.type, status: t.status, amount: formatAmount(t.amount, p.currency) })),
  };
}

/** The schedule actions that change something: PAUSE, RUN, DELETE, UPDATE, DESCHEDULE (CREATE adds schedule_id). */
export function scheduleActionAnswer(action: string, scheduleId?: string): Answer {
  return { action, result: 'SUCCESS', ...(scheduleId !== undefined ? { schedule_id: scheduleId } : {}) };
}

/** The delay's own parameters, present only for the kind that uses them. */
function delayFields(delay: Schedule['rule']['delay']): Answer {
  if (delay.kind === 'delay_by_interval') return { first_payment_interval_length: delay.interval.length, first_payment_interval_unit: delay.interval.unit };
  if (delay.kind === 'day_of_week') return { first_payment_day_of_week: delay.weekday };
  if (delay.kind === 'day_of_month') return { first_payment_day_of_month: delay.day };
  return {};
}

/**
 * SCHEDULE_INFO: the documented fields in their order (delays is retired: null), then the 6.7.0 ones. The docs
 * show no `result`; it is added as every other answer has one, which no parser of the documented fields minds.
 */
export function scheduleInfoAnswer(action: string, s: Schedule): Answer {
  const { rule } = s;
  return {
    action,
    result: 'SUCCESS',
    schedule_id: s.id,
    name: s.name,
    interval_length: rule.interval.length,
    interval_unit: rule.interval.unit,
    day_of_month: rule.dayOfMonth ?? null,
    payments_count: rule.paymentsCount,
    delays: null,
    paused: s.paused ? 'Y' : 'N',
    delayed_first_payment: rule.delay.kind,
    ...delayFields(rule.delay),
  };
}
