/**
 * Card credit (payout) on Checkout, `POST /api/v1/payment/card/credit` (wire-reference 2.1): money to a card
 * sent in full or named by a card_token of the merchant. The payment is created already claimed and the
 * connector asked at once; the request answers "accepted" and the outcome reaches the merchant by callback
 * (type=credit), as for every Checkout payment.
 */
import type { ServiceContext } from './context.ts';
import type { Merchant } from '../domain/model/merchant.ts';
import type { Mid } from '../domain/model/mid.ts';
import type { PayerInfo } from '../domain/model/payment.ts';
import { createAndAuthorize, resolveSource, type PaymentStep } from './attempt/index.ts';
import type { Money } from '../domain/money.ts';
import { newId } from '../domain/ids.ts';

export interface CardCreditInput {
  merchant: Merchant;
  mids: readonly Mid[];
  order: { id: string; amount: Money; description: string };
  card: { kind: 'number'; pan: string } | { kind: 'token'; token: string };
  payee: { firstName?: string; lastName?: string; email?: string; ip?: string };
  customData?: Record<string, unknown>;
}

/** "Jane van Doe" -> first "Jane", last "van Doe": the split a cardholder name gets when it names the payee. */
export function splitHolder(holder: string | null | undefined): { firstName?: string; lastName?: string } {
  const words = (holder ?? '').trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return {};
  return { firstName: words[0], ...(words.length > 1 ? { lastName: words.slice(1).join(' ') } : {}) };
}

/**
 * Creates the payout and runs it. A card sent in full is used once and not stored (a payout card comes without
 * expiry); a token's card comes from the vault, and its holder names the payee unless the request does.
 */
export async function creditCard(ctx: ServiceContext, input: CardCreditInput): Promise<PaymentStep> {
  const { merchant, order } = input;
  // Resolved before anything is written: an unknown token leaves no payment behind.
  const { source, holder } = await resolveSource(ctx, merchant, input.mids, input.card.kind === 'token'
    ? { kind: 'token', token: input.card.token }
    : { kind: 'card', card: { pan: input.card.pan, expMonth: '', expYear: '' }, keep: false });
  const fromToken = splitHolder(holder);
  const firstName = input.payee.firstName ?? fromToken.firstName;
  const lastName = input.payee.lastName ?? fromToken.lastName;
  const name = [firstName, lastName].filter(Boolean).join(' ');
  const payer: PayerInfo = Object.fromEntries(Object.entries({
    firstName, lastName, name: name || undefined, email: input.payee.email, ip: input.payee.ip,
  }).filter(([, v]) => v !== undefined)) as PayerInfo;
  const payee: Record<string, string> = Object.fromEntries(Object.entries({
    payee_first_name: firstName, payee_last_name: lastName, payee_email: input.payee.email, payee_ip: input.payee.ip,
  }).filter((e): e is [string, string] => e[1] !== undefined));
  return createAndAuthorize(ctx, {
    merchant,
    mids: input.mids,
    source,
    intent: 'payout',
    tokenize: false,
    payment: {
      id: newId(),
      merchantId: merchant.id,
      channel: 'checkout',
      operation: 'credit',
      orderId: order.id,
      amount: order.amount.minor,
      currency: order.amount.currency,
      description: order.description,
      status: 'prepare',
      auth: false,
      cardToken: input.card.kind === 'token' ? input.card.token : null,
      payer,
      customData: input.customData,
      details: { payee, cardCredit: true },
      now: ctx.clock.now(),
    },
  });
}
