/** Opening a hosted Checkout session: the session and its first payment (status prepare) in one write. */
import type { ServiceContext } from './context.ts';
import type { Merchant, Mid } from '../store/merchants-repo.ts';
import { insertSessionWithPayment, type SessionRequest } from '../store/sessions-repo.ts';
import type { PayerInfo, PaymentDetails } from '../store/payments-repo.ts';
import { GatewayError, MESSAGES, type FieldError } from '../domain/errors.ts';
import { newId, newToken } from '../domain/ids.ts';
import { formatAmount, type Money } from '../domain/money.ts';
import { findMethod } from '../domain/methods/catalog.ts';
import { stateRequired } from '../domain/countries.ts';
import { prepareSessionParameters, validateSessionParameters } from '../domain/methods/validate.ts';
import { routeMid } from './card-payments.ts';
import { parseAmount, formatAmount as canonicalAmount } from '../domain/money.ts';
import { scheduleForRequest } from './schedules/subscriptions.ts';
import { cardOnFileOf } from './recurring/card-on-file.ts';

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
  const zeroAllowed = request.recurringInit || (operation === 'purchase' && request.auth);
  if (order.amount.minor < 0n || (order.amount.minor === 0n && !zeroAllowed)) errors.push({ field: 'order.amount', message: MESSAGES.notPositive });
  if (request.auth && operation !== 'purchase') errors.push({ field: 'auth', message: MESSAGES.notCorrect });
  request.methods.forEach((key, i) => {
    if (!servesMethod(key, operation)) errors.push({ field: `methods[${i}]`, message: MESSAGES.notChoice });
  });
  // The hosted page can still ask the payer for members the catalog marks collectOnPage.
  const methodContext = { operation, currency: order.amount.currency, billingCountry: request.billingAddress?.country, canCollect: true, request: requestFields(input) };
  errors.push(...validateSessionParameters(request.methods, request.parameters, methodContext));
  errors.push(...billingStateRules(request.billingAddress));
  if ((request.scheduleStartDate || request.paymentScheduleAmount) && !request.scheduleId) errors.push({ field: 'schedule_id', message: MESSAGES.blank });
  return [...errors, ...scheduleRules(input)];
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
  if (!request.scheduleId) return details;
  details.schedule_id = request.scheduleId;
  if (request.scheduleStartDate) details.schedule_start_date = request.scheduleStartDate;
  const amount = request.paymentScheduleAmount === undefined ? undefined : parseAmount(request.paymentScheduleAmount, currency);
  if (amount?.ok) details.payment_schedule_amount = canonicalAmount(amount.money.minor, currency);
  return details;
}

export async function openSession(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], requested: OpenSessionInput): Promise<OpenedSession> {
  const { input, warnings } = withServedMethods(requested);
  const errors = checkRules(input);
  if (errors.length > 0) throw GatewayError.invalid(errors);
  const intent = input.operation === 'credit' ? 'payout' : input.request.auth ? 'auth' : 'sale';
  const { mid } = routeMid(ctx, mids, intent, merchant, input.order.amount);
  if (input.request.scheduleId) await scheduleForRequest(ctx, merchant.id, input.request.scheduleId, input.request.scheduleStartDate);
  const now = ctx.clock.now();
  const sessionId = newToken(24);
  const paymentId = newId();
  await insertSessionWithPayment(
    ctx.db,
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
      details: sessionPaymentDetails(input.request, input.order.amount.currency),
      now,
    },
  );
  if (warnings.length > 0) ctx.logger.warn({ merchantId: merchant.id, sessionId, skipped: warnings }, 'session: requested methods not served, skipped');
  return { sessionId, paymentId, redirectUrl: `${ctx.baseUrl}/checkout/${sessionId}`, warnings };
}
