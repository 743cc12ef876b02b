/**
 * CREDIT2VIRTUAL: a payout to an alternative method over S2S APM (mobile money, and the other payout brands). The
 * payment is written already claimed, with its credit transaction, then the connector is asked and its answer
 * applied with the callback (CREDIT2VIRTUAL callbacks carry their own signature, see callback.ts). A mail payout is
 * not decided at once: the provider e-mails its link and waits for the recipient's answer to the security question,
 * so the payment waits for the provider (PENDING) until a status lookup or the provider's notification reads the
 * outcome. What a method takes from the MID (account_uuid, fee_calculation_method) comes from the merchant's first
 * MID that may carry a payout.
 */
import type { ServiceContext } from '../context.ts';
import { DECLINES } from '../../domain/declines.ts';
import { listMids } from '../../store/merchants-repo.ts';
import { withConnectorOptions, type Merchant } from '../../domain/model/merchant.ts';
import type { PayerInfo, Payment } from '../../domain/model/payment.ts';
import { insertPaymentWithTransaction, updatePayment, updatePaymentAndTransaction } from '../../store/payments-repo.ts';
import { nextStatus } from '../../domain/payment-state.ts';
import type { MethodEntry } from '../../domain/methods/catalog.ts';
import { midSupplied, missingReason } from '../../domain/methods/supplied.ts';
import { NO_RULES, PATHS, route } from '../../domain/routing/route.ts';
import type { Money } from '../../domain/money.ts';
import { newId } from '../../domain/ids.ts';
import type { ApmExperience, ApmOutcome, PayerAction } from '../../connectors/apm-types.ts';
import { notify } from '../callbacks/index.ts';
import { apmRoute } from './connector.ts';
import { heldForIntegrity } from '../attempt/integrity.ts';
import { screen } from '../attempt/screen.ts';
import { post } from '../attempt/post.ts';
import { answerCurrentAttempt } from '../../store/attempts-repo.ts';
import { attemptResult } from '../../domain/model/attempt.ts';
import { modeMids, usableConnectors } from '../connector-access.ts';
import type { ApmDetails } from './details.ts';

export interface NewPayout {
  merchant: Merchant;
  method: MethodEntry;
  order: { id: string; amount: Money; description: string };
  params: Record<string, unknown>;
  payee: { firstName: string; lastName: string; email: string; phone?: string };
  customData?: Record<string, unknown>;
  callbackUrl?: string;
}

/**
 * The settings of the merchant's first MID that may carry a payout, whatever its limits, over the merchant's
 * connector options (the mail payout's account): the router's first on the survey path.
 */
async function payoutMidSettings(ctx: ServiceContext, merchant: Merchant, money: Money): Promise<Record<string, unknown>> {
  const facts = { intent: 'payout' as const, money, method: 'apm', recurring: false };
  const [mid] = route(facts, modeMids(ctx, merchant, await listMids(ctx.db, merchant.id)), NO_RULES, { connectors: usableConnectors(ctx, merchant), checks: PATHS.survey }).candidates;
  return withConnectorOptions(merchant, mid?.settings);
}

export async function startPayout(ctx: ServiceContext, input: NewPayout): Promise<{ payment: Payment; settled: boolean }> {
  const { merchant, method, order, payee } = input;
  const id = newId();
  // Before it is routed or written (services/attempt/screen.ts).
  const verdict = await screen(ctx, {
    paymentId: id, merchantId: merchant.id, channel: 's2s_apm', kind: 'apm', operation: 'credit', intent: 'payout', amount: order.amount.minor, currency: order.amount.currency,
    method: method.key, payer: { email: payee.email }, merchantInitiated: false, recurring: false, sandbox: merchant.sandbox, customData: input.customData,
  });
  // Blocked (or a review no payout can wait on): declined, the provider never asked, no attempt at it recorded.
  const refused = verdict.action === 'block' || verdict.action === 'review';
  const { connector, midId } = await apmRoute(ctx, merchant, { midId: null, amount: order.amount.minor, currency: order.amount.currency });
  const supplied = midSupplied(method, input.params, await payoutMidSettings(ctx, merchant, order.amount));
  const now = ctx.clock.now();
  const transId = newId();
  const payer: PayerInfo = { firstName: payee.firstName, lastName: payee.lastName, name: `${payee.firstName} ${payee.lastName}`, email: payee.email, phone: payee.phone };
  const claimed = await insertPaymentWithTransaction(ctx.db, {
    id, merchantId: merchant.id, channel: 's2s_apm', operation: 'credit', orderId: order.id, amount: order.amount.minor, currency: order.amount.currency,
    description: order.description, status: 'prepare', auth: false, payer, customData: input.customData, callbackUrl: input.callbackUrl,
    pendingOperation: 'apm_payout', midId,
    details: { brand: method.key, lastTransId: transId, payee: { ...payee }, parameters: input.params, noCallbacks: input.callbackUrl === undefined && !merchant.notificationUrl },
    now,
  }, { id: transId, paymentId: id, type: 'credit', status: 'waiting', amount: order.amount.minor, now }, refused ? undefined : { midId, connector: connector.name, why: 'routed' });
  let outcome: ApmOutcome;
  if (refused) {
    outcome = { kind: 'declined', reason: DECLINES.risk_blocked.message };
  } else if (supplied.missing.length > 0) {
    outcome = { kind: 'declined', reason: missingReason(method, supplied.missing) };
  } else {
    try {
      outcome = await connector.payout({
        paymentId: id, method: method.key, amount: claimed.amount, currency: claimed.currency, orderId: claimed.orderId, description: claimed.description,
        payee: { email: payee.email, phone: payee.phone, name: payer.name, firstName: payee.firstName, lastName: payee.lastName },
        params: { ...input.params, ...supplied.values }, merchantName: merchant.name, experience: method.experience as ApmExperience, options: method.experienceOptions ?? {},
      });
    } catch (err) {
      ctx.logger.error({ err: (err as Error).message, paymentId: id }, 'APM payout failed; left in flight');
      outcome = { kind: 'pending', reason: 'Connector unavailable' };
    }
  }
  if (outcome.kind === 'action') return { payment: await awaitRecipient(ctx, claimed, method, input.params, outcome.reference, outcome.action), settled: false };
  return applyPayoutOutcome(ctx, merchant, claimed, outcome);
}

/**
 * The provider's word on a payout in flight (its answer, or later its verified notification): the payment, its
 * credit transaction and the callback in one transaction, a compare-and-set on apm_payout so it is applied once.
 */
export async function applyPayoutOutcome(ctx: ServiceContext, merchant: Merchant, payment: Payment, outcome: ApmOutcome): Promise<{ payment: Payment; settled: boolean }> {
  const transId = payment.details.lastTransId;
  if ((outcome.kind !== 'approved' && outcome.kind !== 'declined') || !transId) return { payment, settled: false };
  const held = await heldForIntegrity(ctx, payment, 'apm_payout', outcome);
  if (held) return { payment: held, settled: false };
  const approved = outcome.kind === 'approved';
  const declineReason = outcome.kind === 'declined' ? outcome.reason : undefined;
  const done = ctx.clock.now();
  const updated = await ctx.db.transaction(async (tx) => {
    const u = await updatePaymentAndTransaction(tx, payment.id, { status: 'prepare', pendingOperation: 'apm_payout' }, {
      status: nextStatus('prepare', approved ? 'sold' : 'declined'),
      pendingOperation: null,
      ...(approved ? { capturedAmount: payment.amount } : { declineReason }),
      ...(outcome.reference ? { details: { connectorRef: outcome.reference } } : {}),
    }, done, { id: transId, status: approved ? 'success' : 'fail', attempt: attemptResult({ kind: outcome.kind, ...(outcome.reference ? { reference: outcome.reference } : {}) }) });
    if (u) await post(ctx, tx, { payment: u, transId, outcome: approved ? 'approved' : 'declined' });
    if (u) await notify(tx, merchant, u, { transId, type: 'credit', status: approved ? 'success' : 'fail', ...(approved ? {} : { reason: u.declineReason ?? undefined }) }, done);
    return u;
  });
  return { payment: updated ?? payment, settled: updated !== undefined };
}

/**
 * The provider waits for the recipient (a mail payout's link): the payment waits for the provider as an APM payment
 * does, so GET_TRANS_STATUS and the provider's notification read its outcome (services/apm/payments.ts refresh).
 */
async function awaitRecipient(ctx: ServiceContext, payment: Payment, method: MethodEntry, params: Record<string, unknown>, reference: string, action: PayerAction): Promise<Payment> {
  const apm: ApmDetails = { method: method.key, experience: method.experience as ApmExperience, stage: 'started', params, action };
  const updated = await updatePayment(ctx.db, payment.id, { status: 'prepare', pendingOperation: 'apm_payout' },
    { status: nextStatus('prepare', 'redirect_required') ?? 'redirect', pendingOperation: null, details: { connectorRef: reference, apm } }, ctx.clock.now());
  if (updated) await answerCurrentAttempt(ctx.db, updated.id, attemptResult({ kind: 'redirect', reference }), ctx.clock.now());
  // A single statement, no transaction to lend the post step (services/attempt/post.ts).
  if (updated) await post(ctx, ctx.db, { payment: updated, transId: updated.details.lastTransId ?? updated.id, outcome: 'redirect' });
  return updated ?? payment;
}
