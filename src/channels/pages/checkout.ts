/**
 * The hosted Checkout page (the session's redirect_url): the page, its form (card or an alternative method), and the
 * payer leaving it (cancel, expired). Plain HTML forms in, HTML out; the JS on the page is an enhancement only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { loadSession, payByCard, checkoutDestination, linkTarget, afterDecline, payerAttempts, resumeStep, type SessionState } from '../../services/hosted-checkout.ts';
import { ERRORS, GatewayError } from '../../domain/errors.ts';
import { declineMessageKey } from '../../domain/declines.ts';
import { stateRequired } from '../../domain/countries.ts';
import type { ConnectorPayerField } from '../../connectors/types.ts';
import { isPayout } from '../../domain/operations.ts';
import { methodGroup } from '../../web/method-groups.ts';
import type { Translator } from '../../web/i18n.ts';
import { pageTranslator } from './locale.ts';
import { methodName } from './receipt.ts';
import { findMethod } from '../../domain/methods/catalog.ts';
import { renderCheckoutPage, renderRedirectPage, walletContentSecurityPolicy } from '../../web/pages.ts';
import type { CheckoutPageView } from '../../web/views.ts';
import { parseCheckoutForm, readBrowser } from '../../web/checkout-form.ts';
import { deviceIdOf } from '../../domain/risk/device.ts';
import { apmChoiceOf, payWithApm, withoutUnfinishedApm } from './apm-routes.ts';
import { apmOf, unfinishedApm } from '../../services/apm/details.ts';
import { walletMethod } from '../../domain/wallets/wallet-flow.ts';
import { walletButtons } from '../../services/wallets/wallet-buttons.ts';
import { PAGE, message, sendHtml } from './reply.ts';
import { continueAfter, returnToMerchant } from './next.ts';

/** A payer page's request: the session it names, perhaps a form. */
export type SessionPage = { Params: { id: string }; Body: Record<string, unknown> };
type OpenSession = Extract<SessionState, { kind: 'open' }>;

const BILLING_PAYER_FIELDS = ['payer_country', 'payer_state', 'payer_city', 'payer_address', 'payer_zip'];

/**
 * How much of the billing address the card form asks: all of it when the Protocol Mapping marks a billing
 * field required or a MID's settings say its acquirer needs it (and the merchant did not send it whole), only
 * the state when the merchant sent a country whose state the rule needs (CA, US, JP, AU, IN) and no state,
 * else nothing.
 */
function billingAsked(state: OpenSession): { required: boolean; stateOnly: boolean } {
  const b = state.session.request.billingAddress ?? {};
  const complete = Boolean(b.country && b.city && b.address && b.zip);
  const needed = (state.merchant.settings.requiredPayerFields ?? []).some((f) => BILLING_PAYER_FIELDS.includes(f)) ||
    state.mids.some((m) => m.enabled && m.settings.billingAddressRequired === true);
  const required = needed && !complete;
  const stateOnly = !required && Boolean(b.country) && stateRequired(b.country) && !b.state;
  return { required, stateOnly };
}

/** Whether a connector of the MIDs the session may route to refuses a payer without `field` (CardConnector.requiredPayerFields). */
function connectorsRequire(ctx: ServiceContext, state: OpenSession, field: ConnectorPayerField): boolean {
  return state.mids.some((m) => m.enabled && ctx.connectors.get(m.connector)?.requiredPayerFields?.includes(field) === true);
}

/**
 * What the payer typed on an earlier try of this session (the attempt's payer beside the merchant's request):
 * after a decline the page shows it again, so only the card is typed anew (issue 31 item 12).
 */
function typedBefore(state: OpenSession): { email?: string; phone?: string; billing: Partial<Record<'country' | 'state' | 'city' | 'address' | 'zip' | 'phone', string>> } {
  const { payment, session } = state;
  if (payment.status === 'prepare') return { billing: {} };
  const p = payment.payer;
  const r = session.request;
  const given = r.billingAddress ?? {};
  const billing = Object.fromEntries((['country', 'state', 'city', 'address', 'zip', 'phone'] as const)
    .map((k) => [k, p[k]] as const)
    .filter(([k, v]) => typeof v === 'string' && v !== '' && given[k] === undefined)) as Partial<Record<'country' | 'state' | 'city' | 'address' | 'zip' | 'phone', string>>;
  return {
    ...(p.email && p.email !== r.customer?.email ? { email: p.email } : {}),
    ...(p.phone && p.phone !== given.phone ? { phone: p.phone } : {}),
    billing,
  };
}

function checkoutView(ctx: ServiceContext, t: Translator, state: OpenSession, extra: Partial<CheckoutPageView> = {}): CheckoutPageView {
  const { session, merchant } = state;
  const base = `/checkout/${session.id}`;
  const expiryOnly = isPayout(session.operation) && (session.request.cardTokens?.length ?? 0) > 0;
  const hasCard = session.request.methods.includes('card');
  const asked = billingAsked(state);
  const typed = typedBefore(state);
  return {
    sessionId: session.id,
    merchantName: merchant.name,
    order: { number: session.orderNumber, amount: t.money(session.amount, session.currency), currency: session.currency, description: session.description },
    operation: session.operation,
    methods: session.request.methods.map((key) => ({ key, label: methodName(t, key), experience: findMethod(key)?.experience, group: methodGroup(key) })),
    selectedMethod: session.request.methods[0] ?? 'card',
    actionUrl: `${base}/pay`,
    cancelUrl: `${base}/cancel`,
    expiresAt: session.expiresAt.toISOString(),
    expiredUrl: `${base}/expired`,
    now: ctx.clock.now().toISOString(),
    // Only the card form asks for a billing address; alternative methods ask on their own pages what they need.
    billing: { required: asked.required && hasCard, stateOnly: asked.stateOnly && hasCard, values: { ...typed.billing, ...session.request.billingAddress } },
    email: state.payment.payer.email && typed.email === undefined ? undefined : { required: connectorsRequire(ctx, state, 'email'), ...(typed.email ? { value: typed.email } : {}) },
    ...(hasCard && (!state.payment.payer.phone || typed.phone !== undefined) && connectorsRequire(ctx, state, 'phone') ? { phone: typed.phone ? { value: typed.phone } : {} } : {}),
    values: {},
    errors: {},
    ...(expiryOnly ? { cardOnly: { expiryOnly: true } } : {}),
    ...(session.request.recurringConsentRequired && hasCard ? { recurringConsent: true } : {}),
    countries: [...t.countries()],
    sandbox: merchant.sandbox,
    languagePath: base,
    ...extra,
  };
}

/** What a payer reads of an error the payment step raised (the API's own texts are for merchants). */
const PAY_ERROR_KEYS: ReadonlyMap<unknown, string> = new Map<unknown, string>([
  [ERRORS.cardTokenInvalid, 'error.cardToken'],
  [ERRORS.actionNotSupported, 'error.notAvailable'],
  [ERRORS.noEligibleMid, 'error.notAvailable'],
  [ERRORS.dayMidLimit, 'error.notAvailable'],
]);

export function payErrorKey(err: GatewayError): string {
  return PAY_ERROR_KEYS.get(err.spec) ?? 'decline.tryAgain';
}

/** The Checkout page with its wallet buttons (a live Google Pay button widens the page's CSP for Google's script). */
export async function checkoutPage(ctx: ServiceContext, reply: FastifyReply, t: Translator, state: OpenSession, extra: Partial<CheckoutPageView> = {}, status = 200) {
  const wallets = await walletButtons(ctx, state.merchant, state.session);
  return sendHtml(reply, renderCheckoutPage(checkoutView(ctx, t, state, { wallets, ...extra }), t), status, walletContentSecurityPolicy(wallets));
}

/** The Checkout page, with the last attempt's decline when the payer may try again. */
async function openPage(ctx: ServiceContext, reply: FastifyReply, t: Translator, state: OpenSession) {
  if (state.payment.status === 'decline') {
    const next = await afterDecline(ctx, state.merchant, state.session, state.payment);
    if (next.kind === 'retry') {
      const method = apmOf(state.payment) ? 'apm' : 'card';
      return checkoutPage(ctx, reply, t, state, { decline: { message: t.t(declineMessageKey(next.reason, method, state.payment.details.declineCode)), triesLeft: next.triesLeft } });
    }
    if (payerAttempts(state.merchant) !== undefined) return returnToMerchant(reply, ctx, t, state.merchant, state.payment);
  }
  return checkoutPage(ctx, reply, t, state);
}

/** The payer's language on a session's page: theirs, else the session's locale. */
const sessionTranslator = (req: FastifyRequest, reply: FastifyReply, state: SessionState): Translator =>
  pageTranslator(req, reply, state.kind === 'missing' ? undefined : state.session.request.locale);

/**
 * A page that acts on a session the payer can still pay: a session that is missing, expired or paid answers
 * with the page that says so, and `handle` runs only on an open one.
 */
export function withLiveSession(
  ctx: ServiceContext,
  handle: (req: FastifyRequest<SessionPage>, reply: FastifyReply, t: Translator, state: OpenSession) => Promise<FastifyReply>,
) {
  return async (req: FastifyRequest<SessionPage>, reply: FastifyReply): Promise<FastifyReply> => {
    const state = await loadSession(ctx, req.params.id);
    const t = sessionTranslator(req, reply, state);
    if (state.kind === 'missing') return message(reply, t, 'msg.notFound', 'error', 404);
    if (state.kind === 'expired') return expired(reply, t, state);
    if (state.kind === 'paid') return message(reply, t, 'msg.paid', 'success');
    return handle(req, reply, t, state);
  };
}

/** The page and its form. */
export function registerCheckoutPages(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<SessionPage>('/checkout/:id', PAGE, withLiveSession(ctx, (_req, reply, t, state) => openPage(ctx, reply, t, state)));

  app.post<SessionPage>('/checkout/:id/pay', PAGE, withLiveSession(ctx, async (req, reply, t, state) => {
    const wallets = await walletButtons(ctx, state.merchant, state.session);
    const view = checkoutView(ctx, t, state, { wallets });
    const csp = walletContentSecurityPolicy(wallets);
    const body = typeof req.body === 'object' && req.body ? req.body : {};
    // A wallet is paid with its button (its payment sheet makes the token); the form's own Pay button cannot.
    const chosen = typeof body.method === 'string' ? body.method : state.session.request.methods.length === 1 ? state.session.request.methods[0] : undefined;
    const wallet = walletMethod(chosen)?.wallet;
    if (wallet && chosen) return checkoutPage(ctx, reply, t, state, { selectedMethod: chosen, errors: { '': t.t('wallet.noScript', { method: methodName(t, wallet) }) } }, 422);
    const apm = apmChoiceOf(body, state);
    const parsed = parseCheckoutForm(body, {
      now: ctx.clock.now(),
      methods: state.session.request.methods,
      billingRequired: view.billing.required && !apm,
      ...(view.billing.stateOnly && !apm ? { stateOnly: { country: String(view.billing.values.country ?? '').toUpperCase() } } : {}),
      email: view.email ? { required: view.email.required } : undefined,
      phone: view.phone !== undefined && !apm,
      expiryOnly: view.cardOnly?.expiryOnly,
      recurringConsent: view.recurringConsent,
      t,
    });
    if (!parsed.ok) {
      return sendHtml(reply, renderCheckoutPage({ ...view, errors: parsed.errors, values: parsed.values, billing: { ...view.billing, values: { ...view.billing.values, ...parsed.billing } }, email: view.email && { ...view.email, value: parsed.email }, phone: view.phone && { value: parsed.phone } }, t), 422, csp);
    }
    try {
      // A card attempt still under way (3-D Secure in another tab, an operation in flight) is continued, whatever
      // was chosen: a second attempt beside it could be paid too. An unfinished alternative method is withdrawn below.
      const running = unfinishedApm(state.payment) ? undefined : resumeStep(state.payment);
      if (running) return continueAfter(reply, ctx, t, running, state.merchant);
      if (apm) return await payWithApm(reply, ctx, state, apm, parsed.value, req.ip, deviceIdOf(body.device_id));
      // A payment left unfinished with another method is withdrawn first (the payer changed their mind).
      const step = await payByCard(ctx, await withoutUnfinishedApm(ctx, state), parsed.value, req.ip, readBrowser(body, req.headers), deviceIdOf(body.device_id));
      return continueAfter(reply, ctx, t, step, state.merchant);
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      if (err.spec === ERRORS.sessionNotPayable) return message(reply, t, 'msg.noMoreTries', 'error', 400);
      return sendHtml(reply, renderCheckoutPage({ ...view, errors: { '': t.t(payErrorKey(err)) } }, t), err.spec.http, csp);
    }
  }));
}

/**
 * The payer leaving: cancelled (back to cancel_url) or too late (the expired page). Cancelling is the page's
 * button, a POST: a GET (a link preview, a prefetch) only leads back to the page.
 */
export function registerCheckoutExits(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Params: { id: string } }>('/checkout/:id/cancel', PAGE, async (req, reply) => reply.redirect(`/checkout/${encodeURIComponent(req.params.id)}`, 303));

  app.post<{ Params: { id: string } }>('/checkout/:id/cancel', PAGE, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    const t = sessionTranslator(req, reply, state);
    if (state.kind !== 'open') return message(reply, t, 'msg.nothingToCancel', 'info');
    const dest = checkoutDestination(state.merchant, state.session, state.payment, 'cancel');
    // Without cancel_url nor error_url the gateway says it itself (in a page template of its own: msg.cancelled).
    if (!dest) return message(reply, t, 'msg.cancelled', 'info');
    return sendHtml(reply, renderRedirectPage({ url: dest.url, method: 'GET', target: dest.target, title: t.t('cancelled.title'), message: t.t('redirect.returning') }, t));
  });

  app.get<{ Params: { id: string } }>('/checkout/:id/expired', PAGE, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    const t = sessionTranslator(req, reply, state);
    if (state.kind === 'expired') return expired(reply, t, state);
    if (state.kind === 'open') return reply.redirect(`/checkout/${state.session.id}`, 303);
    return message(reply, t, 'msg.ended', 'info');
  });
}

/** Seconds the expired page stays before returning to the merchant. */
export const EXPIRED_SECONDS = 6;

export function expired(reply: FastifyReply, t: Translator, state: Extract<SessionState, { kind: 'expired' }>) {
  const r = state.session.request;
  const url = r.expiryUrl ?? r.cancelUrl ?? r.errorUrl;
  if (url === undefined) return message(reply, t, 'msg.expired', 'info');
  const target = linkTarget(state.merchant, state.session.request.urlTarget);
  // The payer reads that the session ended (and that nothing was charged) before going back.
  return sendHtml(reply, renderRedirectPage({ url, method: 'GET', target, title: t.t('expired.title'), message: `${t.t('expired.text')} ${t.t('redirect.returning')}`, delaySeconds: EXPIRED_SECONDS }, t));
}
