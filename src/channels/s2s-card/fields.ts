/**
 * Field rules the schemas cannot say (conditional card data, amounts in their currency, zero amounts, the
 * merchant's required payer fields) and the mapping of validated form fields to service inputs.
 */
import type { Merchant } from '../../domain/model/merchant.ts';
import type { PayerInfo } from '../../domain/model/payment.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { CardPaymentRequest, CardPayoutRequest, SentCard } from '../../services/s2s-card/card-payments.ts';
import type { WalletName } from '../../domain/wallets/wallet-flow.ts';
import { GatewayError, MESSAGES, type FieldError } from '../../domain/errors.ts';
import { parseAmount, type Money, type ParseResult } from '../../domain/money.ts';
import { cardNumberAccepted, isExpired, parseExpiry } from '../../domain/card.ts';
import type { Credit2CardRequest, DebitRequest, SaleRequest } from './schemas.ts';
import { BROWSER_ATTRIBUTES } from '../../domain/protocol-mapping.ts';

/** Fields before validation: anything the form parser produced. */
export type Loose = Record<string, unknown>;

const str = (b: Loose, key: string): string | undefined => (typeof b[key] === 'string' ? (b[key] as string) : undefined);

/** Amounts are stored as bigint minor units: anything a PostgreSQL bigint cannot hold is not a valid amount. */
const MAX_MINOR = 2n ** 63n - 1n;

function parseWireAmount(text: string, currency: string): ReturnType<typeof parseAmount> {
  const parsed = parseAmount(text, currency);
  return parsed.ok && parsed.money.minor > MAX_MINOR ? { ok: false, reason: 'format' } : parsed;
}
const blank = (field: string): FieldError => ({ field, message: MESSAGES.blank });

/** The parse of an amount sent in a currency; undefined when either field is missing. */
function sentAmount(b: Loose, field: string, currencyField: string): ParseResult | undefined {
  const text = str(b, field);
  const currency = str(b, currencyField);
  return text === undefined || currency === undefined ? undefined : parseWireAmount(text, currency);
}

/** A sent amount that does not parse, as a field error (the currency's when the currency is unknown). */
function amountError(parsed: ParseResult | undefined, field: string, currencyField: string): FieldError | undefined {
  if (parsed === undefined || parsed.ok) return undefined;
  return parsed.reason === 'currency' ? { field: currencyField, message: MESSAGES.notValid } : { field, message: MESSAGES.notValid };
}

/**
 * order_amount in order_currency, more than zero unless zero is allowed (authorization only, or the first
 * payment of a recurring chain: interface spec Endpoints rule 6).
 */
export function orderAmountRules(b: Loose, zeroAllowed: boolean): FieldError[] {
  const parsed = sentAmount(b, 'order_amount', 'order_currency');
  const error = amountError(parsed, 'order_amount', 'order_currency');
  if (error) return [error];
  if (parsed?.ok && parsed.money.minor === 0n && !zeroAllowed) return [{ field: 'order_amount', message: MESSAGES.notPositive }];
  return [];
}

const CARD_FIELDS: readonly string[] = ['card_number', 'card_exp_month', 'card_exp_year', 'card_cvv2'];

/** Card data, unless a card_token names the card; sent card data wins over a token (platform rule). */
export function cardRules(b: Loose, fields: readonly string[] = CARD_FIELDS): FieldError[] {
  const pan = str(b, 'card_number');
  if (pan === undefined && b.card_token !== undefined) return [];
  const errors = fields.filter((f) => b[f] === undefined).map(blank);
  if (pan !== undefined && /^[0-9]{13,19}$/.test(pan) && !cardNumberAccepted(pan)) errors.push({ field: 'card_number', message: MESSAGES.notLuhn });
  return errors;
}

/** schedule_start_date and payment_schedule_amount need a schedule_id (kept for the schedules issue). */
export function scheduleRules(b: Loose): FieldError[] {
  const errors: FieldError[] = [];
  if ((b.schedule_start_date !== undefined || b.payment_schedule_amount !== undefined) && b.schedule_id === undefined) errors.push(blank('schedule_id'));
  const amount = amountError(sentAmount(b, 'payment_schedule_amount', 'order_currency'), 'payment_schedule_amount', 'order_currency');
  if (amount?.field === 'payment_schedule_amount') errors.push(amount);
  return errors;
}

/** The rules that need the merchant or the clock: Protocol Mapping's required payer fields, card expiry. */
export function merchantRules(merchant: Merchant, b: Loose, now: Date): void {
  const required = merchant.settings.requiredPayerFields ?? [];
  const errors = required.filter((f) => f.startsWith('payer_') && b[f] === undefined).map(blank);
  const expiry = parseExpiry(str(b, 'card_exp_month') ?? '', str(b, 'card_exp_year') ?? '');
  if (str(b, 'card_number') !== undefined && expiry && isExpired(expiry, now)) errors.push({ field: 'card_exp_year', message: MESSAGES.notValid });
  if (errors.length > 0) throw GatewayError.invalid(errors);
}

/** An amount already validated by the rules above. */
export function money(text: string, currency: string): Money {
  const parsed = parseWireAmount(text, currency);
  if (!parsed.ok) throw GatewayError.field('order_amount', MESSAGES.notValid);
  return parsed.money;
}

/** The optional amount of a follow-up, in the payment's currency. */
export function followUpAmount(text: string | undefined, currency: string): bigint | undefined {
  if (text === undefined) return undefined;
  const parsed = parseWireAmount(text, currency);
  if (!parsed.ok) throw GatewayError.field('amount', MESSAGES.notValid);
  return parsed.money.minor;
}

/** The card a SALE or DEBIT names: a wallet's payment token, or a card as cardOf reads it. */
function sentCard(b: SaleRequest | DebitRequest): SentCard {
  return 'digital_wallet' in b && b.digital_wallet !== undefined ? { kind: 'wallet', wallet: b.digital_wallet as WalletName, paymentToken: b.payment_token ?? '' } : cardOf(b);
}

/** The card data sent, or the card_token (with a typed CVV) when no card data is sent. */
function cardOf(b: SaleRequest | DebitRequest | Credit2CardRequest): CardPayoutRequest['card'] {
  if (b.card_number === undefined) return { kind: 'token', token: b.card_token ?? '', ...('card_cvv2' in b && b.card_cvv2 ? { cvv: b.card_cvv2 } : {}) };
  const full = b as SaleRequest;
  return {
    kind: 'card',
    card: {
      pan: b.card_number,
      expMonth: (full.card_exp_month ?? '').padStart(2, '0'),
      expYear: full.card_exp_year ?? '',
      cvv: full.card_cvv2,
      holder: [b.payer_first_name, b.payer_last_name].filter(Boolean).join(' ') || undefined,
    },
  };
}

/** The order of a payment request, its amount in minor units. */
const orderOf = (b: SaleRequest | DebitRequest | Credit2CardRequest) => ({ id: b.order_id, amount: money(b.order_amount, b.order_currency), description: b.order_description });

/** A SALE or DEBIT's validated fields as the one typed request the service takes. */
export function cardPaymentRequest(merchant: Merchant, mids: readonly Mid[], action: 'SALE' | 'DEBIT', b: SaleRequest | DebitRequest, gatewayUrl: string): CardPaymentRequest {
  const browser = browserOf(b);
  return {
    merchant,
    mids,
    operation: action === 'SALE' ? 'purchase' : 'debit',
    auth: 'auth' in b && b.auth === 'Y',
    order: orderOf(b),
    card: sentCard(b),
    reqToken: b.req_token === 'Y',
    recurringInit: b.recurring_init === 'Y',
    payerPresent: b.payer_present !== 'N',
    payer: payerOf(b),
    ...(browser ? { browser } : {}),
    ...(b.schedule_id !== undefined ? {
      schedule: {
        id: b.schedule_id,
        ...(b.schedule_start_date !== undefined ? { startDate: b.schedule_start_date } : {}),
        ...(b.payment_schedule_amount !== undefined ? { amount: money(b.payment_schedule_amount, b.order_currency) } : {}),
      },
    } : {}),
    parameters: b.parameters,
    termUrl3ds: b.term_url_3ds,
    linkTarget: b.term_url_target,
    customData: b.custom_data,
    callbackUrl: b.callback_url,
    gatewayUrl,
  };
}

/** A CREDIT2CARD's validated fields as the service's request (a payout card is never a wallet's). */
export function cardPayoutRequest(merchant: Merchant, mids: readonly Mid[], b: Credit2CardRequest): CardPayoutRequest {
  return {
    merchant, mids, order: orderOf(b), card: cardOf(b), payer: payerOf(b), payee: payeeOf(b),
    parameters: b.parameters, customData: b.custom_data, callbackUrl: b.callback_url,
  };
}

/** payer_* form fields -> the stored payer (undefined values are dropped by JSON). */
export function payerOf(b: SaleRequest | DebitRequest | Credit2CardRequest): PayerInfo {
  return {
    email: b.payer_email,
    firstName: b.payer_first_name,
    lastName: b.payer_last_name,
    name: [b.payer_first_name, b.payer_last_name].filter(Boolean).join(' ') || undefined,
    ip: b.payer_ip,
    phone: b.payer_phone,
    birthDate: b.payer_birth_date,
    country: b.payer_country?.toUpperCase(),
    state: b.payer_state,
    city: b.payer_city,
    address: b.payer_address,
    address2: b.payer_address2,
    phoneCountryCode: b.payer_phone_country_code,
    zip: b.payer_zip,
    district: b.payer_district,
    houseNumber: b.payer_house_number,
  };
}

/** browser_* form fields -> the stored browser details (named without the prefix, as the hosted pages store them). */
export function browserOf(b: Loose): Record<string, string> | undefined {
  const entries = BROWSER_ATTRIBUTES.filter((name) => typeof b[name] === 'string').map((name) => [name.slice('browser_'.length), b[name] as string]);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** payee_* form fields of a CREDIT2CARD, kept with the payment for the connector and the admin side. */
export function payeeOf(b: Credit2CardRequest): Record<string, string> {
  return Object.fromEntries(Object.entries(b).filter(([k, v]) => k.startsWith('payee_') && typeof v === 'string')) as Record<string, string>;
}
