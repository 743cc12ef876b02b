/** Builds the HTTP server: body parsers, validation, error bodies, OpenAPI, and every channel's routes. */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from './services/context.ts';
import { typeboxValidatorCompiler } from './channels/validation.ts';
import { parseForm } from './channels/form.ts';
import { installErrorHandling } from './channels/error-handler.ts';
import { installIdempotency } from './channels/idempotency.ts';
import { installMetrics } from './channels/metrics.ts';
import { registerAdminCallbackRoutes } from './channels/admin/callback-routes.ts';
import { registerAdminPaymentRoutes } from './channels/admin/payment-routes.ts';
import { registerCheckoutRoutes } from './channels/checkout/routes.ts';
import { registerHostedFieldsRoutes } from './channels/checkout/hosted-fields-routes.ts';
import { registerCardCreditRoutes } from './channels/checkout/credit-routes.ts';
import { registerPageRoutes } from './channels/pages/routes.ts';
import { registerS2sCardRoutes } from './channels/s2s-card/routes.ts';
import { registerRecurringRoutes } from './channels/checkout/recurring-routes.ts';
import { registerTestClockRoutes } from './channels/sandbox/test-clock-routes.ts';
import { registerS2sApmRoutes } from './channels/s2s-apm/routes.ts';
import { registerApmPageRoutes } from './channels/pages/apm-routes.ts';
import { recordRoutes, SWAGGER_OPTIONS, SWAGGER_UI_OPTIONS } from './channels/openapi.ts';

export interface AppOptions {
  bodyLimit?: number;
  /** Log requests (off in tests and benchmarks). */
  logRequests?: boolean;
}


export async function buildApp(ctx: ServiceContext, opts: AppOptions = {}): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: !opts.logRequests }),
    bodyLimit: opts.bodyLimit ?? 256 * 1024,
    genReqId: () => randomUUID(),
    trustProxy: true,
    return503OnClosing: true,
    // Long path segments (ids, tokens) reach the routes, which answer them with D3 bodies, not a bare 414.
    routerOptions: { maxParamLength: 1024 },
  });
  app.setValidatorCompiler(typeboxValidatorCompiler);
  installErrorHandling(app);
  await app.register(formbody, { parser: parseForm });
  recordRoutes(app);
  await app.register(swagger, SWAGGER_OPTIONS);
  await app.register(swaggerUi, SWAGGER_UI_OPTIONS);
  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  installIdempotency(app, ctx);
  installMetrics(app);
  registerCheckoutRoutes(app, ctx);
  registerHostedFieldsRoutes(app, ctx);
  registerCardCreditRoutes(app, ctx);
  registerRecurringRoutes(app, ctx);
  registerTestClockRoutes(app, ctx);
  registerPageRoutes(app, ctx);
  await registerS2sCardRoutes(app, ctx);
  await registerS2sApmRoutes(app, ctx);
  registerApmPageRoutes(app, ctx);
  registerAdminCallbackRoutes(app, ctx);
  registerAdminPaymentRoutes(app, ctx);
  return app;
}
