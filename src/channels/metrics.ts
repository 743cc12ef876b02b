/**
 * Prometheus metrics at `/metrics`: requests by route and status with their durations, the process's own
 * figures, and the gateway's work read from the store at each scrape (payments needing an operator or in flight,
 * the callback outbox, blocked notification URLs). Labels use the route pattern, never the path, so ids and tokens
 * do not end up in metrics.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BlockList, isIP } from 'node:net';
import type { MetricsAccess } from '../config.ts';
import { sameSecret } from '../domain/console-session.ts';
import { GatewayError } from '../domain/errors.ts';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ServiceContext } from '../services/context.ts';
import { currentFigures } from '../services/operational-figures.ts';
import type { OperationalFigures } from '../services/operational-figures.ts';
import { riskMetrics } from '../services/risk/metrics.ts';
import { reconciliationMetricLines } from '../services/reconciliation/metrics.ts';
import { disputeMetricLines } from '../services/disputes/defence.ts';

/**
 * Each store figure and its gauge (a gauge per figure: Prometheus alerts name them one by one). The payments' and
 * callbacks' figures carry `mode` (test: test keys', i.e. sandbox merchants'; live: live keys'), issue 25 item 26:
 * both series are always there, so an alert on live traffic reads `{mode="live"}` and never sees the sandbox.
 */
const FIGURE_GAUGES: Readonly<Record<keyof OperationalFigures, { name: string; help: string }>> = {
  paymentsNeedingOperator: { name: 'portcullis_payments_needing_operator', help: 'Payments whose operation waits for an operator (needs attention), by key mode' },
  paymentsInFlight: { name: 'portcullis_payments_in_flight', help: 'Payments with a connector call not yet answered (the re-check worker resolves them), by key mode' },
  callbacksPending: { name: 'portcullis_callbacks_pending', help: 'Callbacks waiting for their next delivery attempt, by key mode' },
  callbacksOverdue: { name: 'portcullis_callbacks_overdue', help: 'Pending callbacks due for over a minute: the dispatchers are behind or stopped, by key mode' },
  callbackUrlsBlocked: { name: 'portcullis_callback_urls_blocked', help: 'Notification URLs blocked after repeated timeouts' },
};

function installFigureGauges(registry: Registry, ctx: Pick<ServiceContext, 'db' | 'clock'>): () => Promise<void> {
  const gauges = Object.entries(FIGURE_GAUGES).map(([key, spec]) =>
    [key as keyof OperationalFigures, new Gauge({ ...spec, ...(key === 'callbackUrlsBlocked' ? {} : { labelNames: ['mode'] }), registers: [registry] })] as const);
  const storeUp = new Gauge({ name: 'portcullis_store_up', help: '1 when the store answered the last scrape\'s figures, 0 when it did not', registers: [registry] });
  return async () => {
    try {
      const figures = await currentFigures(ctx);
      for (const [key, gauge] of gauges) {
        const value = figures[key];
        if (typeof value === 'number') gauge.set(value);
        else for (const mode of ['test', 'live'] as const) gauge.set({ mode }, value[mode]);
      }
      storeUp.set(1);
    } catch {
      storeUp.set(0); // the figures keep their last values; the HTTP metrics still answer
    }
  };
}

/**
 * Who may scrape (issue 25, item 16): each of METRICS_TOKEN (a bearer token) and METRICS_ALLOWED_ADDRESSES (the
 * client address, as TRUST_PROXY lets the gateway see it) that is set must pass; neither set: everyone outside
 * production, nobody in production (figures of the business are not for the internet).
 */
export function metricsGuard(access: MetricsAccess, production: boolean): (req: FastifyRequest) => boolean {
  const { token, addresses } = access;
  if (token === undefined && addresses.length === 0) return () => !production;
  const allowed = new BlockList();
  for (const entry of addresses) {
    const [address, bits] = entry.split('/') as [string, string | undefined];
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) allowed.addAddress(address, type);
    else allowed.addSubnet(address, Number(bits), type);
  }
  const fromAllowed = (ip: string) => {
    const plain = ip.replace(/^::ffff:(?=\d+\.)/i, '');
    return allowed.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
  };
  const bearer = (header: string | undefined) => /^Bearer (.+)$/i.exec(header ?? '')?.[1];
  return (req) => (addresses.length === 0 || fromAllowed(req.ip)) && (token === undefined || sameSecret(bearer(req.headers.authorization) ?? '', token));
}

export function installMetrics(app: FastifyInstance, ctx?: Pick<ServiceContext, 'db' | 'clock'>, allowed: (req: FastifyRequest) => boolean = () => true): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'portcullis_' });
  const requests = new Counter({
    name: 'portcullis_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'portcullis_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route pattern',
    labelNames: ['method', 'route'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    requests.inc({ method: req.method, route, status: String(reply.statusCode) });
    durations.observe({ method: req.method, route }, reply.elapsedTime / 1000);
  });
  const refreshFigures = ctx ? installFigureGauges(registry, ctx) : undefined;
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (!allowed(req)) throw new GatewayError('metricsUnauthorized');
    await refreshFigures?.();
    reply.type(registry.contentType);
    // Reconciliation's open exceptions (issue 28), read at the scrape; a store that does not answer leaves them out.
    const recon = ctx ? await reconciliationMetricLines(ctx).catch(() => []) : [];
    // Disputes' deadlines (issue 29), likewise.
    const disputes = ctx ? await disputeMetricLines(ctx).catch(() => []) : [];
    return `${await registry.metrics()}${[...riskMetrics.render(), ...recon, ...disputes].join('\n')}\n`;
  });
  return registry;
}
