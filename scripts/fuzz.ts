/**
 * `npm run fuzz`: the fuzz of the whole HTTP API against a real gateway on a real port (issue 12). Sends
 * FUZZ_REQUESTS (default 100,000) generated malformed requests over every registered route (test/support/fuzz.ts),
 * then checks the gateway is healthy and still serves a genuine merchant. Exit code 1 on any 5xx, any error
 * answer that is not a D3 body, or an unhealthy gateway.
 *
 *   FUZZ_REQUESTS=100000 FUZZ_SEED=1 FUZZ_STORE=pglite|postgres FUZZ_CONCURRENCY=16 FUZZ_RATE_LIMITS=on|off npm run fuzz
 *
 * FUZZ_RATE_LIMITS (issue 25): `on` (the default) runs the gateway with production's rate limits, so the limiter
 * itself is fuzzed; `off` switches them off, so every request reaches its endpoint instead of a 429.
 */
import { startTestGateway } from '../test/support/gateway.ts';
import { checkoutHash } from '../test/support/merchant.ts';
import { saleFields, signedSale } from '../test/s2s-card/support.ts';
import { runFuzz } from '../test/support/fuzz.ts';

const count = Number(process.env.FUZZ_REQUESTS ?? 100_000);
const seed = Number(process.env.FUZZ_SEED ?? 1);
const store = process.env.FUZZ_STORE === 'postgres' ? 'postgres' : 'pglite';

const rateLimits = process.env.FUZZ_RATE_LIMITS === 'off' ? 'off' : 'on';

const t = await startTestGateway(store, { workers: true, rateLimits: { enabled: rateLimits === 'on' } });
try {
  const routes = t.gateway.app.routeTable;
  console.log(`fuzz: ${count} requests over ${routes.length} routes, seed ${seed}, store ${store}, rate limits ${rateLimits}, gateway at ${t.baseUrl}`);
  const report = await runFuzz({
    baseUrl: t.baseUrl, routes, merchant: t.merchant, count, seed, concurrency: Number(process.env.FUZZ_CONCURRENCY ?? 16),
    onProgress: (done) => console.log(`  ${done} sent`),
  });
  const health = await fetch(`${t.baseUrl}/health`);
  // The genuine merchant comes from an address of its own (through the test's trusted loopback proxy): the
  // fuzz's address may well be over its failure limit by now, and the merchant must not pay for it.
  const merchantAddress = { 'x-forwarded-for': '192.0.2.250' };
  const order = { number: 'after-fuzz', amount: '3.00', currency: 'USD', description: 'After the fuzz' };
  const session = await t.postJson('/api/v1/session', { merchant_key: t.merchant.key, operation: 'purchase', order, success_url: 'https://shop.example/ok', hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description) }, merchantAddress);
  const sold = await fetch(`${t.baseUrl}/post`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...merchantAddress }, body: new URLSearchParams(signedSale(t.merchant, saleFields()) as Record<string, string>).toString() });
  const paid = { body: await sold.json() as { status?: string } };
  const healthy = health.status === 200 && session.status === 200 && paid.body?.status === 'SETTLED';
  console.log(JSON.stringify({ rateLimits, requests: report.requests, seconds: report.seconds, routes: report.routes, byStatus: report.byStatus, serverErrors: report.serverErrors, nonD3: report.nonD3, healthyAfter: healthy, memoryMB: Math.round(process.memoryUsage().rss / 1e6) }, null, 2));
  for (const f of report.findings.slice(0, 10)) console.log('FINDING', JSON.stringify(f));
  process.exitCode = report.serverErrors === 0 && report.nonD3 === 0 && healthy && report.requests >= count ? 0 : 1;
} finally {
  await t.close();
}
