/** Every route of the sandbox, in the order the OpenAPI document lists them (openapi.ts: SANDBOX_PLACES). */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../services/context.ts';
import type { Channel } from '../channels/plugin.ts';
import { registerTestClockRoutes } from './test-clock-routes.ts';
import { registerShopRoutes } from './shop/routes.ts';
import { registerWalletSimulatorRoutes } from './wallets/routes.ts';
import { registerAcquirerPages } from './acquirer/pages.ts';
import { registerApmProviderRoutes } from './apm/provider-routes.ts';
import { registerSandboxApmPages } from './apm/pages.ts';
import { registerInboxRoutes } from './inbox/routes.ts';

const sandboxRoutes: Channel<{ production?: boolean }> = async (app, { ctx, production }) => {
  registerTestClockRoutes(app, ctx);
  registerShopRoutes(app, ctx);
  registerWalletSimulatorRoutes(app, ctx);
  registerAcquirerPages(app, ctx);
  registerApmProviderRoutes(app, ctx);
  registerSandboxApmPages(app, ctx);
  // The merchant inbox plays a merchant's server for the demo merchant: development only, never mounted in production.
  if (!production) await registerInboxRoutes(app, ctx);
};

/** Adds the sandbox's routes to the gateway's server, as one encapsulated plugin. */
export async function registerSandbox(app: FastifyInstance, ctx: ServiceContext, opts: { production?: boolean } = {}): Promise<void> {
  await app.register(sandboxRoutes, { ctx, production: opts.production === true });
}
