/**
 * The payer-facing pages: the hosted Checkout page, the sandbox ACS (3-D Secure challenge) and the sandbox
 * provider page. Plain HTML forms in, HTML out; the JS on the page is an enhancement only.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { loadSession, payByCard, finishChallenge, checkoutDestination, outcomeOf, linkTarget, type SessionState } from '../../services/hosted-checkout.ts';
import type { PaymentStep } from '../../services/card-payments.ts';
import type { PayerRedirect } from '../../services/s2s-card/payer-redirect.ts';
import { getPayment, type Payment } from '../../store/payments-repo.ts';
import { findMerchantById, type Merchant } from '../../store/merchants-repo.ts';
import { getSession } from '../../store/sessions-repo.ts';
import { formatAmount } from '../../domain/money.ts';
import { GatewayError } from '../../domain/errors.ts';
import { findMethod } from '../../domain/methods/catalog.ts';
import { renderCheckoutPage, renderAcsPage, renderProviderPage, renderRedirectPage, renderMessagePage, CONTENT_SECURITY_POLICY } from '../../web/pages.ts';
import type { CheckoutPageView } from '../../web/views.ts';
import { parseCheckoutForm } from '../../web/checkout-form.ts';
import { COUNTRIES_BY_NAME } from '../../domain/countries.ts';
import { ASSETS } from '../../web/assets.ts';
import { apmChoiceOf, payWithApm, withoutUnfinishedApm } from './apm-routes.ts';
import { apmOf } from '../../services/apm/details.ts';

const PAGE = { schema: { hide: true }, config: { dialect: 'html' as const } };

function sendHtml(reply: FastifyReply, html: string, status = 200): FastifyReply {
  return reply
    .code(status)
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .type('text/html; charset=utf-8')
    .send(html);
}

const message = (reply: FastifyReply, title: string, text: string, kind: 'info' | 'success' | 'error', status = 200) =>
  sendHtml(reply, renderMessagePage({ title, message: text, kind }), status);

/** The billing block is shown when the merchant did not send a complete billing address. */
function billingNeeded(state: Extract<SessionState, { kind: 'open' }>): boolean {
  const b = state.session.request.billingAddress ?? {};
  return !(b.country && b.city && b.address && b.zip);
}

function checkoutView(ctx: ServiceContext, state: Extract<SessionState, { kind: 'open' }>, extra: Partial<CheckoutPageView> = {}): CheckoutPageView {
  const { session, merchant } = state;
  const base = `/checkout/${session.id}`;
  const expiryOnly = session.operation === 'credit' && (session.request.cardTokens?.length ?? 0) > 0;
  return {
    sessionId: session.id,
    merchantName: merchant.name,
    order: { number: session.orderNumber, amount: formatAmount(session.amount, session.currency), currency: session.currency, description: session.description },
    operation: session.operation,
    methods: session.request.methods.map((key) => ({ key, label: findMethod(key)?.label ?? key, experience: findMethod(key)?.experience })),
    selectedMethod: session.request.methods[0] ?? 'card',
    actionUrl: `${base}/pay`,
    cancelUrl: `${base}/cancel`,
    expiresAt: session.expiresAt.toISOString(),
    expiredUrl: `${base}/expired`,
    now: ctx.clock.now().toISOString(),
    // Only the card form asks for a billing address; alternative methods ask on their own pages what they need.
    billing: { required: billingNeeded(state) && session.request.methods.includes('card'), values: session.request.billingAddress ?? {} },
    email: state.payment.payer.email ? undefined : { required: false },
    values: {},
    errors: {},
    ...(expiryOnly ? { cardOnly: { expiryOnly: true } } : {}),
    countries: [...COUNTRIES_BY_NAME],
    sandbox: merchant.sandbox,
    ...extra,
  };
}

/** Sends the payer on after a payment step: to the ACS, the provider page, or back to the merchant. */
function continueAfter(reply: FastifyReply, ctx: ServiceContext, step: PaymentStep, merchant: Merchant, sessionState?: SessionState) {
  const p = step.payment;
  const page = step.kind === 'challenge' || step.kind === 'redirect' ? (p.details.payerPage as PayerRedirect | undefined) : undefined;
  // A real acquirer's page: the payer is sent there as the acquirer asked (a form post for an ACS).
  if (page) return sendHtml(reply, renderRedirectPage({ url: page.url, method: page.method, params: page.params ?? {}, target: '_self', title: 'Authentication', message: 'Taking you to your bank…' }));
  if (step.kind === 'challenge') return reply.redirect(`/sandbox/acs/${p.id}`, 303);
  if (step.kind === 'redirect') return reply.redirect(`/sandbox/provider/${p.id}`, 303);
  // Back from an acquirer's page with the outcome still open: an S2S payer goes back to the merchant, who hears by callback.
  if (step.kind === 'processing' && p.channel !== 'checkout' && typeof p.details.termUrl3ds === 'string') return returnToMerchant(reply, ctx, merchant, p, sessionState);
  if (step.kind === 'processing') return message(reply, 'Payment processing', 'Your payment is being processed. You may close this page; the merchant will be notified of the result.', 'info', 202);
  return returnToMerchant(reply, ctx, merchant, p, sessionState);
}

async function returnToMerchant(reply: FastifyReply, ctx: ServiceContext, merchant: Merchant, payment: Payment, _state?: SessionState) {
  if (payment.channel === 'checkout' && payment.sessionId) {
    const session = await getSession(ctx.db, payment.sessionId);
    if (session) {
      const outcome = outcomeOf(payment);
      const dest = checkoutDestination(merchant, session, payment, outcome);
      const title = outcome === 'success' ? 'Payment successful' : 'Payment declined';
      if (!dest) return message(reply, title, `${payment.declineReason ?? 'The payment was declined'}. You may close this page.`, 'error');
      const text = outcome === 'success' ? 'Thank you. Returning you to the merchant…' : `${payment.declineReason ?? 'The payment was declined'}. Returning you to the merchant…`;
      return sendHtml(reply, renderRedirectPage({ url: dest.url, method: 'GET', target: dest.target, title, message: text }));
    }
  }
  const termUrl = payment.details.termUrl3ds;
  if (typeof termUrl === 'string') {
    const target = linkTarget(merchant, payment.details.linkTarget);
    return sendHtml(reply, renderRedirectPage({ url: termUrl, method: 'GET', target, title: 'Authentication complete', message: 'Returning you to the merchant…' }));
  }
  return message(reply, 'Payment complete', 'You may close this page.', 'info');
}

export function registerPageRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Params: { name: string } }>('/assets/:name', PAGE, async (req, reply) => {
    const asset = Object.hasOwn(ASSETS, req.params.name) ? ASSETS[req.params.name] : undefined;
    if (!asset) throw new GatewayError('notFound');
    if (req.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.header('etag', asset.etag).header('cache-control', 'public, max-age=300').type(asset.contentType).send(asset.body);
  });

  app.get<{ Params: { id: string } }>('/checkout/:id', PAGE, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    if (state.kind === 'missing') return message(reply, 'Payment link not found', 'This payment link does not exist. Please return to the merchant and try again.', 'error', 404);
    if (state.kind === 'expired') return expired(reply, state);
    if (state.kind === 'paid') return message(reply, 'Already paid', 'This order has already been paid. Thank you.', 'success');
    return sendHtml(reply, renderCheckoutPage(checkoutView(ctx, state)));
  });

  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/checkout/:id/pay', PAGE, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    if (state.kind === 'missing') return message(reply, 'Payment link not found', 'This payment link does not exist.', 'error', 404);
    if (state.kind === 'expired') return expired(reply, state);
    if (state.kind === 'paid') return message(reply, 'Already paid', 'This order has already been paid. Thank you.', 'success');
    const view = checkoutView(ctx, state);
    const body = typeof req.body === 'object' && req.body ? req.body : {};
    const apm = apmChoiceOf(body, state);
    const parsed = parseCheckoutForm(body, {
      now: ctx.clock.now(),
      methods: state.session.request.methods,
      billingRequired: view.billing.required && !apm,
      email: view.email ? { required: view.email.required } : undefined,
      expiryOnly: view.cardOnly?.expiryOnly,
    });
    if (!parsed.ok) {
      return sendHtml(reply, renderCheckoutPage({ ...view, errors: parsed.errors, values: parsed.values, billing: { ...view.billing, values: parsed.billing }, email: view.email && { ...view.email, value: parsed.email } }), 422);
    }
    try {
      if (apm) return await payWithApm(reply, ctx, state, apm, parsed.value, req.ip);
      // A payment left unfinished with another method is withdrawn first (the payer changed their mind).
      const step = await payByCard(ctx, await withoutUnfinishedApm(ctx, state), parsed.value, req.ip);
      return continueAfter(reply, ctx, step, state.merchant, state);
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      return sendHtml(reply, renderCheckoutPage({ ...view, errors: { '': err.spec.message } }), err.spec.http);
    }
  });

  app.get<{ Params: { id: string } }>('/checkout/:id/cancel', PAGE, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    if (state.kind !== 'open') return message(reply, 'Nothing to cancel', 'This payment can no longer be cancelled.', 'info');
    const dest = checkoutDestination(state.merchant, state.session, state.payment, 'cancel');
    if (!dest) return message(reply, 'Payment cancelled', 'The payment was cancelled. No money was taken; you may close this page.', 'info');
    return sendHtml(reply, renderRedirectPage({ url: dest.url, method: 'GET', target: dest.target, title: 'Payment cancelled', message: 'Returning you to the merchant…' }));
  });

  app.get<{ Params: { id: string } }>('/checkout/:id/expired', PAGE, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    if (state.kind === 'expired') return expired(reply, state);
    if (state.kind === 'open') return reply.redirect(`/checkout/${state.session.id}`, 303);
    return message(reply, 'Session ended', 'This payment session has ended.', 'info');
  });

  // --- sandbox ACS (3-D Secure challenge) -----------------------------------------------------------
  const acsPage = async (paymentId: string, reply: FastifyReply, fields: Record<string, string>) => {
    const found = await challengeTarget(ctx, paymentId, '3ds');
    if (!found) return message(reply, 'Authentication not available', 'There is no authentication waiting for this payment.', 'error', 404);
    const { payment, merchant } = found;
    return sendHtml(reply, renderAcsPage({
      paymentId: payment.id, merchantName: merchant.name, amount: formatAmount(payment.amount, payment.currency), currency: payment.currency,
      maskedCard: payment.details.cardMask ?? '', actionUrl: `/sandbox/acs/${payment.id}/complete`, fields, hint: 'Sandbox ACS: enter any code and press Submit; Cancel fails the authentication.',
    }));
  };
  app.get<{ Params: { id: string } }>('/sandbox/acs/:id', PAGE, async (req, reply) => acsPage(req.params.id, reply, {}));
  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/sandbox/acs/:id', PAGE, async (req, reply) => acsPage(req.params.id, reply, stringFields(req.body, ['MD', 'PaReq', 'TermUrl'])));
  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/sandbox/acs/:id/complete', PAGE, async (req, reply) => {
    const decision = stringFields(req.body, ['decision']).decision === 'cancel' ? 'cancel' : 'submit';
    return finish(req.params.id, decision, reply);
  });

  // --- sandbox provider page (redirect flows) -------------------------------------------------------
  const providerPage = async (paymentId: string, reply: FastifyReply) => {
    const found = await challengeTarget(ctx, paymentId, 'redirect');
    if (!found) return message(reply, 'Nothing to confirm', 'There is no payment waiting at this provider.', 'error', 404);
    const { payment, merchant } = found;
    return sendHtml(reply, renderProviderPage({
      title: 'Sandbox Bank', merchantName: merchant.name, amount: formatAmount(payment.amount, payment.currency), currency: payment.currency,
      description: payment.description, actionUrl: `/sandbox/provider/${payment.id}/complete`, fields: {}, approveLabel: 'Confirm payment', declineLabel: 'Cancel',
    }));
  };
  app.get<{ Params: { id: string } }>('/sandbox/provider/:id', PAGE, async (req, reply) => providerPage(req.params.id, reply));
  app.post<{ Params: { id: string } }>('/sandbox/provider/:id', PAGE, async (req, reply) => providerPage(req.params.id, reply));
  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/sandbox/provider/:id/complete', PAGE, async (req, reply) => {
    const decision = stringFields(req.body, ['decision']).decision === 'decline' ? 'decline' : 'approve';
    return finish(req.params.id, decision, reply);
  });

  // --- the payer back from a real acquirer's page (term URL, returnUrl): query and form fields go to the connector
  const back = async (paymentId: string, query: unknown, body: unknown, reply: FastifyReply) => {
    const params = { ...stringFields(query, Object.keys((query as object | null) ?? {})), ...stringFields(body, Object.keys((body as object | null) ?? {})) };
    return finish(paymentId, 'returned', reply, params);
  };
  app.get<{ Params: { id: string } }>('/connectors/return/:id', PAGE, async (req, reply) => back(req.params.id, req.query, undefined, reply));
  app.post<{ Params: { id: string } }>('/connectors/return/:id', PAGE, async (req, reply) => back(req.params.id, req.query, req.body, reply));

  async function finish(paymentId: string, decision: 'submit' | 'cancel' | 'approve' | 'decline' | 'returned', reply: FastifyReply, params?: Record<string, string>) {
    try {
      const { step, merchant } = await finishChallenge(ctx, paymentId, decision, params);
      return continueAfter(reply, ctx, step, merchant);
    } catch (err) {
      if (err instanceof GatewayError) return message(reply, 'Payment not found', 'This payment does not exist.', 'error', 404);
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

function expired(reply: FastifyReply, state: Extract<SessionState, { kind: 'expired' }>) {
  const r = state.session.request;
  const url = r.expiryUrl ?? r.cancelUrl ?? r.errorUrl;
  if (url === undefined) return message(reply, 'Session expired', 'This payment session has expired. No money was taken; you may close this page.', 'info');
  const target = linkTarget(state.merchant, state.session.request.urlTarget);
  return sendHtml(reply, renderRedirectPage({ url, method: 'GET', target, title: 'Session expired', message: 'This payment session has expired. Returning you to the merchant…' }));
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
