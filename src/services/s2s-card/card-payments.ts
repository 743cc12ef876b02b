/**
 * S2S CARD payments that create a payment (SALE, DEBIT, CREDIT2CARD): the payment is written in status prepare
 * on the MID its intent may use, then the shared card service runs the connector step. Follow-ups and
 * lookups go straight to the shared services; this module only adds what the S2S flow needs on top.
 */
import type { ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { PayerInfo, Payment, PaymentDetails } from '../../domain/model/payment.ts';
import { getMerchantPayment, findPaymentsByOrder } from '../../store/payments-repo.ts';
import { createAndAuthorize, tokenSource, type CardSource, type PaymentStep } from '../attempt/index.ts';
import type { CardData } from '../../connectors/types.ts';
import type { WalletUse } from '../wallets/wallet-payments.ts';
import type { Intent } from '../../domain/operations.ts';
import type { Money } from '../../domain/money.ts';
import { GatewayError, type ErrorName } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';

/**
 * The card of a request: sent in full, or named by a card_token of the same merchant. A card sent in full is
 * vaulted only when it must outlive the request (`keep`: a token or a recurring chain needs it); otherwise
 * only its mask is kept, which is less card data at rest and one write less.
 */
export type CardInput = { kind: 'card'; card: CardData; keep: boolean } | { kind: 'token'; token: string; cvv?: string } | { kind: 'wallet'; use: WalletUse };

export interface StartPaymentInput {
  merchant: Merchant;
  mids: readonly Mid[];
  operation: 'purchase' | 'debit' | 'credit';
  intent: Intent;
  order: { id: string; amount: Money; description: string };
  card: CardInput;
  /** Issue a card_token for the card. */
  tokenize: boolean;
  payer: PayerInfo;
  customData?: Record<string, unknown>;
  callbackUrl?: string;
  details: PaymentDetails;
}

async function cardSource(ctx: ServiceContext, merchantId: string, card: CardInput): Promise<CardSource> {
  if (card.kind === 'wallet') return { kind: 'wallet', use: card.use };
  if (card.kind === 'card') return card.keep ? { kind: 'card', card: card.card } : { kind: 'transient', card: card.card };
  return (await tokenSource(ctx, merchantId, card.token, card.cvv ? { cvv: card.cvv } : {})).source;
}

/** Creates the payment and runs its first connector step. */
export async function startCardPayment(ctx: ServiceContext, input: StartPaymentInput): Promise<PaymentStep> {
  const { merchant, mids, order } = input;
  // The token is resolved first, so a request naming an unknown card leaves no payment behind (nor does
  // one without an eligible MID: createAndAuthorize routes before it writes).
  const source = await cardSource(ctx, merchant.id, input.card);
  return createAndAuthorize(ctx, {
    merchant,
    mids,
    source,
    intent: input.intent,
    tokenize: input.tokenize,
    payment: {
      id: newId(),
      merchantId: merchant.id,
      channel: 's2s_card',
      operation: input.operation,
      orderId: order.id,
      amount: order.amount.minor,
      currency: order.amount.currency,
      description: order.description,
      status: 'prepare',
      auth: input.intent === 'auth',
      cardToken: input.card.kind === 'token' ? input.card.token : null,
      payer: input.payer,
      customData: input.customData,
      callbackUrl: input.callbackUrl,
      details: input.details,
      now: ctx.clock.now(),
    },
  });
}

/** The merchant's payment a trans_id names, or the not-found error of the asking action (never swapped). */
export async function paymentByTransId(ctx: ServiceContext, merchantId: string, transId: string, missing: ErrorName, from: Sql = ctx.db): Promise<Payment> {
  const payment = await getMerchantPayment(from, merchantId, transId);
  if (!payment) throw new GatewayError(missing);
  return payment;
}

/** The newest payment of a merchant order. */
export async function newestPaymentOfOrder(ctx: ServiceContext, merchantId: string, orderId: string, from: Sql = ctx.db): Promise<Payment> {
  const [payment] = await findPaymentsByOrder(from, merchantId, orderId, 1);
  if (!payment) throw new GatewayError('orderDoesNotExist');
  return payment;
}
