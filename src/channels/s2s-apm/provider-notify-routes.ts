/**
 * `POST /apm/provider/notify/{id}` (the payment): where a MID-configured APM provider notifies the gateway of a payment
 * (the notification URL its create call was given). The gateway then asks the provider for the status and
 * applies that; the notification's own content is not trusted, so it needs no signature.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { handleProviderNotification } from '../../services/apm/notifications.ts';
import { apmS2sStatus } from '../../services/apm/details.ts';

const NotifyAnswer = Type.Object({ result: Type.Literal('OK'), trans_id: Type.String(), status: Type.String() });

export function registerProviderNotifyRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<{ Params: { id: string } }>('/apm/provider/notify/:id', {
    schema: {
      tags: ['S2S APM'],
      summary: "An APM provider's notification of one payment; the gateway then asks the provider for its status",
      params: Type.Object({ id: Type.String({ maxLength: 64, description: 'the payment' }) }),
      body: Type.Object({}, { additionalProperties: true }),
      response: { 200: NotifyAnswer },
    },
  }, async (req) => {
    const payment = await handleProviderNotification(ctx, req.params.id);
    return { result: 'OK' as const, trans_id: payment.id, status: apmS2sStatus(payment) };
  });
}
