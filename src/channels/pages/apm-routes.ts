/**
 * The payer's pages of the alternative methods, for Checkout and S2S APM payments alike, at /pay/{payment}:
 * the fields the request lacked, then what the provider asks (a QR code, payment details, an app, a link, a
 * one-time code, or its own page), and back to the merchant. The pages poll /pay/{payment}/status and move
 * on by themselves (the sandbox provider's own pages are the sandbox's: src/sandbox/apm/pages.ts). Plain HTML forms
 * in, HTML out (PRG: every POST answers 303 to the page).
 */
import { mailReceipt } from '../../services/mail/receipts.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import type { ServiceContext } from '../../services/context.ts';
import { afterDecline, assertMayTryAgain, attemptFor, seenIp, checkoutDestination, linkTarget, loadSession, outcomeOf, type SessionState } from '../../services/hosted-checkout.ts';
import { abandon, chooseMethod, proceed, refresh, resendCode, stepOf, submitCode, submitFields, QR_EXPIRED, type ApmStep } from '../../services/apm/payments.ts';
import { apmOf, awaitingProvider, payerPhone, unfinishedApm, type ApmDetails } from '../../services/apm/details.ts';
import { apmMethod, carriedOn, contactEmail, pageFields, type ApmMethod } from '../../services/apm/methods.ts';
import { apmConnector as apmConnectorOf } from '../../services/apm/connector.ts';
import { getPayment } from '../../services/queries/payments.ts';
import type { Payment } from '../../domain/model/payment.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import { findMerchantById } from '../../services/queries/merchants.ts';
import { getSession } from '../../services/queries/sessions.ts';
import { findMethod, type Operation } from '../../domain/methods/catalog.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isPayout } from '../../domain/operations.ts';
import { PAGE_HEADERS, renderMessagePage, renderRedirectPage } from '../../web/pages.ts';
import {
  renderApmCodePage, renderApmExpiredPage, renderApmFieldsPage, renderApmWaitPage,
  type ApmWaitPageView, type OrderView,
} from '../../web/apm-pages.ts';
import { fieldViews, parseFieldsForm } from '../../web/apm-form.ts';
import { declineMessageKey } from '../../domain/declines.ts';
import type { Translator } from '../../web/i18n.ts';
import { pageTranslator } from './locale.ts';
import { methodName, receiptMailText, receiptOf } from './receipt.ts';

const PAGE = { schema: { hide: true }, config: { dialect: 'html' as const } };
const JSON_ROUTE = { schema: { hide: true }, config: { dialect: 'json' as const } };

type Open = Extract<SessionState, { kind: 'open' }>;
type Found = { payment: Payment; merchant: Merchant; apm: ApmDetails };

const sendHtml = (reply: FastifyReply, body: string, status = 200) => reply.code(status).headers(PAGE_HEADERS).send(body);

/** A message page from catalog keys ("<key>.title" and "<key>.text"). */
const message = (reply: FastifyReply, t: Translator, key: string, kind: 'info' | 'success' | 'error', status = 200) =>
  sendHtml(reply, renderMessagePage({ title: t.t(`${key}.title`), message: t.t(`${key}.text`), kind }, t), status);

const payPage = (id: string) => `/pay/${id}`;

function first(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return '';
  const v = (body as Record<string, unknown>)[name];
  const value = Array.isArray(v) ? v[0] : v;
  return typeof value === 'string' ? value.slice(0, 255) : '';
}

// --- from the Checkout page ------------------------------------------------------------------------

/** The alternative method the payer chose on the Checkout page, if the session offers it. */
export function apmChoiceOf(body: Record<string, unknown>, state: Open): ApmMethod | undefined {
  const key = first(body, 'method') || (state.session.request.methods.length === 1 ? state.session.request.methods[0]! : '');
  if (!state.session.request.methods.includes(key)) return undefined;
  const method = apmMethod(key, state.session.operation);
  return method && carriedOn(method, 'checkout') ? method : undefined;
}

/** The session with any unfinished alternative-method attempt withdrawn (the payer chose again). */
export async function withoutUnfinishedApm(ctx: ServiceContext, state: Open): Promise<Open> {
  if (!unfinishedApm(state.payment)) return state;
  await abandon(ctx, state.payment);
  const fresh = await loadSession(ctx, state.session.id);
  if (fresh.kind !== 'open') throw new GatewayError('sessionNotPayable');
  return fresh;
}

/**
 * The session's top-level accountId (the crypto example) goes to a method whose parameters name accountId, unless
 * parameters.<method>.accountId says otherwise.
 */
function withAccountId(method: ApmMethod, params: Record<string, unknown>, accountId: string | undefined): Record<string, unknown> {
  const takes = method.params.some((p) => p.name === 'accountId');
  return accountId !== undefined && takes && params.accountId === undefined ? { ...params, accountId } : params;
}

/** The payer chose an alternative method on the Checkout page: a new attempt with it, then its page. */
export async function payWithApm(reply: FastifyReply, ctx: ServiceContext, state: Open, method: ApmMethod, form: { email?: string }, payerIp?: string, deviceId?: string): Promise<FastifyReply> {
  // No stored text may hold a control character (PostgreSQL cannot store NUL in jsonb).
  if (form.email && /[\u0000-\u001f\u007f]/.test(form.email)) throw GatewayError.field('email', 'This value is not a valid email address.');
  const open = await withoutUnfinishedApm(ctx, state);
  await assertMayTryAgain(ctx, open);
  const attempt = await attemptFor(ctx, open);
  const params = withAccountId(method, open.session.request.parameters?.[method.key] ?? {}, open.session.request.accountId);
  const step = await chooseMethod(ctx, open.merchant, attempt, method, { ...params }, { ...(form.email ? { email: form.email } : {}), ...seenIp(attempt.payer, payerIp) }, deviceId);
  return reply.redirect(payPage(step.payment.id), 303);
}

// --- the payer page ---------------------------------------------------------------------------------

async function findApm(ctx: ServiceContext, id: string): Promise<Found | undefined> {
  const payment = await getPayment(ctx.db, id);
  const apm = payment && apmOf(payment);
  if (!payment || !apm) return undefined;
  const merchant = await findMerchantById(ctx.db, ctx.keyring, payment.merchantId);
  return merchant && { payment, merchant, apm };
}

/** Where the payment is now: a chosen method takes its first step; a waiting one is asked of the provider. */
async function advance(ctx: ServiceContext, f: Found): Promise<ApmStep> {
  if (f.payment.status === 'prepare' && !f.payment.pendingOperation && f.apm.stage === 'new') return proceed(ctx, f.merchant, f.payment);
  if (awaitingProvider(f.payment)) return refresh(ctx, f.payment);
  return stepOf(f.payment);
}

function orderOf(t: Translator, p: Payment, merchant: Merchant): OrderView {
  return { merchantName: merchant.name, number: p.orderId, amount: t.money(p.amount, p.currency), currency: p.currency, description: p.description, ...(isPayout(p.operation) ? { payout: true } : {}) };
}

const methodLabel = (key: string, t?: Translator) => (t ? methodName(t, key) : (findMethod(key)?.label ?? key));

/** Checkout payers may go back to the method choice; S2S payers may only cancel. */
function leave(t: Translator, p: Payment): Pick<ApmWaitPageView, 'back' | 'cancelUrl'> {
  return p.sessionId ? { back: { href: `/checkout/${p.sessionId}`, label: t.t('apm.another') } } : { cancelUrl: `${payPage(p.id)}/cancel` };
}

/** Sandbox only: where a tester plays the payer (the app, the bank, the outbox). */
function sandboxLinks(t: Translator, f: Found, kind: string): { href: string; label: string }[] {
  if (!f.merchant.sandbox || typeof f.payment.details.connectorRef !== 'string') return [];
  const ref = encodeURIComponent(f.payment.details.connectorRef);
  const outbox = (to: string | undefined) => (to ? [{ href: `/sandbox/outbox?to=${encodeURIComponent(to)}`, label: t.t('sandbox.readOutbox') }] : []);
  const email = (isPayout(f.payment.operation) ? contactEmail(f.apm.params) : undefined) ?? f.payment.payer.email;
  const phone = payerPhone(f.payment);
  const action = apmOf(f.payment)?.action;
  const links: Record<string, { href: string; label: string }[]> = {
    qr: [{ href: `/sandbox/apm/${ref}/app`, label: t.t('sandbox.scanQr') }],
    details: [{ href: `/sandbox/apm/${ref}/app`, label: t.t('sandbox.sendTransfer') }],
    app: [{ href: `/sandbox/apm/${ref}/app`, label: t.t('sandbox.openApp') }, ...outbox(phone ?? email)],
    link: outbox(action?.kind === 'link' && action.channel === 'sms' ? phone : email),
    otp: outbox(phone ?? email),
  };
  return links[kind] ?? [];
}

async function renderStep(reply: FastifyReply, ctx: ServiceContext, t: Translator, f: Found, step: ApmStep, notice?: string): Promise<FastifyReply> {
  const p = step.payment;
  const found: Found = { ...f, payment: p, apm: apmOf(p) ?? f.apm };
  const order = orderOf(t, p, f.merchant);
  const label = methodLabel(found.apm.method, t);
  const wait = (kind: ApmWaitPageView['kind'], extra: Partial<ApmWaitPageView> = {}) => sendHtml(reply, renderApmWaitPage({
    kind, order, methodLabel: label, statusUrl: `${payPage(p.id)}/status`, pageUrl: payPage(p.id), now: ctx.clock.now().toISOString(),
    ...leave(t, p), sandboxLinks: sandboxLinks(t, found, kind), languagePath: payPage(p.id), ...extra,
  }, t));
  if (step.kind === 'processing') return wait('processing', { back: undefined, cancelUrl: undefined });
  if (step.kind === 'final') return finalPage(reply, ctx, t, found);
  if (found.apm.stage !== 'started') return fieldsPage(reply, t, found, {}, {});
  const action = found.apm.action;
  switch (action?.kind) {
    case 'redirect':
      return reply.redirect(action.url, 303);
    case 'qr':
      return wait('qr', { qr: { image: await qrImage(action.payload), expiresAt: action.expiresAt, ...(action.deepLink ? { deepLink: action.deepLink } : {}) } });
    case 'details':
      return wait('details', { details: action.details });
    case 'app':
      return wait('app', { sentTo: action.sentTo, ...(action.message ? { providerMessage: action.message } : {}) });
    case 'link':
      return wait('link', { sentTo: action.sentTo, channel: action.channel });
    case 'otp':
      return sendHtml(reply, renderApmCodePage({
        order, methodLabel: label, actionUrl: `${payPage(p.id)}/code`, sentTo: action.sentTo, ...(action.error ? { error: codeError(t, action.error) } : {}),
        ...(notice ? { notice } : {}),
        ...((await canResend(ctx, found)) ? { resend: { actionUrl: `${payPage(p.id)}/resend`, left: resendsLeft(found) } } : {}),
        ...leave(t, p), sandboxLinks: sandboxLinks(t, found, 'otp'), languagePath: payPage(p.id),
      }, t));
    default:
      return wait('processing');
  }
}

/** The QR code as an SVG data URI (the page's CSP allows data: images). */
async function qrImage(payload: string): Promise<string> {
  const svg = await QRCode.toString(payload, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}

function fieldsPage(reply: FastifyReply, t: Translator, f: Found, values: Record<string, string>, errors: Record<string, string>, status = 200): FastifyReply {
  const method = findMethod(f.apm.method);
  const fields = method ? pageFields(method, f.apm.params, f.payment.payer, f.payment.operation as Operation) : [];
  return sendHtml(reply, renderApmFieldsPage({
    order: orderOf(t, f.payment, f.merchant), methodLabel: methodLabel(f.apm.method, t), actionUrl: `${payPage(f.payment.id)}/fields`,
    ...leave(t, f.payment), fields: fieldViews(fields, t), values, errors, countries: t.countries(), sandbox: f.merchant.sandbox, languagePath: payPage(f.payment.id),
  }, t), status);
}

/** A decided payment: back to the merchant (Checkout success or error URL, S2S return_url). */
async function finalPage(reply: FastifyReply, ctx: ServiceContext, t: Translator, f: Found, leaving = false): Promise<FastifyReply> {
  const p = f.payment;
  const session = p.sessionId ? await getSession(ctx.db, p.sessionId) : undefined;
  const outcome = outcomeOf(p);
  if (session && p.status === 'decline' && p.declineReason === QR_EXPIRED && !leaving) {
    const open = session.status === 'open' && session.expiresAt.getTime() > ctx.clock.now().getTime();
    return sendHtml(reply, renderApmExpiredPage({
      order: orderOf(t, p, f.merchant), methodLabel: methodLabel(f.apm.method, t), leaveUrl: `${payPage(p.id)}/leave`,
      ...(open ? { retry: { actionUrl: `/checkout/${session.id}/pay`, method: f.apm.method } } : {}),
    }, t));
  }
  // A declined attempt of a Checkout session: back to the page while the payer has tries left.
  const after = session && outcome === 'decline' && !leaving && session.paymentId === p.id ? await afterDecline(ctx, f.merchant, session, p) : undefined;
  if (session && after?.kind === 'retry') return reply.redirect(`/checkout/${session.id}`, 303);
  // The final decline stays, as the card page's does (issue 31 item 12): it says so, and the payer goes back when they choose.
  if (session && outcome === 'decline' && !leaving) {
    const declined = after?.kind === 'merchant' && after.noTriesLeft
      ? `${t.t('decline.generic')} ${t.t('decline.noTriesLeft')}`
      : t.t(declineMessageKey(p.declineReason, 'apm', p.details.declineCode));
    const dest = checkoutDestination(f.merchant, session, p, 'decline');
    if (!dest) return sendHtml(reply, renderMessagePage({ title: t.t('declined.title'), message: `${declined} ${t.t('msg.closePage')}`, kind: 'error' }, t));
    return sendHtml(reply, renderMessagePage({ title: t.t('declined.title'), message: declined, kind: 'error', link: { href: dest.url, label: t.t('decline.returnToShop'), target: dest.target, id: 'redirect-link' } }, t));
  }
  const pending = p.status === 'pending';
  const title = outcome === 'success' ? t.t(pending ? 'receipt.pendingTitle' : 'receipt.title') : t.t('declined.title');
  const text = outcome === 'success' ? t.t(pending ? 'receipt.pendingText' : 'receipt.text') : `${t.t(declineMessageKey(p.declineReason, 'apm', p.details.declineCode))} ${t.t('redirect.returning')}`;
  const receipt = outcome === 'success' ? { receipt: receiptOf(t, f.merchant, p, methodLabel(f.apm.method, t), pending) } : {};
  // The e-mailed receipt, when the merchant turned it on (sent once, however often this page shows).
  if (receipt.receipt && session) void mailReceipt(ctx, f.merchant, p, receiptMailText(t, receipt.receipt));
  const dest = session && checkoutDestination(f.merchant, session, p, outcome);
  if (dest) {
    return sendHtml(reply, renderRedirectPage({ url: dest.url, method: 'GET', target: dest.target, title, message: text, ...receipt }, t));
  }
  if (f.apm.returnUrl) {
    return sendHtml(reply, renderRedirectPage({ url: f.apm.returnUrl, method: 'GET', target: linkTarget(f.merchant, f.apm.returnTarget), title, message: text, ...receipt }, t));
  }
  return sendHtml(reply, renderMessagePage({ title, message: t.t('msg.closePage'), kind: outcome === 'success' ? 'success' : 'error' }, t));
}

/** The one-time code's "wrong code, N attempts left" in the page's language (the sandbox's English otherwise). */
function codeError(t: Translator, error: string): string {
  const left = /(\d+) attempts? left/.exec(error)?.[1];
  return left === undefined ? error : t.t('code.wrong', { count: Number(left) });
}

/** How many times a payer may ask for a new one-time code per payment. */
export const MAX_CODE_RESENDS = 3;

const resendsOf = (f: Found): number => Number((f.apm as { resends?: number }).resends ?? 0);
const resendsLeft = (f: Found): number => Math.max(0, MAX_CODE_RESENDS - resendsOf(f));
async function canResend(ctx: ServiceContext, f: Found): Promise<boolean> {
  try {
    return typeof (await apmConnectorOf(ctx, f.merchant, f.payment)).resendCode === 'function';
  } catch {
    return false; // no provider for this merchant: nothing to resend
  }
}

export function registerApmPageRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  /** The page's language: the payer's choice, the session's locale, the browser's. */
  const tFor = async (req: FastifyRequest, reply: FastifyReply, p?: Payment) => {
    const session = p?.sessionId ? await getSession(ctx.db, p.sessionId) : undefined;
    return pageTranslator(req, reply, session?.request.locale);
  };

  app.get<{ Params: { id: string } }>('/pay/:id', PAGE, async (req, reply) => {
    const f = await findApm(ctx, req.params.id);
    const t = await tFor(req, reply, f?.payment);
    if (!f) return message(reply, t, 'msg.paymentNotFound', 'error', 404);
    const notice = (req.query as Record<string, unknown> | undefined)?.sent === '1' ? t.t('code.newSent') : undefined;
    return renderStep(reply, ctx, t, f, await advance(ctx, f), notice);
  });

  app.get<{ Params: { id: string } }>('/pay/:id/status', JSON_ROUTE, async (req, reply) => {
    const f = await findApm(ctx, req.params.id);
    if (!f) throw new GatewayError('paymentNotFound');
    const step = await advance(ctx, f);
    const waiting = step.kind === 'processing' || (step.kind === 'payer' && apmOf(step.payment)?.stage === 'started');
    return reply.header('cache-control', 'no-store').send({ state: waiting ? 'waiting' : 'done' });
  });

  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/pay/:id/fields', PAGE, async (req, reply) => {
    const f = await findApm(ctx, req.params.id);
    const t = await tFor(req, reply, f?.payment);
    if (!f) return message(reply, t, 'msg.paymentNotFound', 'error', 404);
    const method = findMethod(f.apm.method);
    if (f.apm.stage !== 'fields' || !method) return reply.redirect(payPage(f.payment.id), 303);
    const parsed = parseFieldsForm(req.body ?? {}, pageFields(method, f.apm.params, f.payment.payer, f.payment.operation as Operation), f.payment.payer.country, t);
    if (!parsed.ok) return fieldsPage(reply, t, f, parsed.values, parsed.errors, 422);
    await submitFields(ctx, f.payment, parsed.values);
    return reply.redirect(payPage(f.payment.id), 303);
  });

  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/pay/:id/code', PAGE, async (req, reply) => {
    const f = await findApm(ctx, req.params.id);
    if (!f) return message(reply, await tFor(req, reply), 'msg.paymentNotFound', 'error', 404);
    await submitCode(ctx, f.payment, first(req.body, 'code').replace(/\s+/g, ''));
    return reply.redirect(payPage(f.payment.id), 303);
  });

  app.post<{ Params: { id: string } }>('/pay/:id/resend', PAGE, async (req, reply) => {
    const f = await findApm(ctx, req.params.id);
    if (!f) return message(reply, await tFor(req, reply), 'msg.paymentNotFound', 'error', 404);
    const sent = (await canResend(ctx, f)) && resendsLeft(f) > 0 && (await resendCode(ctx, f.payment, MAX_CODE_RESENDS));
    return reply.redirect(sent ? `${payPage(f.payment.id)}?sent=1` : payPage(f.payment.id), 303);
  });

  app.post<{ Params: { id: string } }>('/pay/:id/cancel', PAGE, async (req, reply) => {
    const f = await findApm(ctx, req.params.id);
    if (!f) return message(reply, await tFor(req, reply), 'msg.paymentNotFound', 'error', 404);
    await abandon(ctx, f.payment);
    return reply.redirect(payPage(f.payment.id), 303);
  });

  app.get<{ Params: { id: string } }>('/pay/:id/leave', PAGE, async (req, reply) => {
    const f = await findApm(ctx, req.params.id);
    const t = await tFor(req, reply, f?.payment);
    if (!f) return message(reply, t, 'msg.paymentNotFound', 'error', 404);
    const step = await advance(ctx, f);
    if (step.kind !== 'final') return reply.redirect(payPage(f.payment.id), 303);
    return finalPage(reply, ctx, t, { ...f, payment: step.payment }, true);
  });
}
