/**
 * The portal's team (issue 30): the business's users and open invitations (team.read), and for its owner
 * (team.manage) inviting by e-mail, changing a role, disabling, sending a new link. Scoped to the signed-in
 * user's own business by the service (services/portal/team.ts): another business's user is not found.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { inviteFromPortal, portalTeam, reinviteFromPortal, updateFromPortal } from '../../services/portal/team.ts';
import { MerchantRoleSchema, MerchantUserView, presentMerchantUser } from '../admin/merchant-user-routes.ts';
import { IdParams, notFound } from '../admin/schemas.ts';
import { userOf } from './auth.ts';
import { PORTAL_TAG, portalResponses } from './errors.ts';

const { tags, security } = PORTAL_TAG;

const InviteBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254 }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  role: MerchantRoleSchema,
}, { additionalProperties: false, examples: [{ email: 'dev@shop.example', name: 'Dana Dev', role: 'developer' }] });
const PatchBody = Type.Object({
  role: Type.Optional(MerchantRoleSchema),
  disabled: Type.Optional(Type.Boolean()),
}, { additionalProperties: false, minProperties: 1, examples: [{ role: 'viewer' }] });
const Team = Type.Object({ users: Type.Array(MerchantUserView) }, { description: 'The business\'s users, oldest first; `invitation_expires_at` set for those who have not accepted yet.' });
type Id = Static<typeof IdParams>;

export function registerPortalTeamRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/team', {
    schema: { tags, security, summary: 'The users of the business and their open invitations', response: portalResponses({ 200: Team }, []) },
  }, async (req) => {
    const { users, invitations } = await portalTeam(ctx, userOf(req));
    return { users: users.map((u) => presentMerchantUser(u, invitations)) };
  });

  app.post<{ Body: Static<typeof InviteBody> }>('/team', {
    schema: { tags, security, summary: 'Invite a user into the business by e-mail (owners)', body: InviteBody, response: portalResponses({ 201: MerchantUserView }, [400]) },
  }, async (req, reply) => {
    const user = await inviteFromPortal(ctx, userOf(req), req.body);
    const { invitations } = await portalTeam(ctx, userOf(req));
    return reply.code(201).send(presentMerchantUser(user, invitations));
  });

  app.patch<{ Params: Id; Body: Static<typeof PatchBody> }>('/team/:id', {
    schema: { tags, security, summary: 'Change a user\'s role or disable them (owners; the business keeps one enabled owner)', params: IdParams, body: PatchBody, response: portalResponses({ 200: MerchantUserView }) },
  }, async (req) => presentMerchantUser((await updateFromPortal(ctx, userOf(req), req.params.id, req.body)) ?? (await Promise.reject(notFound()))));

  app.post<{ Params: Id }>('/team/:id/invitation', {
    schema: { tags, security, summary: 'E-mail a new invitation link (owners; earlier links stop working)', params: IdParams, response: portalResponses({ 200: MerchantUserView }) },
  }, async (req) => presentMerchantUser((await reinviteFromPortal(ctx, userOf(req), req.params.id)) ?? (await Promise.reject(notFound()))));
}
