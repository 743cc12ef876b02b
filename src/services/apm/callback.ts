/**
 * S2S APM callbacks (wire-reference 4.5): action, result, status, order_id, trans_id and hash always; the
 * date, descriptor, amount, currency, decline reason, redirect data and custom_data as the action has them.
 * Signed with the platform's APM callback signature (every value reversed, sorted by key, joined, with the
 * password); CREDIT2VIRTUAL callbacks with their own formula over trans_id, order_id and status.
 * Empty values are not sent (the form encoder drops them), and an empty value adds nothing to the hash either.
 */
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Payment, TransactionStatus, TransactionType } from '../../domain/model/payment.ts';
import { apmCallbackHash, apmCredit2VirtualCallback, type CallbackValue } from '../../domain/signatures.ts';
import { formatAmount } from '../../domain/money.ts';
import { wireDate } from '../../domain/clock.ts';
import { optionalFields as sharedOptionalFields, type CallbackBuilder, type PaymentEvent } from '../callbacks/fields.ts';
import { apmS2sStatus } from './details.ts';
import { apmRedirect } from './payer-redirect.ts';

/** The action each transaction type reports; the payment-creating ones by the payment's operation. */
const FOLLOW_UP_ACTIONS: Partial<Record<TransactionType, string>> = { capture: 'CAPTURE', refund: 'CREDITVOID', reversal: 'CREDITVOID', void: 'VOID', chargeback: 'CHARGEBACK' };
const CREATING_ACTIONS: Readonly<Record<string, string>> = { purchase: 'SALE', credit: 'CREDIT2VIRTUAL' };

const RESULTS: Readonly<Record<TransactionStatus, string>> = { success: 'SUCCESS', fail: 'DECLINED', waiting: 'WAITING', undefined: 'UNDEFINED' };

/** Which optional fields each action's callback carries (the platform's callback tables). */
const SHAPES: Readonly<Record<string, { date: 'trans_date' | 'creditvoid_date'; descriptor: boolean; amount: boolean; currency: boolean }>> = {
  SALE: { date: 'trans_date', descriptor: true, amount: true, currency: true },
  CAPTURE: { date: 'trans_date', descriptor: true, amount: true, currency: true },
  CREDITVOID: { date: 'creditvoid_date', descriptor: false, amount: true, currency: false },
  VOID: { date: 'trans_date', descriptor: false, amount: false, currency: false },
  CREDIT2VIRTUAL: { date: 'trans_date', descriptor: false, amount: true, currency: true },
  CHARGEBACK: { date: 'trans_date', descriptor: false, amount: true, currency: false },
};

/** "Add Extended Data to Callback" fields the merchant's Protocol Mapping may switch on. */
const EXTENDED: Readonly<Record<string, (m: Merchant, p: Payment) => string | undefined>> = {
  // The connector that took the payment (kept at initiation); payments from before that was kept went to the sandbox.
  connector_name: (_m, p) => (typeof p.details.connectorName === 'string' ? p.details.connectorName : 'sandbox-apm'),
  gateway_id: (_m, p) => (typeof p.details.connectorRef === 'string' ? p.details.connectorRef : undefined),
  merchant_name: (m) => m.name,
};

export const descriptorOf = (merchant: Merchant): string => merchant.name;

export function apmAction(payment: Payment, type: TransactionType): string {
  return FOLLOW_UP_ACTIONS[type] ?? CREATING_ACTIONS[payment.operation] ?? 'SALE';
}

function toCallbackValue(value: unknown): CallbackValue {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(toCallbackValue);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCallbackValue(v)]));
  return String(value);
}

function optionalFields(merchant: Merchant, payment: Payment, action: string, event: PaymentEvent, now: Date): Record<string, CallbackValue> {
  const shape = SHAPES[action] ?? SHAPES.SALE!;
  const out: Record<string, CallbackValue> = { [shape.date]: wireDate(now) };
  if (shape.descriptor) out.descriptor = descriptorOf(merchant);
  if (shape.amount) out.amount = formatAmount(event.amount ?? payment.amount, payment.currency);
  if (shape.currency) out.currency = payment.currency;
  if (event.status === 'fail') out.decline_reason = event.reason ?? payment.declineReason ?? 'Declined by processing';
  const redirect = event.type === 'redirect' && typeof payment.details.gatewayUrl === 'string' ? apmRedirect(payment.details.gatewayUrl, payment) : undefined;
  if (redirect) Object.assign(out, { redirect_url: redirect.url, redirect_params: redirect.params, redirect_method: redirect.method });
  if (payment.customData) out.custom_data = toCallbackValue(payment.customData);
  const enabled = merchant.settings.callbackFields ?? [];
  for (const key of enabled) {
    const value = EXTENDED[key]?.(merchant, payment);
    if (value) out[key] = value;
  }
  // The fields S2S APM shares with the other protocols (brand, payment_method, payer attributes...): absent when empty.
  return Object.assign(out, sharedOptionalFields(enabled, payment, false, event.money));
}

export const s2sApmCallback: CallbackBuilder = {
  protocol: 's2s',
  // A payment created with neither callback_url nor a notification URL never gets callbacks (wire-reference 2.2).
  url: (merchant, payment) => payment.callbackUrl ?? (payment.details.noCallbacks === true ? null : merchant.notificationUrl),
  fields(merchant, payment, event, now) {
    const action = apmAction(payment, event.type);
    const head = {
      action,
      result: event.type === 'redirect' ? 'REDIRECT' : RESULTS[event.status],
      status: apmS2sStatus(payment),
      order_id: payment.orderId,
      trans_id: payment.id,
    };
    const rest = optionalFields(merchant, payment, action, event, now);
    const hash = action === 'CREDIT2VIRTUAL'
      ? apmCredit2VirtualCallback({ transId: head.trans_id, orderId: head.order_id, status: head.status }, merchant.password, merchant.digest)
      : apmCallbackHash({ ...head, ...rest }, merchant.password, merchant.digest);
    return { ...head, hash, ...rest };
  },
};
