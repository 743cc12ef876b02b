/**
 * The portal's home figures (issue 30): the console's aggregation (services/queries/payment-figures.ts, issue 31)
 * narrowed to the user's merchants, split per merchant only (a group's shops; never MIDs or connectors, which are
 * the PSP's business).
 */
import type { ServiceContext } from '../context.ts';
import { paymentFigures, type PaymentFigures } from '../queries/payment-figures.ts';
import { merchantOf, mustMay, type PortalUser } from './scope.ts';

export interface PortalFigureQuery { from?: string; to?: string; merchant_id?: string }

export async function portalFigures(ctx: ServiceContext, user: PortalUser, q: PortalFigureQuery): Promise<PaymentFigures> {
  mustMay(user, 'payments.read');
  const merchantIds = q.merchant_id !== undefined ? [merchantOf(user, q.merchant_id)] : user.merchantIds;
  return paymentFigures(ctx.db, ctx.clock, { ...(q.from ? { from: q.from } : {}), ...(q.to ? { to: q.to } : {}), by: 'merchant', merchantIds });
}
