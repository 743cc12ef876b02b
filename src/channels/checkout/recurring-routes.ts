/**
 * Checkout recurring requests (wire-reference 2.1, 3.1): `POST /api/v1/payment/recurring` charges an existing
 * chain (hash: recurring_init_trans_id + recurring_token + order.number + order.amount + order.description +
 * PASSWORD, no currency: it is the chain's), `POST /api/v1/payment/retry` retries a declined recurring charge.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { authenticate } from '../merchant-auth.ts';
import { checkout, checkoutHash } from '../../domain/signatures.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money.ts';
import { wireDate } from '../../domain/clock.ts';
import { getMerchantPayment } from '../../services/queries/payments.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { chainOf, chargeChain } from '../../services/recurring/recurring-charges.ts';
import { retryRecurringCharge } from '../../services/recurring/retry.ts';
import { AcceptedAnswer, OrderNumber, RecurringAnswer } from './schemas.ts';
import { DATE, DEMO, ORDER, PAYMENT_ID, RECURRING_TOKEN, demoHash, type OperationDoc } from '../route-docs.ts';
import { amountText } from './wire.ts';

const TAG = { tags: ['Checkout'] };
const AmountText = Type.Union([Type.String({ maxLength: 255 }), Type.Number()], { errorMessage: MESSAGES.notValid });
const Hash = Type.String({ minLength: 1, maxLength: 128 });
const MerchantKey = Type.String({ minLength: 1, maxLength: 255 });

export const RecurringRequest = Type.Object({
  merchant_key: MerchantKey,
  recurring_init_trans_id: Type.String({ minLength: 1, maxLength: 64 }),
  recurring_token: Type.String({ minLength: 1, maxLength: 255 }),
  schedule_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  order: Type.Object({
    number: OrderNumber,
    amount: AmountText,
    /** Not part of the request (the chain's currency is used); when sent it must be the chain's. */
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3,6}$' })),
    description: Type.String({ minLength: 2, maxLength: 1024 }),
  }),
  /** Accepted for compatibility; a charge keeps the chain's payer. */
  customer: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  custom_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  hash: Hash,
});
export type RecurringRequest = Static<typeof RecurringRequest>;

const RetryRequest = Type.Object({ merchant_key: MerchantKey, payment_id: Type.String({ minLength: 1, maxLength: 64 }), hash: Hash });
type RetryRequest = Static<typeof RetryRequest>;

/** A second charge of the demo chain, signed for the demo merchant. */
const RECURRING_DOC: OperationDoc = (() => {
  const order = { number: 'order-1002', amount: '10.00', description: 'Gold plan, month 2' };
  const hash = demoHash.checkout(checkout.recurring({ initTransId: PAYMENT_ID, token: RECURRING_TOKEN, number: order.number, amount: order.amount, description: order.description }));
  return {
    recipe: ['checkoutRecurring'],
    example: { merchant_key: DEMO.key, recurring_init_trans_id: PAYMENT_ID, recurring_token: RECURRING_TOKEN, order, hash },
    answer: RecurringAnswer,
    answerExample: { payment_id: '7e3d1c2b-4a5f-4b6c-8d7e-9f0a1b2c3d4e', status: 'settled', date: DATE, recurring_token: RECURRING_TOKEN, order: { ...ORDER, number: 'order-1002', description: 'Gold plan, month 2' } },
    errors: ['incorrectTransaction', 'noEligibleMid', 'dayMidLimit'],
  };
})();

/** The Recurring answer (wire-reference 3.1): status in the status lookup's lower case, the order in the chain's currency. */
function recurringAnswer(p: Payment): Record<string, unknown> {
  const body: Record<string, unknown> = { status: p.status };
  if (p.status === 'decline' && p.declineReason) body.reason = p.declineReason;
  body.payment_id = p.id;
  body.date = wireDate(p.updatedAt);
  for (const key of ['schedule_id', 'recurring_token', 'first_recurring_date'] as const) {
    if (typeof p.details[key] === 'string') body[key] = p.details[key];
  }
  body.order = { number: p.orderId, amount: formatAmount(p.amount, p.currency), currency: p.currency, description: p.description };
  return body;
}

export function registerRecurringRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<{ Body: RecurringRequest }>('/api/v1/payment/recurring', {
    schema: { ...TAG, summary: 'Charge a recurring chain (no card data)', body: RecurringRequest },
    config: { doc: RECURRING_DOC },
  }, async (req) => {
    const b = req.body;
    const amount = amountText(b.order.amount);
    const { merchant, mids } = await authenticate(ctx, req, b.merchant_key, b.hash, (m) => [
      (upper) => checkoutHash(checkout.recurring({ initTransId: b.recurring_init_trans_id, token: b.recurring_token, number: b.order.number, amount, description: b.order.description }), m.password, m.digest, upper),
    ]);
    const init = await chainOf(ctx, merchant.id, b.recurring_init_trans_id, b.recurring_token, 'any');
    const step = await chargeChain(ctx, {
      merchant, mids, channel: 'checkout', init,
      order: { id: b.order.number, amount, description: b.order.description, currency: b.order.currency },
      amountField: 'order.amount',
      currencyField: 'order.currency',
      auth: false,
      customData: b.custom_data,
      scheduleId: b.schedule_id,
    });
    return recurringAnswer(step.payment);
  });

  app.post<{ Body: RetryRequest }>('/api/v1/payment/retry', {
    schema: { ...TAG, summary: 'Retry a declined recurring charge', body: RetryRequest },
    config: {
      doc: {
        recipe: ['checkoutVoidRetry'], example: { merchant_key: DEMO.key, payment_id: PAYMENT_ID, hash: demoHash.checkout([PAYMENT_ID]) }, answer: AcceptedAnswer,
        answerExample: { payment_id: PAYMENT_ID, result: 'accepted' }, errors: ['paymentDoesNotExist', 'incorrectTransaction', 'operationInProgress'],
      },
    },
  }, async (req) => {
    const b = req.body;
    const { merchant, mids } = await authenticate(ctx, req, b.merchant_key, b.hash, (m) => [
      (upper) => checkoutHash(checkout.voidOrRetry(b.payment_id), m.password, m.digest, upper),
    ]);
    const payment = await getMerchantPayment(ctx.db, merchant.id, b.payment_id);
    if (!payment) throw new GatewayError('paymentDoesNotExist');
    await retryRecurringCharge(ctx, merchant, mids, payment);
    return { payment_id: payment.id, result: 'accepted' };
  });
}
