/**
 * Merchant portal users and merchant groups for operators (issue 30): an operator groups merchants (a business
 * with several shops), invites a merchant's (or a group's) users by e-mail with a role, sends a new link, changes
 * a role or disables a user. Reading needs merchants.read, every change merchants.write.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { MERCHANT_ROLES, MERCHANT_ROLE_SUMMARY } from '../../domain/merchant-roles.ts';
import {
  createMerchantGroup, findMerchantUserById, inviteMerchantUser, listTeam, merchantGroup, merchantGroups, reinviteMerchantUser,
  setMerchantGroupMembers, updateMerchantUserById, type MerchantGroup, type MerchantUser, type PendingInvitation,
} from '../../services/portal/team.ts';
import { GatewayError } from '../../domain/errors.ts';
import { resetTwoFactor } from '../../services/two-factor.ts';
import { ADMIN_TAG, actorOf, requirePermission } from './operator-auth.ts';
import { IdParams, NullableTimestamp, Timestamp, notFound } from './schemas.ts';
import { responses } from './errors.ts';

const TAG = ADMIN_TAG.tags;
const SECURITY = ADMIN_TAG.security;

export const MerchantRoleSchema = Type.Union(MERCHANT_ROLES.map((r) => Type.Literal(r)), { errorMessage: 'The value you selected is not a valid choice.', description: MERCHANT_ROLE_SUMMARY });

const USER_EXAMPLE = {
  id: '01937a10-1b2c-7d3e-8f40-5a6b7c8d9e0f', email: 'fin@shop.example', name: 'Fiona Finance', role: 'finance', merchant_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  group_id: null, disabled: false, has_password: false, invitation_expires_at: '2026-12-01T10:00:00.000Z', created_at: '2026-11-24T10:00:00.000Z', updated_at: '2026-11-24T10:00:00.000Z',
};
export const MerchantUserView = Type.Object({
  id: Type.String(), email: Type.String(), name: Type.String(), role: MerchantRoleSchema,
  merchant_id: Type.Union([Type.String(), Type.Null()], { description: 'The user\'s merchant; null for a group\'s user.' }),
  group_id: Type.Union([Type.String(), Type.Null()], { description: 'The user\'s merchant group; null for one merchant\'s user.' }),
  disabled: Type.Boolean(),
  has_password: Type.Boolean({ description: 'false until the invitee sets a password through the invitation\'s link.' }),
  invitation_expires_at: Type.Union([Timestamp, Type.Null()], { description: 'When the open invitation\'s link stops working; null: none open.' }),
  created_at: Timestamp, updated_at: Timestamp,
}, { description: 'A merchant portal user (never the password).', examples: [USER_EXAMPLE] });

export const presentMerchantUser = (u: MerchantUser, invitations: readonly PendingInvitation[] = []) => ({
  id: u.id, email: u.email, name: u.name, role: u.role, merchant_id: u.merchantId, group_id: u.groupId, disabled: u.disabled, has_password: u.hasPassword,
  invitation_expires_at: invitations.find((i) => i.userId === u.id)?.expiresAt.toISOString() ?? null,
  created_at: u.createdAt.toISOString(), updated_at: u.updatedAt.toISOString(),
});

const GROUP_EXAMPLE = { id: '01937a0f-0000-7000-8000-000000000001', name: 'Shops of ACME', merchant_ids: [USER_EXAMPLE.merchant_id], created_at: '2026-11-24T09:00:00.000Z' };
const GroupView = Type.Object({
  id: Type.String(), name: Type.String(), merchant_ids: Type.Array(Type.String()), created_at: Timestamp,
}, { description: 'A merchant group: the group\'s users see every member merchant.', examples: [GROUP_EXAMPLE] });
const presentGroup = (g: MerchantGroup) => ({ id: g.id, name: g.name, merchant_ids: g.merchantIds, created_at: g.createdAt.toISOString() });

const MerchantIds = Type.Array(Type.String({ maxLength: 64 }), { maxItems: 500, description: 'The member merchants\' ids.' });
const CreateGroupBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), merchant_ids: MerchantIds },
  { additionalProperties: false, examples: [{ name: GROUP_EXAMPLE.name, merchant_ids: GROUP_EXAMPLE.merchant_ids }] });
const GroupMembersBody = Type.Object({ merchant_ids: MerchantIds }, { additionalProperties: false, examples: [{ merchant_ids: GROUP_EXAMPLE.merchant_ids }] });

const InviteBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254 }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  role: MerchantRoleSchema,
  merchant_id: Type.Optional(Type.String({ maxLength: 64, description: 'The user\'s merchant (this or group_id).' })),
  group_id: Type.Optional(Type.String({ maxLength: 64, description: 'The user\'s merchant group (this or merchant_id).' })),
}, { additionalProperties: false, examples: [{ email: USER_EXAMPLE.email, name: USER_EXAMPLE.name, role: 'finance', merchant_id: USER_EXAMPLE.merchant_id }] });
type InviteBody = Static<typeof InviteBody>;

const PatchBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  role: Type.Optional(MerchantRoleSchema),
  disabled: Type.Optional(Type.Boolean({ description: 'A disabled user\'s sessions end at once.' })),
}, { additionalProperties: false, minProperties: 1, examples: [{ role: 'viewer' }, { disabled: true }] });
type PatchBody = Static<typeof PatchBody>;

const ListQuery = Type.Object({
  merchant_id: Type.Optional(Type.String({ maxLength: 64, description: 'The users of this merchant.' })),
  group_id: Type.Optional(Type.String({ maxLength: 64, description: 'The users of this group.' })),
}, { additionalProperties: false });
type ListQuery = Static<typeof ListQuery>;

const UserList = Type.Object({ users: Type.Array(MerchantUserView) }, { examples: [{ users: [USER_EXAMPLE] }] });
const GroupList = Type.Object({ groups: Type.Array(GroupView) }, { examples: [{ groups: [GROUP_EXAMPLE] }] });
type Id = Static<typeof IdParams>;

function businessOf(q: { merchant_id?: string; group_id?: string }) {
  if ((q.merchant_id === undefined) === (q.group_id === undefined)) throw GatewayError.field('merchant_id', 'Give merchant_id or group_id (one of them).');
  return q.merchant_id !== undefined ? { merchantId: q.merchant_id } : { groupId: q.group_id! };
}

export function registerAdminMerchantUserRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const read = requirePermission('merchants.read');
  const write = requirePermission('merchants.write');

  app.post<{ Body: Static<typeof CreateGroupBody> }>('/merchant-groups', {
    onRequest: write,
    schema: { tags: TAG, security: SECURITY, summary: 'Create a merchant group (a business with several shops)', body: CreateGroupBody, response: responses({ 201: GroupView }, [400]) },
  }, async (req, reply) => reply.code(201).send(presentGroup(await createMerchantGroup(ctx, actorOf(req), { name: req.body.name, merchantIds: req.body.merchant_ids }))));

  app.get('/merchant-groups', {
    onRequest: read,
    schema: { tags: TAG, security: SECURITY, summary: 'List merchant groups', response: responses({ 200: GroupList }, []) },
  }, async () => ({ groups: (await merchantGroups(ctx)).map(presentGroup) }));

  app.put<{ Params: Id; Body: Static<typeof GroupMembersBody> }>('/merchant-groups/:id/merchants', {
    onRequest: write,
    schema: { tags: TAG, security: SECURITY, summary: 'Set a group\'s member merchants (its users see exactly these from their next request)', params: IdParams, body: GroupMembersBody, response: responses({ 200: GroupView }) },
  }, async (req) => presentGroup((await setMerchantGroupMembers(ctx, actorOf(req), req.params.id, req.body.merchant_ids)) ?? (await Promise.reject(notFound()))));

  app.post<{ Body: InviteBody }>('/merchant-users', {
    onRequest: write,
    schema: {
      tags: TAG, security: SECURITY, body: InviteBody, response: responses({ 201: MerchantUserView }),
      summary: 'Invite a merchant portal user: creates the user and e-mails the link where the invitee sets the password (valid 7 days)',
    },
  }, async (req, reply) => {
    const { email, name, role } = req.body;
    const user = await inviteMerchantUser(ctx, actorOf(req), businessOf(req.body), { email, role, ...(name ? { name } : {}) });
    if (!user) throw notFound();
    const { invitations } = await listTeam(ctx, { merchantIds: user.merchantId ? [user.merchantId] : [], groupId: user.groupId });
    return reply.code(201).send(presentMerchantUser(user, invitations));
  });

  app.get<{ Querystring: ListQuery }>('/merchant-users', {
    onRequest: read,
    schema: { tags: TAG, security: SECURITY, summary: 'The portal users of a merchant (with its groups\' users) or of a group', querystring: ListQuery, response: responses({ 200: UserList }, [400]) },
  }, async (req) => {
    const business = businessOf(req.query);
    let scope: { merchantIds: string[]; groupId: string | null };
    if (business.merchantId !== undefined) scope = { merchantIds: [business.merchantId], groupId: null };
    else scope = { merchantIds: [], groupId: (await merchantGroup(ctx, business.groupId))?.id ?? null };
    const { users, invitations } = await listTeam(ctx, scope);
    return { users: users.map((u) => presentMerchantUser(u, invitations)) };
  });

  app.patch<{ Params: Id; Body: PatchBody }>('/merchant-users/:id', {
    onRequest: write,
    schema: { tags: TAG, security: SECURITY, summary: 'Change a portal user\'s name, role or disabled flag (a business keeps at least one enabled owner)', params: IdParams, body: PatchBody, response: responses({ 200: MerchantUserView }) },
  }, async (req) => {
    const user = await updateMerchantUserById(ctx, actorOf(req), req.params.id, req.body);
    if (!user) throw notFound();
    return presentMerchantUser(user);
  });

  app.post<{ Params: Id }>('/merchant-users/:id/invitation', {
    onRequest: write,
    schema: { tags: TAG, security: SECURITY, summary: 'E-mail a new invitation link to a user who has not set a password (earlier links stop working)', params: IdParams, response: responses({ 200: MerchantUserView }) },
  }, async (req) => {
    const user = await reinviteMerchantUser(ctx, actorOf(req), req.params.id);
    if (!user) throw notFound();
    const { invitations } = await listTeam(ctx, { merchantIds: user.merchantId ? [user.merchantId] : [], groupId: user.groupId });
    return presentMerchantUser(user, invitations);
  });

  app.delete<{ Params: Id }>('/merchant-users/:id/two-factor', {
    onRequest: write,
    schema: { tags: TAG, security: SECURITY, summary: 'Reset a portal user\'s two-factor sign-in (a lost phone): they sign in with the password and set it up again', params: IdParams, response: responses({ 204: Type.Null() }, [404]) },
  }, async (req, reply) => {
    const user = await findMerchantUserById(ctx, req.params.id);
    if (!user) throw notFound();
    await resetTwoFactor(ctx, 'merchant', user.id, { actor: actorOf(req), ...(user.merchantId ? { merchantId: user.merchantId } : {}), ...(user.groupId ? { merchantGroupId: user.groupId } : {}) });
    return reply.code(204).send();
  });

  app.get<{ Params: Id }>('/merchant-users/:id', {
    onRequest: read,
    schema: { tags: TAG, security: SECURITY, summary: 'One merchant portal user', params: IdParams, response: responses({ 200: MerchantUserView }, [404]) },
  }, async (req) => presentMerchantUser((await findMerchantUserById(ctx, req.params.id)) ?? (await Promise.reject(notFound()))));
}
