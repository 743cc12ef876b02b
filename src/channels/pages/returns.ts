/**
 * The payer back from an acquirer's page (its term URL or returnUrl: query and form fields go to the connector),
 * and our page for a native 3-D Secure 2 step (the acquirer gave the ACS's addresses, not a page of its own).
 */
import { shortReference } from '../../domain/ids.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import type { NativeThreeDs2Step } from '../../connectors/types.ts';
import { renderThreeDs2Page, threeDs2Csp } from '../../web/threeds2-page.ts';
import { pageTranslator } from './locale.ts';
import { PAGE, message, sendHtml, stringFields } from './reply.ts';
import { challengeTarget, finish, sessionLocaleOf } from './next.ts';

export function registerReturnPages(app: FastifyInstance, ctx: ServiceContext): void {
  const back = async (req: FastifyRequest, paymentId: string, query: unknown, body: unknown, reply: FastifyReply) => {
    const params = { ...stringFields(query, Object.keys((query as object | null) ?? {})), ...stringFields(body, Object.keys((body as object | null) ?? {})) };
    return finish(ctx, req, paymentId, 'returned', reply, params);
  };
  // --- our page for a native 3-D Secure 2 step (the acquirer gave the ACS's addresses, not a page of its own)
  app.get<{ Params: { id: string } }>('/connectors/return/:id/3ds2', PAGE, async (req, reply) => {
    const found = await challengeTarget(ctx, req.params.id, '3ds');
    const t = pageTranslator(req, reply, found && (await sessionLocaleOf(ctx, found.payment)));
    const step = found?.payment.details.threeDs2Step as NativeThreeDs2Step | null | undefined;
    if (!found || !step) return message(reply, t, 'msg.noAuth', 'error', 404);
    const { payment, merchant } = found;
    const page = renderThreeDs2Page({ step, merchantName: merchant.name, amount: t.money(payment.amount, payment.currency), orderNumber: payment.orderId, reference: shortReference(payment.id), resultUrl: `/connectors/return/${payment.id}` }, t);
    return sendHtml(reply, page).header('content-security-policy', threeDs2Csp(step));
  });
  app.get<{ Params: { id: string } }>('/connectors/return/:id', PAGE, async (req, reply) => back(req, req.params.id, req.query, undefined, reply));
  app.post<{ Params: { id: string } }>('/connectors/return/:id', PAGE, async (req, reply) => back(req, req.params.id, req.query, req.body, reply));
}
