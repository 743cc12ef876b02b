/**
 * `POST /admin/v1/merchants/{id}/signing-secret`: rotates a merchant's webhook signing secret and answers the
 * new one, once (it is stored sealed and never shown again). The previous secret keeps signing for a day.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { GatewayError } from '../../domain/errors.ts';
import { findMerchantById } from '../../services/queries/merchants.ts';
import { rotateSigningSecret } from '../../services/signing-secrets.ts';
import { ADMIN_TAG as TAG, actorOf, requirePermission } from './operator-auth.ts';

export function registerAdminSigningSecretRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<{ Params: { id: string } }>('/merchants/:id/signing-secret', {
    onRequest: requirePermission('merchants.write'),
    schema: {
      ...TAG,
      summary: 'Rotate a merchant\'s webhook signing secret (answered once)',
      description: 'The new `whsec_` secret signs every callback from now on (webhook-signature header); the previous one signs beside it until previous_valid_until.',
    },
  }, async (req, reply) => {
    if (req.params.id.length > 64 || !(await findMerchantById(ctx.db, ctx.keyring, req.params.id))) throw new GatewayError('notFound');
    const rotated = await rotateSigningSecret(ctx, req.params.id, actorOf(req));
    ctx.signingKeys?.forget(req.params.id);
    reply.header('cache-control', 'no-store');
    return { merchant_id: req.params.id, signing_secret: rotated.secret.expose(), previous_valid_until: rotated.previousValidUntil.toISOString() };
  });
}
