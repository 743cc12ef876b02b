/**
 * Which callback a payment event produces, by channel. Each channel's builder turns the event into the
 * signed field map of its protocol; the outbox row is written in the caller's transaction.
 */
import type { Sql } from '../../store/database.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Channel, Payment } from '../../domain/model/payment.ts';
import { enqueueCallback, type EnqueueCallbackInput } from '../../store/callbacks-repo.ts';
import type { CallbackValue } from '../../domain/signatures.ts';
import { checkoutCallback } from './checkout-callback.ts';
import { s2sCardCallback } from './s2s-card-callback.ts';
import { s2sApmCallback } from '../apm/callback.ts';
import { wantsMoney, type CallbackBuilder, type PaymentEvent } from './fields.ts';
import { paymentMoney } from '../money/merchant-money.ts';
import { queueReceipt } from '../mail/receipts.ts';

export type { CallbackBuilder, PaymentEvent };

const BUILDERS: Partial<Record<Channel, CallbackBuilder>> = {
  checkout: checkoutCallback,
  s2s_card: s2sCardCallback,
  s2s_apm: s2sApmCallback,
};

export function registerCallbackBuilder(channel: Channel, builder: CallbackBuilder): void {
  BUILDERS[channel] = builder;
}

/** Whether an event of this payment would reach the outbox (its channel has callbacks and a URL to send them to). */
export function callbackExpected(merchant: Merchant, payment: Payment): boolean {
  const builder = BUILDERS[payment.channel];
  return builder !== undefined && builder.url(merchant, payment) !== null;
}

/** The outbox row an event of this payment produces, if any (no I/O: the caller writes it with the change). */
export function callbackFor(merchant: Merchant, payment: Payment, event: PaymentEvent, now: Date): EnqueueCallbackInput | undefined {
  const builder = BUILDERS[payment.channel];
  const url = builder?.url(merchant, payment);
  if (!builder || !url) return undefined;
  const fields = builder.fields(merchant, payment, event, now);
  return fields && { merchantId: merchant.id, paymentId: payment.id, url, protocol: builder.protocol, fields, now };
}

/** Writes the callback of an event into the outbox, in the transaction of the state change. */
export async function notify(tx: Sql, merchant: Merchant, payment: Payment, event: PaymentEvent, now: Date): Promise<void> {
  // The optional fee field: the change's entries are written before its callback, in the same transaction.
  if (!event.money && wantsMoney(merchant.settings.callbackFields) && callbackExpected(merchant, payment)) event = { ...event, money: await paymentMoney(tx, payment) };
  const callback = callbackFor(merchant, payment, event, now);
  if (callback) await enqueueCallback(tx, callback);
  // The e-mailed receipt of a payment this event settles (a sale or a capture), in the same write (services/mail/receipts.ts).
  if (event.status === 'success' && (event.type === 'sale' || event.type === 'capture')) await queueReceipt(tx, merchant, payment, now);
}
