/**
 * The payer-facing pages: the hosted Checkout page, the sandbox ACS (3-D Secure challenge) and the sandbox
 * provider page. Plain HTML forms in, HTML out; the JS on the page is an enhancement only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { loadSession, payByCard, payByWallet, finishChallenge, checkoutDestination, outcomeOf, linkTarget, afterDecline, payerAttempts, type SessionState } from '../../services/hosted-checkout.ts';
import type { PaymentStep } from '../../services/attempt/index.ts';
import type { PayerRedirect } from '../../services/s2s-card/payer-redirect.ts';
import { getPayment } from '../../services/queries/payments.ts';
import type { Payment } from '../../domain/model/payment.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import { findMerchantById } from '../../services/queries/merchants.ts';
import { getSession } from '../../services/queries/sessions.ts';
import { ERRORS, GatewayError } from '../../domain/errors.ts';
import { declineMessageKey } from '../../domain/declines.ts';
import { stateRequired } from '../../domain/countries.ts';
import { isPayout } from '../../domain/operations.ts';
import { renderThreeDs2Page, threeDs2Csp } from '../../web/threeds2-page.ts';
import type { NativeThreeDs2Step } from '../../connectors/types.ts';
import { methodGroup } from '../../web/method-groups.ts';
import type { Translator } from '../../web/i18n.ts';
import { pageTranslator } from './locale.ts';
import { methodName, receiptOf } from './receipt.ts';
import { findMethod } from '../../domain/methods/catalog.ts';
import { renderCheckoutPage, renderAcsPage, renderProviderPage, renderRedirectPage, renderMessagePage, CONTENT_SECURITY_POLICY, walletContentSecurityPolicy } from '../../web/pages.ts';
import type { CheckoutPageView } from '../../web/views.ts';
import { localizeMessage, parseCheckoutForm, parseWalletPagePayer, readBrowser } from '../../web/checkout-form.ts';
import { ASSETS } from '../../web/assets.ts';
import { apmChoiceOf, payWithApm, withoutUnfinishedApm } from './apm-routes.ts';
import { apmOf } from '../../services/apm/details.ts';
import { WALLET_NAMES, walletMethod } from '../../domain/wallets/wallet-flow.ts';
import { missingPageFields, walletButtons } from '../../services/wallets/wallet-buttons.ts';
import { SIMULATOR_CARDS, simulateWalletToken } from '../../sandbox/wallets/simulator.ts';
import { validateAppleMerchant } from '../../services/wallets/apple-merchant-validation.ts';

const PAGE = { schema: { hide: true }, config: { dialect: 'html' as const } };

function sendHtml(reply: FastifyReply, html: string, status = 200, csp = CONTENT_SECURITY_POLICY): FastifyReply {
  return reply
    .code(status)
    .header('content-security-policy', csp)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .type('text/html; charset=utf-8')
    .send(html);
}

/** A message page from catalog keys ("<key>.title" and "<key>.text"). */
const message = (reply: FastifyReply, t: Translator, key: string, kind: 'info' | 'success' | 'error', status = 200) =>
  sendHtml(reply, renderMessagePage({ title: t.t(`${key}.title`), message: t.t(`${key}.text`), kind }, t), status);

const BILLING_PAYER_FIELDS = ['payer_country', 'payer_state', 'payer_city', 'payer_address', 'payer_zip'];

/**
 * How much of the billing address the card form asks: all of it when the Protocol Mapping marks a billing
 * field required or a MID's settings say its acquirer needs it (and the merchant did not send it whole), only
 * the state when the merchant sent a country whose state the rule needs (CA, US, JP, AU, IN) and no state,
 * else nothing.
 */
function billingAsked(state: Extract<SessionState, { kind: 'open' }>): { required: boolean; stateOnly: boolean } {
  const b = state.session.request.billingAddress ?? {};
  const complete = Boolean(b.country && b.city && b.address && b.zip);
  const needed = (state.merchant.settings.requiredPayerFields ?? []).some((f) => BILLING_PAYER_FIELDS.includes(f)) ||
    state.mids.some((m) => m.enabled && m.settings.billingAddressRequired === true);
  const required = needed && !complete;
  const stateOnly = !required && Boolean(b.country) && stateRequired(b.country) && !b.state;
  return { required, stateOnly };
}

function checkoutView(ctx: ServiceContext, t: Translator, state: Extract<SessionState, { kind: 'open' }>, extra: Partial<CheckoutPageView> = {}): CheckoutPageView {
  const { session, merchant } = state;
  const base = `/checkout/${session.id}`;
  const expiryOnly = isPayout(session.operation) && (session.request.cardTokens?.length ?? 0) > 0;
  const hasCard = session.request.methods.includes('card');
  const asked = billingAsked(state);
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
    billing: { required: asked.required && hasCard, stateOnly: asked.stateOnly && hasCard, values: session.request.billingAddress ?? {} },
    email: state.payment.payer.email ? undefined : { required: false },
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

function payErrorKey(err: GatewayError): string {
  return PAY_ERROR_KEYS.get(err.spec) ?? 'decline.tryAgain';
}

/** The session's language choice, for pages reached from a payment. */
async function sessionLocaleOf(ctx: ServiceContext, payment: Payment): Promise<string | undefined> {
  if (!payment.sessionId) return undefined;
  return (await getSession(ctx.db, payment.sessionId))?.request.locale;
}

/** Sends the payer on after a payment step: to the ACS, the provider page, or back to the merchant. */
function continueAfter(reply: FastifyReply, ctx: ServiceContext, t: Translator, step: PaymentStep, merchant: Merchant) {
  const p = step.payment;
  const page = step.kind === 'challenge' || step.kind === 'redirect' ? (p.details.payerPage as PayerRedirect | undefined) : undefined;
  // A real acquirer's page: the payer is sent there as the acquirer asked (a form post for an ACS).
  if (page) return sendHtml(reply, renderRedirectPage({ url: page.url, method: page.method, params: page.params ?? {}, target: '_self', title: 'Authentication', message: 'Taking you to your bank…' }));
  if (step.kind === 'challenge') return reply.redirect(`/sandbox/acs/${p.id}`, 303);
  if (step.kind === 'redirect') return reply.redirect(`/sandbox/provider/${p.id}`, 303);
  // Back from an acquirer's page with the outcome still open: an S2S payer goes back to the merchant, who hears by callback.
  if (step.kind === 'processing' && p.channel !== 'checkout' && typeof p.details.termUrl3ds === 'string') return returnToMerchant(reply, ctx, t, merchant, p);
  if (step.kind === 'processing') return message(reply, t, 'msg.processing', 'info', 202);
  return returnToMerchant(reply, ctx, t, merchant, p);
}

async function returnToMerchant(reply: FastifyReply, ctx: ServiceContext, t: Translator, merchant: Merchant, payment: Payment) {
  if (payment.channel === 'checkout' && payment.sessionId) {
    const session = await getSession(ctx.db, payment.sessionId);
    if (session) {
      const outcome = outcomeOf(payment);
      if (outcome === 'decline' && (await afterDecline(ctx, merchant, session, payment)).kind === 'retry') return reply.redirect(`/checkout/${session.id}`, 303);
      const dest = checkoutDestination(merchant, session, payment, outcome);
      if (outcome === 'success') {
        const pending = payment.status === 'pending';
        const receipt = receiptOf(t, merchant, payment, t.t('method.card'));
        const title = t.t(pending ? 'receipt.pendingTitle' : 'receipt.title');
        // success_url is required, so a paid session always has a destination; the receipt alone otherwise.
        if (!dest) return message(reply, t, pending ? 'msg.pendingClose' : 'msg.paidClose', 'success');
        return sendHtml(reply, renderRedirectPage({
          url: dest.url, method: 'GET', target: dest.target, title, message: t.t(pending ? 'receipt.pendingText' : 'receipt.text'), receipt,
        }, t));
      }
      const declined = t.t(declineMessageKey(payment.declineReason, 'card', payment.details.declineCode));
      if (!dest) return sendHtml(reply, renderMessagePage({ title: t.t('declined.title'), message: `${declined} ${t.t('msg.closePage')}`, kind: 'error' }, t));
      return sendHtml(reply, renderRedirectPage({ url: dest.url, method: 'GET', target: dest.target, title: t.t('declined.title'), message: `${declined} ${t.t('redirect.returning')}` }, t));
    }
  }
  const termUrl = payment.details.termUrl3ds;
  if (typeof termUrl === 'string') {
    const target = linkTarget(merchant, payment.details.linkTarget);
    return sendHtml(reply, renderRedirectPage({ url: termUrl, method: 'GET', target, title: t.t('auth.doneTitle'), message: t.t('redirect.returning') }, t));
  }
  return message(reply, t, 'msg.complete', 'info');
}

export function registerPageRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Params: { name: string } }>('/assets/:name', PAGE, async (req, reply) => {
    const asset = Object.hasOwn(ASSETS, req.params.name) ? ASSETS[req.params.name] : undefined;
    if (!asset) throw new GatewayError('notFound');
    if (req.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.header('etag', asset.etag).header('cache-control', 'public, max-age=300').type(asset.contentType).send(asset.body);
  });

  /** The Checkout page with its wallet buttons (a live Google Pay button widens the page's CSP for Google's script). */
  async function checkoutPage(reply: FastifyReply, t: Translator, state: Extract<SessionState, { kind: 'open' }>, extra: Partial<CheckoutPageView> = {}, status = 200) {
    const wallets = await walletButtons(ctx, state.merchant, state.session);
    return sendHtml(reply, renderCheckoutPage(checkoutView(ctx, t, state, { wallets, ...extra }), t), status, walletContentSecurityPolicy(wallets));
  }

  /** The Checkout page, with the last attempt's decline when the payer may try again. */
  async function openPage(reply: FastifyReply, t: Translator, state: Extract<SessionState, { kind: 'open' }>) {
    if (state.payment.status === 'decline') {
      const next = await afterDecline(ctx, state.merchant, state.session, state.payment);
      if (next.kind === 'retry') {
        const method = apmOf(state.payment) ? 'apm' : 'card';
        return checkoutPage(reply, t, state, { decline: { message: t.t(declineMessageKey(next.reason, method, state.payment.details.declineCode)), triesLeft: next.triesLeft } });
      }
      if (payerAttempts(state.merchant) !== undefined) return returnToMerchant(reply, ctx, t, state.merchant, state.payment);
    }
    return checkoutPage(reply, t, state);
  }

  app.get<{ Params: { id: string } }>('/checkout/:id', PAGE, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    const t = pageTranslator(req, reply, state.kind === 'missing' ? undefined : state.session.request.locale);
    if (state.kind === 'missing') return message(reply, t, 'msg.notFound', 'error', 404);
    if (state.kind === 'expired') return expired(reply, t, state);
    if (state.kind === 'paid') return message(reply, t, 'msg.paid', 'success');
    return openPage(reply, t, state);
  });

  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/checkout/:id/pay', PAGE, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    const t = pageTranslator(req, reply, state.kind === 'missing' ? undefined : state.session.request.locale);
    if (state.kind === 'missing') return message(reply, t, 'msg.notFound', 'error', 404);
    if (state.kind === 'expired') return expired(reply, t, state);
    if (state.kind === 'paid') return message(reply, t, 'msg.paid', 'success');
    const wallets = await walletButtons(ctx, state.merchant, state.session);
    const view = checkoutView(ctx, t, state, { wallets });
    const csp = walletContentSecurityPolicy(wallets);
    const body = typeof req.body === 'object' && req.body ? req.body : {};
    // A wallet is paid with its button (its payment sheet makes the token); the form's own Pay button cannot.
    const chosen = typeof body.method === 'string' ? body.method : state.session.request.methods.length === 1 ? state.session.request.methods[0] : undefined;
    const wallet = walletMethod(chosen)?.wallet;
    if (wallet && chosen) return checkoutPage(reply, t, state, { selectedMethod: chosen, errors: { '': t.t('wallet.noScript', { method: methodName(t, wallet) }) } }, 422);
    const apm = apmChoiceOf(body, state);
    const parsed = parseCheckoutForm(body, {
      now: ctx.clock.now(),
      methods: state.session.request.methods,
      billingRequired: view.billing.required && !apm,
      ...(view.billing.stateOnly && !apm ? { stateOnly: { country: String(view.billing.values.country ?? '').toUpperCase() } } : {}),
      email: view.email ? { required: view.email.required } : undefined,
      expiryOnly: view.cardOnly?.expiryOnly,
      recurringConsent: view.recurringConsent,
      t,
    });
    if (!parsed.ok) {
      return sendHtml(reply, renderCheckoutPage({ ...view, errors: parsed.errors, values: parsed.values, billing: { ...view.billing, values: { ...view.billing.values, ...parsed.billing } }, email: view.email && { ...view.email, value: parsed.email } }, t), 422, csp);
    }
    try {
      if (apm) return await payWithApm(reply, ctx, state, apm, parsed.value, req.ip);
      // A payment left unfinished with another method is withdrawn first (the payer changed their mind).
      const step = await payByCard(ctx, await withoutUnfinishedApm(ctx, state), parsed.value, req.ip, readBrowser(body, req.headers));
      return continueAfter(reply, ctx, t, step, state.merchant);
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      if (err.spec === ERRORS.sessionNotPayable) return message(reply, t, 'msg.noMoreTries', 'error', 400);
      return sendHtml(reply, renderCheckoutPage({ ...view, errors: { '': t.t(payErrorKey(err)) } }, t), err.spec.http, csp);
    }
  });

  // --- wallets: the token a payment sheet made, the sandbox simulator's sheet, Apple's merchant validation ----
  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/checkout/:id/wallet', PAGE, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    const t = pageTranslator(req, reply, state.kind === 'missing' ? undefined : state.session.request.locale);
    if (state.kind === 'missing') return message(reply, t, 'msg.notFound', 'error', 404);
    if (state.kind === 'expired') return expired(reply, t, state);
    if (state.kind === 'paid') return message(reply, t, 'msg.paid', 'success');
    const body = typeof req.body === 'object' && req.body ? req.body : {};
    const fields = walletFields(body);
    const method = state.session.request.methods.find((m) => m === (fields.method ?? fields.wallet));
    const offered = walletMethod(method);
    if (!method || !offered || !fields.paymentToken) return checkoutPage(reply, t, state, { errors: { '': t.t('wallet.failed') } }, 422);
    const wallet = offered.wallet;
    // A payment-page variant: the payer fields the request lacked come with the token.
    const pagePayer = offered.pageVariant ? parseWalletPagePayer(body, missingPageFields(state.session)) : { ok: true as const, payer: {} };
    if (!pagePayer.ok) {
      const errors = Object.fromEntries(Object.entries(pagePayer.errors).map(([k, m]) => [k, localizeMessage(t, m)]));
      return checkoutPage(reply, t, state, { selectedMethod: method, errors: { '': t.t('wallet.detailsFirst', { method: methodName(t, wallet) }), ...errors } }, 422);
    }
    try {
      const step = await payByWallet(ctx, await withoutUnfinishedApm(ctx, state), wallet, fields.paymentToken, req.ip, pagePayer.payer);
      return continueAfter(reply, ctx, t, step, state.merchant);
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      if (err.spec === ERRORS.sessionNotPayable) return message(reply, t, 'msg.noMoreTries', 'error', 400);
      return checkoutPage(reply, t, state, { selectedMethod: wallet, errors: { '': t.t(payErrorKey(err)) } }, err.spec.http);
    }
  });

  /** The sandbox wallet simulator's sheet asks for a token (sandbox merchants only: the production guard checks). */
  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/sandbox/wallets/:id/token', { ...PAGE, config: { dialect: 'json' as const } }, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    const fields = stringFields(req.body, ['wallet', 'card']);
    const wallet = WALLET_NAMES.find((w) => w === fields.wallet);
    if (state.kind !== 'open' || !state.merchant.sandbox || !wallet || !state.session.request.methods.some((m) => walletMethod(m)?.wallet === wallet)) throw new GatewayError('notFound');
    const card = fields.card === 'decline' ? SIMULATOR_CARDS.decline : SIMULATOR_CARDS.success;
    const token = await simulateWalletToken(ctx, state.merchant, wallet, card, state.session.amount);
    if (!token) throw new GatewayError('notFound');
    return reply.header('cache-control', 'no-store').send({ payment_token: token });
  });

  /** A live page's ApplePaySession asks the gateway to validate the merchant with Apple. */
  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/checkout/:id/applepay/validate', { ...PAGE, config: { dialect: 'json' as const } }, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    if (state.kind !== 'open' || !state.session.request.methods.some((m) => walletMethod(m)?.wallet === 'applepay')) throw new GatewayError('notFound');
    const session = await validateAppleMerchant(ctx, state.merchant, stringFields(req.body, ['validation_url']).validation_url);
    return reply.header('cache-control', 'no-store').send(session);
  });

  app.get<{ Params: { id: string } }>('/checkout/:id/cancel', PAGE, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    const t = pageTranslator(req, reply, state.kind === 'missing' ? undefined : state.session.request.locale);
    if (state.kind !== 'open') return message(reply, t, 'msg.nothingToCancel', 'info');
    const dest = checkoutDestination(state.merchant, state.session, state.payment, 'cancel');
    // Without cancel_url nor error_url the gateway says it itself (in a page template of its own: msg.cancelled).
    if (!dest) return message(reply, t, 'msg.cancelled', 'info');
    return sendHtml(reply, renderRedirectPage({ url: dest.url, method: 'GET', target: dest.target, title: t.t('cancelled.title'), message: t.t('redirect.returning') }, t));
  });

  app.get<{ Params: { id: string } }>('/checkout/:id/expired', PAGE, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    const t = pageTranslator(req, reply, state.kind === 'missing' ? undefined : state.session.request.locale);
    if (state.kind === 'expired') return expired(reply, t, state);
    if (state.kind === 'open') return reply.redirect(`/checkout/${state.session.id}`, 303);
    return message(reply, t, 'msg.ended', 'info');
  });

  // --- sandbox ACS (3-D Secure challenge) -----------------------------------------------------------
  const acsPage = async (req: FastifyRequest, paymentId: string, reply: FastifyReply, fields: Record<string, string>) => {
    const found = await challengeTarget(ctx, paymentId, '3ds');
    const t = pageTranslator(req, reply, found && (await sessionLocaleOf(ctx, found.payment)));
    if (!found) return message(reply, t, 'msg.noAuth', 'error', 404);
    const { payment, merchant } = found;
    return sendHtml(reply, renderAcsPage({
      paymentId: payment.id, merchantName: merchant.name, amount: t.money(payment.amount, payment.currency), currency: payment.currency,
      maskedCard: payment.details.cardMask ?? '', actionUrl: `/sandbox/acs/${payment.id}/complete`, fields, hint: t.t('acs.hint'),
    }, t));
  };
  app.get<{ Params: { id: string } }>('/sandbox/acs/:id', PAGE, async (req, reply) => acsPage(req, req.params.id, reply, {}));
  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/sandbox/acs/:id', PAGE, async (req, reply) => acsPage(req, req.params.id, reply, stringFields(req.body, ['MD', 'PaReq', 'TermUrl'])));
  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/sandbox/acs/:id/complete', PAGE, async (req, reply) => {
    const decision = stringFields(req.body, ['decision']).decision === 'cancel' ? 'cancel' : 'submit';
    return finish(req, req.params.id, decision, reply);
  });

  // --- sandbox provider page (redirect flows) -------------------------------------------------------
  const providerPage = async (req: FastifyRequest, paymentId: string, reply: FastifyReply) => {
    const found = await challengeTarget(ctx, paymentId, 'redirect');
    const t = pageTranslator(req, reply, found && (await sessionLocaleOf(ctx, found.payment)));
    if (!found) return message(reply, t, 'msg.nothingToConfirm', 'error', 404);
    const { payment, merchant } = found;
    return sendHtml(reply, renderProviderPage({
      title: t.t('provider.bank'), merchantName: merchant.name, amount: t.money(payment.amount, payment.currency), currency: payment.currency,
      description: payment.description, actionUrl: `/sandbox/provider/${payment.id}/complete`, fields: {}, approveLabel: t.t('provider.approve'), declineLabel: t.t('provider.cancel'),
    }, t));
  };
  app.get<{ Params: { id: string } }>('/sandbox/provider/:id', PAGE, async (req, reply) => providerPage(req, req.params.id, reply));
  app.post<{ Params: { id: string } }>('/sandbox/provider/:id', PAGE, async (req, reply) => providerPage(req, req.params.id, reply));
  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/sandbox/provider/:id/complete', PAGE, async (req, reply) => {
    const decision = stringFields(req.body, ['decision']).decision === 'decline' ? 'decline' : 'approve';
    return finish(req, req.params.id, decision, reply);
  });

  // --- the payer back from a real acquirer's page (term URL, returnUrl): query and form fields go to the connector
  const back = async (req: FastifyRequest, paymentId: string, query: unknown, body: unknown, reply: FastifyReply) => {
    const params = { ...stringFields(query, Object.keys((query as object | null) ?? {})), ...stringFields(body, Object.keys((body as object | null) ?? {})) };
    return finish(req, paymentId, 'returned', reply, params);
  };
  // --- our page for a native 3-D Secure 2 step (the acquirer gave the ACS's addresses, not a page of its own)
  app.get<{ Params: { id: string } }>('/connectors/return/:id/3ds2', PAGE, async (req, reply) => {
    const found = await challengeTarget(ctx, req.params.id, '3ds');
    const t = pageTranslator(req, reply, found && (await sessionLocaleOf(ctx, found.payment)));
    const step = found?.payment.details.threeDs2Step as NativeThreeDs2Step | null | undefined;
    if (!found || !step) return message(reply, t, 'msg.noAuth', 'error', 404);
    const { payment, merchant } = found;
    const page = renderThreeDs2Page({ step, merchantName: merchant.name, amount: t.money(payment.amount, payment.currency), resultUrl: `/connectors/return/${payment.id}` }, t);
    return sendHtml(reply, page).header('content-security-policy', threeDs2Csp(step));
  });
  app.get<{ Params: { id: string } }>('/connectors/return/:id', PAGE, async (req, reply) => back(req, req.params.id, req.query, undefined, reply));
  app.post<{ Params: { id: string } }>('/connectors/return/:id', PAGE, async (req, reply) => back(req, req.params.id, req.query, req.body, reply));

  async function finish(req: FastifyRequest, paymentId: string, decision: 'submit' | 'cancel' | 'approve' | 'decline' | 'returned', reply: FastifyReply, params?: Record<string, string>) {
    try {
      const { step, merchant } = await finishChallenge(ctx, paymentId, decision, params);
      const t = pageTranslator(req, reply, await sessionLocaleOf(ctx, step.payment));
      return continueAfter(reply, ctx, t, step, merchant);
    } catch (err) {
      if (err instanceof GatewayError) return message(reply, pageTranslator(req, reply), 'msg.paymentNotFound', 'error', 404);
      throw err;
    }
  }
}

async function challengeTarget(ctx: ServiceContext, paymentId: string, status: '3ds' | 'redirect'): Promise<{ payment: Payment; merchant: Merchant } | undefined> {
  const payment = await getPayment(ctx.db, paymentId);
  // Alternative-method payments have their own provider pages (apm-routes.ts).
  if (!payment || payment.status !== status || apmOf(payment)) return undefined;
  const merchant = await findMerchantById(ctx.db, payment.merchantId);
  return merchant && { payment, merchant };
}

/** Seconds the expired page stays before returning to the merchant. */
const EXPIRED_SECONDS = 6;

function expired(reply: FastifyReply, t: Translator, state: Extract<SessionState, { kind: 'expired' }>) {
  const r = state.session.request;
  const url = r.expiryUrl ?? r.cancelUrl ?? r.errorUrl;
  if (url === undefined) return message(reply, t, 'msg.expired', 'info');
  const target = linkTarget(state.merchant, state.session.request.urlTarget);
  // The payer reads that the session ended (and that nothing was charged) before going back.
  return sendHtml(reply, renderRedirectPage({ url, method: 'GET', target, title: t.t('expired.title'), message: `${t.t('expired.text')} ${t.t('redirect.returning')}`, delaySeconds: EXPIRED_SECONDS }, t));
}

/** What the wallet form posts; a token is a few kilobytes (an Apple Pay token carries its certificates). */
function walletFields(b: Record<string, unknown>): { method?: string; wallet?: string; paymentToken?: string } {
  const token = typeof b.payment_token === 'string' && b.payment_token.length <= 32_768 ? b.payment_token.trim() : '';
  return {
    ...(typeof b.method === 'string' && b.method !== '' ? { method: b.method } : {}),
    ...(typeof b.wallet === 'string' ? { wallet: b.wallet } : {}),
    ...(token ? { paymentToken: token } : {}),
  };
}

function stringFields(body: unknown, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof body !== 'object' || body === null) return out;
  for (const name of names) {
    const value = (body as Record<string, unknown>)[name];
    if (typeof value === 'string') out[name] = value.slice(0, 4096);
  }
  return out;
}
