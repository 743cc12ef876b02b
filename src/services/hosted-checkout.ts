/**
 * The payer's side of a Checkout session: load it, pay it by card, finish a challenge, and work out where
 * the payer goes next. Wire formats (HTML forms) stay in the pages channel.
 */
import type { ServiceContext } from './context.ts';
import { payerMayRetry } from '../domain/declines.ts';
import { findMerchantById, listMids } from '../store/merchants-repo.ts';
import type { LinkTarget, Merchant } from '../domain/model/merchant.ts';
import type { Mid } from '../domain/model/mid.ts';
import type { PayerInfo, Payment, PaymentDetails } from '../domain/model/payment.ts';
import { countDeclinedAttempts, getSession, switchSessionPayment, type Session } from '../store/sessions-repo.ts';
import { getPayment, insertPayment } from '../store/payments-repo.ts';
import { cardOnFileOf } from './recurring/card-on-file.ts';
import type { Consent } from '../domain/recurring-consent.ts';
import { GatewayError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { intentOf, isPayout, issuesCardToken, payinIntent, takesWallets } from '../domain/operations.ts';
import { authorizeCard, completeChallenge, resolveSource, type PaymentStep, type SourceRequest } from './attempt/index.ts';
import { returnQuery, withQuery } from './callbacks/checkout-callback.ts';
import { sessionPaymentDetails } from './checkout-sessions.ts';
import type { WalletName } from '../domain/wallets/wallet-flow.ts';
import { splitHolder } from './card-credit.ts';

export type SessionState =
  | { kind: 'missing' }
  | { kind: 'expired'; session: Session; merchant: Merchant }
  | { kind: 'paid'; session: Session; merchant: Merchant; payment: Payment }
  | { kind: 'open'; session: Session; merchant: Merchant; mids: Mid[]; payment: Payment };

export async function loadSession(ctx: ServiceContext, sessionId: string): Promise<SessionState> {
  const session = await getSession(ctx.db, sessionId);
  if (!session) return { kind: 'missing' };
  const merchant = await findMerchantById(ctx.db, ctx.keyring, session.merchantId);
  const payment = session.paymentId ? await getPayment(ctx.db, session.paymentId) : undefined;
  if (!merchant || !payment) return { kind: 'missing' };
  if (session.status === 'paid') return { kind: 'paid', session, merchant, payment };
  if (session.expiresAt.getTime() <= ctx.clock.now().getTime()) return { kind: 'expired', session, merchant };
  return { kind: 'open', session, merchant, mids: await listMids(ctx.db, merchant.id), payment };
}

export interface CardForm {
  card?: { number?: string; expMonth: string; expYear: string; cvv?: string; holder?: string };
  billing?: { country: string; state?: string; city: string; address: string; zip: string; phone?: string };
  email?: string;
  /** Asked on the page when a connector requires it (CardConnector.requiredPayerFields). */
  phone?: string;
  /** The payer's answer to the recurring consent checkbox (asked with recurring_consent_required only). */
  recurringConsent?: boolean;
}

/** Where the payer is in a payment that already started, if anywhere. */
export function resumeStep(payment: Payment): PaymentStep | undefined {
  if (payment.pendingOperation) return { kind: 'processing', payment };
  if (payment.status === '3ds') return { kind: 'challenge', payment };
  if (payment.status === 'redirect') return { kind: 'redirect', payment };
  return undefined;
}

/** A declined attempt leaves the session open: the next attempt is a new payment of the same order. */
export async function attemptFor(ctx: ServiceContext, state: Extract<SessionState, { kind: 'open' }>): Promise<Payment> {
  const { payment, session } = state;
  if (payment.status === 'prepare') return payment;
  // Only after a decline: an attempt still under way (3-D Secure, a provider's page, an operation in flight) could
  // be paid too, beside the new one. The session's switch below compares the attempt it replaces as well.
  if (payment.status !== 'decline' || payment.pendingOperation) throw new GatewayError('operationInProgress');
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const next = await insertPayment(tx, {
      id: newId(), merchantId: payment.merchantId, sessionId: session.id, channel: 'checkout', operation: payment.operation,
      orderId: payment.orderId, amount: payment.amount, currency: payment.currency, description: payment.description,
      status: 'prepare', auth: payment.auth, midId: payment.midId, payer: payment.payer, customData: payment.customData,
      details: { ...sessionPaymentDetails(session.request, payment.currency), ...(payment.details.payee ? { payee: payment.details.payee } : {}) }, now,
    });
    if (!(await switchSessionPayment(tx, session.id, payment.id, next.id))) throw new GatewayError('sessionNotPayable');
    return next;
  });
}

/**
 * `payerIp` is the address the hosted page saw (behind trustProxy); it is recorded when the merchant gave none
 * at session creation, so callbacks and status answers carry the payer's IP.
 */
export async function payByCard(ctx: ServiceContext, state: Extract<SessionState, { kind: 'open' }>, form: CardForm, payerIp?: string, browser?: Record<string, string>, deviceId?: string): Promise<PaymentStep> {
  const resumed = resumeStep(state.payment);
  if (resumed) return resumed;
  const { session, merchant } = state;
  await assertMayTryAgain(ctx, state);
  // The source first: a card token that names no card writes no new attempt (the session keeps its last decline).
  const { source, holder } = await resolveSource(ctx, merchant, state.mids, sourceRequest(session, form));
  const payment = await attemptFor(ctx, state);
  const intent = intentOf({ operation: session.operation, auth: session.request.auth });
  const consent = consentTerms(session, form.recurringConsent);
  const details: PaymentDetails = { ...consent?.details, ...(browser && Object.keys(browser).length > 0 ? { browser } : {}), ...(deviceId ? { deviceId } : {}) };
  const typed = payerFrom(form);
  return authorizeCard(ctx, {
    merchant,
    mids: state.mids,
    payment,
    source,
    intent,
    // The S2S rule (services/s2s-card/card-payments.ts cardTerms), and a chain the payer agreed to starts with a token.
    tokenize: issuesCardToken(session.operation, session.request.reqToken) || (session.request.recurringInit && consent?.recurring !== false),
    payer: { ...(isPayout(session.operation) ? payeeNames(payment.payer, typed.name ?? holder) : typed), ...withoutName(typed, session.operation), ...seenIp(payment.payer, payerIp) },
    // The page's browser details go to the connector (3-D Secure) and back in browser_* where enabled.
    ...(Object.keys(details).length > 0 ? { details } : {}),
  });
}

/**
 * The payer paid with the wallet button: the token the payment sheet (the wallet's, or the sandbox simulator's)
 * handed the page goes through the flow rules as an S2S wallet SALE's does (services/wallets/wallet-payments.ts).
 */
export async function payByWallet(
  ctx: ServiceContext, state: Extract<SessionState, { kind: 'open' }>, wallet: WalletName, paymentToken: string, payerIp?: string, pagePayer: PayerInfo = {}, deviceId?: string,
): Promise<PaymentStep> {
  const resumed = resumeStep(state.payment);
  if (resumed) return resumed;
  const { session, merchant } = state;
  if (!takesWallets(session.operation)) throw new GatewayError('actionNotSupported');
  await assertMayTryAgain(ctx, state);
  const payment = await attemptFor(ctx, state);
  const intent = payinIntent({ operation: session.operation, auth: session.request.auth });
  // A wallet's sheet asks no recurring consent: where the merchant requires one, the payment is made once.
  const consent = consentTerms(session, undefined);
  const recurring = session.request.recurringInit && consent?.recurring !== false;
  const holder = pagePayer.name ?? payment.payer.name;
  const resolved = await resolveSource(ctx, merchant, state.mids, {
    kind: 'wallet',
    request: { wallet, paymentToken, intent, ask: { hold: intent === 'auth', recurring, cardToken: session.request.reqToken }, ...(holder ? { holder } : {}) },
  });
  return authorizeCard(ctx, {
    merchant,
    mids: state.mids,
    payment,
    source: resolved.source,
    intent,
    tokenize: session.request.reqToken || recurring,
    payer: { ...pagePayer, ...seenIp(payment.payer, payerIp) },
    details: { ...consent?.details, ...resolved.details, ...(deviceId ? { deviceId } : {}) },
  });
}

/**
 * recurring_consent_required (wire-reference 2.1): ticked, the chain starts and carries a consent id; declined, the
 * payment is made once (no chain, no schedule, no recurring_token) and says consent_state ignored.
 */
function consentTerms(session: Session, given: boolean | undefined): { recurring: boolean; details: PaymentDetails } | undefined {
  if (!session.request.recurringConsentRequired) return undefined;
  if (given === true) return { recurring: true, details: { consent: { id: newId(), state: 'active' } satisfies Consent } };
  const cof = cardOnFileOf({ storesCard: session.request.reqToken, usesStoredCard: false, payerPresent: true });
  return { recurring: false, details: { consent: { state: 'ignored' } satisfies Consent, recurringInit: false, schedule_id: null, cof: cof ?? null } };
}

/**
 * The name of a payout's recipient: the request's payee names win (they are on the payment already); only
 * without them does the card's holder (typed, or the card_token's) name the payee.
 */
function payeeNames(payer: PayerInfo, holder: string | null | undefined): PayerInfo {
  if (payer.firstName || payer.lastName || !holder) return {};
  return { ...splitHolder(holder), name: holder };
}

/** A payout's form data, its holder left to payeeNames. */
function withoutName(typed: PayerInfo, operation: Session['operation']): PayerInfo {
  if (!isPayout(operation)) return {};
  const { name: _name, ...rest } = typed;
  return rest;
}

/** The IP the page saw, for a payer the merchant gave none for. */
export function seenIp(payer: PayerInfo, payerIp: string | undefined): PayerInfo {
  return payerIp && !payer.ip ? { ip: payerIp } : {};
}

/**
 * The card of the attempt: typed in full, or the session's card_token. A payout by card_token asks the payer
 * for MM/YY only, and that typed expiry is the one used.
 */
function sourceRequest(session: Session, form: CardForm): SourceRequest {
  const card = form.card;
  if (!card) throw GatewayError.field('card_number', 'This value should not be blank.');
  if (card.number) return { kind: 'card', keep: true, card: { pan: card.number, expMonth: card.expMonth, expYear: card.expYear, cvv: card.cvv, holder: card.holder } };
  const typed = isPayout(session.operation) && card.expMonth && card.expYear ? { expiry: { expMonth: card.expMonth, expYear: card.expYear } } : {};
  return { kind: 'token', token: session.request.cardTokens?.[0], ...typed };
}

function payerFrom(form: CardForm): PayerInfo {
  const b = form.billing;
  const payer: PayerInfo = {};
  if (form.email) payer.email = form.email;
  if (form.card?.holder) payer.name = form.card.holder;
  if (b) Object.assign(payer, { country: b.country, state: b.state, city: b.city, address: b.address, zip: b.zip, phone: b.phone });
  if (form.phone) payer.phone = form.phone;
  return Object.fromEntries(Object.entries(payer).filter(([, v]) => v !== undefined && v !== '')) as PayerInfo;
}

/** Finishes the ACS challenge or provider page of a payment, whichever channel started it. */
export async function finishChallenge(ctx: ServiceContext, paymentId: string, decision: 'submit' | 'cancel' | 'approve' | 'decline' | 'returned', params?: Record<string, string>): Promise<{ step: PaymentStep; merchant: Merchant }> {
  const payment = await getPayment(ctx.db, paymentId);
  if (!payment) throw new GatewayError('paymentNotFound');
  const merchant = await findMerchantById(ctx.db, ctx.keyring, payment.merchantId);
  if (!merchant) throw new GatewayError('paymentNotFound');
  const mids = await listMids(ctx.db, merchant.id);
  return { step: await completeChallenge(ctx, merchant, mids, paymentId, decision, params), merchant };
}

export interface Destination {
  url: string;
  target: LinkTarget;
}

/** Override Link Target replaces the merchant's url_target; the default leaves any frame. */
export function linkTarget(merchant: Merchant, requested: string | undefined): LinkTarget {
  const valid = ['_blank', '_self', '_parent', '_top'] as const;
  const asked = valid.find((t) => t === requested);
  return merchant.settings.overrideLinkTarget ?? asked ?? '_top';
}

/**
 * The merchant URL a finished Checkout payment sends the payer to, with the signed return parameters; undefined
 * when the session names none for the outcome (no cancel_url nor error_url): the gateway shows its own page.
 */
export function checkoutDestination(merchant: Merchant, session: Session, payment: Payment, outcome: 'success' | 'decline' | 'cancel'): Destination | undefined {
  const r = session.request;
  const base = outcome === 'success' ? r.successUrl : outcome === 'decline' ? (r.errorUrl ?? r.cancelUrl) : (r.cancelUrl ?? r.errorUrl);
  if (base === undefined) return undefined;
  const transId = payment.details.lastTransId ?? payment.id;
  return { url: withQuery(base, returnQuery(merchant, payment, transId)), target: linkTarget(merchant, r.urlTarget) };
}

export function outcomeOf(payment: Payment): 'success' | 'decline' {
  return payment.status === 'settled' || payment.status === 'pending' ? 'success' : 'decline';
}

export const DEFAULT_PAYER_ATTEMPTS = 3;

/** How many attempts a payer gets per session, or undefined when a decline goes straight to the merchant. */
export function payerAttempts(merchant: Merchant): number | undefined {
  const setting = merchant.settings.payerRetries;
  if (setting === false) return undefined;
  const max = setting?.maxAttempts;
  return typeof max === 'number' && Number.isInteger(max) && max >= 1 ? Math.min(max, 20) : DEFAULT_PAYER_ATTEMPTS;
}

/** A withdrawn attempt (the payer chose another method, or a QR code ran out) is not a try that failed. */
const NOT_A_TRY = ['Cancelled by payer', 'QR code expired'];

/** Attempts of the session that were declined (each its own payment under the session). */
export async function declinedAttempts(ctx: ServiceContext, sessionId: string): Promise<number> {
  return countDeclinedAttempts(ctx.db, sessionId, NOT_A_TRY);
}

export type AfterDecline =
  | { kind: 'retry'; triesLeft: number; reason: string | null }
  /** noTriesLeft: the payer used every try the merchant allows (the page says so rather than "try another card"). */
  | { kind: 'merchant'; noTriesLeft?: true };

/**
 * Where a payer goes after the session's current attempt was declined: back to the page while tries are left
 * (the merchant's setting allows them), else to the merchant.
 */
export async function afterDecline(ctx: ServiceContext, merchant: Merchant, session: Session, payment: Payment): Promise<AfterDecline> {
  const max = payerAttempts(merchant);
  if (max === undefined || payment.status !== 'decline' || session.status !== 'open') return { kind: 'merchant' };
  if (session.expiresAt.getTime() <= ctx.clock.now().getTime()) return { kind: 'merchant' };
  if (!payerMayRetry(payment.details.declineCode)) return { kind: 'merchant' };
  const used = await declinedAttempts(ctx, session.id);
  return used < max ? { kind: 'retry', triesLeft: max - used, reason: payment.declineReason } : { kind: 'merchant', noTriesLeft: true };
}

/** A new attempt is refused once the payer used every try the merchant allows. */
export async function assertMayTryAgain(ctx: ServiceContext, state: Extract<SessionState, { kind: 'open' }>): Promise<void> {
  if (state.payment.status !== 'decline') return;
  if (!payerMayRetry(state.payment.details.declineCode)) throw new GatewayError('sessionNotPayable');
  const max = payerAttempts(state.merchant);
  if (max !== undefined && (await declinedAttempts(ctx, state.session.id)) >= max) throw new GatewayError('sessionNotPayable');
}
