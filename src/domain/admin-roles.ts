/**
 * Who may do what on the admin API (issue 11): one table of role -> permitted actions, read in one place
 * (the admin channel's guard). A permission names an object and a verb; a role is the set it holds.
 */
import { roleTable } from './role-table.ts';

export const ROLES = ['admin', 'operator', 'support', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = [
  'payments.read',
  /** Capture, void, refund and resolve a payment an operation left in flight: moves money. */
  'payments.act',
  /** Write an internal note on a payment (issue 31 item 10): kept in the audit log, never sent to the merchant. */
  'payments.note',
  'callbacks.read',
  'callbacks.resend',
  /** Unblock a callback URL the dispatcher blocked after repeated timeouts. */
  'callbacks.unblock',
  'merchants.read',
  /** Create merchants, change their settings, rotate passwords and secrets, disable them. */
  'merchants.write',
  'mids.read',
  /** Create and change MIDs, their connector settings and credentials, routing. */
  'mids.write',
  /** Set the endpoints and credentials of a live MID (where card data goes, and as whom). */
  'mids.live',
  'audit.read',
  /** Risk rules, lists, evaluations and backtests (issue 26). */
  'risk.read',
  /** Change risk rules and lists. */
  'risk.write',
  /** Users and their tokens. */
  'users.manage',
  /** Balances, fee schedules, a payment's entries (issue 27). */
  'money.read',
  /** Fee schedules and a merchant's money terms. */
  'money.write',
  /** Manual adjustments of a merchant's balance. */
  'money.adjust',
  /** Settlement report imports, batches, rows and exceptions (issue 28). */
  'reconciliation.read',
  /** Import reports, MID reconciliation profiles, bank credits, exception actions. */
  'reconciliation.write',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const READ: readonly Permission[] = ['payments.read', 'callbacks.read', 'merchants.read', 'mids.read', 'audit.read', 'money.read', 'risk.read', 'reconciliation.read'];

const GRANTS: Readonly<Record<Role, readonly Permission[]>> = {
  admin: PERMISSIONS,
  operator: [...READ, 'payments.act', 'payments.note', 'callbacks.resend', 'callbacks.unblock', 'merchants.write', 'mids.write', 'money.write', 'risk.write', 'reconciliation.write'],
  support: [...READ, 'payments.note', 'callbacks.resend'],
  viewer: READ,
};

const TABLE = roleTable(ROLES, PERMISSIONS, GRANTS);

export const isRole = TABLE.isRole;
export const mayDo = TABLE.mayDo;
/** Everything a role may do, in the table's order (for the console and `GET /admin/v1/me`). */
export const permissionsOf = TABLE.permissionsOf;

/**
 * Issue 25, item 13: a Checkout session's id is the hosted-fields Token, a bearer credential of the session
 * while it lives. Roles that may not act on payments see it masked (enough to tell sessions apart).
 */
export const seesSessionTokens = (role: Role): boolean => mayDo(role, 'payments.act');

export function maskedToken(token: string): string {
  return token.length <= 8 ? '****' : `${token.slice(0, 4)}****${token.slice(-4)}`;
}
