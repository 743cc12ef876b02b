/**
 * The admin API, registered under the prefix /admin/v1. One onRequest hook signs the operator in (a token or the
 * console's session, else 401) for every route but the console's session routes, which sign in and out themselves;
 * each route then checks its own permission against the role table (403). A path no route has is a 404 without
 * signing in, as before: the hook runs for this plugin's routes only.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import type { Channel } from '../plugin.ts';
import { requireOperator } from './operator-auth.ts';
import { registerAdminCallbackRoutes } from './callback-routes.ts';
import { registerAdminPaymentRoutes } from './payment-routes.ts';
import { registerAdminUserRoutes } from './user-routes.ts';
import { registerAdminMerchantRoutes } from './merchant-routes.ts';
import { registerAdminAuditRoutes } from './audit-routes.ts';
import { registerAdminMidRoutes } from './mid-routes.ts';
import { registerAdminSettingsRoutes } from './settings-routes.ts';
import { registerAdminRoutingRoutes } from './routing-routes.ts';
import { registerAdminWalletRoutes } from './wallet-routes.ts';
import { registerAdminConfigCatalogRoutes } from './config-catalog-routes.ts';
import { registerAdminSessionRoutes } from './session-routes.ts';
import { registerAdminStatsRoutes } from './stats-routes.ts';
import { registerAdminSigningSecretRoutes } from './signing-secret-routes.ts';
import { registerAdminMoneyRoutes } from './money-routes.ts';
import { registerAdminRiskRoutes } from './risk-routes.ts';
import { registerAdminDisputeRoutes } from './dispute-routes.ts';
import { registerAdminReconciliationRoutes } from './reconciliation-routes.ts';
import { registerAdminMerchantUserRoutes } from './merchant-user-routes.ts';
import { registerAdminTimelineRoutes } from './timeline-routes.ts';

type Routes = (app: FastifyInstance, ctx: ServiceContext) => void;

/** Route groups behind the sign-in hook, as one encapsulated scope. */
const signedIn = (groups: readonly Routes[]): Channel => async (scope, { ctx }) => {
  scope.addHook('onRequest', requireOperator(ctx));
  for (const routes of groups) routes(scope, ctx);
};

const open: Channel = async (scope, { ctx }) => registerAdminSessionRoutes(scope, ctx);

// In the order the OpenAPI document lists them (the session routes sit between the two signed-in scopes).
export const adminChannel: Channel = async (app, { ctx }) => {
  await app.register(signedIn([
    registerAdminCallbackRoutes, registerAdminPaymentRoutes, registerAdminUserRoutes, registerAdminMerchantRoutes, registerAdminAuditRoutes,
    registerAdminMidRoutes, registerAdminSettingsRoutes, registerAdminRoutingRoutes, registerAdminWalletRoutes, registerAdminConfigCatalogRoutes,
  ]), { ctx });
  await app.register(open, { ctx });
  await app.register(signedIn([registerAdminStatsRoutes, registerAdminSigningSecretRoutes, registerAdminMoneyRoutes, registerAdminRiskRoutes, registerAdminDisputeRoutes, registerAdminReconciliationRoutes, registerAdminMerchantUserRoutes, registerAdminTimelineRoutes]), { ctx });
};
