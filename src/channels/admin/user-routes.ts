/**
 * Operator users and their API tokens (issue 11), for admins only (users.manage), and `GET /admin/v1/me` for
 * every operator. A token is shown once, when created; lists show its prefix, never the token.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { ROLES, permissionsOf, PERMISSIONS } from '../../domain/admin-roles.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../domain/operator-passwords.ts';
import { findOperatorUser, listOperatorTokens, listOperatorUsers, type OperatorToken, type OperatorUser } from '../../services/queries/operators.ts';
import {
  createOperatorToken, createOperatorUser, revokeOperatorTokenById, updateOperatorUserById,
} from '../../services/admin/users.ts';
import { ADMIN_TAG, actorOf, requirePermission } from './operator-auth.ts';
import { IdParams, NullableTimestamp, Timestamp, bodyDefaultsToEmpty, notFound } from './schemas.ts';
import { isUuid } from '../../domain/ids.ts';
import { responses } from './errors.ts';
import { resetTwoFactor } from '../../services/two-factor.ts';

const TAG = ADMIN_TAG.tags;
const SECURITY = ADMIN_TAG.security;

const Role = Type.Union(ROLES.map((r) => Type.Literal(r)), { errorMessage: 'The value you selected is not a valid choice.', description: 'admin: everything, users included; operator: merchants, MIDs, settings, payment actions; support: read everything and resend callbacks; viewer: read only.' });
const Password = Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH, description: `For the console's sign-in, stored as an scrypt digest; ${MIN_PASSWORD_LENGTH} characters or more, not a known or patterned password (D3 400 otherwise).` });
const Name = Type.String({ minLength: 1, maxLength: 200 });

const USER_EXAMPLE = {
  id: '01936f5e-8a4b-7c3d-9e2f-0a1b2c3d4e5f', email: 'ops@shop.example', name: 'Olga Ops', role: 'operator', disabled: false,
  has_password: false, created_at: '2026-11-24T05:00:00.000Z', updated_at: '2026-11-24T05:00:00.000Z',
};
const User = Type.Object({
  id: Type.String(), email: Type.String(), name: Type.String(), role: Role, disabled: Type.Boolean(),
  has_password: Type.Boolean({ description: 'Whether the user can sign in to the console with a password.' }),
  created_at: Timestamp, updated_at: Timestamp,
}, { description: 'An operator user (never the password).', examples: [USER_EXAMPLE] });

const TOKEN_EXAMPLE = {
  id: '01936f5f-1111-7222-8333-444455556666', user_id: USER_EXAMPLE.id, name: 'deploy script', prefix: 'pcop_Xy12ab',
  created_at: '2026-11-24T05:01:00.000Z', last_used_at: null, revoked_at: null, expires_at: null,
};
const Token = Type.Object({
  id: Type.String(), user_id: Type.String(), name: Type.String(),
  prefix: Type.String({ description: 'The token\'s first characters, to tell tokens apart; the token itself is never shown again.' }),
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()], { description: 'Recorded at most once a minute.' }),
  revoked_at: NullableTimestamp,
  expires_at: Type.Union([Timestamp, Type.Null()], { description: 'Past it the token authenticates nothing; null: it never expires.' }),
}, { description: 'An API token as lists show it: never the token itself.', examples: [TOKEN_EXAMPLE] });
const NewToken = Type.Composite([Token, Type.Object({ token: Type.String({ description: 'The Bearer token: shown in this answer only.' }) })],
  { description: 'The new token: `token` is in this answer only.', examples: [{ ...TOKEN_EXAMPLE, token: 'pcop_Xy12abQ3p0sT6vWn1c9kL8mR2dF5gH7jK4zB0eY' }] });

const CreateUserBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254 }),
  name: Type.Optional(Name),
  role: Role,
  password: Type.Optional(Password),
}, { additionalProperties: false, examples: [{ email: 'ops@shop.example', name: 'Olga Ops', role: 'operator' }] });
type CreateUserBody = Static<typeof CreateUserBody>;

const PatchUserBody = Type.Object({
  name: Type.Optional(Name),
  role: Type.Optional(Role),
  disabled: Type.Optional(Type.Boolean({ description: 'A disabled user\'s tokens stop working at once; enabling restores them.' })),
  password: Type.Optional(Type.Union([Password, Type.Null()], { description: 'A new password; null removes it (token sign-in only).' })),
}, { additionalProperties: false, minProperties: 1, examples: [{ role: 'support' }, { disabled: true }] });
type PatchUserBody = Static<typeof PatchUserBody>;

const CreateTokenBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'What the token is for; default "api".' })),
  expires_at: Type.Optional(Type.String({ maxLength: 40, description: 'When the token stops working: an ISO 8601 date-time with its zone, in the future; absent: never.' })),
}, { additionalProperties: false, examples: [{ name: 'deploy script' }, { name: 'audit export', expires_at: '2026-12-31T23:59:59Z' }] });
type CreateTokenBody = Static<typeof CreateTokenBody>;

const TokenParams = Type.Object({ id: Type.String({ maxLength: 1024 }), token_id: Type.String({ maxLength: 1024 }) });
type TokenParams = Static<typeof TokenParams>;
type Id = Static<typeof IdParams>;

const UserList = Type.Object({ users: Type.Array(User) }, { description: 'Every operator user, oldest first.', examples: [{ users: [USER_EXAMPLE] }] });
const TokenList = Type.Object({ tokens: Type.Array(Token) }, { description: 'The user\'s tokens, revoked ones included, oldest first.', examples: [{ tokens: [TOKEN_EXAMPLE] }] });

const Me = Type.Object({
  user: User,
  token: Type.Object({ id: Type.String(), prefix: Type.String() }),
  permissions: Type.Array(Type.Union(PERMISSIONS.map((p) => Type.Literal(p)))),
}, { description: 'Who the token belongs to and what its role permits.', examples: [{ user: USER_EXAMPLE, token: { id: TOKEN_EXAMPLE.id, prefix: TOKEN_EXAMPLE.prefix }, permissions: permissionsOf('operator') }] });

export const presentUser = (u: OperatorUser) => ({
  id: u.id, email: u.email, name: u.name, role: u.role, disabled: u.disabled, has_password: u.hasPassword,
  created_at: u.createdAt.toISOString(), updated_at: u.updatedAt.toISOString(),
});

export const presentToken = (t: OperatorToken) => ({
  id: t.id, user_id: t.userId, name: t.name, prefix: t.prefix, created_at: t.createdAt.toISOString(),
  last_used_at: t.lastUsedAt?.toISOString() ?? null, revoked_at: t.revokedAt?.toISOString() ?? null,
  expires_at: t.expiresAt?.toISOString() ?? null,
});

export function registerAdminUserRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const onRequest = requirePermission('users.manage');
  const userOr404 = async (id: string) => (isUuid(id) && (await findOperatorUser(ctx.db, id))) || Promise.reject(notFound());

  app.get('/me', {
    schema: { tags: TAG, security: SECURITY, summary: 'The operator of this token: user, role and permissions', response: responses({ 200: Me }, []) },
  }, async (req) => {
    const op = req.operator!;
    const user = await userOr404(op.userId);
    const tokens = await listOperatorTokens(ctx.db, op.userId);
    const token = tokens.find((t) => t.id === op.tokenId);
    return { user: presentUser(user), token: { id: op.tokenId, prefix: token?.prefix ?? '' }, permissions: permissionsOf(op.role) };
  });

  app.post<{ Body: CreateUserBody }>('/users', {
    onRequest,
    schema: { tags: TAG, security: SECURITY, summary: 'Create an operator user (admins only)', body: CreateUserBody, response: responses({ 201: User }, [400]) },
  }, async (req, reply) => {
    const user = await createOperatorUser(ctx.db, actorOf(req), req.body, ctx.clock.now());
    return reply.code(201).send(presentUser(user));
  });

  app.get('/users', {
    onRequest,
    schema: { tags: TAG, security: SECURITY, summary: 'List operator users (admins only)', response: responses({ 200: UserList }, []) },
  }, async () => ({ users: (await listOperatorUsers(ctx.db)).map(presentUser) }));

  app.get<{ Params: Id }>('/users/:id', {
    onRequest,
    schema: { tags: TAG, security: SECURITY, summary: 'One operator user (admins only)', params: IdParams, response: responses({ 200: User }, [404]) },
  }, async (req) => presentUser(await userOr404(req.params.id)));

  app.patch<{ Params: Id; Body: PatchUserBody }>('/users/:id', {
    onRequest,
    schema: {
      tags: TAG, security: SECURITY, params: IdParams, body: PatchUserBody, response: responses({ 200: User }),
      summary: 'Change a user\'s name, role, password or disabled flag (admins only; the last enabled admin can not be demoted or disabled)',
    },
  }, async (req) => {
    if (!isUuid(req.params.id)) throw notFound();
    const user = await updateOperatorUserById(ctx.db, actorOf(req), req.params.id, req.body, ctx.clock.now());
    if (!user) throw notFound();
    return presentUser(user);
  });

  app.delete<{ Params: Id }>('/users/:id/two-factor', {
    onRequest,
    schema: { tags: TAG, security: SECURITY, summary: 'Reset an operator\'s two-factor sign-in (a lost phone): they sign in with the password and set it up again (admins only)', params: IdParams, response: responses({ 204: Type.Null() }, [404]) },
  }, async (req, reply) => {
    const user = await userOr404(req.params.id);
    await resetTwoFactor(ctx, 'operator', user.id, { actor: actorOf(req) });
    return reply.code(204).send();
  });

  app.post<{ Params: Id; Body: CreateTokenBody }>('/users/:id/tokens', {
    onRequest,
    preValidation: bodyDefaultsToEmpty,
    schema: { tags: TAG, security: SECURITY, summary: 'Issue an API token for a user; the token is in this answer only (admins only)', params: IdParams, body: CreateTokenBody, response: responses({ 201: NewToken }) },
  }, async (req, reply) => {
    if (!isUuid(req.params.id)) throw notFound();
    const issued = await createOperatorToken(ctx.db, actorOf(req), req.params.id, req.body?.name ?? 'api', ctx.clock.now(), req.body?.expires_at);
    if (!issued) throw notFound();
    return reply.code(201).send({ ...presentToken(issued.row), token: issued.token });
  });

  app.get<{ Params: Id }>('/users/:id/tokens', {
    onRequest,
    schema: { tags: TAG, security: SECURITY, summary: 'A user\'s tokens: prefix, name, created, last used, revoked, expiry; never the token (admins only)', params: IdParams, response: responses({ 200: TokenList }, [404]) },
  }, async (req) => {
    await userOr404(req.params.id);
    return { tokens: (await listOperatorTokens(ctx.db, req.params.id)).map(presentToken) };
  });

  const revoke = async (req: { params: TokenParams } & Parameters<typeof actorOf>[0]) => {
    const { id, token_id: tokenId } = req.params;
    if (!isUuid(id) || !isUuid(tokenId)) throw notFound();
    const outcome = await revokeOperatorTokenById(ctx.db, actorOf(req), id, tokenId, ctx.clock.now());
    if (!outcome) throw notFound();
    return presentToken('revoked' in outcome ? outcome.revoked : outcome.already);
  };
  const revokeSchema = (summary: string) => ({ tags: TAG, security: SECURITY, summary, params: TokenParams, response: responses({ 200: Token }, [404]) });
  app.delete<{ Params: TokenParams }>('/users/:id/tokens/:token_id', { onRequest, schema: revokeSchema('Revoke a token at once (admins only; revoking again answers the first revocation)') }, revoke);
  app.post<{ Params: TokenParams }>('/users/:id/tokens/:token_id/revoke', { onRequest, schema: revokeSchema('Revoke a token (the same as DELETE, for clients without DELETE)') }, revoke);
}
