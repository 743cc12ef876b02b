/**
 * What a load balancer and an orchestrator ask a node: `GET /health` (the process answers: liveness, never
 * touches the store, so a database outage does not get every node restarted) and `GET /ready` (the store
 * answers and every migration of this build is applied: route traffic here). Both answer 503 in the D3 shape
 * once the node has begun to shut down, and so does any other request that arrives then on a kept-alive
 * connection (with `Connection: close`), so that the balancer moves it to another node.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ServiceContext } from '../services/context.ts';
import { GatewayError } from '../domain/errors.ts';
import { pendingMigrations } from '../services/queries/health.ts';
import { sendError } from './error-handler.ts';

/** A readiness probe that hangs is a failed one: the balancer's own timeout is usually a few seconds. */
const READY_TIMEOUT_MS = 2_000;

const OK = Type.Object({ status: Type.Literal('ok') });
const UNAVAILABLE = Type.Object({
  http_code: Type.Integer(),
  error_code: Type.String(),
  error_message: Type.String(),
  errors: Type.Optional(Type.Array(Type.Object({ error_code: Type.String(), error_message: Type.String() }))),
});

export function registerOperationsRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  app.addHook('onRequest', async (req, reply) => {
    if (!draining) return;
    reply.header('connection', 'close');
    return sendError(req, reply, new GatewayError('unavailable', [{ field: 'node', message: 'This node is shutting down.' }]));
  });

  // A response finishing during the drain closes its connection, so that the client's next request opens one
  // to another node instead of waiting on this one.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });

  app.get('/health', {
    schema: { tags: ['Operations'], summary: 'Liveness: the process answers', response: { 200: OK } },
  }, async () => ({ status: 'ok' as const }));

  app.get('/ready', {
    schema: {
      tags: ['Operations'],
      summary: 'Readiness: the store answers and every migration is applied',
      response: { 200: OK, 503: UNAVAILABLE },
    },
  }, async (req, reply) => {
    const problem = await withTimeout(readinessProblem(ctx), READY_TIMEOUT_MS, 'The store did not answer in time.');
    if (problem) return sendError(req, reply, new GatewayError('unavailable', [{ field: 'store', message: problem }]));
    return { status: 'ok' as const };
  });
}

/** What keeps the node from taking traffic, or undefined when nothing does. */
async function readinessProblem(ctx: ServiceContext): Promise<string | undefined> {
  try {
    const pending = await pendingMigrations(ctx.db);
    return pending.length > 0 ? `Migrations not applied: ${pending.join(', ')}.` : undefined;
  } catch {
    return 'The store does not answer.';
  }
}

function withTimeout(work: Promise<string | undefined>, ms: number, message: string): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(message), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
