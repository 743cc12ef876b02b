/** The merchant portal's sessions (migration 120): found by the digest of the cookie's secret, joined to an enabled user. */
import type { Sql } from './database.ts';
import type { MerchantRole } from '../domain/merchant-roles.ts';
import type { MerchantUserFields } from './merchant-users-repo.ts';
import { sessionTable, type NewSession, type SessionFields } from './session-table.ts';

export interface PortalSession extends MerchantUserFields, SessionFields {}

const SESSIONS = sessionTable({
  table: 'portal_sessions',
  users: 'merchant_users',
  userColumns: ['email', 'name', 'role', 'merchant_id', 'group_id'],
  user: (row: { email: string; name: string; role: MerchantRole; merchant_id: string | null; group_id: string | null }): MerchantUserFields => ({
    email: row.email, name: row.name, role: row.role, merchantId: row.merchant_id, groupId: row.group_id,
  }),
});

export async function insertPortalSession(sql: Sql, s: NewSession & { needsEnrolment: boolean }): Promise<void> {
  await SESSIONS.insert(sql, s);
}
export const findPortalSession: (sql: Sql, digest: Buffer) => Promise<PortalSession | undefined> = SESSIONS.find;
/** Records activity as touchConsoleSession does: at most once per `minIntervalMs`, never reviving an idle session. */
export const touchPortalSession = SESSIONS.touch;
export const endPortalSession = SESSIONS.end;
/** Ends every session of a user (disabled, or the password or second factor changed), but `except`. */
export const endUserPortalSessions = SESSIONS.endUser;
/** Deletes sessions that can never be used again (signed out, expired, idle), at each sign-in. */
export const purgeDeadPortalSessions = SESSIONS.purgeDead;
