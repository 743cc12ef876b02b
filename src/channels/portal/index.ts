/**
 * The merchant portal's API under /portal/v1 (issue 30). The session routes sign in and out themselves; every other
 * route is behind one onRequest hook that signs the merchant user in by the portal's cookie (CSRF on writes), and
 * its service scopes what it reads and writes to the user's merchants and checks the role (services/portal/).
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import type { Channel } from '../plugin.ts';
import { requirePortalUser } from './auth.ts';
import { registerPortalSessionRoutes } from './session-routes.ts';
import { registerPortalTeamRoutes } from './team-routes.ts';
import { registerPortalPaymentRoutes } from './payment-routes.ts';
import { registerPortalMoneyRoutes } from './money-routes.ts';
import { registerPortalSavedViewRoutes } from './saved-view-routes.ts';
import { registerPortalExportRoutes } from './export-routes.ts';
import { registerPortalDisputeRoutes } from './dispute-routes.ts';
import { registerPortalReportRoutes } from './report-routes.ts';
import { registerTwoFactorRoutes } from '../two-factor-routes.ts';
import { PORTAL_TAG, portalResponses } from './errors.ts';
import { auditScope, portalActor } from '../../services/portal/scope.ts';

type Routes = (app: FastifyInstance, ctx: ServiceContext) => void;

const GROUPS: readonly Routes[] = [registerPortalPaymentRoutes, registerPortalExportRoutes, registerPortalDisputeRoutes, registerPortalSavedViewRoutes, registerPortalMoneyRoutes, registerPortalTeamRoutes, registerPortalReportRoutes];

export const portalChannel: Channel = async (app, { ctx }) => {
  await app.register(async (scope) => {
    registerPortalSessionRoutes(scope, ctx);
    registerTwoFactorRoutes(scope, ctx, {
      kind: 'merchant', tags: PORTAL_TAG.tags, security: PORTAL_TAG.security, onRequest: requirePortalUser(ctx, { duringEnrolment: true }), responses: portalResponses,
      who: (req) => {
        const user = req.portalUser!;
        return { userId: user.userId, account: user.email, sessionId: req.portalSession?.id, audit: { actor: portalActor(user), ...auditScope(user) } };
      },
    });
  });
  await app.register(async (scope) => {
    scope.addHook('onRequest', requirePortalUser(ctx));
    for (const routes of GROUPS) routes(scope, ctx);
  });
};
