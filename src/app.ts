/** Builds the HTTP server: body parsers, validation, error bodies, OpenAPI, and every channel's routes. */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import compress from '@fastify/compress';
import zlib from 'node:zlib';
import { applySecurityHeaders, installSecurityHeaders } from './channels/security-headers.ts';
import { installRateLimits } from './channels/rate-limits.ts';
import { installProductionGuard } from './sandbox/production-guard.ts';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { randomUUID } from 'node:crypto';
import { redactUrl, requestLogger, type Logger } from './logger.ts';
import type { ServiceContext } from './services/context.ts';
import type { MetricsAccess, TrustProxy } from './config.ts';
import { typeboxValidatorCompiler } from './channels/validation.ts';
import { cachedSerializerFactory } from './channels/serializers.ts';
import { parseForm } from './channels/form.ts';
import { answerClientError, installErrorHandling, sendError, toGatewayError } from './channels/error-handler.ts';
import { parseJsonBody } from './channels/json-body.ts';
import { installRawBodyCapture } from './channels/merchant-auth.ts';
import { GatewayError } from './domain/errors.ts';
import { installIdempotency } from './channels/idempotency.ts';
import { installMetrics, metricsGuard } from './channels/metrics.ts';
import { registerOperationsRoutes } from './channels/operations.ts';
import { ADMIN_SWAGGER_UI_OPTIONS, SWAGGER_OPTIONS, swaggerUiOptions } from './channels/openapi.ts';
import type { DocsMerchant } from './channels/route-docs.ts';
import { checkoutChannel } from './channels/checkout/index.ts';
import { checkoutPages, apmPages } from './channels/pages/index.ts';
import { s2sCardChannel } from './channels/s2s-card/index.ts';
import { s2sApmChannel, s2sApmListener } from './channels/s2s-apm/index.ts';
import { connectorsChannel } from './channels/connectors/index.ts';
import { adminChannel } from './channels/admin/index.ts';
import { consoleChannel } from './channels/console/index.ts';
import { portalChannel } from './channels/portal/index.ts';
import { registerSandbox } from './sandbox/index.ts';

export interface RouteEntry {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: readonly RouteEntry[];
  }
}

export interface AppOptions {
  bodyLimit?: number;
  /** Log requests (off in tests and benchmarks): one short line per answered request. */
  logRequests?: boolean;
  /** The merchant /docs signs its examples for (the running demo merchant); default the fixed documentation one. */
  docsMerchant?: () => DocsMerchant | undefined;
  /** The level of that line (default info; `npm start` in development: debug, so that LOG_LEVEL=info leaves it out). */
  requestLogLevel?: 'info' | 'debug';
  /** Production mode: sandbox pages for sandbox merchants only. */
  production?: boolean;
  /** TRUST_PROXY (config.ts): whose X-Forwarded-* headers are believed; default none. */
  trustProxy?: TrustProxy;
  /** Who may scrape /metrics (METRICS_TOKEN, METRICS_ALLOWED_ADDRESSES); default: open outside production. */
  metricsAccess?: MetricsAccess;
}


/**
 * Fastify 5 refuses a bare hop count (it trusts nothing then, since it cannot tell a proxy from a client that
 * connects directly): a hop count is for a gateway that only its proxies can reach, so it is said as a function.
 */
function trustProxyOption(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

/**
 * One line per answered request: `POST /api/v1/session 200 12 ms` (the query's secrets redacted), with the
 * request id the line's logger carries.
 */
function installRequestLog(app: FastifyInstance, level: 'info' | 'debug'): void {
  app.addHook('onResponse', (request, reply, done) => {
    request.log[level](`${request.method} ${redactUrl(request.url)} ${reply.statusCode} ${Math.round(reply.elapsedTime)} ms`);
    done();
  });
}

/** The server every listener shares: parsers, D3 errors, security headers, rate limits, idempotency, metrics, /health. */
async function baseApp(ctx: ServiceContext, opts: AppOptions, docs: boolean): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    // Fastify's own two lines per request (each with the whole request and answer) are off: installRequestLog
    // writes one short line instead.
    logController: new LogController({ disableRequestLogging: true }),
    // A request's logger is made when it first writes a line that logs (logger.ts requestLogger).
    childLoggerFactory: (logger, bindings, options) => requestLogger(logger as Logger, bindings, options as Record<string, unknown>) as unknown as FastifyBaseLogger,
    bodyLimit: opts.bodyLimit ?? 256 * 1024,
    genReqId: () => randomUUID(),
    // Only the proxies the operator names: otherwise any client picks req.ip (rate limits, payer_ip) itself.
    trustProxy: trustProxyOption(opts.trustProxy ?? false),
    // A closing node answers 503 itself, in the D3 shape (channels/operations.ts).
    return503OnClosing: false,
    // Long path segments (ids, tokens) reach the routes, which answer them with D3 bodies, not a bare 414.
    routerOptions: { maxParamLength: 1024 },
    // What the router answers itself (a bad %-encoding, a parameter over maxParamLength) leaves as D3 too.
    // (Fastify runs no onSend hook for these: the security headers are set here.)
    frameworkErrors: (err, request, reply) => {
      applySecurityHeaders(request, reply.type('application/json; charset=utf-8'));
      return sendError(request, reply, toGatewayError(err) ?? new GatewayError('notFound'));
    },
    clientErrorHandler: answerClientError,
    // Response serializers compiled once per process, not per server built (channels/serializers.ts).
    schemaController: { compilersFactory: { buildSerializer: cachedSerializerFactory } },
  });
  app.setValidatorCompiler(typeboxValidatorCompiler);
  // Every route as registered, for the fuzz (scripts/fuzz.ts) to cover them all.
  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routeTable.push({ method, url: route.url });
  });
  installErrorHandling(app);
  // A write may have enqueued a callback: the dispatcher is told once the answer is out (so after the commit),
  // instead of the callback waiting for its next poll. The mark taken at the start says whether one was written.
  const writeMarks = new WeakMap<object, number>();
  app.addHook('onRequest', (request, _reply, done) => {
    if (ctx.writeMark && request.method !== 'GET' && request.method !== 'HEAD') writeMarks.set(request.raw, ctx.writeMark());
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const mark = writeMarks.get(request.raw);
    if (mark !== undefined) ctx.afterWrite?.(mark);
    done();
  });
  if (opts.logRequests) installRequestLog(app, opts.requestLogLevel ?? 'info');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
    try {
      done(null, parseJsonBody(text as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  await app.register(formbody, { parser: parseForm });
  // A request signed with the Portcullis-Signature header keeps its raw body for the check (merchant-auth.ts).
  installRawBodyCapture(app);
  // Before the routes (it hooks each route as it is added); after every global onSend hook, so the idempotency
  // store sees the answer's text. Brotli at quality 4: most of its gain at a fraction of the default 11's CPU.
  await app.register(compress, { threshold: 1024, brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } } });
  installSecurityHeaders(app, { production: opts.production });
  if (opts.production) installProductionGuard(app, ctx);
  if (docs) {
    await app.register(swagger, SWAGGER_OPTIONS);
    // The admin API's page first, in a scope of its own (each Swagger UI instance decorates its scope).
    await app.register(async (scope) => {
      await scope.register(swaggerUi, ADMIN_SWAGGER_UI_OPTIONS);
    });
    await app.register(swaggerUi, swaggerUiOptions(opts.docsMerchant));
  }
  registerOperationsRoutes(app, ctx);
  installRateLimits(app, ctx.rateLimiter);
  installIdempotency(app, ctx);
  installMetrics(app, ctx, metricsGuard(opts.metricsAccess ?? { addresses: [] }, opts.production === true));
  return app;
}

/**
 * S2S APM's own listener (decisions D4, S2S_APM_PORT): `/post` and the QR bank's `/bank/callback` at its root, so
 * `{s2s_apm_host}` is that host and port; the operations routes (/health, /ready, /metrics) for its balancer.
 */
export async function buildApmApp(ctx: ServiceContext, opts: AppOptions = {}): Promise<FastifyInstance> {
  const app = await baseApp(ctx, opts, false);
  await app.register(s2sApmListener, { ctx });
  return app;
}

/**
 * The main listener: every channel as a plugin, in the order the OpenAPI document lists their routes (openapi.ts
 * places the sandbox's paths beside the gateway paths they play the other side of).
 */
export async function buildApp(ctx: ServiceContext, opts: AppOptions = {}): Promise<FastifyInstance> {
  const app = await baseApp(ctx, opts, true);
  await app.register(checkoutChannel, { ctx });
  await app.register(checkoutPages, { ctx });
  await app.register(s2sCardChannel, { ctx });
  await app.register(s2sApmChannel, { ctx });
  await app.register(apmPages, { ctx });
  await app.register(connectorsChannel, { ctx });
  await app.register(adminChannel, { ctx, prefix: '/admin/v1' });
  await app.register(portalChannel, { ctx, prefix: '/portal/v1' });
  await registerSandbox(app, ctx, { production: opts.production === true });
  await app.register(consoleChannel);
  return app;
}
