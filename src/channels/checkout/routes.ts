/**
 * The Checkout JSON API (wire-reference 2.1 and 3.1): decode, validate, authenticate with the Checkout
 * hash, call one service, answer in the platform's shapes.
 */
import { moneyWhenEnabled } from '../../services/money/merchant-money.ts';
import type { PaymentMoney } from '../../domain/ledger/postings.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { lookups, type ServiceContext } from '../../services/context.ts';
import { authenticate } from '../merchant-auth.ts';
import { checkout, checkoutHash } from '../../domain/signatures.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money.ts';
import { wireDate } from '../../domain/clock.ts';
import { openSession, DEFAULT_SESSION_EXPIRY_MINUTES } from '../../services/checkout-sessions.ts';
import { capturePayment, refundPayment, voidAnyPayment } from '../../services/payment-follow-ups.ts';
import { paymentMethodOf } from '../../services/apm/details.ts';
import { findPaymentsByOrder, getMerchantPayment } from '../../services/queries/payments.ts';
import type { Payment } from '../../domain/model/payment.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { SessionRequest as StoredSessionRequest } from '../../services/queries/sessions.ts';
import { withConsent } from '../../services/callbacks/checkout-callback.ts';
import { optionalFields } from '../../services/callbacks/fields.ts';
import {
  AcceptedAnswer, AmountRequest, CaptureAnswer, PaymentIdRequest, SessionRequest, SessionResponse, StatusAnswer, StatusRequestShape, VoidAnswer, type StatusRequest,
} from './schemas.ts';
import { amountText, moneyOrThrow, storedRequest } from './wire.ts';
import { billingPayer } from '../../services/hosted-fields.ts';
import { BASE, DATE, DEMO, ORDER, PAYMENT_ID, demoHash } from '../route-docs.ts';

const TAG = { tags: ['Checkout'] };

// --- the documents' examples, signed for the demo merchant --------------------------------------------

export const SESSION_EXAMPLE = {
  merchant_key: DEMO.key, operation: 'purchase', methods: ['card'], order: ORDER,
  success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel',
  customer: { name: 'John Doe', email: 'doe@example.com' },
  billing_address: { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567890' },
  hash: demoHash.checkout(checkout.session(ORDER)),
};
const byPaymentId = { merchant_key: DEMO.key, payment_id: PAYMENT_ID, hash: demoHash.checkout([PAYMENT_ID]) };
const withAmount = (amount: string) => ({ merchant_key: DEMO.key, payment_id: PAYMENT_ID, amount, hash: demoHash.checkout([PAYMENT_ID, amount]) });

function storedSessionRequest(body: SessionRequest): StoredSessionRequest {
  return storedRequest(body, {
    methods: body.methods ?? ['card'],
    successUrl: body.success_url,
    cancelUrl: body.cancel_url,
    expiryUrl: body.expiry_url,
    errorUrl: body.error_url,
    payee: body.payee,
    payeeFirstName: body.payee_first_name,
    payeeLastName: body.payee_last_name,
    payeeBillingAddress: body.payee_billing_address,
  });
}

/** The status lookup answer (wire-reference 3.1), with the optional fields Protocol Mapping enables. */
export function statusBody(merchant: Merchant, p: Payment, money?: PaymentMoney): Record<string, unknown> {
  const body: Record<string, unknown> = {
    payment_id: p.id,
    date: wireDate(p.updatedAt),
    status: p.status,
  };
  if (p.status === 'decline' && p.declineReason) body.reason = p.declineReason;
  const recurringToken = p.details.recurring_token;
  if (typeof recurringToken === 'string') body.recurring_token = recurringToken;
  const scheduleId = p.details.schedule_id;
  if (typeof scheduleId === 'string') {
    body.schedule_id = scheduleId;
    body.shedule_id = scheduleId; // the documented misspelling, for parsers written against the docs (D1)
  }
  const firstRecurringDate = p.details.first_recurring_date;
  if (typeof firstRecurringDate === 'string') body.first_recurring_date = firstRecurringDate;
  body.order = { number: p.orderId, amount: formatAmount(p.amount, p.currency), currency: p.currency, description: p.description };
  const customer: Record<string, string> = {};
  if (p.payer.name) customer.name = p.payer.name;
  if (p.payer.email) customer.email = p.payer.email;
  if (Object.keys(customer).length > 0) body.customer = customer;
  const enabled = merchant.settings.statusFields ?? [];
  if (enabled.includes('card') && p.details.cardMask) {
    body.card = p.details.cardMask;
    if (p.details.cardExpiry) body.card_expiration_date = p.details.cardExpiry;
  }
  if (merchant.settings.checkoutPaymentMethod) body.checkout_payment_method = paymentMethodOf(p);
  Object.assign(body, optionalFields(enabled, p, false, money));
  return withConsent(body, p);
}

/** size: absent -> object; 1..100 -> array newest first; anything else -> the size error. */
function parseSize(size: StatusRequest['size']): number | undefined {
  if (size === undefined) return undefined;
  const n = typeof size === 'number' ? size : Number(size);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new GatewayError('sizeOutOfRange');
  return n;
}

export function registerCheckoutRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<{ Body: SessionRequest }>('/api/v1/session', {
    schema: { ...TAG, summary: 'Open a hosted Checkout session', body: SessionRequest, response: { 200: SessionResponse } },
    config: {
      doc: {
        recipe: ['checkoutSession'], example: SESSION_EXAMPLE, answer: SessionResponse,
        answerExample: { redirect_url: `${BASE}/checkout/9c1e4b2a7d3f4e5a8b6c0d1e2f3a4b5c6d7e8f9a0b1c2d3e` }, errors: ['noEligibleMid', 'dayMidLimit', 'cardTokenInvalid'],
      },
    },
  }, async (req) => {
    const body = req.body;
    const amount = amountText(body.order.amount);
    const { merchant, mids } = await authenticate(ctx, req, body.merchant_key, body.hash, (m) => [
      (upper) => checkoutHash(checkout.session({ number: body.order.number, amount, currency: body.order.currency, description: body.order.description }), m.password, m.digest, upper),
    ]);
    const request = storedSessionRequest(body);
    const opened = await openSession(ctx, merchant, mids, {
      operation: body.operation,
      order: { number: body.order.number, amount: moneyOrThrow('order.amount', 'order.currency', amount, body.order.currency), description: body.order.description },
      request,
      sessionExpiryMinutes: body.session_expiry ?? DEFAULT_SESSION_EXPIRY_MINUTES,
      payer: {
        name: body.customer?.name,
        email: body.customer?.email,
        birthDate: body.customer?.birth_date,
        ip: body.customer?.ip ?? body.payer_ip,
        ...billingPayer(body.billing_address ?? {}),
      },
    });
    return opened.warnings.length > 0 ? { redirect_url: opened.redirectUrl, warnings: opened.warnings } : { redirect_url: opened.redirectUrl };
  });

  app.post<{ Body: StatusRequest }>('/api/v1/payment/status', {
    schema: { ...TAG, summary: 'Payment status by payment_id or order_id', body: StatusRequestShape },
    config: {
      doc: {
        recipe: ['checkoutStatusByPayment', 'checkoutStatusByOrder'], example: byPaymentId, answer: StatusAnswer,
        answerExample: { payment_id: PAYMENT_ID, date: DATE, status: 'settled', order: ORDER, customer: { name: 'John Doe', email: 'doe@example.com' } },
        errors: ['paymentDoesNotExist', 'orderDoesNotExist', 'sizeOutOfRange'],
      },
    },
  }, async (req) => {
    const body = req.body;
    if (body.payment_id === undefined && body.order_id === undefined) throw GatewayError.field('payment_id', MESSAGES.blank);
    const byPayment = body.payment_id !== undefined;
    const { merchant } = await authenticate(ctx, req, body.merchant_key, body.hash, (m) => [
      (upper) => checkoutHash(byPayment ? checkout.byPaymentId(body.payment_id as string) : checkout.byOrderId(body.order_id as string), m.password, m.digest, upper),
    ]);
    if (byPayment) {
      const payment = await getMerchantPayment(lookups(ctx), merchant.id, body.payment_id as string);
      if (!payment) throw new GatewayError('paymentDoesNotExist');
      return statusBody(merchant, payment, (await moneyWhenEnabled(ctx, merchant.settings.statusFields, [payment])).get(payment.id));
    }
    const size = parseSize(body.size);
    const payments = await findPaymentsByOrder(lookups(ctx), merchant.id, body.order_id as string, size ?? 1);
    if (payments.length === 0) throw new GatewayError('orderDoesNotExist');
    const money = await moneyWhenEnabled(ctx, merchant.settings.statusFields, payments);
    const bodies = payments.map((p) => statusBody(merchant, p, money.get(p.id)));
    return size === undefined ? bodies[0] : bodies;
  });

  /** Loads the payment a follow-up names, authenticated with the payment_id (+ amount) hash. */
  async function followUpTarget(req: FastifyRequest, body: { merchant_key: string; payment_id: string; amount?: string | number; hash: string }, withAmount: boolean) {
    const amount = body.amount === undefined ? '' : amountText(body.amount);
    const { merchant, mids } = await authenticate(ctx, req, body.merchant_key, body.hash, (m) => [
      (upper) => checkoutHash(withAmount ? checkout.captureOrRefund(body.payment_id, amount) : checkout.voidOrRetry(body.payment_id), m.password, m.digest, upper),
    ]);
    const payment = await getMerchantPayment(ctx.db, merchant.id, body.payment_id);
    if (!payment) throw new GatewayError('paymentDoesNotExist');
    const value = body.amount === undefined ? undefined : moneyOrThrow('amount', 'currency', amount, payment.currency).minor;
    return { merchant, mids, payment, value };
  }

  app.post<{ Body: AmountRequest }>('/api/v1/payment/capture', {
    schema: { ...TAG, summary: 'Capture a held authorization (DMS)', body: AmountRequest },
    config: {
      doc: {
        recipe: ['checkoutCaptureRefund'], example: withAmount('10.00'), answer: CaptureAnswer,
        answerExample: { payment_id: PAYMENT_ID, status: 'settled', trans_status: 'SUCCESS', date: DATE }, errors: ['paymentDoesNotExist', 'captureNotPending', 'captureTooLarge', 'operationInProgress'],
      },
    },
  }, async (req) => {
    const { merchant, mids, payment, value } = await followUpTarget(req, req.body, true);
    const result = await capturePayment(ctx, merchant, mids, payment, value);
    const outcome = result.outcome.kind;
    return {
      payment_id: payment.id,
      status: result.payment.status,
      trans_status: outcome === 'approved' ? 'SUCCESS' : outcome === 'declined' ? 'DECLINED' : 'UNDEFINED',
      date: wireDate(ctx.clock.now()),
      ...(result.outcome.kind === 'declined' ? { reason: result.outcome.reason } : {}),
    };
  });

  app.post<{ Body: AmountRequest }>('/api/v1/payment/refund', {
    schema: { ...TAG, summary: 'Refund a settled payment (or release a held authorization)', body: AmountRequest },
    config: {
      doc: {
        recipe: ['checkoutCaptureRefund'], example: withAmount('4.00'), answer: AcceptedAnswer,
        answerExample: { payment_id: PAYMENT_ID, result: 'accepted' }, errors: ['paymentDoesNotExist', 'refundNotAllowed', 'refundTooLarge', 'reversalPartial', 'operationInProgress'],
      },
    },
  }, async (req) => {
    const { merchant, mids, payment, value } = await followUpTarget(req, req.body, true);
    await refundPayment(ctx, merchant, mids, payment, value);
    return { payment_id: payment.id, result: 'accepted' };
  });

  app.post<{ Body: PaymentIdRequest }>('/api/v1/payment/void', {
    schema: { ...TAG, summary: 'Void a settled payment', body: PaymentIdRequest },
    config: {
      doc: {
        recipe: ['checkoutVoidRetry'], example: byPaymentId, answer: VoidAnswer,
        answerExample: { status: 'SUCCESS', payment_status: 'void', payment_id: PAYMENT_ID, date: DATE, order: ORDER }, errors: ['paymentDoesNotExist', 'voidNotAllowed', 'operationInProgress'],
      },
    },
  }, async (req) => {
    const { merchant, mids, payment } = await followUpTarget(req, req.body, false);
    const result = await voidAnyPayment(ctx, merchant, mids, payment);
    const ok = result.outcome.kind === 'approved';
    return {
      status: ok ? 'SUCCESS' : 'FAIL',
      payment_status: result.payment.status,
      payment_id: payment.id,
      date: wireDate(ctx.clock.now()),
      order: { number: payment.orderId, amount: formatAmount(payment.amount, payment.currency), currency: payment.currency, description: payment.description },
      ...(result.outcome.kind === 'declined' ? { reason: result.outcome.reason } : {}),
    };
  });
}
