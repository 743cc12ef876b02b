/**
 * Who may do what in the merchant portal (issue 30): one table of role -> permitted actions, read in one place
 * (the portal's services check it before any read or write; the channel only names the permission a route needs).
 * The merchant's users are apart from the PSP's operators (admin-roles.ts): a portal permission never reaches
 * the admin API, and it always stays inside the user's own merchant or merchant group.
 */
import { roleTable } from './role-table.ts';

export const MERCHANT_ROLES = ['owner', 'developer', 'finance', 'support', 'viewer'] as const;
export type MerchantRole = (typeof MERCHANT_ROLES)[number];

export const MERCHANT_PERMISSIONS = [
  'payments.read',
  /** Refund, capture and void: moves money. */
  'payments.act',
  /** Download payments as CSV. */
  'payments.export',
  /** Defend a dispute: upload evidence and the defence text, submit it, or accept the dispute (reading them is payments.read). */
  'disputes.write',
  'callbacks.read',
  'callbacks.resend',
  /** Balances, the next payout, settlement statements (and their CSV). */
  'money.read',
  /** The merchant key, notification URL and the signing secret's fingerprint. */
  'developers.read',
  /** Reveal and rotate the signing secret, rotate the hash password. */
  'developers.secrets',
  'team.read',
  /** Invite users, change their roles, disable them. */
  'team.manage',
  /** The merchant's own audit log. */
  'audit.read',
] as const;
export type MerchantPermission = (typeof MERCHANT_PERMISSIONS)[number];

const GRANTS: Readonly<Record<MerchantRole, readonly MerchantPermission[]>> = {
  owner: MERCHANT_PERMISSIONS,
  developer: ['payments.read', 'callbacks.read', 'callbacks.resend', 'developers.read', 'developers.secrets', 'team.read'],
  finance: ['payments.read', 'payments.act', 'payments.export', 'disputes.write', 'callbacks.read', 'money.read', 'team.read', 'audit.read'],
  support: ['payments.read', 'payments.act', 'callbacks.read', 'callbacks.resend', 'team.read'],
  viewer: ['payments.read', 'callbacks.read', 'team.read'],
};

/** What each role is for, in a line (the admin API's and the portal's role fields describe them from here). */
export const MERCHANT_ROLE_SUMMARY = 'owner: everything, the team included; developer: keys, signing secret, callbacks; '
  + 'finance: payments, refunds, exports, disputes, balances and statements, the audit log; support: payments, refunds, callbacks; viewer: read only.';

const TABLE = roleTable(MERCHANT_ROLES, MERCHANT_PERMISSIONS, GRANTS);

export const isMerchantRole = TABLE.isRole;
export const merchantMayDo = TABLE.mayDo;
/** Everything a role may do, in the table's order (the portal's session answer). */
export const merchantPermissionsOf = TABLE.permissionsOf;
