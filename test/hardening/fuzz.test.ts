/**
 * Issue 12: a smaller run of the whole-API fuzz (the full one, >= 100,000 requests, is `npm run fuzz`): a few
 * thousand generated malformed requests over every route, on both stores; no 5xx, every error in D3, and the
 * gateway still serves a genuine merchant afterwards.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { sale } from '../s2s-card/support.ts';
import { runFuzz } from '../support/fuzz.ts';

const COUNT = Number(process.env.FUZZ_TEST_REQUESTS ?? 2500);

for (const { kind, skip } of await storeKinds()) {
  describe(`Fuzz of the whole API (${kind})`, { skip }, () => {
    let t: TestGateway;
    before(async () => {
      t = await startTestGateway(kind, { workers: true });
    });
    after(() => t?.close());

    it(`answers ${COUNT} malformed requests over every route without a 5xx or a non-D3 error body`, async () => {
      const routes = t.gateway.app.routeTable;
      assert.ok(routes.length >= 50, `every route is covered (${routes.length})`);
      const report = await runFuzz({ baseUrl: t.baseUrl, routes, merchant: t.merchant, count: COUNT, seed: kind === 'pglite' ? 1 : 2, concurrency: 8 });
      assert.equal(report.requests, COUNT);
      assert.deepEqual(report.findings, [], JSON.stringify(report.findings.slice(0, 3), null, 1));
      assert.equal(report.serverErrors, 0);
      assert.equal(report.nonD3, 0);
      assert.ok(Object.keys(report.byStatus).length > 3, `varied answers: ${JSON.stringify(report.byStatus)}`);
    });

    it('still serves a genuine merchant afterwards', async () => {
      assert.equal((await fetch(`${t.baseUrl}/health`)).status, 200);
      const order = { number: 'after-fuzz', amount: '3.00', currency: 'USD', description: 'After the fuzz' };
      const session = await t.postJson('/api/v1/session', { merchant_key: t.merchant.key, operation: 'purchase', order, success_url: 'https://shop.example/ok', hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description) });
      assert.equal(session.status, 200, session.text);
      const paid = await sale(t);
      assert.equal(paid.body.status, 'SETTLED', paid.text);
    });
  });
}
