/**
 * Where acquirers reach us: `POST /connectors/{connector}/{midId}/notify` takes a connector's notification (the
 * platform family's form callback, Adyen's JSON webhook). The connector verifies it with the MID's credentials;
 * one that does not verify is answered 401 and changes nothing. The acquirer gets the answer it expects ("OK",
 * "[accepted]") once the events are applied, so one lost in a crash is sent again.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { handleConnectorNotification } from '../../services/connector-notifications.ts';
import { ConnectorRejection } from '../../connectors/types.ts';
import { GatewayError } from '../../domain/errors.ts';

export function registerConnectorRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<{ Params: { connector: string; midId: string } }>('/connectors/:connector/:midId/notify', {
    schema: {
      tags: ['Connectors'],
      summary: "An acquirer's notification for one MID (form or JSON, as the connector's acquirer sends it)",
      params: Type.Object({ connector: Type.String({ maxLength: 64 }), midId: Type.String({ maxLength: 64 }) }),
    },
  }, async (req, reply) => {
    try {
      const ack = await handleConnectorNotification(ctx, req.params.connector, req.params.midId, {
        headers: req.headers, rawBody: '', body: req.body ?? {},
      });
      return reply.code(200).type(ack.contentType).send(ack.body);
    } catch (err) {
      if (err instanceof ConnectorRejection) {
        req.log.warn({ connector: req.params.connector, midId: req.params.midId, why: err.message }, 'connector notification refused');
        throw new GatewayError('notificationSignatureInvalid');
      }
      throw err;
    }
  });
}
