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
import type { CallbackBuilder, PaymentEvent } from './index.ts';
import { consentExtendedData, consentFields, consentOf } from '../../domain/recurring-consent.ts';

const THREE_DS_FIELDS = ['threeDSServerTransID', 'dsTransID', 'acsTransID', 'xid', 'transStatus', 'transStatusReason', 'eci', 'protocolVersion', 'authenticationFlow'] as const;

const CARD_ON_FILE_FIELDS = ['initiator', 'source', 'sequence'] as const;

/** Payer attributes, each switched on separately in Protocol Mapping (all off by default). */
const PAYER_FIELDS: Readonly<Record<string, (p: Payment) => string | undefined>> = {
  payer_first_name: (p) => p.payer.firstName ?? p.payer.name?.split(' ')[0],
  payer_last_name: (p) => p.payer.lastName ?? p.payer.name?.split(' ').slice(1).join(' '),
  payer_birth_date: (p) => p.payer.birthDate,
  payer_address: (p) => p.payer.address,
  payer_address2: (p) => p.payer.address2,
  payer_house_number: (p) => p.payer.houseNumber,
  payer_country: (p) => p.payer.country,
  payer_state: (p) => p.payer.state,
  payer_city: (p) => p.payer.city,
  payer_district: (p) => p.payer.district,
  payer_zip: (p) => p.payer.zip,
  payer_email: (p) => p.payer.email,
  payer_phone: (p) => p.payer.phone,
  payer_phone_country_code: (p) => p.payer.phoneCountryCode,
  payer_ip: (p) => p.payer.ip,
};

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

/** The extended_data block: the acquirer's references of the payment, those it has. */
function extendedData(payment: Payment): Record<string, string> {
  const block: Record<string, string> = {};
  if (payment.details.approvalCode) block.approval_code = payment.details.approvalCode;
  if (payment.details.connectorRef) block.gateway_id = payment.details.connectorRef;
  if (payment.details.rrn) block.rrn = payment.details.rrn;
  return block;
}

/**
 * Optional fields that Protocol Mapping enables (domain/protocol-mapping.ts names them), shared by callbacks and
 * status lookups. `emptyWhenMissing`: callbacks send RRN and ARN empty when missing, status answers omit them.
 */
export function optionalFields(enabled: readonly string[], payment: Payment, emptyWhenMissing: boolean): Record<string, CallbackValue> {
  const out: Record<string, CallbackValue> = {};
  const on = new Set(enabled);
  const put = (key: string, value: string | undefined) => {
    if (value !== undefined && value !== '') out[key] = value;
    else if (emptyWhenMissing) out[key] = '';
  };
  if (on.has('3ds') && payment.threeDs) {
    for (const key of THREE_DS_FIELDS) {
      const value = payment.threeDs[key];
      if (value !== undefined) out[key] = value;
    }
  }
  if (on.has('rrn')) {
    put('RRN', payment.details.rrn);
    put('ARN', payment.details.arn);
  }
  // A wallet token passed on unread has no card brand, yet it is a payment document (virtual).
  if (on.has('brand') && (payment.details.brand || payment.details.wallet)) out.brand = DOCUMENT_BRANDS[paymentDocumentOf(payment)];
  if (on.has('payment_method')) out.payment_method = paymentMethodOf(payment);
  if (on.has('checkout_payment_method')) out.checkout_payment_method = paymentMethodOf(payment);
  if (on.has('card_expiration_date') && payment.details.cardExpiry) out.card_expiration_date = payment.details.cardExpiry;
  if (on.has('customer_ip') && payment.payer.ip) out.customer_ip = payment.payer.ip;
  if (on.has('extended_data')) {
    const block = extendedData(payment);
    if (Object.keys(block).length > 0) out.extended_data = block;
  }
  if (on.has('browser') && payment.details.browser) {
    for (const [key, value] of Object.entries(payment.details.browser)) out[`browser_${key}`] = value;
  }
  // Card-on-file discriminators, each switched on separately (off by default).
  const cof = payment.details.cof as Record<string, string> | undefined;
  for (const key of CARD_ON_FILE_FIELDS) if (on.has(key) && cof?.[key]) out[key] = cof[key];
  for (const [key, read] of Object.entries(PAYER_FIELDS)) if (on.has(key)) {
    const value = read(payment);
    if (value) out[key] = value;
  }
  return out;
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
    Object.assign(body, optionalFields(merchant.settings.callbackFields ?? [], payment, true));
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
