/**
 * The merchant portal's scope (issue 30): who a portal request acts as, and the two checks every portal service
 * makes before it reads or writes: the user's role permits the action (domain/merchant-roles.ts), and the object
 * belongs to one of the user's merchants. An object of another merchant answers 404, as one that does not exist:
 * the portal never tells another business's ids apart from unknown ones. The screen's own checks add nothing.
 */
import { GatewayError } from '../../domain/errors.ts';
import { merchantMayDo, type MerchantPermission } from '../../domain/merchant-roles.ts';
import type { AuditActor } from '../../store/audit-repo.ts';
import type { MerchantUserFields } from '../../store/merchant-users-repo.ts';

export interface PortalUser extends MerchantUserFields {
  userId: string;
  /** The merchants the user sees: its merchant, or its group's members now. */
  merchantIds: readonly string[];
}

/** The role must permit `permission`, else 403. */
export function mustMay(user: PortalUser, permission: MerchantPermission): void {
  if (!merchantMayDo(user.role, permission)) throw new GatewayError('portalForbidden');
}

export const inScope = (user: PortalUser, merchantId: string): boolean => user.merchantIds.includes(merchantId);

/** The merchant must be one of the user's, else 404 (as an unknown one). */
export function mustOwn(user: PortalUser, merchantId: string): void {
  if (!inScope(user, merchantId)) throw new GatewayError('notFound');
}

/** The merchant a write concerns: the one named, which must be the user's; or the user's only one. */
export function merchantOf(user: PortalUser, merchantId: string | undefined): string {
  if (merchantId !== undefined) {
    mustOwn(user, merchantId);
    return merchantId;
  }
  if (user.merchantIds.length === 1) return user.merchantIds[0]!;
  throw GatewayError.field('merchant_id', 'This value should not be blank.');
}

/** The audit log's name for a portal user: marked as a merchant user, so operators tell them from their own. */
export const portalActor = (user: PortalUser): AuditActor => ({ userId: user.userId, name: `merchant:${user.email}` });

/** Where an entry about the user's business goes in the merchant's own audit log. */
export const auditScope = (user: Pick<PortalUser, 'merchantId' | 'groupId'>, merchantId?: string) => ({
  ...(merchantId ?? user.merchantId ? { merchantId: (merchantId ?? user.merchantId)! } : {}),
  ...(user.groupId ? { merchantGroupId: user.groupId } : {}),
});
