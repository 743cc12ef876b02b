/**
 * The sandbox acquirer's payer pages: its ACS (the 3-D Secure challenge, expiry months 05 and 06) and its bank
 * page for a card redirect (expiry month 12). The payer's answer completes the payment as an acquirer's would,
 * then the payer goes on as from any acquirer's page (channels/pages/next.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { pageTranslator } from '../../channels/pages/locale.ts';
import { PAGE, message, sendHtml, stringFields } from '../../channels/pages/reply.ts';
import { challengeTarget, finish, sessionLocaleOf } from '../../channels/pages/next.ts';
import { renderAcsPage, renderProviderPage } from '../templates.ts';
import { shortReference } from '../../domain/ids.ts';

export function registerAcquirerPages(app: FastifyInstance, ctx: ServiceContext): void {
  const acsPage = async (req: FastifyRequest, paymentId: string, reply: FastifyReply, fields: Record<string, string>) => {
    const found = await challengeTarget(ctx, paymentId, '3ds');
    const t = pageTranslator(req, reply, found && (await sessionLocaleOf(ctx, found.payment)));
    if (!found) return message(reply, t, 'msg.noAuth', 'error', 404);
    const { payment, merchant } = found;
    return sendHtml(reply, renderAcsPage({
      paymentId: payment.id, orderNumber: payment.orderId, reference: shortReference(payment.id), merchantName: merchant.name, amount: t.money(payment.amount, payment.currency), currency: payment.currency,
      maskedCard: payment.details.cardMask ?? '', actionUrl: `/sandbox/acs/${payment.id}/complete`, fields, hint: t.t('acs.hint'),
    }, t));
  };
  app.get<{ Params: { id: string } }>('/sandbox/acs/:id', PAGE, async (req, reply) => acsPage(req, req.params.id, reply, {}));
  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/sandbox/acs/:id', PAGE, async (req, reply) => acsPage(req, req.params.id, reply, stringFields(req.body, ['MD', 'PaReq', 'TermUrl'])));
  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/sandbox/acs/:id/complete', PAGE, async (req, reply) => {
    const decision = stringFields(req.body, ['decision']).decision === 'cancel' ? 'cancel' : 'submit';
    return finish(ctx, req, req.params.id, decision, reply);
  });

  // The bank's page of a card redirect (expiry month 12).
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
    return finish(ctx, req, req.params.id, decision, reply);
  });
}
