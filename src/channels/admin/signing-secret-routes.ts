/**
 * `POST /admin/v1/merchants/{id}/signing-secret`: rotates a merchant's webhook signing secret and answers the
 * new one, once (it is stored sealed and never shown again). The previous secret keeps signing for a day.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { GatewayError } from '../../domain/errors.ts';
import { findMerchantById } from '../../services/queries/merchants.ts';
import { currentSigningSecret, rotateSigningSecret } from '../../services/signing-secrets.ts';
import { Type } from '@sinclair/typebox';
import { ADMIN_TAG as TAG, actorOf, requirePermission } from './operator-auth.ts';
import { ErrorResponses } from './errors.ts';

export function registerAdminSigningSecretRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<{ Params: { id: string } }>('/merchants/:id/signing-secret/reveal', {
    onRequest: requirePermission('merchants.write'),
    schema: {
      ...TAG,
      summary: 'Show a merchant\'s current webhook signing secret',
      description: 'The `whsec_` secret that signs its callbacks now (webhook-signature header), for setting up or checking the merchant\'s receiver. '
        + 'A POST, not a GET, so that no cache or prefetch reads it; every reveal is audited (merchant.reveal_signing_secret). Permission merchants.write (admin, operator).',
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      response: {
        200: Type.Object({ merchant_id: Type.String(), signing_secret: Type.String({ description: 'whsec_…' }) }, { examples: [{ merchant_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', signing_secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }] }),
        ...ErrorResponses,
      },
    },
  }, async (req, reply) => {
    if (!(await findMerchantById(ctx.db, ctx.keyring, req.params.id))) throw new GatewayError('notFound');
    const secret = await currentSigningSecret(ctx, req.params.id, actorOf(req));
    if (secret === undefined) throw new GatewayError('notFound');
    reply.header('cache-control', 'no-store');
    return { merchant_id: req.params.id, signing_secret: secret };
  });

  app.post<{ Params: { id: string } }>('/merchants/:id/signing-secret', {
    onRequest: requirePermission('merchants.write'),
    schema: {
      ...TAG,
      summary: 'Rotate a merchant\'s webhook signing secret (answered once)',
      description: 'The new `whsec_` secret signs every callback from now on (webhook-signature header); the previous one signs beside it until previous_valid_until.',
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      response: {
        200: Type.Object({ merchant_id: Type.String(), signing_secret: Type.String({ description: 'whsec_…, in this answer only' }), previous_valid_until: Type.String({ description: 'Until when the previous secret still signs beside it' }) },
          { examples: [{ merchant_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', signing_secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', previous_valid_until: '2026-11-25T05:00:00.000Z' }] }),
        ...ErrorResponses,
      },
    },
  }, async (req, reply) => {
    if (req.params.id.length > 64 || !(await findMerchantById(ctx.db, ctx.keyring, req.params.id))) throw new GatewayError('notFound');
    const rotated = await rotateSigningSecret(ctx, req.params.id, actorOf(req));
    ctx.signingKeys?.forget(req.params.id);
    reply.header('cache-control', 'no-store');
    return { merchant_id: req.params.id, signing_secret: rotated.secret.expose(), previous_valid_until: rotated.previousValidUntil.toISOString() };
  });
}
