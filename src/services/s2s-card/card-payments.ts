/**
 * S2S CARD payments that create a payment (SALE, DEBIT, CREDIT2CARD). The channel parses the wire into one typed
 * request and calls one function here; this module takes the S2S flow's decisions (the intent, which card gets a
 * token and which is kept, the schedule named, the card-on-file discriminators, what the payment keeps for the
 * pages and callbacks), resolves the card's source and runs the attempt pipeline (services/attempt/).
 * Follow-ups and lookups go straight to the shared services.
 */
import type { ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { PayerInfo, Payment, PaymentDetails } from '../../domain/model/payment.ts';
import { getMerchantPayment, findPaymentsByOrder } from '../../store/payments-repo.ts';
import { createAndAuthorize, resolveSource, type CardSource, type PaymentStep, type SourceRequest } from '../attempt/index.ts';
import type { CardData } from '../../connectors/types.ts';
import type { WalletName } from '../../domain/wallets/wallet-flow.ts';
import { intentOf, issuesCardToken, type Intent, type StartingOperation } from '../../domain/operations.ts';
import { formatAmount, type Money } from '../../domain/money.ts';
import { GatewayError, type ErrorName } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { cardOnFileOf } from '../recurring/card-on-file.ts';
import { scheduleForRequest } from '../schedules/subscriptions.ts';

/** The card a request names: sent in full, named by a card_token of the same merchant, or inside a wallet token. */
export type SentCard =
  | { kind: 'card'; card: CardData }
  | { kind: 'token'; token: string; cvv?: string }
  | { kind: 'wallet'; wallet: WalletName; paymentToken: string };

/** What SALE, DEBIT and CREDIT2CARD have in common, as sent. */
interface CardPaymentBase {
  merchant: Merchant;
  mids: readonly Mid[];
  order: { id: string; amount: Money; description: string };
  card: SentCard;
  payer: PayerInfo;
  /** The card method's parameter sets (parameters[name]). */
  parameters?: Record<string, unknown>;
  customData?: Record<string, unknown>;
  callbackUrl?: string;
}

/** A SALE or DEBIT as the channel parsed it: the fields sent, typed; no rule applied yet. */
export interface CardPaymentRequest extends CardPaymentBase {
  operation: Extract<StartingOperation, 'purchase' | 'debit'>;
  /** auth=Y: hold the funds for a later capture. */
  auth: boolean;
  /** req_token=Y. */
  reqToken: boolean;
  /** recurring_init=Y: the payment starts a recurring chain. */
  recurringInit: boolean;
  /** payer_present (N: a merchant-initiated use of a stored card). */
  payerPresent: boolean;
  browser?: Record<string, string>;
  schedule?: { id: string; startDate?: string; amount?: Money };
  termUrl3ds?: string;
  linkTarget?: string;
  /** The gateway's own address: callbacks are built without the service context, the 3DS-step one needs the ACS address. */
  gatewayUrl: string;
}

/** A CREDIT2CARD as the channel parsed it. */
export interface CardPayoutRequest extends CardPaymentBase {
  card: Exclude<SentCard, { kind: 'wallet' }>;
  /** The payee_* fields, kept with the payment for the connector and the admin side. */
  payee: Record<string, string>;
}

/**
 * What a SALE or DEBIT does with its card (6.7.0). req_token is ignored when the card is named by its card_token;
 * a card sent (or inside a wallet token) gets a token when asked or when the operation always tokenizes (a debit);
 * the card is kept (vaulted) only when it must outlive the request: for its token or a recurring chain.
 */
export function cardTerms(req: Pick<CardPaymentRequest, 'operation' | 'auth' | 'card' | 'reqToken' | 'recurringInit'>): { intent: Intent; reqToken: boolean; tokenize: boolean; keep: boolean } {
  const sent = req.card.kind !== 'token';
  const tokenize = sent && issuesCardToken(req.operation, req.reqToken);
  return { intent: intentOf({ operation: req.operation, auth: req.auth }), reqToken: sent && req.reqToken, tokenize, keep: tokenize || req.recurringInit };
}

/** What a SALE or DEBIT keeps with the payment for the pages, callbacks and the schedules issue. */
function payInDetails(req: CardPaymentRequest, reqToken: boolean, merchant: Merchant): PaymentDetails {
  const details: PaymentDetails = {
    termUrl3ds: req.termUrl3ds,
    linkTarget: req.linkTarget,
    reqToken,
    recurringInit: req.recurringInit,
    payerPresent: req.payerPresent,
    gatewayUrl: req.gatewayUrl,
    noCallbacks: req.callbackUrl === undefined && !merchant.notificationUrl,
    parameters: req.parameters,
  };
  const cof = cardOnFileOf({ storesCard: reqToken || req.recurringInit, usesStoredCard: req.card.kind === 'token', payerPresent: req.payerPresent });
  if (cof) details.cof = cof;
  if (req.browser) details.browser = req.browser;
  const schedule = req.schedule;
  if (schedule) details.schedule_id = schedule.id;
  if (schedule?.startDate !== undefined) details.schedule_start_date = schedule.startDate;
  if (schedule?.amount) details.payment_schedule_amount = formatAmount(schedule.amount.minor, schedule.amount.currency);
  return details;
}

/** The source request of a sent card: kept or used once, a token with its typed CVV, a wallet token with what it is asked for. */
function sourceRequest(card: SentCard, terms: { intent: Intent; reqToken: boolean; keep: boolean }, recurring: boolean, holder: string | undefined): SourceRequest {
  if (card.kind === 'card') return { kind: 'card', card: card.card, keep: terms.keep };
  if (card.kind === 'token') return { kind: 'token', token: card.token, ...(card.cvv ? { cvv: card.cvv } : {}) };
  const ask = { hold: terms.intent === 'auth', recurring, cardToken: terms.reqToken };
  return { kind: 'wallet', request: { wallet: card.wallet, paymentToken: card.paymentToken, intent: terms.intent, ask, ...(holder ? { holder } : {}) } };
}

/** SALE and DEBIT: creates the payment and runs its first connector step. */
export async function startCardPayment(ctx: ServiceContext, req: CardPaymentRequest): Promise<PaymentStep> {
  const { merchant } = req;
  const terms = cardTerms(req);
  if (req.schedule) await scheduleForRequest(ctx, merchant.id, req.schedule.id, req.schedule.startDate);
  // The source is resolved first, so a request naming an unknown card leaves no payment behind (nor does one
  // without an eligible MID: createAndAuthorize routes before it writes).
  const resolved = await resolveSource(ctx, merchant, req.mids, sourceRequest(req.card, terms, req.recurringInit, req.payer.name));
  const details = Object.assign(payInDetails(req, terms.reqToken, merchant), resolved.details);
  return create(ctx, req, { operation: req.operation, intent: terms.intent, tokenize: terms.tokenize, source: resolved.source, details });
}

/** CREDIT2CARD: a payout card comes without expiry and is used once (never vaulted, never tokenized). */
export async function startCardPayout(ctx: ServiceContext, req: CardPayoutRequest): Promise<PaymentStep> {
  const { source } = await resolveSource(ctx, req.merchant, req.mids, sourceRequest(req.card, { intent: 'payout', reqToken: false, keep: false }, false, undefined));
  const details: PaymentDetails = { payee: req.payee, parameters: req.parameters, noCallbacks: req.callbackUrl === undefined && !req.merchant.notificationUrl };
  return create(ctx, req, { operation: 'credit', intent: 'payout', tokenize: false, source, details });
}

/** The payment written already claimed, with its first transaction, and its attempt run (services/attempt/). */
function create(
  ctx: ServiceContext, req: CardPaymentBase,
  a: { operation: StartingOperation; intent: Intent; tokenize: boolean; source: CardSource; details: PaymentDetails },
): Promise<PaymentStep> {
  const { merchant, order } = req;
  return createAndAuthorize(ctx, {
    merchant,
    mids: req.mids,
    source: a.source,
    intent: a.intent,
    tokenize: a.tokenize,
    payment: {
      id: newId(),
      merchantId: merchant.id,
      channel: 's2s_card',
      operation: a.operation,
      orderId: order.id,
      amount: order.amount.minor,
      currency: order.amount.currency,
      description: order.description,
      status: 'prepare',
      auth: a.intent === 'auth',
      cardToken: req.card.kind === 'token' ? req.card.token : null,
      payer: req.payer,
      customData: req.customData,
      callbackUrl: req.callbackUrl,
      details: a.details,
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
