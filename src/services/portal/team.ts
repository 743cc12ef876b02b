/**
 * Merchant portal users (issue 30): invited by an operator (admin API) or by the business's owner (portal API),
 * through the mail port; the invitee sets the password through the link (domain/invitations.ts). Every change is
 * written with its audit entry, tagged with the business, in one transaction. Passwords never reach the log.
 */
import type { MailMessage, ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import {
  acceptInvitation, findMerchantGroup, findMerchantUser, findMerchantUserByEmail, insertInvitation, insertMerchantGroup,
  insertMerchantUser, listMerchantGroups, listMerchantUsers, lockEnabledOwners, openInvitations, setGroupMembers, updateMerchantUser,
  type MerchantGroup, type MerchantUser, type PendingInvitation,
} from '../../store/merchant-users-repo.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { isUniqueViolation } from '../../store/unique-violation.ts';
import { INVITATION_LIFETIME_MS, invitationDigest, invitationLink, invitationMail, newInvitationToken } from '../../domain/invitations.ts';
import { userPasswordProblem } from '../../domain/user-passwords.ts';
import { hashOperatorPassword } from '../../domain/operator-passwords.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';
import { isUuid, newId } from '../../domain/ids.ts';
import type { MerchantRole } from '../../domain/merchant-roles.ts';
import { auditScope, mustMay, portalActor, type PortalUser } from './scope.ts';
import { endUserPortalSessions } from '../../store/portal-sessions-repo.ts';

export type { MerchantUser, MerchantGroup, PendingInvitation };

/** A business: one merchant or one merchant group. */
export type Business = { merchantId: string; groupId?: undefined } | { groupId: string; merchantId?: undefined };

const audited = (u: MerchantUser) => ({ email: u.email, name: u.name, role: u.role, disabled: u.disabled, merchant_id: u.merchantId, group_id: u.groupId });

async function businessName(sql: Sql, b: Business): Promise<string | undefined> {
  if (b.merchantId !== undefined) {
    if (!isUuid(b.merchantId)) return undefined;
    const [row] = await sql.query<{ name: string }>('SELECT name FROM merchants WHERE id = $1', [b.merchantId]);
    return row?.name;
  }
  if (!isUuid(b.groupId)) return undefined;
  return (await findMerchantGroup(sql, b.groupId))?.name;
}

export interface InviteInput {
  email: string;
  name?: string;
  role: MerchantRole;
}

/**
 * Creates the user and its invitation in one transaction, then mails the link (after the commit: the mail port may
 * write to the store itself, the sandbox outbox does). An e-mail the server refused leaves the user waiting for a
 * new link (reinviteMerchantUser). Undefined when the business does not exist.
 */
export async function inviteMerchantUser(ctx: ServiceContext, actor: AuditActor, business: Business, input: InviteInput): Promise<MerchantUser | undefined> {
  const mail = ctx.mail;
  if (!mail) throw new GatewayError('mailNotConfigured');
  const now = ctx.clock.now();
  let created: { user: MerchantUser; message: MailMessage } | undefined;
  try {
    created = await ctx.db.transaction(async (tx) => {
      const name = await businessName(tx, business);
      if (name === undefined) return undefined;
      if (await findMerchantUserByEmail(tx, input.email)) throw GatewayError.field('email', MESSAGES.alreadyUsed);
      const user = await insertMerchantUser(tx, {
        id: newId(), email: input.email, name: input.name ?? input.email, role: input.role,
        merchantId: business.merchantId ?? null, groupId: business.groupId ?? null,
      }, now);
      await appendAudit(tx, { actor, action: 'merchant_user.invite', objectType: 'merchant_user', objectId: user.id, after: audited(user), ...auditScope(user) }, now);
      return { user, message: await newInvitation(ctx, tx, actor, user, name, now) };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw GatewayError.field('email', MESSAGES.alreadyUsed);
    throw err;
  }
  if (!created) return undefined;
  await send(ctx, created.user, created.message);
  return created.user;
}

/** A new link (the user's earlier ones stop working) and the e-mail carrying it. */
async function newInvitation(ctx: ServiceContext, tx: Sql, actor: AuditActor, user: MerchantUser, businessName: string, now: Date): Promise<MailMessage> {
  const token = newInvitationToken();
  const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_MS);
  await insertInvitation(tx, { id: newId(), userId: user.id, digest: invitationDigest(token), invitedBy: actor.name, now, expiresAt });
  return invitationMail({ to: user.email, inviteeName: user.name, merchantName: businessName, role: user.role, link: invitationLink(ctx.baseUrl, token), expiresAt });
}

async function send(ctx: ServiceContext, user: MerchantUser, message: MailMessage): Promise<void> {
  try {
    await ctx.mail!.send(message);
  } catch (err) {
    ctx.logger.warn({ err: (err as Error).message, userId: user.id }, 'portal invitation e-mail not sent');
    throw new GatewayError('mailNotSent');
  }
}

/** A new link for a user who has not set a password yet (the earlier links stop working). */
export async function reinviteMerchantUser(ctx: ServiceContext, actor: AuditActor, userId: string, within?: PortalUser): Promise<MerchantUser | undefined> {
  if (!ctx.mail) throw new GatewayError('mailNotConfigured');
  const now = ctx.clock.now();
  const made = await ctx.db.transaction(async (tx) => {
    const user = isUuid(userId) ? await findMerchantUser(tx, userId, true) : undefined;
    if (!user || (within && !sameBusiness(within, user))) return undefined;
    if (user.hasPassword || user.disabled) throw GatewayError.field('user', 'This user has accepted the invitation already, or is disabled.');
    const name = (await businessName(tx, user.merchantId ? { merchantId: user.merchantId } : { groupId: user.groupId! })) ?? '';
    await appendAudit(tx, { actor, action: 'merchant_user.reinvite', objectType: 'merchant_user', objectId: user.id, ...auditScope(user) }, now);
    return { user, message: await newInvitation(ctx, tx, actor, user, name, now) };
  });
  if (!made) return undefined;
  await send(ctx, made.user, made.message);
  return made.user;
}

/** Sets the invitee's password through the link's token: once, before it expires. Answers the user. */
export async function acceptMerchantInvitation(ctx: ServiceContext, token: string, password: string): Promise<MerchantUser> {
  const problem = userPasswordProblem(password);
  if (problem) throw GatewayError.field('password', problem);
  const passwordHash = await hashOperatorPassword(password);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const accepted = await acceptInvitation(tx, invitationDigest(token), now);
    if (!accepted) throw new GatewayError('invitationInvalid');
    const before = await findMerchantUser(tx, accepted.userId, true);
    if (!before || before.disabled) throw new GatewayError('invitationInvalid');
    const user = (await updateMerchantUser(tx, before.id, { passwordHash }, now))!;
    await appendAudit(tx, {
      actor: { userId: user.id, name: `merchant:${user.email}` }, action: 'merchant_user.accept', objectType: 'merchant_user', objectId: user.id,
      details: { password: 'set' }, ...auditScope(user),
    }, now);
    return user;
  });
}

const sameBusiness = (a: Pick<PortalUser, 'merchantId' | 'groupId'>, b: Pick<MerchantUser, 'merchantId' | 'groupId'>) =>
  (a.merchantId !== null && a.merchantId === b.merchantId) || (a.groupId !== null && a.groupId === b.groupId);

export interface MerchantUserPatchInput {
  name?: string;
  role?: MerchantRole;
  disabled?: boolean;
}

/**
 * Changes a user's name, role or disabled flag. `within`: a portal owner's change, limited to the owner's own
 * business (another business's user is not found). The last enabled owner of a business stays an owner.
 */
export async function updateMerchantUserById(ctx: ServiceContext, actor: AuditActor, id: string, input: MerchantUserPatchInput, within?: PortalUser): Promise<MerchantUser | undefined> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const current = isUuid(id) ? await findMerchantUser(tx, id) : undefined;
    if (!current || (within && !sameBusiness(within, current))) return undefined;
    const takesOwnerAway = current.role === 'owner' && !current.disabled && ((input.role !== undefined && input.role !== 'owner') || input.disabled === true);
    const owners = takesOwnerAway ? await lockEnabledOwners(tx, current) : [];
    const before = (await findMerchantUser(tx, id, true))!;
    if (takesOwnerAway && owners.filter((o) => o !== id).length === 0) {
      throw GatewayError.field(input.disabled === true ? 'disabled' : 'role', MESSAGES.lastOwner);
    }
    const after = (await updateMerchantUser(tx, id, input, now))!;
    if (input.disabled === true) await endUserPortalSessions(tx, id, now);
    await appendAudit(tx, { actor, action: 'merchant_user.update', objectType: 'merchant_user', objectId: id, before: audited(before), after: audited(after), ...auditScope(after) }, now);
    return after;
  });
}

export async function findMerchantUserById(ctx: ServiceContext, id: string): Promise<MerchantUser | undefined> {
  return isUuid(id) ? findMerchantUser(ctx.db, id) : undefined;
}

/** The users of a business, each with its open invitation (if any). */
export async function listTeam(ctx: ServiceContext, scope: { merchantIds: readonly string[]; groupId: string | null }): Promise<{ users: MerchantUser[]; invitations: PendingInvitation[] }> {
  const users = await listMerchantUsers(ctx.db, scope);
  return { users, invitations: await openInvitations(ctx.db, users.map((u) => u.id), ctx.clock.now()) };
}

// --- the portal's own team actions (owner) ------------------------------------------------------------------

/** The owner invites into the owner's own business. */
export async function inviteFromPortal(ctx: ServiceContext, user: PortalUser, input: InviteInput): Promise<MerchantUser> {
  mustMay(user, 'team.manage');
  const business: Business = user.merchantId ? { merchantId: user.merchantId } : { groupId: user.groupId! };
  return (await inviteMerchantUser(ctx, portalActor(user), business, input))!;
}

export async function portalTeam(ctx: ServiceContext, user: PortalUser) {
  mustMay(user, 'team.read');
  return listTeam(ctx, { merchantIds: user.merchantId ? [user.merchantId] : [], groupId: user.groupId });
}

export async function updateFromPortal(ctx: ServiceContext, user: PortalUser, id: string, input: MerchantUserPatchInput): Promise<MerchantUser | undefined> {
  mustMay(user, 'team.manage');
  return updateMerchantUserById(ctx, portalActor(user), id, input, user);
}

export async function reinviteFromPortal(ctx: ServiceContext, user: PortalUser, id: string): Promise<MerchantUser | undefined> {
  mustMay(user, 'team.manage');
  return reinviteMerchantUser(ctx, portalActor(user), id, user);
}

// --- groups (operators) ----------------------------------------------------------------------------------------

async function checkMerchants(sql: Sql, ids: readonly string[]): Promise<void> {
  const valid = ids.filter(isUuid);
  const rows = valid.length ? await sql.query<{ id: string }>('SELECT id FROM merchants WHERE id = ANY($1::text[])', [valid]) : [];
  if (rows.length !== new Set(ids).size) throw GatewayError.field('merchant_ids', 'Every merchant must exist.');
}

export async function createMerchantGroup(ctx: ServiceContext, actor: AuditActor, input: { name: string; merchantIds: readonly string[] }): Promise<MerchantGroup> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    await checkMerchants(tx, input.merchantIds);
    const id = newId();
    await insertMerchantGroup(tx, { id, name: input.name, merchantIds: [...new Set(input.merchantIds)] }, now);
    const group = (await findMerchantGroup(tx, id))!;
    await appendAudit(tx, { actor, action: 'merchant_group.create', objectType: 'merchant_group', objectId: id, after: { name: group.name, merchant_ids: group.merchantIds }, merchantGroupId: id }, now);
    return group;
  });
}

export async function setMerchantGroupMembers(ctx: ServiceContext, actor: AuditActor, id: string, merchantIds: readonly string[]): Promise<MerchantGroup | undefined> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const before = isUuid(id) ? await findMerchantGroup(tx, id) : undefined;
    if (!before) return undefined;
    await tx.query('SELECT id FROM merchant_groups WHERE id = $1 FOR UPDATE', [id]);
    await checkMerchants(tx, merchantIds);
    await setGroupMembers(tx, id, [...new Set(merchantIds)]);
    const after = (await findMerchantGroup(tx, id))!;
    await appendAudit(tx, { actor, action: 'merchant_group.update', objectType: 'merchant_group', objectId: id, before: { merchant_ids: before.merchantIds }, after: { merchant_ids: after.merchantIds }, merchantGroupId: id }, now);
    return after;
  });
}

export const merchantGroups = (ctx: ServiceContext) => listMerchantGroups(ctx.db);
export const merchantGroup = (ctx: ServiceContext, id: string) => (isUuid(id) ? findMerchantGroup(ctx.db, id) : Promise.resolve(undefined));
