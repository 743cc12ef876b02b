/** Merchant portal users, merchant groups and invitations (migration 120; issue 30). */
import type { Sql } from './database.ts';
import type { MerchantRole } from '../domain/merchant-roles.ts';

/** Who a merchant user is and for which business: the fields a user, a new user, a portal session and its scope share. */
export interface MerchantUserFields {
  email: string;
  name: string;
  /** The user's business: one merchant, or one group of merchants (exactly one of the two is set). */
  merchantId: string | null;
  groupId: string | null;
  role: MerchantRole;
}

export interface MerchantUser extends MerchantUserFields {
  id: string;
  disabled: boolean;
  hasPassword: boolean;
  createdAt: Date;
  updatedAt: Date;
}

interface UserRow {
  id: string; email: string; name: string; merchant_id: string | null; group_id: string | null; role: MerchantRole;
  password_hash: string | null; disabled: boolean; created_at: Date; updated_at: Date;
}

const toUser = (r: UserRow): MerchantUser => ({
  id: r.id, email: r.email, name: r.name, merchantId: r.merchant_id, groupId: r.group_id, role: r.role, disabled: r.disabled,
  hasPassword: r.password_hash !== null, createdAt: new Date(r.created_at), updatedAt: new Date(r.updated_at),
});

export interface NewMerchantUser extends MerchantUserFields {
  id: string;
}

export async function insertMerchantUser(sql: Sql, u: NewMerchantUser, now: Date): Promise<MerchantUser> {
  const [row] = await sql.query<UserRow>(
    `INSERT INTO merchant_users (id, email, name, merchant_id, group_id, role, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING *`,
    [u.id, u.email, u.name, u.merchantId, u.groupId, u.role, now],
  );
  return toUser(row!);
}

export async function findMerchantUser(sql: Sql, id: string, forUpdate = false): Promise<MerchantUser | undefined> {
  const [row] = await sql.query<UserRow>(`SELECT * FROM merchant_users WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return row && toUser(row);
}

export async function findMerchantUserByEmail(sql: Sql, email: string): Promise<MerchantUser | undefined> {
  const [row] = await sql.query<UserRow>('SELECT * FROM merchant_users WHERE lower(email) = lower($1)', [email]);
  return row && toUser(row);
}

/** The user an e-mail signs in as, with the password digest (never leaves the sign-in service). */
export async function findMerchantSignInUser(sql: Sql, email: string): Promise<{ id: string; passwordHash: string | null } | undefined> {
  const [row] = await sql.query<{ id: string; password_hash: string | null }>(
    'SELECT id, password_hash FROM merchant_users WHERE lower(email) = lower($1) AND NOT disabled', [email]);
  return row && { id: row.id, passwordHash: row.password_hash };
}

/** Users of a merchant (its own and, when given, those of its groups), or of a group: oldest first. */
export async function listMerchantUsers(sql: Sql, scope: { merchantIds: readonly string[]; groupId: string | null }): Promise<MerchantUser[]> {
  const rows = await sql.query<UserRow>(
    'SELECT * FROM merchant_users WHERE merchant_id = ANY($1::text[]) OR group_id = $2 ORDER BY created_at, id',
    [[...scope.merchantIds], scope.groupId],
  );
  return rows.map(toUser);
}

export interface MerchantUserPatch {
  name?: string;
  role?: MerchantRole;
  disabled?: boolean;
  passwordHash?: string;
}

export async function updateMerchantUser(sql: Sql, id: string, p: MerchantUserPatch, now: Date): Promise<MerchantUser | undefined> {
  const [row] = await sql.query<UserRow>(
    `UPDATE merchant_users SET name = COALESCE($2, name), role = COALESCE($3, role), disabled = COALESCE($4, disabled),
       password_hash = COALESCE($5, password_hash), updated_at = $6 WHERE id = $1 RETURNING *`,
    [id, p.name ?? null, p.role ?? null, p.disabled ?? null, p.passwordHash ?? null, now],
  );
  return row && toUser(row);
}

/** Enabled owners of the same business, locked in id order (the last owner cannot be demoted or disabled). */
export async function lockEnabledOwners(sql: Sql, business: { merchantId: string | null; groupId: string | null }): Promise<string[]> {
  const rows = await sql.query<{ id: string }>(
    `SELECT id FROM merchant_users WHERE role = 'owner' AND NOT disabled AND (merchant_id = $1 OR group_id = $2) ORDER BY id FOR UPDATE`,
    [business.merchantId, business.groupId],
  );
  return rows.map((r) => r.id);
}

// --- groups ---------------------------------------------------------------------------------------------------

export interface MerchantGroup {
  id: string;
  name: string;
  merchantIds: string[];
  createdAt: Date;
}

export async function insertMerchantGroup(sql: Sql, g: { id: string; name: string; merchantIds: readonly string[] }, now: Date): Promise<void> {
  await sql.query('INSERT INTO merchant_groups (id, name, created_at) VALUES ($1, $2, $3)', [g.id, g.name, now]);
  await setGroupMembers(sql, g.id, g.merchantIds);
}

export async function setGroupMembers(sql: Sql, groupId: string, merchantIds: readonly string[]): Promise<void> {
  await sql.query('DELETE FROM merchant_group_members WHERE group_id = $1', [groupId]);
  if (merchantIds.length > 0) {
    await sql.query('INSERT INTO merchant_group_members (group_id, merchant_id) SELECT $1, unnest($2::text[])', [groupId, [...merchantIds]]);
  }
}

export async function findMerchantGroup(sql: Sql, id: string): Promise<MerchantGroup | undefined> {
  const [row] = await sql.query<{ id: string; name: string; created_at: Date; members: string[] | null }>(
    `SELECT g.id, g.name, g.created_at, array_remove(array_agg(m.merchant_id ORDER BY m.merchant_id), NULL) AS members
       FROM merchant_groups g LEFT JOIN merchant_group_members m ON m.group_id = g.id WHERE g.id = $1 GROUP BY g.id`,
    [id],
  );
  return row && { id: row.id, name: row.name, merchantIds: row.members ?? [], createdAt: new Date(row.created_at) };
}

export async function listMerchantGroups(sql: Sql): Promise<MerchantGroup[]> {
  const rows = await sql.query<{ id: string; name: string; created_at: Date; members: string[] | null }>(
    `SELECT g.id, g.name, g.created_at, array_remove(array_agg(m.merchant_id ORDER BY m.merchant_id), NULL) AS members
       FROM merchant_groups g LEFT JOIN merchant_group_members m ON m.group_id = g.id GROUP BY g.id ORDER BY g.created_at, g.id`,
  );
  return rows.map((row) => ({ id: row.id, name: row.name, merchantIds: row.members ?? [], createdAt: new Date(row.created_at) }));
}

// --- invitations ----------------------------------------------------------------------------------------------

export async function insertInvitation(sql: Sql, i: { id: string; userId: string; digest: Buffer; invitedBy: string; now: Date; expiresAt: Date }): Promise<void> {
  // A new invitation replaces the user's earlier ones: only the newest link works.
  await sql.query('UPDATE merchant_invitations SET revoked_at = $2 WHERE user_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL', [i.userId, i.now]);
  await sql.query(
    'INSERT INTO merchant_invitations (id, user_id, token_digest, invited_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [i.id, i.userId, i.digest, i.invitedBy, i.now, i.expiresAt],
  );
}

/**
 * Marks the invitation of this digest accepted, if it is still open (not accepted, not replaced, not expired):
 * a compare-and-set, so a link works once however many tabs submit it. Answers the invited user's id.
 */
export async function acceptInvitation(sql: Sql, digest: Buffer, now: Date): Promise<{ id: string; userId: string } | undefined> {
  const [row] = await sql.query<{ id: string; user_id: string }>(
    `UPDATE merchant_invitations SET accepted_at = $2
      WHERE token_digest = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2 RETURNING id, user_id`,
    [digest, now],
  );
  return row && { id: row.id, userId: row.user_id };
}

export interface PendingInvitation {
  id: string;
  userId: string;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
}

/** Open invitations of these users (the team screen shows who has not accepted yet). */
export async function openInvitations(sql: Sql, userIds: readonly string[], now: Date): Promise<PendingInvitation[]> {
  if (userIds.length === 0) return [];
  const rows = await sql.query<{ id: string; user_id: string; invited_by: string; created_at: Date; expires_at: Date }>(
    `SELECT id, user_id, invited_by, created_at, expires_at FROM merchant_invitations
      WHERE user_id = ANY($1::text[]) AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2 ORDER BY created_at`,
    [[...userIds], now],
  );
  return rows.map((r) => ({ id: r.id, userId: r.user_id, invitedBy: r.invited_by, createdAt: new Date(r.created_at), expiresAt: new Date(r.expires_at) }));
}

/** The merchants a user may see: its own, or its group's members. */
export async function merchantsOfUser(sql: Sql, user: { merchantId: string | null; groupId: string | null }): Promise<string[]> {
  if (user.merchantId) return [user.merchantId];
  const rows = await sql.query<{ merchant_id: string }>('SELECT merchant_id FROM merchant_group_members WHERE group_id = $1 ORDER BY merchant_id', [user.groupId]);
  return rows.map((r) => r.merchant_id);
}
