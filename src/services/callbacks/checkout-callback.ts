/**
 * Checkout callbacks and return-URL parameters (wire-reference 4.3, interface spec "Callback and
 * status-response fields"). The hash is the callback formula over the same strings the body carries.
 */
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { checkout, checkoutHash, type CallbackValue } from '../../domain/signatures.ts';
import { formatAmount } from '../../domain/money.ts';
import { wireDate } from '../../domain/clock.ts';
import { tokenizesCard } from '../../domain/operations.ts';
import { DOCUMENT_BRANDS, paymentDocumentOf, paymentMethodOf } from '../apm/details.ts';
import { optionalFields, type CallbackBuilder, type PaymentEvent } from './fields.ts';
import { consentExtendedData, consentFields, consentOf } from '../../domain/recurring-consent.ts';

/** The fields the merchant needs to verify the hash, plus the hash itself. */
export function signedOrderFields(merchant: Merchant, payment: Payment): { id: string; order_number: string; order_amount: string; order_currency: string; order_description: string; hash: string } {
  const fields = {
    id: payment.id,
    order_number: payment.orderId,
    order_amount: formatAmount(payment.amount, payment.currency),
    order_currency: payment.currency,
    order_description: payment.description,
  };
  const hash = checkoutHash(
    checkout.callback({ id: fields.id, orderNumber: fields.order_number, amount: fields.order_amount, currency: fields.order_currency, description: fields.order_description }),
    merchant.password,
    merchant.digest,
  );
  return { ...fields, hash };
}

/**
 * The recurring consent's fields: always (like the chain's own fields), whatever Protocol Mapping says; a declined
 * consent joins the extended_data block (extended_data[consent_state]=ignored on the wire).
 */
export function withConsent<T extends Record<string, unknown>>(body: T, payment: Payment): T {
  const consent = consentOf(payment.details);
  const extra = consentExtendedData(consent);
  const out: Record<string, unknown> = Object.assign(body, consentFields(consent));
  if (Object.keys(extra).length > 0) out.extended_data = { ...(out.extended_data as Record<string, string> | undefined), ...extra };
  return body;
}

/** order_status of a Checkout callback: the payment status, with decline spelled as the docs do. */
function orderStatus(payment: Payment): string {
  return payment.status;
}

export const checkoutCallback: CallbackBuilder = {
  protocol: 'checkout',
  url: (merchant) => merchant.notificationUrl,
  fields(merchant: Merchant, payment: Payment, event: PaymentEvent, now: Date): Record<string, CallbackValue> {
    const tokenized = tokenizesCard(payment.operation);
    const body: Record<string, CallbackValue> = {
      ...signedOrderFields(merchant, payment),
      payment_id: payment.id,
      trans_id: event.transId,
      order_id: payment.orderId,
      order_status: orderStatus(payment),
      type: event.type,
      status: event.status,
      date: wireDate(now),
      customer_ip: payment.payer.ip ?? '',
    };
    if (event.status === 'fail') body.reason = event.reason ?? payment.declineReason ?? 'Declined by processing';
    if (event.amount !== undefined) body.amount = formatAmount(event.amount, payment.currency);
    if (payment.details.cardMask) body.card = payment.details.cardMask;
    if (payment.details.cardExpiry) body.card_expiration_date = payment.details.cardExpiry;
    // A debit carries card_token in every callback, including the 3ds step (6.7.0 fix).
    if (payment.cardToken && (tokenized || payment.details.reqToken)) body.card_token = payment.cardToken;
    if (payment.payer.name) body.customer_name = payment.payer.name;
    if (payment.payer.email) body.customer_email = payment.payer.email;
    if (payment.payer.country) body.customer_country = payment.payer.country;
    for (const key of ['recurring_init_trans_id', 'recurring_token', 'schedule_id', 'first_recurring_date'] as const) {
      const value = payment.details[key];
      if (typeof value === 'string' && value) body[key] = value;
    }
    if (payment.customData) body.custom_data = toCallbackValue(payment.customData);
    if (merchant.settings.checkoutPaymentMethod) body.checkout_payment_method = paymentMethodOf(payment);
    Object.assign(body, optionalFields(merchant.settings.callbackFields ?? [], payment, true, event.money));
    return withConsent(body, payment);
  },
};

/** Query parameters appended to the merchant's success or cancel URL. */
export function returnQuery(merchant: Merchant, payment: Payment, transId: string): URLSearchParams {
  const { hash } = signedOrderFields(merchant, payment);
  const query = new URLSearchParams({ payment_id: payment.id, trans_id: transId, order_id: payment.orderId, hash });
  const extra = merchant.settings.returnParams ?? [];
  if (extra.includes('payment_method')) query.set('payment_method', paymentMethodOf(payment));
  // The same value as in callbacks and status: the payment document's brand (payment_document_card, ...).
  if (extra.includes('brand') && payment.details.brand) query.set('brand', DOCUMENT_BRANDS[paymentDocumentOf(payment)]);
  if (merchant.settings.checkoutPaymentMethod || extra.includes('checkout_payment_method')) query.set('checkout_payment_method', paymentMethodOf(payment));
  return query;
}

/** Appends query parameters to a URL that may already have some. */
export function withQuery(url: string, query: URLSearchParams): string {
  const parsed = new URL(url);
  for (const [key, value] of query) parsed.searchParams.set(key, value);
  return parsed.toString();
}

function toCallbackValue(value: unknown): CallbackValue {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(toCallbackValue);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCallbackValue(v)]));
  return String(value);
}
