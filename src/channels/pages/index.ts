/**
 * The payer-facing pages of the hosted Checkout: the page and its form (checkout.ts), wallets (wallets.ts), the
 * payer leaving (checkout.ts), back from an acquirer's page (returns.ts), the alternative methods' pages
 * (apm-routes.ts), and the static assets they load. The sandbox's own pages (its ACS, bank and provider pages,
 * the wallet simulator) are the sandbox's: src/sandbox/.
 */
import type { FastifyInstance } from 'fastify';
import type { Channel } from '../plugin.ts';
import { GatewayError } from '../../domain/errors.ts';
import { ASSETS } from '../../web/assets.ts';
import { PAGE } from './reply.ts';
import { registerCheckoutExits, registerCheckoutPages } from './checkout.ts';
import { registerWalletPages } from './wallets.ts';
import { registerReturnPages } from './returns.ts';
import { registerApmPageRoutes } from './apm-routes.ts';

function registerAssets(app: FastifyInstance): void {
  app.get<{ Params: { name: string } }>('/assets/:name', PAGE, async (req, reply) => {
    const asset = Object.hasOwn(ASSETS, req.params.name) ? ASSETS[req.params.name] : undefined;
    if (!asset) throw new GatewayError('notFound');
    if (req.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.header('etag', asset.etag).header('cache-control', 'public, max-age=300').type(asset.contentType).send(asset.body);
  });
}

/** The Checkout page and what follows it, in the order the OpenAPI document lists them. */
export const checkoutPages: Channel = async (app, { ctx }) => {
  registerAssets(app);
  registerCheckoutPages(app, ctx);
  registerWalletPages(app, ctx);
  registerCheckoutExits(app, ctx);
  registerReturnPages(app, ctx);
};

/**
 * The alternative methods' payer pages (/pay/{payment}), for Checkout and S2S APM payments alike: a plugin of its
 * own, registered after the S2S APM channel, where the OpenAPI document has always listed them.
 */
export const apmPages: Channel = async (app, { ctx }) => {
  registerApmPageRoutes(app, ctx);
};
