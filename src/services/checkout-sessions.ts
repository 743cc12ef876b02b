/** Opening a hosted Checkout session: the session and its first payment (status prepare) in one write. */
import type { ServiceContext } from './context.ts';
import type { Merchant, Mid } from '../store/merchants-repo.ts';
import { insertSessionWithPayment, type SessionRequest } from '../store/sessions-repo.ts';
import type { PayerInfo } from '../store/payments-repo.ts';
import { GatewayError, MESSAGES, type FieldError } from '../domain/errors.ts';
import { newId, newToken } from '../domain/ids.ts';
import type { Money } from '../domain/money.ts';
import { findMethod } from '../domain/methods/catalog.ts';
import { routeMid } from './card-payments.ts';

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
}

export const DEFAULT_SESSION_EXPIRY_MINUTES = 60;

/** Business rules beyond the schema: zero amounts, auth only on purchase, known methods. */
function checkRules(input: OpenSessionInput): FieldError[] {
  const errors: FieldError[] = [];
  const { request, order, operation } = input;
  const zeroAllowed = request.recurringInit || (operation === 'purchase' && request.auth);
  if (order.amount.minor < 0n || (order.amount.minor === 0n && !zeroAllowed)) errors.push({ field: 'order.amount', message: MESSAGES.notPositive });
  if (request.auth && operation !== 'purchase') errors.push({ field: 'auth', message: MESSAGES.notCorrect });
  request.methods.forEach((key, i) => {
    const method = findMethod(key);
    if (!method || !method.operations.includes(operation)) errors.push({ field: `methods[${i}]`, message: MESSAGES.notChoice });
  });
  if ((request.scheduleStartDate || request.paymentScheduleAmount) && !request.scheduleId) errors.push({ field: 'schedule_id', message: MESSAGES.blank });
  return errors;
}

export async function openSession(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], input: OpenSessionInput): Promise<OpenedSession> {
  const errors = checkRules(input);
  if (errors.length > 0) throw GatewayError.invalid(errors);
  const intent = input.operation === 'credit' ? 'payout' : input.request.auth ? 'auth' : 'sale';
  const { mid } = routeMid(ctx, mids, intent);
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
      request: input.request,
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
      details: { reqToken: input.request.reqToken, recurringInit: input.request.recurringInit },
      now,
    },
  );
  return { sessionId, paymentId, redirectUrl: `${ctx.baseUrl}/checkout/${sessionId}` };
}
