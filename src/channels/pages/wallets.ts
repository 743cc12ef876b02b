/**
 * Wallets on the hosted Checkout page: the token a payment sheet made (Apple Pay, Google Pay, or the sandbox
 * simulator's), paid by the wallet flow rules, and Apple's merchant validation for a live page's ApplePaySession.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { loadSession, payByWallet } from '../../services/hosted-checkout.ts';
import { ERRORS, GatewayError } from '../../domain/errors.ts';
import { walletMethod } from '../../domain/wallets/wallet-flow.ts';
import { missingPageFields } from '../../services/wallets/wallet-buttons.ts';
import { validateAppleMerchant } from '../../services/wallets/apple-merchant-validation.ts';
import { APPLE_DOMAIN_ASSOCIATION_PATH, appleDomainAssociation } from '../../services/wallets/apple-domain.ts';
import { localizeMessage, parseWalletPagePayer } from '../../web/checkout-form.ts';
import { deviceIdOf } from '../../domain/risk/device.ts';
import { methodName } from './receipt.ts';
import { PAGE, message, stringFields } from './reply.ts';
import { continueAfter } from './next.ts';
import { checkoutPage, payErrorKey, withLiveSession, type SessionPage } from './checkout.ts';
import { withoutUnfinishedApm } from './apm-routes.ts';

export function registerWalletPages(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<SessionPage>('/checkout/:id/wallet', PAGE, withLiveSession(ctx, async (req, reply, t, state) => {
    const body = typeof req.body === 'object' && req.body ? req.body : {};
    const fields = walletFields(body);
    const method = state.session.request.methods.find((m) => m === (fields.method ?? fields.wallet));
    const offered = walletMethod(method);
    if (!method || !offered || !fields.paymentToken) return checkoutPage(ctx, reply, t, state, { errors: { '': t.t('wallet.failed') } }, 422);
    const wallet = offered.wallet;
    // A payment-page variant: the payer fields the request lacked come with the token.
    const pagePayer = offered.pageVariant ? parseWalletPagePayer(body, missingPageFields(state.session)) : { ok: true as const, payer: {} };
    if (!pagePayer.ok) {
      const errors = Object.fromEntries(Object.entries(pagePayer.errors).map(([k, m]) => [k, localizeMessage(t, m)]));
      return checkoutPage(ctx, reply, t, state, { selectedMethod: method, errors: { '': t.t('wallet.detailsFirst', { method: methodName(t, wallet) }), ...errors } }, 422);
    }
    try {
      const step = await payByWallet(ctx, await withoutUnfinishedApm(ctx, state), wallet, fields.paymentToken, req.ip, pagePayer.payer, deviceIdOf(body.device_id));
      return continueAfter(reply, ctx, t, step, state.merchant);
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      if (err.spec === ERRORS.sessionNotPayable) return message(reply, t, 'msg.noMoreTries', 'error', 400);
      return checkoutPage(ctx, reply, t, state, { selectedMethod: wallet, errors: { '': t.t(payErrorKey(err)) } }, err.spec.http);
    }
  }));

  /** A live page's ApplePaySession asks the gateway to validate the merchant with Apple. */
  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/checkout/:id/applepay/validate', { ...PAGE, config: { dialect: 'json' as const } }, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    if (state.kind !== 'open' || !state.session.request.methods.some((m) => walletMethod(m)?.wallet === 'applepay')) throw new GatewayError('notFound');
    const session = await validateAppleMerchant(ctx, state.merchant, stringFields(req.body, ['validation_url']).validation_url);
    return reply.header('cache-control', 'no-store').send(session);
  });

  /** Apple's domain verification of the gateway's page domain: the uploaded file, as it was uploaded. */
  app.get(APPLE_DOMAIN_ASSOCIATION_PATH, {
    // Never compressed: @fastify/compress passes a body that starts like a deflate stream (e.g. the text "80")
    // through as-is but still labels it gzip, so one uploaded file in 256 reached Apple undecodable.
    compress: false,
    schema: {
      tags: ['Checkout'],
      summary: "Apple Pay domain verification: the domain-association file uploaded in a merchant's Wallets tab, as-is",
      description: 'The latest `apple_pay.domain_association` of the Wallets tab (PUT /admin/v1/merchants/{id}/wallets) of all merchants, '
        + 'answered as `text/plain` byte for byte; 404 while none is uploaded.',
      response: { 200: { type: 'string', description: 'The file, as uploaded.' } },
    },
  }, async (_req, reply) => {
    const file = await appleDomainAssociation(ctx);
    if (file === undefined) throw new GatewayError('notFound');
    return reply.type('text/plain; charset=utf-8').header('cache-control', 'no-cache').send(file);
  });
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
