/**
 * The merchant's money in the portal (issue 30 home: balance and next payout; reports: statements): the operators'
 * merchant-scoped reads (services/money/merchant-money.ts) behind the portal's checks: the role must permit
 * money.read, and the merchant must be one of the user's; a statement of another merchant is not found.
 */
import type { ServiceContext } from '../context.ts';
import {
  merchantMoneyOverview, merchantStatement, merchantStatementCsv, merchantStatements, type MerchantMoneyView,
} from '../money/merchant-money.ts';
import type { StatementView } from '../admin/statements.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isUuid } from '../../domain/ids.ts';
import { getStatement } from '../../store/settlements-repo.ts';
import { inScope, merchantOf, mustMay, type PortalUser } from './scope.ts';

/** Each of the user's merchants' balances and payouts (or the one named). */
export async function portalMoney(ctx: ServiceContext, user: PortalUser, merchantId?: string): Promise<MerchantMoneyView[]> {
  mustMay(user, 'money.read');
  const ids = merchantId !== undefined ? [merchantOf(user, merchantId)] : user.merchantIds;
  return Promise.all(ids.map((id) => merchantMoneyOverview(ctx, id)));
}

/** The statements of the user's merchants (or of the one named), newest first. */
export async function portalStatements(ctx: ServiceContext, user: PortalUser, q: { merchant_id?: string; unpaid?: boolean; limit?: number }): Promise<StatementView[]> {
  mustMay(user, 'money.read');
  const ids = q.merchant_id !== undefined ? [merchantOf(user, q.merchant_id)] : user.merchantIds;
  const filter = { ...(q.unpaid ? { unpaid: true } : {}), limit: q.limit ?? 100 };
  const lists = await Promise.all(ids.map((id) => merchantStatements(ctx, id, filter)));
  return lists.flat().sort((a, b) => b.period_to.localeCompare(a.period_to) || a.id.localeCompare(b.id)).slice(0, filter.limit);
}

/** The statement's merchant when it is one of the user's; another merchant's statement is not found (404). */
async function ownStatementMerchant(ctx: ServiceContext, user: PortalUser, id: string): Promise<string> {
  const s = isUuid(id) ? await getStatement(ctx.db, id) : undefined;
  if (!s || !inScope(user, s.merchantId)) throw new GatewayError('notFound');
  return s.merchantId;
}

/** One of the user's merchants' statements with its first lines. */
export async function portalStatement(ctx: ServiceContext, user: PortalUser, id: string) {
  mustMay(user, 'money.read');
  return merchantStatement(ctx, await ownStatementMerchant(ctx, user, id), id);
}

/** One of the user's merchants' statements as CSV (streamed). */
export async function portalStatementCsv(ctx: ServiceContext, user: PortalUser, id: string) {
  mustMay(user, 'money.read');
  return merchantStatementCsv(ctx, await ownStatementMerchant(ctx, user, id), id);
}
