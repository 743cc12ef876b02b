/**
 * A channel as a Fastify plugin: it registers its own routes (and any hook of its own, encapsulated) and is given
 * the service context. What must apply to every route (parsers, error bodies, security headers, rate limits,
 * idempotency, metrics) stays on the root, installed by app.ts before any channel.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../services/context.ts';

export interface ChannelOptions {
  ctx: ServiceContext;
}

export type Channel<Extra extends object = object> = FastifyPluginAsync<ChannelOptions & Extra>;
