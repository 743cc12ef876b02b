/**
 * Step 5 of an attempt: the acquirer's request, built from the payment as written by record.ts. The ONE builder
 * of an AuthorizeRequest: card payments of every channel, their cascade, and the schedule runner's charges, so a
 * merchant-initiated charge always names its chain (card-on-file discriminators and the acquirer's own reference
 * of the stored card, `details.storedCardReference`).
 */
import type { ServiceContext } from '../context.ts';
import type { Payment } from '../../domain/model/payment.ts';
import type { AuthorizeRequest, CardData, WalletPayment } from '../../connectors/types.ts';
import { connectorNotifyUrl, connectorPayer, connectorReturnUrl, storedCardUse } from '../connector-access.ts';
import type { WalletUse } from '../wallets/wallet-payments.ts';
import { NO_CARD } from '../../connectors/types.ts';
import { cardDataOf } from './source.ts';
import { parametersOf } from './record.ts';
import { reached, type AttemptState } from './types.ts';

export interface RequestParts {
  intent: AuthorizeRequest['intent'];
  card: CardData;
  /** The connector and MID the attempt goes to (their notification URL). */
  connector: string;
  midId: string;
  /** The card parameter sets of the request (parameters.card of Checkout, parameters of S2S CARD). */
  parameters?: Record<string, unknown>;
  wallet?: WalletUse;
  /** The risk screen's require_3ds. */
  challenge?: boolean;
}

/** The step: the card opened where it is stored, and the acquirer's request built from the payment as recorded. */
export async function requestStep(ctx: ServiceContext, state: AttemptState): Promise<void> {
  const { input } = state;
  const { claimed, card, connector } = reached(state, 'recorded');
  const cardData = await cardDataOf(ctx, input.source, card, NO_CARD);
  const request = authorizeRequest(ctx, claimed, {
    intent: input.intent, card: cardData, connector: connector.name, midId: reached(state, 'routed').taken.mid.id,
    parameters: parametersOf(input, state.target.subject), ...(input.source.kind === 'wallet' ? { wallet: input.source.use } : {}),
    challenge: state.challenge === true,
  });
  state.sent = { request, pan: cardData.pan };
}

/** The acquirer's request for a payment claimed for authorization. */
export function authorizeRequest(ctx: ServiceContext, payment: Payment, parts: RequestParts): AuthorizeRequest {
  const request: AuthorizeRequest = {
    paymentId: payment.id, intent: parts.intent, amount: payment.amount, currency: payment.currency, card: parts.card, payerIp: payment.payer.ip,
    browser: connectorBrowser(payment.details.browser),
    orderId: payment.orderId, description: payment.description, payer: connectorPayer(payment.payer),
    returnUrl: connectorReturnUrl(ctx, payment.id), notifyUrl: connectorNotifyUrl(ctx, parts.connector, parts.midId),
    // Our payment id: a retry of this authorization (after a crash) is the same request to the acquirer.
    idempotencyKey: payment.id,
  };
  if (parts.parameters) request.parameters = parts.parameters;
  const stored = storedCardUse(payment);
  if (stored) request.storedCard = stored;
  if (parts.wallet) request.wallet = walletPayment(parts.wallet);
  if (parts.challenge) request.challenge = 'required';
  return request;
}

/** The same request sent to the next MID of a cascade: its notification URL, and an idempotency key of its own. */
export function cascadedRequest(ctx: ServiceContext, request: AuthorizeRequest, to: { connector: string; midId: string }, attempt: number): AuthorizeRequest {
  return { ...request, notifyUrl: connectorNotifyUrl(ctx, to.connector, to.midId), idempotencyKey: `${request.paymentId}.${attempt}` };
}

/** Browser details are stored as the callbacks name them (accept_headers); connectors take them camelCased (acceptHeaders). */
export function connectorBrowser(browser: Record<string, string> | undefined): Record<string, string> | undefined {
  return browser && Object.fromEntries(Object.entries(browser).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]));
}

/** What the connector is told of a wallet payment: its token, or the decrypted card's cryptogram and ECI. */
export function walletPayment(use: WalletUse): WalletPayment {
  const card = use.card;
  return {
    name: use.name,
    ...(use.token !== undefined && use.flow !== 'decrypted' ? { token: use.token } : {}),
    ...(card ? { authMethod: card.authMethod } : {}),
    ...(card?.cryptogram ? { cryptogram: card.cryptogram } : {}),
    ...(card?.eci ? { eci: card.eci } : {}),
  };
}
