/**
 * `POST /api/v1/payment/card/credit` (decisions D4, wire-reference 2.1): a payout to a card, signed with
 * `order_id + order_amount + order_currency + order_description + PASSWORD` (wire-reference 1.1). 200 means
 * accepted; the outcome reaches the merchant by callback (type=credit).
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { authenticate } from '../merchant-auth.ts';
import { checkout, checkoutHash } from '../../domain/signatures.ts';
import { GatewayError, MESSAGES, type FieldError } from '../../domain/errors.ts';
import { cardNumberAccepted } from '../../domain/card.ts';
import { creditCard } from '../../services/card-credit.ts';
import { CardCreditRequest, CardCreditResponse } from './schemas.ts';
import { amountText, isFieldError, wireMoney } from './wire.ts';
import { DEMO, PAYMENT_ID, demoHash, type OperationDoc } from '../route-docs.ts';

/** A prize payout, signed for the demo merchant. */
const CREDIT_DOC: OperationDoc = (() => {
  const o = { order_id: 'payout-77', order_amount: '25.00', order_currency: 'EUR', order_description: 'Prize payout' };
  const hash = demoHash.checkout(checkout.cardCredit({ orderId: o.order_id, amount: o.order_amount, currency: o.order_currency, description: o.order_description }));
  return {
    recipe: ['checkoutCardCredit'],
    example: { merchant_key: DEMO.key, ...o, card_number: '4601541833776519', payee_first_name: 'Jane', payee_last_name: 'Roe', hash },
    answer: CardCreditResponse,
    answerExample: { payment_id: PAYMENT_ID, result: 'accepted' },
    errors: ['noEligibleMid', 'dayMidLimit', 'cardTokenInvalid'],
  };
})();

export function registerCardCreditRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<{ Body: CardCreditRequest }>('/api/v1/payment/card/credit', {
    schema: { tags: ['Checkout'], summary: 'Pay out to a card (card_number or card_token); the outcome comes by callback', body: CardCreditRequest, response: { 200: CardCreditResponse } },
    config: { doc: CREDIT_DOC },
  }, async (req) => {
    const b = req.body;
    const amount = amountText(b.order_amount);
    const { merchant, mids } = await authenticate(ctx, req, b.merchant_key, b.hash, (m) => [
      (upper) => checkoutHash(checkout.cardCredit({ orderId: b.order_id, amount, currency: b.order_currency, description: b.order_description }), m.password, m.digest, upper),
    ]);
    const errors: FieldError[] = [];
    const money = wireMoney('order_amount', 'order_currency', amount, b.order_currency);
    if (isFieldError(money)) errors.push(money);
    else if (money.minor === 0n) errors.push({ field: 'order_amount', message: MESSAGES.notPositive });
    // Card data sent win over a card_token (the platform's rule, as on S2S CARD).
    if (b.card_number === undefined && b.card_token === undefined) errors.push({ field: 'card_number', message: MESSAGES.blank });
    if (b.card_number !== undefined && !cardNumberAccepted(b.card_number)) errors.push({ field: 'card_number', message: MESSAGES.notLuhn });
    if (errors.length > 0 || isFieldError(money)) throw GatewayError.invalid(errors);
    const step = await creditCard(ctx, {
      merchant,
      mids,
      order: { id: b.order_id, amount: money, description: b.order_description },
      card: b.card_number !== undefined ? { kind: 'number', pan: b.card_number } : { kind: 'token', token: b.card_token as string },
      payee: { firstName: b.payee_first_name, lastName: b.payee_last_name, email: b.payee_email, ip: b.payee_ip },
      customData: b.custom_data,
    });
    return { payment_id: step.payment.id, result: 'accepted' as const };
  });
}
