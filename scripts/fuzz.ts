/**
 * `npm run fuzz`: the fuzz of the whole HTTP API against a real gateway on a real port (issue 12). Sends
 * FUZZ_REQUESTS (default 100,000) generated malformed requests over every registered route (test/support/fuzz.ts),
 * then checks the gateway is healthy and still serves a genuine merchant. Exit code 1 on any 5xx, any error
 * answer that is not a D3 body, or an unhealthy gateway.
 *
 *   FUZZ_REQUESTS=100000 FUZZ_SEED=1 FUZZ_STORE=pglite|postgres FUZZ_CONCURRENCY=16 npm run fuzz
 */
import { startTestGateway } from '../test/support/gateway.ts';
import { checkoutHash } from '../test/support/merchant.ts';
import { sale } from '../test/s2s-card/support.ts';
import { runFuzz } from '../test/support/fuzz.ts';

const count = Number(process.env.FUZZ_REQUESTS ?? 100_000);
const seed = Number(process.env.FUZZ_SEED ?? 1);
const store = process.env.FUZZ_STORE === 'postgres' ? 'postgres' : 'pglite';

const t = await startTestGateway(store, { workers: true });
try {
  const routes = t.gateway.app.routeTable;
  console.log(`fuzz: ${count} requests over ${routes.length} routes, seed ${seed}, store ${store}, gateway at ${t.baseUrl}`);
  const report = await runFuzz({
    baseUrl: t.baseUrl, routes, merchant: t.merchant, count, seed, concurrency: Number(process.env.FUZZ_CONCURRENCY ?? 16),
    onProgress: (done) => console.log(`  ${done} sent`),
  });
  const health = await fetch(`${t.baseUrl}/health`);
  const order = { number: 'after-fuzz', amount: '3.00', currency: 'USD', description: 'After the fuzz' };
  const session = await t.postJson('/api/v1/session', { merchant_key: t.merchant.key, operation: 'purchase', order, success_url: 'https://shop.example/ok', hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description) });
  const paid = await sale(t);
  const healthy = health.status === 200 && session.status === 200 && paid.body?.status === 'SETTLED';
  console.log(JSON.stringify({ requests: report.requests, seconds: report.seconds, routes: report.routes, byStatus: report.byStatus, serverErrors: report.serverErrors, nonD3: report.nonD3, healthyAfter: healthy, memoryMB: Math.round(process.memoryUsage().rss / 1e6) }, null, 2));
  for (const f of report.findings.slice(0, 10)) console.log('FINDING', JSON.stringify(f));
  process.exitCode = report.serverErrors === 0 && report.nonD3 === 0 && healthy && report.requests >= count ? 0 : 1;
} finally {
  await t.close();
}
