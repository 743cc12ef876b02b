/**
 * A MID-configured provider's notification (`POST /apm/provider/notify/{id}`). Apart from provider-route.ts, which
 * payments.ts asks for connectors: this file asks payments.ts to look, so neither imports the other in a circle.
 */
import type { ServiceContext } from '../context.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { getPayment } from '../../store/payments-repo.ts';
import { isUuid } from '../../domain/ids.ts';
import { GatewayError } from '../../domain/errors.ts';
import { apmOf } from './details.ts';
import { refresh } from './payments.ts';

/**
 * A MID-configured provider's notification of one payment (the voucher partner's asynchronous notification and
 * the like): it only makes the gateway look, so the status is asked of the provider itself (the status call);
 * nothing in the notification is trusted. Unknown or not a provider payment: notFound.
 */
export async function handleProviderNotification(ctx: ServiceContext, paymentId: string): Promise<Payment> {
  const payment = isUuid(paymentId) ? await getPayment(ctx.db, paymentId) : undefined;
  if (!payment || !apmOf(payment)?.midId) throw new GatewayError('notFound');
  return (await refresh(ctx, payment)).payment;
}
