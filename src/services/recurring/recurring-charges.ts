/**
 * Charges on an existing recurring chain, asked for by the merchant (S2S RECURRING_SALE and RECURRING_DEBIT,
 * Checkout payment/recurring): the chain is named by its initiating payment and recurring_token; the charge
 * reuses the chain's card, payer and MID, without card data and without the payer (merchant-initiated).
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Channel, Payment, PaymentDetails } from '../../domain/model/payment.ts';
import { getMerchantPayment } from '../../store/payments-repo.ts';
import { createAndAuthorize, type PaymentStep } from '../attempt/index.ts';
import { chainMidFirst } from '../../domain/routing/route.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';
import { parseAmount } from '../../domain/money.ts';
import { sameDigest } from '../../domain/signatures.ts';
import { newId } from '../../domain/ids.ts';
import { scheduleForRequest } from '../schedules/subscriptions.ts';
import { CARD_ON_FILE } from './card-on-file.ts';
import { chargedAs, intentOf } from '../../domain/operations.ts';
import { asThreeDsResult, threeDsResultOf } from '../../domain/risk/rules.ts';

/** Which chains an action may charge: RECURRING_SALE a sale chain, RECURRING_DEBIT a debit chain, Checkout either. */
export type ChainKind = 'sale' | 'debit' | 'any';

const KIND_OF: Readonly<Record<'recurring' | 'recurring_debit', ChainKind>> = { recurring: 'sale', recurring_debit: 'debit' };

/**
 * The initiating payment of the merchant's chain, or "Incorrect transaction" for an unknown pair, a payment
 * that started no chain (declined, or no recurring_init), or a chain of the other kind.
 */
export async function chainOf(ctx: ServiceContext, merchantId: string, initTransId: string, token: string, kind: ChainKind): Promise<Payment> {
  const init = await getMerchantPayment(ctx.db, merchantId, initTransId);
  const stored = init?.details.recurring_token;
  const known = init !== undefined && init.details.recurringInit === true && typeof stored === 'string' && sameDigest(stored, token) && init.vaultId !== null;
  if (!known || (kind !== 'any' && KIND_OF[chargedAs(init.operation)] !== kind)) throw new GatewayError('incorrectTransaction');
  return init;
}

export interface RecurringChargeInput {
  merchant: Merchant;
  mids: readonly Mid[];
  channel: Channel;
  init: Payment;
  /** currency: when the request sends one it must be the chain's (a charge never converts). */
  order: { id: string; amount: string; description: string; currency?: string };
  /** The fields the amount and currency came in, for their errors (order_amount, order.amount). */
  amountField: string;
  currencyField: string;
  auth: boolean;
  customData?: Record<string, unknown>;
  callbackUrl?: string;
  /** Puts the chain on this schedule (counted from this charge) when it is not on it already. */
  scheduleId?: string;
}

/** The amount in the chain's currency (a currency sent must be it); zero only for an authorization. */
function chargeAmount(input: RecurringChargeInput): bigint {
  if (input.order.currency !== undefined && input.order.currency !== input.init.currency) throw GatewayError.field(input.currencyField, MESSAGES.notValid);
  const parsed = parseAmount(input.order.amount, input.init.currency);
  if (!parsed.ok) throw GatewayError.field(input.amountField, MESSAGES.notValid);
  if (parsed.money.minor === 0n && !input.auth) throw GatewayError.field(input.amountField, MESSAGES.notPositive);
  return parsed.money.minor;
}


function chargeDetails(input: RecurringChargeInput, baseUrl: string): PaymentDetails {
  const { init, merchant } = input;
  const details: PaymentDetails = {
    recurring_init_trans_id: init.id,
    recurring_token: init.details.recurring_token,
    merchantInitiated: true,
    cof: CARD_ON_FILE.usedByMerchant,
    cardMask: init.details.cardMask,
    gatewayUrl: baseUrl,
  };
  // What the risk screen knows of 3-D Secure before the charge: the chain's first payment's (its three_ds condition).
  const threeDs = threeDsResultOf(init.threeDs) ?? asThreeDsResult(init.details.chainThreeDs);
  if (threeDs) details.chainThreeDs = threeDs;
  // The acquirer's own reference of the stored card (its recurring chain), for a merchant-initiated charge.
  if (typeof init.details.storedCardReference === 'string') details.storedCardReference = init.details.storedCardReference;
  if (input.channel === 's2s_card') details.noCallbacks = input.callbackUrl === undefined && !merchant.notificationUrl;
  if (input.scheduleId !== undefined) Object.assign(details, { schedule_id: input.scheduleId, startSchedule: true });
  return details;
}

/**
 * Charges the chain. custom_data sent with the charge is returned in its callback in place of the initial
 * one; without it the chain's initial custom_data is kept.
 */
export async function chargeChain(ctx: ServiceContext, input: RecurringChargeInput): Promise<PaymentStep> {
  const { init, merchant } = input;
  const amount = chargeAmount(input);
  if (input.scheduleId !== undefined) await scheduleForRequest(ctx, merchant.id, input.scheduleId);
  return createAndAuthorize(ctx, {
    merchant,
    mids: chainMidFirst(input.mids, init.midId),
    source: { kind: 'vault', vaultId: init.vaultId as string },
    intent: intentOf({ operation: chargedAs(init.operation), auth: input.auth }),
    tokenize: false,
    payment: {
      id: newId(),
      merchantId: merchant.id,
      channel: input.channel,
      operation: chargedAs(init.operation),
      orderId: input.order.id,
      amount,
      currency: init.currency,
      description: input.order.description,
      status: 'prepare',
      auth: input.auth,
      payer: init.payer,
      customData: input.customData ?? init.customData ?? undefined,
      // A callback_url belongs to the payment it came with (D7): a charge the merchant asks for brings its own.
      callbackUrl: input.callbackUrl,
      details: chargeDetails(input, ctx.baseUrl),
      now: ctx.clock.now(),
    },
  });
}
