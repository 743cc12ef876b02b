/**
 * Who may do what in the merchant portal (issue 30): one table of role -> permitted actions, read in one place
 * (the portal's services check it before any read or write; the channel only names the permission a route needs).
 * The merchant's users are apart from the PSP's operators (admin-roles.ts): a portal permission never reaches
 * the admin API, and it always stays inside the user's own merchant or merchant group.
 */
export const MERCHANT_ROLES = ['owner', 'developer', 'finance', 'support', 'viewer'] as const;
export type MerchantRole = (typeof MERCHANT_ROLES)[number];

export const MERCHANT_PERMISSIONS = [
  'payments.read',
  /** Refund, capture and void: moves money. */
  'payments.act',
  /** Download payments as CSV. */
  'payments.export',
  'callbacks.read',
  'callbacks.resend',
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
  finance: ['payments.read', 'payments.act', 'payments.export', 'callbacks.read', 'team.read', 'audit.read'],
  support: ['payments.read', 'payments.act', 'callbacks.read', 'callbacks.resend', 'team.read'],
  viewer: ['payments.read', 'callbacks.read', 'team.read'],
};

/** What each role is for, in a line (the admin API's and the portal's role fields describe them from here). */
export const MERCHANT_ROLE_SUMMARY = 'owner: everything, the team included; developer: keys, signing secret, callbacks; '
  + 'finance: payments, refunds, exports, the audit log; support: payments, refunds, callbacks; viewer: read only.';

const BY_ROLE: ReadonlyMap<MerchantRole, ReadonlySet<MerchantPermission>> = new Map(
  MERCHANT_ROLES.map((role) => [role, new Set(GRANTS[role])]),
);

export function isMerchantRole(value: unknown): value is MerchantRole {
  return typeof value === 'string' && (MERCHANT_ROLES as readonly string[]).includes(value);
}

export function merchantMayDo(role: MerchantRole, permission: MerchantPermission): boolean {
  return BY_ROLE.get(role)?.has(permission) ?? false;
}

/** Everything a role may do, in the table's order (the portal's session answer). */
export function merchantPermissionsOf(role: MerchantRole): MerchantPermission[] {
  return MERCHANT_PERMISSIONS.filter((p) => merchantMayDo(role, p));
}
