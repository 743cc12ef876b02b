/**
 * What every channel's callback builder shares: the event it reports, the builder's interface, and the optional
 * fields Protocol Mapping enables (also sent in status answers). A leaf: the builders and index.ts import it and
 * it imports none of them, so the builders and their registry do not import each other in a circle.
 */
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Payment, PayerInfo, TransactionStatus, TransactionType } from '../../domain/model/payment.ts';
import type { CallbackValue } from '../../domain/signatures.ts';
import { DOCUMENT_BRANDS, paymentDocumentOf, paymentMethodOf } from '../apm/details.ts';
import { formatAmount } from '../../domain/money.ts';
import type { PaymentMoney } from '../../domain/ledger/postings.ts';

/** A change the merchant hears about. */
export interface PaymentEvent {
  transId: string;
  type: TransactionType;
  status: TransactionStatus;
  /** Amount of this transaction (partial capture or refund), when it differs from the order amount. */
  amount?: bigint;
  reason?: string;
  /** A chargeback's dates and reason code (the CHARGEBACK callback's chargeback_date, bank_date, reason_code). */
  chargeback?: { date: Date; bankDate: string; reasonCode: string };
  /**
   * The payment's fee and net amount after this change (the ledger's), for the optional `fee` field: set where
   * the merchant enabled it (wantsMoney), by the writer that has the change's entries, or read by notify().
   */
  money?: PaymentMoney;
}

/** Whether a merchant's callbacks (or status answers) carry the payment's fee and net amount. */
export const wantsMoney = (enabled: readonly string[] | undefined): boolean => enabled?.includes('fee') === true;

export interface CallbackBuilder {
  protocol: 'checkout' | 's2s';
  /** The URL this payment's callbacks go to, if any. */
  url(merchant: Merchant, payment: Payment): string | null;
  fields(merchant: Merchant, payment: Payment, event: PaymentEvent, now: Date): Record<string, CallbackValue> | undefined;
}

const THREE_DS_FIELDS = ['threeDSServerTransID', 'dsTransID', 'acsTransID', 'xid', 'transStatus', 'transStatusReason', 'eci', 'protocolVersion', 'authenticationFlow'] as const;

const CARD_ON_FILE_FIELDS = ['initiator', 'source', 'sequence'] as const;

/** Payer attributes, each switched on separately in Protocol Mapping (all off by default): payer_<key in snake_case>, in this order. */
const PAYER_KEYS = [
  'firstName', 'lastName', 'birthDate', 'address', 'address2', 'houseNumber', 'country', 'state', 'city', 'district', 'zip', 'email', 'phone', 'phoneCountryCode', 'ip',
] as const satisfies readonly (keyof PayerInfo)[];

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A payer attribute; a payer known only by the joined name has their first and last name from it. */
function payerAttribute(payer: PayerInfo, key: (typeof PAYER_KEYS)[number]): string | undefined {
  if (key === 'firstName') return payer.firstName ?? payer.name?.split(' ')[0];
  if (key === 'lastName') return payer.lastName ?? payer.name?.split(' ').slice(1).join(' ');
  return payer[key];
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
export function optionalFields(enabled: readonly string[], payment: Payment, emptyWhenMissing: boolean, money?: PaymentMoney): Record<string, CallbackValue> {
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
  for (const key of PAYER_KEYS) {
    const field = `payer_${snakeCase(key)}`;
    const value = on.has(field) ? payerAttribute(payment.payer, key) : undefined;
    if (value) out[field] = value;
  }
  if (money && on.has('fee')) {
    out.fee = formatAmount(money.fee, payment.currency);
    out.net_amount = formatAmount(money.net, payment.currency);
  }
  return out;
}
