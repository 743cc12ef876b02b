/**
 * APM payments, whatever the channel (hosted Checkout or S2S APM). A payment carries its method in
 * details.apm and goes: prepare -> (fields the payer must give on the page) -> at the provider -> either
 * decided at once, or waiting for the payer's action (status redirect, the action in details.apm.action)
 * until the provider says executed or rejected. Connector calls sit outside transactions (claimed first with
 * pending_operation); every state change is a compare-and-set with its callback written in the same
 * transaction (design principle 4). What the provider says is always asked of the provider itself, so a
 * notification or a page reload can only make the gateway look, never decide.
 */
import { DECLINES } from '../../domain/declines.ts';
import type { ServiceContext } from '../context.ts';
import { findMerchantById } from '../../store/merchants-repo.ts';
import { withConnectorOptions, type Merchant } from '../../domain/model/merchant.ts';
import type { PayerInfo, Payment, TransactionType } from '../../domain/model/payment.ts';
import { getPayment, insertPayment, insertTransaction, needsOperatorOf, updatePayment, updatePaymentAndTransaction, type Expectation, type PaymentPatch } from '../../store/payments-repo.ts';
import type { Sql } from '../../store/database.ts';
import { markSessionPaid } from '../../store/sessions-repo.ts';
import { nextStatus, type PaymentEvent, type PaymentStatus } from '../../domain/payment-state.ts';
import { findMethod, QR_PROVIDER_STATES } from '../../domain/methods/catalog.ts';
import { GatewayError } from '../../domain/errors.ts';
import { authTxType, finalTxType, intentOf, isPayout, payinIntent } from '../../domain/operations.ts';
import { newId } from '../../domain/ids.ts';
import type { Money } from '../../domain/money.ts';
import type { ApmInitiateRequest, ApmOutcome, ApmPayoutRequest, PayerAction, ProviderStatus } from '../../connectors/apm-types.ts';
import { notify } from '../callbacks/index.ts';
import { apmOf, apmS2sStatus, awaitingProvider, payerPhone, unfinishedApm, type ApmDetails } from './details.ts';
import { apmRoute } from './connector.ts';
import { connectorOfPayment, providerMidFor, providerNotifyUrl } from './provider-route.ts';
import { applyPayoutOutcome } from './payouts.ts';
import { heldForIntegrity, mismatchesOf } from '../attempt/integrity.ts';
import { screen, type ScreenFacts } from '../attempt/screen.ts';
import { post } from '../attempt/post.ts';
import { answerCurrentAttempt, openAttempt } from '../../store/attempts-repo.ts';
import { attemptResult } from '../../domain/model/attempt.ts';
import type { OperatorDecision, OperatorWrite } from '../operator-write.ts';
import { pageFields, PAYER_PATHS, type ApmMethod } from './methods.ts';
import { midSupplied, missingReason, withPayeeValues } from '../../domain/methods/supplied.ts';
import type { MethodEntry, Operation } from '../../domain/methods/catalog.ts';
import { listMids } from '../../store/merchants-repo.ts';

export const QR_EXPIRED = 'QR code expired';
export const CANCELLED = 'Cancelled by payer';
const DECLINED = 'Declined by processing';

export type ApmStep =
  /** The payer has something to do on the payer page. */
  | { kind: 'payer'; payment: Payment }
  | { kind: 'final'; payment: Payment }
  /** A connector call of this payment has no answer yet. */
  | { kind: 'processing'; payment: Payment };

export function stepOf(p: Payment): ApmStep {
  if (p.pendingOperation) return { kind: 'processing', payment: p };
  if (p.status === 'prepare' || p.status === 'redirect') return { kind: 'payer', payment: p };
  return { kind: 'final', payment: p };
}

async function reload(ctx: ServiceContext, payment: Payment): Promise<Payment> {
  return (await getPayment(ctx.db, payment.id)) ?? payment;
}

async function merchantOf(ctx: ServiceContext, payment: Payment): Promise<Merchant> {
  const merchant = await findMerchantById(ctx.db, ctx.keyring, payment.merchantId);
  if (!merchant) throw new GatewayError('paymentNotFound');
  return merchant;
}

function transition(from: PaymentStatus, event: PaymentEvent): PaymentStatus {
  const to = nextStatus(from, event);
  if (!to) throw new Error(`transition ${from} -${event}-> is not in the state table`);
  return to;
}

/** A connector that throws or hangs leaves the payment in flight. */
async function call<T>(ctx: ServiceContext, paymentId: string, fn: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    ctx.logger.error({ err: (err as Error).message, paymentId }, 'APM connector call failed');
    return fallback;
  }
}

// --- starting -------------------------------------------------------------------------------------

export interface NewApmSale {
  merchant: Merchant;
  method: ApmMethod;
  order: { id: string; amount: Money; description: string };
  auth: boolean;
  params: Record<string, unknown>;
  payer: PayerInfo;
  customData?: Record<string, unknown>;
  callbackUrl?: string;
  returnUrl?: string;
  returnTarget?: string;
  identifier?: string;
}

/** S2S APM SALE: the payment is written with its method, then takes its first step. */
export async function startApmSale(ctx: ServiceContext, input: NewApmSale): Promise<ApmStep> {
  const { merchant, method, order } = input;
  const route = await routeApm(ctx, merchant, method.key, order.amount); // routing first: a merchant without a provider leaves no payment behind
  const apm: ApmDetails = { method: method.key, experience: method.experience, stage: 'new', params: input.params, returnUrl: input.returnUrl, returnTarget: input.returnTarget, ...route.apm };
  const payment = await insertPayment(ctx.db, {
    id: newId(), merchantId: merchant.id, channel: 's2s_apm', operation: 'purchase', orderId: order.id, amount: order.amount.minor,
    currency: order.amount.currency, description: order.description, status: 'prepare', auth: input.auth, payer: input.payer,
    customData: input.customData, callbackUrl: input.callbackUrl, midId: route.midId,
    details: {
      brand: method.key, apm, gatewayUrl: ctx.baseUrl, identifier: input.identifier,
      noCallbacks: input.callbackUrl === undefined && !merchant.notificationUrl,
    },
    now: ctx.clock.now(),
  });
  return proceed(ctx, merchant, payment);
}

/** Hosted Checkout: the payer chose a method for the session's payment (in prepare). */
export async function chooseMethod(ctx: ServiceContext, merchant: Merchant, payment: Payment, method: ApmMethod, params: Record<string, unknown>, payer: PayerInfo, deviceId?: string): Promise<ApmStep> {
  const route = await routeApm(ctx, merchant, method.key, { minor: payment.amount, currency: payment.currency }, !isPayout(payment.operation));
  // A payout's parameters take the request's payee values where the merchant sent none (they win over the page).
  const filled = isPayout(payment.operation) ? withPayeeValues(method, params, { ...payment.payer, ...payer }) : params;
  const apm: ApmDetails = { method: method.key, experience: method.experience, stage: 'new', params: filled, ...route.apm };
  const chosen = await updatePayment(ctx.db, payment.id, { status: 'prepare', pendingOperation: null, version: payment.version },
    { payer: { ...payment.payer, ...payer }, details: { brand: method.key, apm, ...(deviceId ? { deviceId } : {}) } }, ctx.clock.now());
  if (!chosen) throw new GatewayError('sessionNotPayable');
  return proceed(ctx, merchant, chosen);
}

/**
 * A provider MID serving the method, else the merchant's default connector (which refuses a merchant without one).
 * The provider kinds are payins: a payout always keeps the default connector.
 */
async function routeApm(ctx: ServiceContext, merchant: Merchant, method: string, amount: Money, payin = true): Promise<{ apm: { midId?: string }; midId: string | null }> {
  const mid = payin ? await providerMidFor(ctx, merchant, method, amount) : undefined;
  if (mid) return { apm: { midId: mid.id }, midId: null };
  // The default route: an upstream MID (kept as the payment's mid_id), or the sandbox (refused to a live merchant).
  const route = await apmRoute(ctx, merchant, { midId: null, amount: amount.minor, currency: amount.currency }, true);
  return { apm: {}, midId: route.midId };
}

/** Asks the payer for what the request lacks, or goes to the provider. */
export async function proceed(ctx: ServiceContext, merchant: Merchant, payment: Payment): Promise<ApmStep> {
  const apm = apmOf(payment);
  const method = apm && findMethod(apm.method);
  if (!apm || !method) return stepOf(payment);
  // Optional fields are offered with the required ones, never asked for alone.
  const missing = pageFields(method, apm.params, payment.payer, payment.operation as Operation).filter((f) => f.required);
  if (missing.length === 0) return initiate(ctx, merchant, payment, apm);
  if (apm.stage === 'fields') return stepOf(payment);
  const asked = await updatePayment(ctx.db, payment.id, { status: payment.status, pendingOperation: null, version: payment.version },
    { status: payment.status === 'prepare' ? transition('prepare', 'redirect_required') : payment.status, details: { apm: { ...apm, stage: 'fields' } } }, ctx.clock.now());
  return stepOf(asked ?? (await reload(ctx, payment)));
}

/**
 * The payer gave the missing fields (by page field name: a member path of the parameters, or a payer path such
 * as customer.email): kept with the payment, then the next step.
 */
export async function submitFields(ctx: ServiceContext, payment: Payment, given: Readonly<Record<string, string>>): Promise<ApmStep> {
  const apm = apmOf(payment);
  if (!apm || apm.stage !== 'fields' || payment.status !== 'redirect' || payment.pendingOperation) return stepOf(payment);
  const merchant = await merchantOf(ctx, payment);
  const payer: PayerInfo = { ...payment.payer };
  const params: Record<string, unknown> = structuredClone(apm.params);
  for (const [name, value] of Object.entries(given)) {
    const key = PAYER_PATHS[name];
    if (key) payer[key] = value;
    else setPath(params, name.split('.'), value);
  }
  const updated = await updatePayment(ctx.db, payment.id, { status: 'redirect', pendingOperation: null, version: payment.version },
    { payer, details: { apm: { ...apm, params } } }, ctx.clock.now());
  return updated ? proceed(ctx, merchant, updated) : stepOf(await reload(ctx, payment));
}

/** params.a.b = value, creating the objects on the way (members such as bankDetails.cbu). */
function setPath(obj: Record<string, unknown>, path: readonly string[], value: string): void {
  const [head, ...rest] = path;
  if (head === undefined || head === '__proto__' || head === 'constructor' || head === 'prototype') return;
  if (rest.length === 0) {
    obj[head] = value;
    return;
  }
  const next = obj[head];
  const child = next !== null && typeof next === 'object' && !Array.isArray(next) ? (next as Record<string, unknown>) : {};
  obj[head] = child;
  setPath(child, rest, value);
}

async function initiate(ctx: ServiceContext, merchant: Merchant, payment: Payment, apm: ApmDetails): Promise<ApmStep> {
  // A provider MID's payment goes to it; any other is routed afresh (an upstream MID, or the sandbox).
  const { connector, midId } = apmOf(payment)?.midId ? { connector: await connectorOfPayment(ctx, merchant, payment), midId: null } : await apmRoute(ctx, merchant, payment, true);
  const transId = newId();
  const now = ctx.clock.now();
  const claimed = await ctx.db.transaction(async (tx) => {
    const claim = await updatePayment(tx, payment.id, { status: payment.status, pendingOperation: null, version: payment.version },
      { pendingOperation: 'apm_initiate', ...(midId ? { midId } : {}), details: { lastTransId: transId, connectorName: connector.name, apm: { ...apm, stage: 'started' } } }, now);
    // The initiation's transaction; the acquirer attempt it opens is written once the screen let it through (below).
    if (claim) await insertTransaction(tx, { id: transId, paymentId: payment.id, type: authTxType(payment.operation, intentOf(payment)), status: 'waiting', amount: payment.amount, now });
    return claim;
  });
  if (!claimed) return stepOf(await reload(ctx, payment));
  // Once per attempt, on the claim that makes it one, before the provider is asked (services/attempt/screen.ts).
  const verdict = await screen(ctx, { ...apmScreenFacts(claimed, apm.method), sandbox: merchant.sandbox });
  // Blocked (or held for a review no APM experience can wait on): declined, the provider never asked, no attempt at it recorded.
  if (verdict.action === 'block' || verdict.action === 'review') return applyInitiation(ctx, merchant, claimed, riskDecline());
  // The payment's attempt at the provider, about to be asked (the payment's timeline and view show it).
  await openAttempt(ctx.db, transId, payment.id, { midId: midId ?? payment.midId, connector: connector.name, why: 'routed' }, ctx.clock.now());
  const unavailable: ApmOutcome = { kind: 'pending', reason: 'Connector unavailable' };
  if (isPayout(claimed.operation)) {
    const payout = await payoutRequest(ctx, merchant, claimed, apm);
    const outcome = 'missing' in payout ? { kind: 'declined' as const, reason: payout.missing } : await call<ApmOutcome>(ctx, payment.id, () => connector.payout(payout), unavailable);
    return applyInitiation(ctx, merchant, claimed, outcome);
  }
  const request = initiateRequest(ctx, merchant, claimed, apm);
  const outcome = await call<ApmOutcome>(ctx, payment.id, () => connector.initiate(request), unavailable);
  return applyInitiation(ctx, merchant, claimed, outcome);
}

/** An APM attempt the risk screen stopped, as the decline it is recorded with. */
export const riskDecline = (): ApmOutcome => ({ kind: 'declined', reason: DECLINES.risk_blocked.message });

/** What the screen reads of an APM attempt (an initiation or a payout). */
export function apmScreenFacts(p: Payment, method: string): ScreenFacts {
  return {
    paymentId: p.id, merchantId: p.merchantId, midId: p.midId, channel: p.channel, kind: 'apm', operation: p.operation,
    intent: intentOf(p), amount: p.amount, currency: p.currency, method,
    payer: { ip: p.payer.ip, email: p.payer.email, country: p.payer.country }, merchantInitiated: false, recurring: p.details.recurringInit === true, customData: p.customData,
    ...(typeof p.details.deviceId === 'string' ? { deviceId: p.details.deviceId } : {}),
  };
}

/**
 * A hosted Checkout payout to an alternative method: the parameters the payee completed, with what the MID the
 * session routed to supplies (account_uuid, fee_calculation_method, a source account), else the merchant's connector
 * options. A mandatory member neither gives stops the payout before the provider is asked (its decline reason).
 */
async function payoutRequest(ctx: ServiceContext, merchant: Merchant, payment: Payment, apm: ApmDetails): Promise<ApmPayoutRequest | { missing: string }> {
  const method = findMethod(apm.method) as MethodEntry;
  const mid = payment.midId ? (await listMids(ctx.db, merchant.id)).find((m) => m.id === payment.midId) : undefined;
  const supplied = midSupplied(method, apm.params, withConnectorOptions(merchant, mid?.settings));
  if (supplied.missing.length > 0) return { missing: missingReason(method, supplied.missing) };
  const p = payment.payer;
  return {
    paymentId: payment.id, method: apm.method, amount: payment.amount, currency: payment.currency, orderId: payment.orderId, description: payment.description,
    payee: { email: p.email, phone: p.phone, name: p.name, firstName: p.firstName, lastName: p.lastName, country: p.country },
    params: { ...apm.params, ...supplied.values }, experience: apm.experience, merchantName: merchant.name, options: method.experienceOptions ?? {},
  };
}

function initiateRequest(ctx: ServiceContext, merchant: Merchant, payment: Payment, apm: ApmDetails): ApmInitiateRequest {
  const method = findMethod(apm.method);
  const p = payment.payer;
  return {
    paymentId: payment.id, method: apm.method, methodKind: method?.kind ?? '', experience: apm.experience, intent: payinIntent(payment), amount: payment.amount,
    currency: payment.currency, orderId: payment.orderId, description: payment.description, merchantName: merchant.name,
    payer: { email: p.email, phone: payerPhone(payment), name: p.name, country: p.country, ip: p.ip, address: p.address, city: p.city, zip: p.zip }, params: apm.params,
    options: method?.experienceOptions ?? {}, returnUrl: `${ctx.baseUrl}/pay/${payment.id}`,
    ...(apm.midId ? { notifyUrl: providerNotifyUrl(ctx, payment.id) } : {}), recurring: payment.details.recurringInit === true,
  };
}

/** The provider's answer to an initiation (given at once, or found later by the re-check worker). */
async function applyInitiation(ctx: ServiceContext, merchant: Merchant, payment: Payment, outcome: ApmOutcome): Promise<ApmStep> {
  const expect: Expectation = { status: payment.status, pendingOperation: 'apm_initiate' };
  if (outcome.kind === 'pending') return { kind: 'processing', payment };
  const held = await heldForIntegrity(ctx, payment, 'apm_initiate', outcome);
  if (held) return { kind: 'processing', payment: held };
  if (outcome.kind === 'action') return awaitPayer(ctx, merchant, payment, expect, outcome.reference, outcome.action);
  return finish(ctx, merchant, payment, expect, payment.details.lastTransId, outcome.kind === 'approved'
    ? { approved: true, reference: outcome.reference }
    : { approved: false, reason: outcome.reason, reference: outcome.reference });
}

/**
 * An initiation whose decided answer was held for an operator (the provider reported another amount, currency
 * or reference): the operator's word, applied as the provider's would have been. Undefined when the payment
 * moved meanwhile.
 */
export async function resolveHeldInitiation(
  ctx: ServiceContext, merchant: Merchant, payment: Payment, decision: OperatorDecision, write: OperatorWrite,
): Promise<Payment | undefined> {
  if (payment.pendingOperation !== 'apm_initiate') return undefined;
  let applied: Payment | undefined;
  const expect: Expectation = { status: payment.status, pendingOperation: 'apm_initiate', version: write.version };
  await finish(ctx, merchant, payment, expect, payment.details.lastTransId, { approved: decision.settled, reason: decision.reason, reference: decision.reference }, {
    ...write,
    async within(tx, updated) {
      applied = updated;
      await write.within(tx, updated);
    },
  });
  return applied;
}

/**
 * An initiation left in flight (the process died before the provider's answer was written, or the provider did
 * not answer): asks the provider what became of it and applies that as if initiate() had answered. A payment
 * the provider does not know stays in flight.
 */
export async function recheckInitiation(ctx: ServiceContext, payment: Payment): Promise<ApmStep> {
  const apm = apmOf(payment);
  if (payment.pendingOperation !== 'apm_initiate' || !apm) return stepOf(payment);
  const merchant = await merchantOf(ctx, payment);
  const connector = await connectorOfPayment(ctx, merchant, payment);
  const outcome = await call(ctx, payment.id, () => connector.inquire(initiateRequest(ctx, merchant, payment, apm)), undefined);
  return applyInitiation(ctx, merchant, payment, outcome ?? { kind: 'pending', reason: 'Unknown to the provider' });
}

/** The provider waits for the payer: the payment shows the action; an S2S merchant hears REDIRECT. */
async function awaitPayer(ctx: ServiceContext, merchant: Merchant, payment: Payment, expect: Expectation, reference: string, action: PayerAction): Promise<ApmStep> {
  const now = ctx.clock.now();
  const apm = apmOf(payment)!;
  const patch: PaymentPatch = {
    status: payment.status === 'prepare' ? transition('prepare', 'redirect_required') : payment.status,
    pendingOperation: null,
    details: { connectorRef: reference, apm: { ...apm, stage: 'started', action } },
  };
  const updated = await ctx.db.transaction(async (tx) => {
    const u = await updatePayment(tx, payment.id, expect, patch, now);
    if (u) await answerCurrentAttempt(tx, u.id, attemptResult({ kind: 'redirect', reference }), now);
    if (u) await post(ctx, tx, { payment: u, transId: u.details.lastTransId ?? u.id, outcome: 'redirect' });
    if (u && u.channel === 's2s_apm') await notify(tx, merchant, u, { transId: u.details.lastTransId ?? u.id, type: 'redirect', status: 'waiting' }, now);
    return u;
  });
  return stepOf(updated ?? (await reload(ctx, payment)));
}

interface Decision {
  approved: boolean;
  reason?: string;
  reference?: string;
}

const finalType = (p: Payment): TransactionType => finalTxType(p.operation);

/**
 * The payment's final state, its transaction, the session and the callback, in one transaction (with an
 * operator's record in it when they decided a held outcome).
 */
async function finish(ctx: ServiceContext, merchant: Merchant, payment: Payment, expect: Expectation, transId: string | undefined, d: Decision, byOperator?: OperatorWrite): Promise<ApmStep> {
  const now = ctx.clock.now();
  const to = transition(payment.status, d.approved ? (payment.auth ? 'authorized' : 'sold') : 'declined');
  const patch: PaymentPatch = d.approved
    ? { status: to, capturedAmount: payment.auth ? 0n : payment.amount, pendingOperation: null }
    : { status: to, declineReason: d.reason ?? DECLINED, pendingOperation: null };
  if (d.reference) patch.details = { connectorRef: d.reference };
  const txStatus = d.approved ? 'success' : 'fail';
  const write = async (sql: Sql): Promise<Payment | undefined> => {
    const updated = transId
      ? await updatePaymentAndTransaction(sql, payment.id, expect, patch, now, {
        id: transId, status: txStatus, details: { ...(d.approved ? {} : { reason: patch.declineReason }), ...byOperator?.txDetails },
        attempt: attemptResult({ kind: d.approved ? 'approved' : 'declined', ...(d.reference ? { reference: d.reference } : {}) }),
      })
      : await updatePayment(sql, payment.id, expect, patch, now);
    if (!updated) return undefined;
    await post(ctx, sql, { payment: updated, transId: transId ?? updated.id, outcome: d.approved ? 'approved' : 'declined' });
    if (d.approved && updated.sessionId) await markSessionPaid(sql, updated.sessionId, updated.id);
    await notify(sql, merchant, updated, { transId: transId ?? updated.id, type: finalType(updated), status: txStatus, ...(d.approved ? {} : { reason: updated.declineReason ?? DECLINED }) }, now);
    await byOperator?.within(sql, updated);
    return updated;
  };
  const updated = await ctx.db.transaction(write);
  return stepOf(updated ?? (await reload(ctx, payment)));
}

// --- the provider's answer -----------------------------------------------------------------------------

/** Applies what the provider says of a payment waiting for it (pending changes nothing). */
async function settle(ctx: ServiceContext, merchant: Merchant, payment: Payment, status: ProviderStatus): Promise<ApmStep> {
  if (!awaitingProvider(payment) || status.state === 'pending') return stepOf(payment);
  return finish(ctx, merchant, payment, { status: 'redirect', pendingOperation: null }, payment.details.lastTransId,
    { approved: status.state === 'executed', reason: status.reason });
}

/**
 * Asks the provider what became of a waiting payment. A QR code past its lifetime (the gateway's clock) is
 * withdrawn first; if the bank executed it just before, that payment stands.
 */
export async function refresh(ctx: ServiceContext, payment: Payment): Promise<ApmStep> {
  if (!awaitingProvider(payment)) return stepOf(payment);
  const merchant = await merchantOf(ctx, payment);
  const connector = await connectorOfPayment(ctx, merchant, payment);
  const action = apmOf(payment)?.action;
  const ref = payment.details.connectorRef as string;
  const expired = action?.kind === 'qr' && Date.parse(action.expiresAt) <= ctx.clock.now().getTime();
  const pending: ProviderStatus = { state: 'pending' };
  const status = await call(ctx, payment.id, () => (expired ? connector.cancel(ref, QR_EXPIRED) : connector.status(ref)), pending);
  return settle(ctx, merchant, payment, status);
}

/** The payer left an unfinished payment (chose another method): withdrawn at the provider, declined here. */
export async function abandon(ctx: ServiceContext, payment: Payment): Promise<ApmStep> {
  if (!unfinishedApm(payment)) return stepOf(payment);
  const merchant = await merchantOf(ctx, payment);
  if (!awaitingProvider(payment)) {
    return finish(ctx, merchant, payment, { status: 'redirect', pendingOperation: null, version: payment.version }, undefined, { approved: false, reason: CANCELLED });
  }
  const connector = await connectorOfPayment(ctx, merchant, payment);
  const status = await call(ctx, payment.id, () => connector.cancel(payment.details.connectorRef as string, CANCELLED), { state: 'pending' } as ProviderStatus);
  return settle(ctx, merchant, payment, status);
}

/** The one-time code the payer typed: the provider decides, or asks again. */
export async function submitCode(ctx: ServiceContext, payment: Payment, code: string): Promise<ApmStep> {
  const apm = apmOf(payment);
  if (!awaitingProvider(payment) || apm?.action?.kind !== 'otp') return stepOf(payment);
  const merchant = await merchantOf(ctx, payment);
  const connector = await connectorOfPayment(ctx, merchant, payment);
  const answer = await call(ctx, payment.id, () => connector.verifyCode(payment.details.connectorRef as string, code.slice(0, 32)), { state: 'pending' });
  if (!answer.retry) return settle(ctx, merchant, payment, answer);
  const retried = await updatePayment(ctx.db, payment.id, { status: 'redirect', pendingOperation: null },
    { details: { apm: { ...apm, action: { ...apm.action, error: answer.retry } } } }, ctx.clock.now());
  return stepOf(retried ?? (await reload(ctx, payment)));
}

/**
 * The payer asks for a new one-time code: counted on the payment first (compare-and-set on its version, so two
 * tabs cannot exceed the limit), then the provider sends it. False when nothing was sent.
 */
export async function resendCode(ctx: ServiceContext, payment: Payment, max: number): Promise<boolean> {
  const apm = apmOf(payment);
  if (!awaitingProvider(payment) || apm?.action?.kind !== 'otp' || (apm.resends ?? 0) >= max) return false;
  const merchant = await merchantOf(ctx, payment);
  const connector = await connectorOfPayment(ctx, merchant, payment);
  if (!connector.resendCode) return false;
  const counted = await updatePayment(ctx.db, payment.id, { status: payment.status, pendingOperation: null, version: payment.version },
    { details: { apm: { ...apm, resends: (apm.resends ?? 0) + 1, action: { kind: 'otp', sentTo: apm.action.sentTo } } } }, ctx.clock.now());
  if (!counted) return false;
  return call(ctx, payment.id, () => connector.resendCode!(payment.details.connectorRef as string), false);
}

/**
 * The provider's notification (the bank callback: ACSC paid, RJCT refused) names the payment by its
 * end-to-end id. It only makes the gateway look: the status is read back from the provider, so a forged
 * or stale notification cannot settle anything.
 */
export async function handleBankCallback(ctx: ServiceContext, n: { endToEndId: string; status: string }): Promise<Payment> {
  const payment = await getPayment(ctx.db, n.endToEndId);
  if (!payment || !apmOf(payment)) throw new GatewayError('transactionDoesNotExist');
  const { payment: after } = await refresh(ctx, payment);
  const claimed = QR_PROVIDER_STATES[n.status];
  if (claimed && claimed !== apmS2sStatus(after)) ctx.logger.warn({ paymentId: after.id, claimed: n.status }, 'bank callback not confirmed by the provider; ignored');
  return after;
}

/**
 * A connector's verified notification about an APM payment (the upstream PSP's callback): an initiation still
 * in flight takes it as initiate()'s answer (compare-and-set on apm_initiate, so it races the answer safely); a
 * payment waiting for its payer is looked up at the provider, as a bank callback makes the gateway look; a payout
 * in flight takes it as the payout's answer. Anything else (a final payment) is left as it is.
 */
export async function applyProviderNotice(ctx: ServiceContext, merchant: Merchant, payment: Payment, outcome: ApmOutcome): Promise<ApmStep> {
  // Held for an operator (an integrity mismatch): no automated word settles it.
  if (needsOperatorOf(payment)) return stepOf(payment);
  if (payment.pendingOperation === 'apm_initiate' && apmOf(payment)) return applyInitiation(ctx, merchant, payment, outcome);
  if (payment.pendingOperation === 'apm_payout') return stepOf((await applyPayoutOutcome(ctx, merchant, payment, outcome)).payment);
  if (!awaitingProvider(payment)) return stepOf(payment);
  if (mismatchesOf(payment, outcome).length > 0) {
    ctx.logger.warn({ paymentId: payment.id }, 'provider notification names another amount, currency or order; ignored');
    return stepOf(payment);
  }
  return refresh(ctx, payment);
}
