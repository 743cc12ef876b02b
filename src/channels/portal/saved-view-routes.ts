/**
 * Saved views of the portal's payments (issue 30): GET, POST /portal/v1/saved-views and DELETE
 * /portal/v1/saved-views/{id}. A view is the user's own named search (the payments search's filters); the payments
 * screen applies it, and the CSV export takes the same filters. services/portal/saved-views.ts checks and scopes it.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { MAX_SAVED_VIEWS, portalDeleteView, portalSaveView, portalSavedViews, type SavedView, type ViewQuery } from '../../services/portal/saved-views.ts';
import { SearchQuerySchema } from './payment-routes.ts';
import { userOf } from './auth.ts';
import { PORTAL_TAG, portalResponses } from './errors.ts';

const { tags, security } = PORTAL_TAG;
const { limit: _limit, cursor: _cursor, ...filters } = SearchQuerySchema.properties;
const ViewQuerySchema = Type.Object(filters, { additionalProperties: false, description: 'The payments search\'s filters (GET /portal/v1/payments), without limit and cursor.' });
const ViewBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 80 }),
  query: ViewQuerySchema,
}, { additionalProperties: false, examples: [{ name: 'Refunds this month', query: { status: 'refund', created_from: '2026-11-01' } }] });
const ViewAnswer = Type.Object({ id: Type.String(), name: Type.String(), query: ViewQuerySchema, created_at: Type.String() });
const ViewList = Type.Object({ views: Type.Array(ViewAnswer) }, { examples: [{ views: [{ id: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', name: 'Refunds this month', query: { status: 'refund', created_from: '2026-11-01' }, created_at: '2026-11-29T05:00:00.000Z' }] }] });
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

const present = (v: SavedView) => ({ id: v.id, name: v.name, query: v.query, created_at: v.createdAt.toISOString() });

export function registerPortalSavedViewRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/saved-views', {
    schema: { tags, security, summary: 'The user\'s saved views of payments, by name (permission payments.read)', response: portalResponses({ 200: ViewList }, []) },
  }, async (req) => ({ views: (await portalSavedViews(ctx, userOf(req))).map(present) }));

  app.post<{ Body: Static<typeof ViewBody> }>('/saved-views', {
    schema: {
      tags, security, summary: 'Save a search of payments under a name (the user\'s own)',
      description: `The filters are checked as the search checks them (a problem is named at query.<field>); a name is the user's once (any case); ${MAX_SAVED_VIEWS} views at most. Audited. Permission payments.read.`,
      body: ViewBody, response: portalResponses({ 201: ViewAnswer }, [400, 404]),
    },
  }, async (req, reply) => reply.code(201).send(present(await portalSaveView(ctx, userOf(req), { name: req.body.name, query: req.body.query as ViewQuery }))));

  app.delete<{ Params: Static<typeof IdParams> }>('/saved-views/:id', {
    schema: { tags, security, summary: 'Delete one of the user\'s saved views', params: IdParams, response: portalResponses({ 204: Type.Null({ description: 'Deleted' }) }, [404]) },
  }, async (req, reply) => {
    await portalDeleteView(ctx, userOf(req), req.params.id);
    return reply.code(204).send();
  });
}
