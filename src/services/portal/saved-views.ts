/**
 * Saved views of the portal's payments (issue 30): a user names a search (its filters, as the payments search and
 * the export take them) and picks it again later, on the payments screen or for a CSV download. A view is the
 * user's own; it is checked as a search when saved (a filter the search refuses is refused here, at
 * `query.<field>`) and scoped again whenever it is used, so a view never reaches past the user's merchants.
 */
import type { ServiceContext } from '../context.ts';
import { GatewayError, type FieldError } from '../../domain/errors.ts';
import { isUuid, newId } from '../../domain/ids.ts';
import { countSavedViews, deleteSavedView, insertSavedView, savedViewsOf, type SavedView } from '../../store/saved-views-repo.ts';
import { findMerchantUser } from '../../store/merchant-users-repo.ts';
import { parseSearch, type SearchQuery } from '../admin/payment-search.ts';
import { appendAudit } from '../../store/audit-repo.ts';
import { auditScope, mustMay, mustOwn, portalActor, type PortalUser } from './scope.ts';

/** A saved view as the routes answer it. */
export type { SavedView };

export const MAX_SAVED_VIEWS = 50;

/** The search's filters a view may keep (not the page size or cursor). */
export type ViewQuery = Omit<SearchQuery, 'limit' | 'cursor' | 'needs_operator' | 'mode' | 'card_first6' | 'channel' | 'initiator' | 'source' | 'sequence'>;

export function portalSavedViews(ctx: ServiceContext, user: PortalUser): Promise<SavedView[]> {
  mustMay(user, 'payments.read');
  return savedViewsOf(ctx.db, user.userId);
}

export async function portalSaveView(ctx: ServiceContext, user: PortalUser, input: { name: string; query: ViewQuery }): Promise<SavedView> {
  mustMay(user, 'payments.read');
  const name = input.name.trim();
  if (!name) throw GatewayError.field('name', 'This value should not be blank.');
  const query = Object.fromEntries(Object.entries(input.query).filter(([, v]) => typeof v === 'string' && v.trim() !== '').map(([k, v]) => [k, (v as string).trim()])) as ViewQuery & Record<string, string>;
  if (query.merchant_id !== undefined) mustOwn(user, query.merchant_id);
  try {
    parseSearch({ ...query, merchant_id: undefined });
  } catch (err) {
    if (err instanceof GatewayError && err.fields.length > 0) throw GatewayError.invalid(err.fields.map((f: FieldError) => ({ ...f, field: `query.${f.field}` })));
    throw err;
  }
  const now = ctx.clock.now();
  // The view and its audit entry in one transaction: no change without its record. The user's row is locked before
  // the count, so views saved at once cannot pass the limit together.
  return ctx.db.transaction(async (tx) => {
    await findMerchantUser(tx, user.userId, true);
    if ((await countSavedViews(tx, user.userId)) >= MAX_SAVED_VIEWS) throw GatewayError.field('name', `You have ${MAX_SAVED_VIEWS} saved views, the most there may be: delete one first.`);
    const saved = await insertSavedView(tx, { id: newId(), userId: user.userId, name, query, createdAt: now });
    if (!saved) throw GatewayError.field('name', 'You have a view of this name already.');
    await appendAudit(tx, { actor: portalActor(user), action: 'saved_view.create', objectType: 'saved_view', objectId: saved.id, after: { name, query }, ...auditScope(user) }, now);
    return saved;
  });
}

export async function portalDeleteView(ctx: ServiceContext, user: PortalUser, id: string): Promise<void> {
  mustMay(user, 'payments.read');
  if (!isUuid(id)) throw new GatewayError('notFound');
  await ctx.db.transaction(async (tx) => {
    if (!(await deleteSavedView(tx, user.userId, id))) throw new GatewayError('notFound');
    await appendAudit(tx, { actor: portalActor(user), action: 'saved_view.delete', objectType: 'saved_view', objectId: id, ...auditScope(user) }, ctx.clock.now());
  });
}
