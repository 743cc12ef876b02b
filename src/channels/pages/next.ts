/**
 * Where the payer goes after a payment step: an acquirer's page, the sandbox ACS or provider page, a message, or back
 * to the merchant (a retry on the Checkout page, a receipt, a decline). Shared by the Checkout and wallet forms, the
 * returns from acquirers' pages and the sandbox's own ACS and provider pages.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { finishChallenge, checkoutDestination, outcomeOf, linkTarget, afterDecline } from '../../services/hosted-checkout.ts';
import type { PaymentStep } from '../../services/attempt/index.ts';
import type { PayerRedirect } from '../../services/s2s-card/payer-redirect.ts';
import { getPayment } from '../../services/queries/payments.ts';
import type { Payment } from '../../domain/model/payment.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import { findMerchantById } from '../../services/queries/merchants.ts';
import { getSession } from '../../services/queries/sessions.ts';
import { GatewayError } from '../../domain/errors.ts';
import { declineMessageKey } from '../../domain/declines.ts';
import { apmOf } from '../../services/apm/details.ts';
import { REVIEW_OPERATION } from '../../domain/operations.ts';
import { renderRedirectPage, renderMessagePage } from '../../web/pages.ts';
import type { Translator } from '../../web/i18n.ts';
import { pageTranslator } from './locale.ts';
import { receiptMailText, receiptOf } from './receipt.ts';
import { mailReceipt } from '../../services/mail/receipts.ts';
import { message, sendHtml } from './reply.ts';

/** The session's language choice, for pages reached from a payment. */
export async function sessionLocaleOf(ctx: ServiceContext, payment: Payment): Promise<string | undefined> {
  if (!payment.sessionId) return undefined;
  return (await getSession(ctx.db, payment.sessionId))?.request.locale;
}

/** Sends the payer on after a payment step: to the ACS, the provider page, or back to the merchant. */
export function continueAfter(reply: FastifyReply, ctx: ServiceContext, t: Translator, step: PaymentStep, merchant: Merchant) {
  const p = step.payment;
  const page = step.kind === 'challenge' || step.kind === 'redirect' ? (p.details.payerPage as PayerRedirect | undefined) : undefined;
  // A real acquirer's page: the payer is sent there as the acquirer asked (a form post for an ACS).
  if (page) return sendHtml(reply, renderRedirectPage({ url: page.url, method: page.method, params: page.params ?? {}, target: '_self', title: 'Authentication', message: 'Taking you to your bank…' }));
  if (step.kind === 'challenge') return reply.redirect(`/sandbox/acs/${p.id}`, 303);
  if (step.kind === 'redirect') return reply.redirect(`/sandbox/provider/${p.id}`, 303);
  // Back from an acquirer's page with the outcome still open: an S2S payer goes back to the merchant, who hears by callback.
  if (step.kind === 'processing' && p.channel !== 'checkout' && typeof p.details.termUrl3ds === 'string') return returnToMerchant(reply, ctx, t, merchant, p);
  // Held for the risk engine's review before any acquirer call: the payer is told, the merchant hears by callback.
  if (step.kind === 'processing' && p.pendingOperation === REVIEW_OPERATION) return message(reply, t, 'msg.review', 'info', 202);
  if (step.kind === 'processing') return message(reply, t, 'msg.processing', 'info', 202);
  return returnToMerchant(reply, ctx, t, merchant, p);
}

export async function returnToMerchant(reply: FastifyReply, ctx: ServiceContext, t: Translator, merchant: Merchant, payment: Payment) {
  if (payment.channel === 'checkout' && payment.sessionId) {
    const session = await getSession(ctx.db, payment.sessionId);
    if (session) {
      const outcome = outcomeOf(payment);
      const after = outcome === 'decline' ? await afterDecline(ctx, merchant, session, payment) : undefined;
      if (after?.kind === 'retry') return reply.redirect(`/checkout/${session.id}`, 303);
      const dest = checkoutDestination(merchant, session, payment, outcome);
      if (outcome === 'success') {
        const pending = payment.status === 'pending';
        const receipt = receiptOf(t, merchant, payment, t.t('method.card'));
        // The e-mailed receipt, when the merchant turned it on; the page does not wait for it.
        void mailReceipt(ctx, merchant, payment, receiptMailText(t, receipt));
        const title = t.t(pending ? 'receipt.pendingTitle' : 'receipt.title');
        // success_url is required, so a paid session always has a destination; the receipt alone otherwise.
        if (!dest) return message(reply, t, pending ? 'msg.pendingClose' : 'msg.paidClose', 'success');
        return sendHtml(reply, renderRedirectPage({
          url: dest.url, method: 'GET', target: dest.target, title, message: t.t(pending ? 'receipt.pendingText' : 'receipt.text'), receipt,
        }, t));
      }
      // No tries left: say so (not "try another card") and let the payer leave when they choose (issue 31 item 12).
      const declined = after?.kind === 'merchant' && after.noTriesLeft
        ? `${t.t('decline.generic')} ${t.t('decline.noTriesLeft')}`
        : t.t(declineMessageKey(payment.declineReason, 'card', payment.details.declineCode));
      if (!dest) return sendHtml(reply, renderMessagePage({ title: t.t('declined.title'), message: `${declined} ${t.t('msg.closePage')}`, kind: 'error' }, t));
      return sendHtml(reply, renderMessagePage({ title: t.t('declined.title'), message: declined, kind: 'error', link: { href: dest.url, label: t.t('decline.returnToShop'), target: dest.target, id: 'redirect-link' } }, t));
    }
  }
  const termUrl = payment.details.termUrl3ds;
  if (typeof termUrl === 'string') {
    const target = linkTarget(merchant, payment.details.linkTarget);
    return sendHtml(reply, renderRedirectPage({ url: termUrl, method: 'GET', target, title: t.t('auth.doneTitle'), message: t.t('redirect.returning') }, t));
  }
  return message(reply, t, 'msg.complete', 'info');
}

export async function challengeTarget(ctx: ServiceContext, paymentId: string, status: '3ds' | 'redirect'): Promise<{ payment: Payment; merchant: Merchant } | undefined> {
  const payment = await getPayment(ctx.db, paymentId);
  // Alternative-method payments have their own provider pages (apm-routes.ts).
  if (!payment || payment.status !== status || apmOf(payment)) return undefined;
  const merchant = await findMerchantById(ctx.db, ctx.keyring, payment.merchantId);
  return merchant && { payment, merchant };
}

/** The payer is done at an ACS, a provider page or an acquirer's page: the outcome, then the next page. */
export async function finish(ctx: ServiceContext, req: FastifyRequest, paymentId: string, decision: 'submit' | 'cancel' | 'approve' | 'decline' | 'returned', reply: FastifyReply, params?: Record<string, string>) {
  try {
    const { step, merchant } = await finishChallenge(ctx, paymentId, decision, params);
    const t = pageTranslator(req, reply, await sessionLocaleOf(ctx, step.payment));
    return continueAfter(reply, ctx, t, step, merchant);
  } catch (err) {
    if (err instanceof GatewayError) return message(reply, pageTranslator(req, reply), 'msg.paymentNotFound', 'error', 404);
    throw err;
  }
}
