/** Opening a hosted Checkout session: the session and its first payment (status prepare) in one write. */
import type { Sql } from '../store/database.ts';
import type { ServiceContext } from './context.ts';
import type { Merchant } from '../domain/model/merchant.ts';
import type { Mid } from '../domain/model/mid.ts';
import type { PayerInfo, PaymentDetails } from '../domain/model/payment.ts';
import { insertSessionWithPayment, type SessionRequest } from '../store/sessions-repo.ts';
import { GatewayError, MESSAGES, type FieldError } from '../domain/errors.ts';
import { newId, newToken } from '../domain/ids.ts';
import { intentOf, isHoldable, isPayout } from '../domain/operations.ts';
import { formatAmount, type Money } from '../domain/money.ts';
import { findMethod } from '../domain/methods/catalog.ts';
import { stateRequired } from '../domain/countries.ts';
import { prepareSessionParameters, validateSessionParameters } from '../domain/methods/validate.ts';
import { routeMid } from './attempt/index.ts';
import { parseAmount, formatAmount as canonicalAmount } from '../domain/money.ts';
import { markScheduleUsed, scheduleForRequest } from './schedules/subscriptions.ts';
import { cardOnFileOf } from './recurring/card-on-file.ts';
import { isCountry, isEmail } from '../domain/methods/formats.ts';

export interface OpenSessionInput {
  operation: 'purchase' | 'debit' | 'credit';
  order: { number: string; amount: Money; description: string };
  request: SessionRequest;
  sessionExpiryMinutes: number;
  payer: PayerInfo;
}

export interface OpenedSession {
  sessionId: string;
  paymentId: string;
  redirectUrl: string;
  /** Requested methods that were skipped because the gateway does not serve them. */
  warnings: string[];
}

export const DEFAULT_SESSION_EXPIRY_MINUTES = 60;

/** The session's own fields by Checkout path, for catalog members with source 'request'. */
function requestFields({ request: r, order }: OpenSessionInput): Record<string, unknown> {
  const billing = Object.entries(r.billingAddress ?? {}).map(([k, v]) => [`billing_address.${k}`, v]);
  return {
    'order.number': order.number,
    'order.amount': formatAmount(order.amount.minor, order.amount.currency),
    'order.currency': order.amount.currency,
    'order.description': order.description,
    'customer.name': r.customer?.name,
    'customer.email': r.customer?.email,
    // A payout's recipient (mobile-money payout reads them as request fields).
    payee_first_name: r.payeeFirstName ?? payeeText(r.payee, 'first_name'),
    payee_last_name: r.payeeLastName ?? payeeText(r.payee, 'last_name'),
    payee_email: payeeText(r.payee, 'email') ?? r.customer?.email,
    ...Object.fromEntries(billing),
    success_url: r.successUrl,
    cancel_url: r.cancelUrl,
    error_url: r.errorUrl,
  };
}

/** A method the hosted Checkout can offer for this operation. */
function servesMethod(key: string, operation: OpenSessionInput['operation']): boolean {
  const method = findMethod(key);
  return method !== undefined && method.operations.includes(operation) && (method.channels ?? ['checkout']).includes('checkout');
}

/**
 * Methods the gateway does not serve are skipped (the platform's SDK examples name methods of the whole family,
 * `om-wallet`, `naps`), with their parameters; the session is refused only when none is left, naming each.
 */
function withServedMethods(input: OpenSessionInput): { input: OpenSessionInput; warnings: string[] } {
  const { methods, parameters } = input.request;
  const skipped = methods.map((key, i) => ({ key, i })).filter(({ key }) => !servesMethod(key, input.operation));
  if (skipped.length === 0 || skipped.length === methods.length) return { input, warnings: [] };
  const served = methods.filter((key) => servesMethod(key, input.operation));
  const kept = Object.fromEntries(Object.entries(parameters).filter(([key]) => !skipped.some((s) => s.key === key)));
  const warnings = skipped.map(({ key, i }) => `methods[${i}]: ${key} is not available and was skipped.`);
  return { input: { ...input, request: { ...input.request, methods: served, parameters: kept } }, warnings };
}

/** Business rules beyond the schema: zero amounts, auth only on purchase, known methods and their parameters. */
function checkRules(input: OpenSessionInput): FieldError[] {
  const errors: FieldError[] = [];
  const { request, order, operation } = input;
  const zeroAllowed = request.recurringInit || (isHoldable(operation) && request.auth);
  if (order.amount.minor < 0n || (order.amount.minor === 0n && !zeroAllowed)) errors.push({ field: 'order.amount', message: MESSAGES.notPositive });
  if (request.auth && !isHoldable(operation)) errors.push({ field: 'auth', message: MESSAGES.notCorrect });
  request.methods.forEach((key, i) => {
    if (!servesMethod(key, operation)) errors.push({ field: `methods[${i}]`, message: MESSAGES.notChoice });
  });
  // The hosted page can still ask the payer for members the catalog marks collectOnPage.
  const methodContext = { operation, currency: order.amount.currency, billingCountry: request.billingAddress?.country, canCollect: true, request: requestFields(input) };
  errors.push(...validateSessionParameters(request.methods, request.parameters, methodContext));
  errors.push(...billingStateRules(request.billingAddress));
  errors.push(...payeeRules(request));
  if ((request.scheduleStartDate || request.paymentScheduleAmount || request.recurringConsentRequired) && !request.scheduleId) errors.push({ field: 'schedule_id', message: MESSAGES.blank });
  return [...errors, ...scheduleRules(input)];
}

/** A text member of the free-form payee objects (non-text values are not the payee's data and are ignored). */
function payeeText(obj: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = obj?.[key];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** Members of payee and payee_billing_address that reach the payout, as the payer record names them. */
const PAYEE_MEMBERS: readonly [string, keyof PayerInfo][] = [['first_name', 'firstName'], ['last_name', 'lastName'], ['email', 'email'], ['phone', 'phone'], ['birth_date', 'birthDate']];
const PAYEE_ADDRESS_MEMBERS: readonly [string, keyof PayerInfo][] = [
  ['country', 'country'], ['state', 'state'], ['city', 'city'], ['address', 'address'], ['zip', 'zip'], ['phone', 'phone'], ['district', 'district'], ['house_number', 'houseNumber'],
];

/** The payee objects are free-form, but what the payout uses of them must be valid (and short enough to store). */
function payeeRules(r: SessionRequest): FieldError[] {
  const errors: FieldError[] = [];
  const check = (obj: Record<string, unknown> | undefined, path: string, members: readonly [string, keyof PayerInfo][]) => {
    for (const [key] of members) {
      const v = obj?.[key];
      if (v === undefined) continue;
      if (typeof v !== 'string') errors.push({ field: `${path}.${key}`, message: MESSAGES.notType('string') });
      else if (v.length > 255) errors.push({ field: `${path}.${key}`, message: MESSAGES.tooLong(255) });
    }
  };
  check(r.payee, 'payee', PAYEE_MEMBERS);
  check(r.payeeBillingAddress, 'payee_billing_address', PAYEE_ADDRESS_MEMBERS);
  const email = payeeText(r.payee, 'email');
  if (email && !isEmail(email)) errors.push({ field: 'payee.email', message: MESSAGES.notEmail });
  const country = payeeText(r.payeeBillingAddress, 'country');
  if (country && !isCountry(country)) errors.push({ field: 'payee_billing_address.country', message: MESSAGES.notCountry });
  return errors;
}

/**
 * The payer record of a payout: the payee's fields over the customer's. Request values win: payee_first_name
 * and payee_last_name over payee.first_name and last_name, those over customer.name; a card_token's holder
 * names the payee only where the request did not (hosted-checkout.ts).
 */
export function payeeOf(request: SessionRequest, payer: PayerInfo): PayerInfo {
  const out: PayerInfo = { ...payer };
  for (const [key, field] of PAYEE_MEMBERS) out[field] = payeeText(request.payee, key) ?? out[field];
  for (const [key, field] of PAYEE_ADDRESS_MEMBERS) out[field] = payeeText(request.payeeBillingAddress, key) ?? out[field];
  out.firstName = request.payeeFirstName?.trim() || out.firstName;
  out.lastName = request.payeeLastName?.trim() || out.lastName;
  if (out.firstName || out.lastName) out.name = [out.firstName, out.lastName].filter(Boolean).join(' ');
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined && v !== '')) as PayerInfo;
}

/** What a payout keeps of its recipient, as the callbacks of the platform name the fields (payee_*). */
export function payeeDetails(payer: PayerInfo): Record<string, string> {
  const fields: Record<string, string | undefined> = {
    payee_first_name: payer.firstName, payee_last_name: payer.lastName, payee_email: payer.email, payee_phone: payer.phone,
    payee_country: payer.country, payee_state: payer.state, payee_city: payer.city, payee_address: payer.address, payee_zip: payer.zip,
  };
  return Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined));
}

/** The billing state is validated (2 to 32 characters) only where the payer is asked for one (interface.md). */
function billingStateRules(billing: Record<string, string> | undefined): FieldError[] {
  const state = billing?.state;
  if (state === undefined || !stateRequired(billing?.country)) return [];
  if (state.length < 2) return [{ field: 'billing_address.state', message: state === '' ? MESSAGES.blank : MESSAGES.tooShort(2) }];
  return state.length > 32 ? [{ field: 'billing_address.state', message: MESSAGES.tooLong(32) }] : [];
}

/**
 * A schedule needs a recurring chain (recurring_init) and something to charge: payment_schedule_amount in the
 * order's currency, more than zero, required when the initiating amount is zero.
 */
function scheduleRules({ request, order }: OpenSessionInput): FieldError[] {
  if (!request.scheduleId) return [];
  if (!request.recurringInit) return [{ field: 'recurring_init', message: MESSAGES.notTrue }];
  if (request.paymentScheduleAmount === undefined) return order.amount.minor === 0n ? [{ field: 'payment_schedule_amount', message: MESSAGES.blank }] : [];
  const parsed = parseAmount(request.paymentScheduleAmount, order.amount.currency);
  if (!parsed.ok) return [{ field: 'payment_schedule_amount', message: MESSAGES.notValid }];
  return parsed.money.minor === 0n ? [{ field: 'payment_schedule_amount', message: MESSAGES.notPositive }] : [];
}

/** What each payment of a session keeps of the request: token and chain flags, and the schedule the chain starts. */
export function sessionPaymentDetails(request: SessionRequest, currency: string): PaymentDetails {
  const details: PaymentDetails = { reqToken: request.reqToken, recurringInit: request.recurringInit };
  // The card method's parameter sets go on to the card connector.
  const card = request.parameters?.card;
  if (card && typeof card === 'object') details.parameters = card;
  const cof = cardOnFileOf({ storesCard: request.recurringInit || request.reqToken, usesStoredCard: false, payerPresent: true });
  if (cof) details.cof = cof;
  if (request.accountId !== undefined) details.accountId = request.accountId;
  if (!request.scheduleId) return details;
  details.schedule_id = request.scheduleId;
  if (request.scheduleStartDate) details.schedule_start_date = request.scheduleStartDate;
  const amount = request.paymentScheduleAmount === undefined ? undefined : parseAmount(request.paymentScheduleAmount, currency);
  if (amount?.ok) details.payment_schedule_amount = canonicalAmount(amount.money.minor, currency);
  return details;
}

export async function openSession(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], requested: OpenSessionInput): Promise<OpenedSession> {
  const served = withServedMethods(requested);
  const warnings = served.warnings;
  const input = isPayout(served.input.operation) ? { ...served.input, payer: payeeOf(served.input.request, served.input.payer) } : served.input;
  const errors = checkRules(input);
  if (errors.length > 0) throw GatewayError.invalid(errors);
  const intent = intentOf({ operation: input.operation, auth: input.request.auth });
  const { mid } = routeMid(ctx, mids, intent, merchant, input.order.amount);
  if (input.request.scheduleId) await scheduleForRequest(ctx, merchant.id, input.request.scheduleId, input.request.scheduleStartDate);
  const now = ctx.clock.now();
  const sessionId = newToken(24);
  const paymentId = newId();
  const scheduleId = input.request.scheduleId;
  // A session opened for a schedule marks it used in the same transaction (no session, no mark).
  const write = (sql: Sql) => insertSessionWithPayment(
    sql,
    {
      id: sessionId,
      merchantId: merchant.id,
      operation: input.operation,
      orderNumber: input.order.number,
      amount: input.order.amount.minor,
      currency: input.order.amount.currency,
      description: input.order.description,
      request: { ...input.request, parameters: prepareSessionParameters(input.request.parameters) },
      expiresAt: new Date(now.getTime() + input.sessionExpiryMinutes * 60_000),
      paymentId,
      createdAt: now,
    },
    {
      id: paymentId,
      merchantId: merchant.id,
      sessionId,
      channel: 'checkout',
      operation: input.operation,
      orderId: input.order.number,
      amount: input.order.amount.minor,
      currency: input.order.amount.currency,
      description: input.order.description,
      status: 'prepare',
      auth: input.request.auth,
      midId: mid.id,
      payer: input.payer,
      customData: input.request.customData,
      details: { ...sessionPaymentDetails(input.request, input.order.amount.currency), ...(isPayout(input.operation) ? { payee: payeeDetails(input.payer) } : {}) },
      now,
    },
  );
  if (scheduleId) await ctx.db.transaction(async (tx) => { await markScheduleUsed(tx, merchant.id, scheduleId); await write(tx); });
  else await write(ctx.db);
  if (warnings.length > 0) ctx.logger.warn({ merchantId: merchant.id, sessionId, skipped: warnings }, 'session: requested methods not served, skipped');
  return { sessionId, paymentId, redirectUrl: `${ctx.baseUrl}/checkout/${sessionId}`, warnings };
}
