/**
 * CREDIT2VIRTUAL: a payout to a mobile-money account. The payment is written already claimed, with its credit
 * transaction, then the connector is asked and its answer applied with the callback (CREDIT2VIRTUAL callbacks
 * carry their own signature, see callback.ts).
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../store/merchants-repo.ts';
import { insertPaymentWithTransaction, updatePaymentAndTransaction, type Payment, type PayerInfo } from '../../store/payments-repo.ts';
import { nextStatus } from '../../domain/payment-state.ts';
import type { MethodEntry } from '../../domain/methods/catalog.ts';
import type { Money } from '../../domain/money.ts';
import { newId } from '../../domain/ids.ts';
import type { ApmOutcome } from '../../connectors/apm-types.ts';
import { notify } from '../callbacks/index.ts';
import { apmConnector } from './connector.ts';

export interface NewPayout {
  merchant: Merchant;
  method: MethodEntry;
  order: { id: string; amount: Money; description: string };
  params: Record<string, unknown>;
  payee: { firstName: string; lastName: string; email: string; phone?: string };
  customData?: Record<string, unknown>;
  callbackUrl?: string;
}

export async function startPayout(ctx: ServiceContext, input: NewPayout): Promise<{ payment: Payment; settled: boolean }> {
  const { merchant, method, order, payee } = input;
  const connector = apmConnector(ctx, merchant);
  const now = ctx.clock.now();
  const id = newId();
  const transId = newId();
  const payer: PayerInfo = { firstName: payee.firstName, lastName: payee.lastName, name: `${payee.firstName} ${payee.lastName}`, email: payee.email, phone: payee.phone };
  const claimed = await insertPaymentWithTransaction(ctx.db, {
    id, merchantId: merchant.id, channel: 's2s_apm', operation: 'credit', orderId: order.id, amount: order.amount.minor, currency: order.amount.currency,
    description: order.description, status: 'prepare', auth: false, payer, customData: input.customData, callbackUrl: input.callbackUrl,
    pendingOperation: 'apm_payout',
    details: { brand: method.key, lastTransId: transId, payee: { ...payee }, parameters: input.params, noCallbacks: input.callbackUrl === undefined && !merchant.notificationUrl },
    now,
  }, { id: transId, paymentId: id, type: 'credit', status: 'waiting', amount: order.amount.minor, now });
  let outcome: ApmOutcome;
  try {
    outcome = await connector.payout({
      paymentId: id, method: method.key, amount: claimed.amount, currency: claimed.currency, orderId: claimed.orderId, description: claimed.description,
      payee: { email: payee.email, phone: payee.phone, name: payer.name }, params: input.params,
    });
  } catch (err) {
    ctx.logger.error({ err: (err as Error).message, paymentId: id }, 'APM payout failed; left in flight');
    outcome = { kind: 'pending', reason: 'Connector unavailable' };
  }
  if (outcome.kind !== 'approved' && outcome.kind !== 'declined') return { payment: claimed, settled: false };
  const approved = outcome.kind === 'approved';
  const declineReason = outcome.kind === 'declined' ? outcome.reason : undefined;
  const done = ctx.clock.now();
  const updated = await ctx.db.transaction(async (tx) => {
    const u = await updatePaymentAndTransaction(tx, id, { status: 'prepare', pendingOperation: 'apm_payout' }, {
      status: nextStatus('prepare', approved ? 'sold' : 'declined'),
      pendingOperation: null,
      ...(approved ? { capturedAmount: claimed.amount } : { declineReason }),
      ...(outcome.reference ? { details: { connectorRef: outcome.reference } } : {}),
    }, done, { id: transId, status: approved ? 'success' : 'fail' });
    if (u) await notify(tx, merchant, u, { transId, type: 'credit', status: approved ? 'success' : 'fail', ...(approved ? {} : { reason: u.declineReason ?? undefined }) }, done);
    return u;
  });
  return { payment: updated ?? claimed, settled: updated !== undefined };
}
