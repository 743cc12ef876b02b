/**
 * S2S CARD callbacks (wire-reference 4.4): the fields of each action, signed with Formula 2 (Formula 6 for
 * CREDIT2CARD) over the same trans_id the merchant got in the synchronous answer, which is the payment id.
 * Empty values are not sent (the form encoder drops them), as the platform does.
 */
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Payment, TransactionStatus, TransactionType } from '../../domain/model/payment.ts';
import { s2sCard, s2sHash, type CallbackValue, type Term } from '../../domain/signatures.ts';
import { s2sStatus } from '../../domain/payment-state.ts';
import { formatAmount } from '../../domain/money.ts';
import { wireDate } from '../../domain/clock.ts';
import { isPayout as isPayoutOperation, tokenizesCard } from '../../domain/operations.ts';
import { payerRedirect } from '../s2s-card/payer-redirect.ts';
import { optionalFields, type CallbackBuilder, type PaymentEvent } from './fields.ts';

/** The action a follow-up transaction reports; everything else reports the action that created the payment. */
const FOLLOW_UP_ACTIONS: Partial<Record<TransactionType, string>> = {
  capture: 'CAPTURE',
  refund: 'CREDITVOID',
  reversal: 'CREDITVOID',
  void: 'VOID',
  chargeback: 'CHARGEBACK',
};

/** payments.operation -> the S2S action that created it. */
export const PAYMENT_ACTIONS: Readonly<Record<string, string>> = {
  purchase: 'SALE', debit: 'DEBIT', credit: 'CREDIT2CARD', recurring: 'RECURRING_SALE', recurring_debit: 'RECURRING_DEBIT',
};

/** Which of the optional fields each action's callback carries (wire-reference 4.4 and the platform's tables). */
interface CallbackShape {
  date: 'trans_date' | 'creditvoid_date';
  descriptor: boolean;
  amount: boolean;
  currency: boolean;
  /** card, card_expiration_date, card_token, recurring and redirect fields: the payment-creating actions. */
  card: boolean;
}

const SHAPES: Readonly<Record<string, CallbackShape>> = {
  SALE: { date: 'trans_date', descriptor: true, amount: true, currency: true, card: true },
  DEBIT: { date: 'trans_date', descriptor: true, amount: true, currency: true, card: true },
  // Charges of a recurring chain, the schedule's own and RETRY of a declined one among them (wire-reference 4.4).
  RECURRING_SALE: { date: 'trans_date', descriptor: true, amount: true, currency: true, card: true },
  RECURRING_DEBIT: { date: 'trans_date', descriptor: true, amount: true, currency: true, card: true },
  CREDIT2CARD: { date: 'trans_date', descriptor: false, amount: false, currency: false, card: false },
  CAPTURE: { date: 'trans_date', descriptor: true, amount: true, currency: true, card: false },
  CREDITVOID: { date: 'creditvoid_date', descriptor: false, amount: true, currency: false, card: false },
  VOID: { date: 'trans_date', descriptor: false, amount: false, currency: false, card: false },
  CHARGEBACK: { date: 'trans_date', descriptor: false, amount: true, currency: false, card: false },
};

const RESULTS: Readonly<Record<TransactionStatus, string>> = { success: 'SUCCESS', fail: 'DECLINED', waiting: 'WAITING', undefined: 'UNDEFINED' };

type Read = (m: Merchant, p: Payment) => string | undefined;

/** "Add Extended Data to Callback" fields the merchant's Protocol Mapping may switch on: setting -> wire names. */
const EXTENDED: Readonly<Record<string, Readonly<Record<string, Read>>>> = {
  rrn: { rrn: (_m, p) => p.details.rrn, arn: (_m, p) => p.details.arn },
  approval_code: { approval_code: (_m, p) => p.details.approvalCode },
  gateway_id: { gateway_id: (_m, p) => p.details.connectorRef },
  merchant_name: { merchant_name: (m) => m.name },
};

export const isPayout = (p: Payment): boolean => isPayoutOperation(p.operation);

/** The descriptor the cardholder sees: the MID's, kept with the payment when it was routed, else the merchant's name. */
export const descriptorOf = (merchant: Merchant, payment?: Pick<Payment, 'details'>): string =>
  typeof payment?.details.descriptor === 'string' ? payment.details.descriptor : merchant.name;

/** Formula 2, or Formula 6 for a CREDIT2CARD payment, for the payment's own trans_id. */
export function transHashTerms(payment: Payment, password: string): Term[] {
  const card = payment.details.first6Last4 ?? '';
  return isPayout(payment) ? s2sCard.f6(password, payment.id, card) : s2sCard.f2(payment.payer.email ?? '', password, payment.id, card);
}

function actionOf(payment: Payment, type: TransactionType): string {
  return FOLLOW_UP_ACTIONS[type] ?? PAYMENT_ACTIONS[payment.operation] ?? 'SALE';
}

function resultOf(event: PaymentEvent): string {
  if (event.type === '3ds' || event.type === 'redirect') return 'REDIRECT';
  return RESULTS[event.status];
}

/** Card facts and tokens of the payment-creating actions (a debit carries its card_token in every callback). */
function cardFields(payment: Payment): Record<string, CallbackValue> {
  const out: Record<string, CallbackValue> = {};
  if (payment.details.cardMask) out.card = payment.details.cardMask;
  if (payment.details.cardExpiry) out.card_expiration_date = payment.details.cardExpiry;
  if (payment.cardToken && (tokenizesCard(payment.operation) || payment.details.reqToken)) out.card_token = payment.cardToken;
  for (const key of ['recurring_token', 'schedule_id', 'first_recurring_date'] as const) {
    const value = payment.details[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}

function redirectFields(payment: Payment): Record<string, CallbackValue> {
  const base = payment.details.gatewayUrl;
  const redirect = typeof base === 'string' ? payerRedirect(base, payment) : undefined;
  return redirect ? { redirect_url: redirect.url, redirect_params: redirect.params, redirect_method: redirect.method } : {};
}

function extendedFields(merchant: Merchant, payment: Payment, event: PaymentEvent): Record<string, CallbackValue> {
  const enabled = merchant.settings.callbackFields ?? [];
  const out: Record<string, string> = {};
  for (const key of enabled) {
    for (const [wire, read] of Object.entries(EXTENDED[key] ?? {})) {
      const value = read(merchant, payment);
      if (value) out[wire] = value;
    }
  }
  // 3-D Secure, browser and payer attributes share their names with Checkout; RRN is spelled per protocol.
  return Object.assign(out, optionalFields(enabled.filter((k) => k !== 'rrn'), payment, false, event.money));
}

export const s2sCardCallback: CallbackBuilder = {
  protocol: 's2s',
  // A payment created with neither callback_url nor a notification URL never gets callbacks (wire-reference 2.2).
  url: (merchant, payment) => payment.callbackUrl ?? (payment.details.noCallbacks === true ? null : merchant.notificationUrl),
  fields(merchant, payment, event, now) {
    const action = actionOf(payment, event.type);
    const body: Record<string, CallbackValue> = {
      action,
      result: resultOf(event),
      status: s2sStatus(payment.status),
      order_id: payment.orderId,
      trans_id: payment.id,
      hash: s2sHash(transHashTerms(payment, merchant.password), merchant.digest),
    };
    const shape = SHAPES[action] ?? SHAPES.SALE!;
    body[shape.date] = wireDate(now);
    if (shape.descriptor) body.descriptor = descriptorOf(merchant, payment);
    if (shape.amount) body.amount = formatAmount(event.amount ?? payment.amount, payment.currency);
    if (shape.currency) body.currency = payment.currency;
    if (shape.card) Object.assign(body, cardFields(payment), redirectFields(payment));
    if (event.chargeback) Object.assign(body, { chargeback_date: wireDate(event.chargeback.date), bank_date: event.chargeback.bankDate, reason_code: event.chargeback.reasonCode });
    if (event.status === 'fail') body.decline_reason = event.reason ?? payment.declineReason ?? 'Declined by processing';
    if (payment.customData) body.custom_data = toCallbackValue(payment.customData);
    return Object.assign(body, extendedFields(merchant, payment, event));
  },
};

function toCallbackValue(value: unknown): CallbackValue {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(toCallbackValue);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCallbackValue(v)]));
  return String(value);
}
