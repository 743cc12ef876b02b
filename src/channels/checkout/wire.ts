/**
 * What every Checkout JSON endpoint reads the same way: amounts as sent (the hash covers that string),
 * boolean flags in both spellings (D9), money in its currency, and the stored form of a session request.
 */
import { parseAmount, type Money } from '../../domain/money.ts';
import { GatewayError, MESSAGES, type FieldError } from '../../domain/errors.ts';
import type { SessionRequest as StoredSessionRequest } from '../../services/queries/sessions.ts';
import type { SessionRequest } from './schemas.ts';

/** The amount exactly as the merchant sent it: that string is what the hash covers. */
export const amountText = (value: string | number): string => (typeof value === 'number' ? String(value) : value);

/** `true`, `"true"` and `"Y"` are yes (decisions D9). */
export const flag = (value: boolean | string | undefined): boolean => value === true || value === 'Y' || value === 'true';

/** Amounts live as PostgreSQL bigint minor units: anything larger is not a valid amount. */
const MAX_MINOR = 2n ** 63n - 1n;

/** An amount in its currency, or the field error naming what is wrong with it. */
export function wireMoney(field: string, currencyField: string, text: string, currency: string): Money | FieldError {
  const parsed = parseAmount(text, currency);
  if (!parsed.ok) return { field: parsed.reason === 'currency' ? currencyField : field, message: MESSAGES.notValid };
  if (parsed.money.minor > MAX_MINOR) return { field, message: MESSAGES.notValid };
  return parsed.money;
}

export const isFieldError = (value: Money | FieldError): value is FieldError => 'field' in value;

/** wireMoney, throwing the D3 validation error. */
export function moneyOrThrow(field: string, currencyField: string, text: string, currency: string): Money {
  const money = wireMoney(field, currencyField, text, currency);
  if (isFieldError(money)) throw GatewayError.invalid([money]);
  return money;
}

/** The members a session and a hosted-fields session token share. */
type CommonSessionFields = Pick<SessionRequest,
  'parameters' | 'url_target' | 'req_token' | 'recurring_init' | 'auth' | 'vat_calc' | 'custom_data' | 'customer' | 'billing_address' |
  'payer_ip' | 'card_token' | 'schedule_id' | 'schedule_start_date' | 'payment_schedule_amount' | 'recurring_consent_required' | 'accountId'> & { locale?: string };

/** Where the payer goes, and what the page offers: the part that differs between the two kinds of session. */
type PagePart = Pick<StoredSessionRequest, 'methods' | 'successUrl' | 'cancelUrl' | 'expiryUrl' | 'errorUrl' | 'payee' | 'payeeFirstName' | 'payeeLastName' | 'payeeBillingAddress' | 'hostedFields'>;

/** The validated request as the session stores it. */
export function storedRequest(body: CommonSessionFields, page: PagePart): StoredSessionRequest {
  const tokens = body.card_token === undefined ? undefined : Array.isArray(body.card_token) ? body.card_token : [body.card_token];
  return {
    ...page,
    parameters: (body.parameters ?? {}) as StoredSessionRequest['parameters'],
    urlTarget: body.url_target,
    ...(body.locale ? { locale: body.locale } : {}),
    reqToken: flag(body.req_token),
    recurringInit: flag(body.recurring_init),
    auth: flag(body.auth),
    vatCalc: flag(body.vat_calc),
    customData: body.custom_data,
    customer: body.customer && { name: body.customer.name, email: body.customer.email, birthDate: body.customer.birth_date, ip: body.customer.ip },
    billingAddress: body.billing_address as Record<string, string> | undefined,
    payerIp: body.payer_ip,
    cardTokens: tokens,
    scheduleId: body.schedule_id,
    scheduleStartDate: body.schedule_start_date,
    paymentScheduleAmount: body.payment_schedule_amount === undefined ? undefined : amountText(body.payment_schedule_amount),
    ...(flag(body.recurring_consent_required) ? { recurringConsentRequired: true } : {}),
    ...(body.accountId !== undefined ? { accountId: body.accountId } : {}),
  };
}
