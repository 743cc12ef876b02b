/**
 * The OpenAPI description at /docs/json, on both stores: valid OpenAPI 3.1 (@readme/openapi-parser), every
 * route the gateway registers documented with its request and its answers (internal routes named with the
 * reason they are left out), the callbacks as webhooks, and the request examples signed correctly for the
 * demo merchant: sent as they are to a real gateway, none is refused for its hash.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { validate } from '@readme/openapi-parser';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { insertMerchant, insertMid } from '../../src/store/merchants-repo.ts';
import { newId } from '../../src/domain/ids.ts';
import { DEMO } from '../../src/channels/route-docs.ts';

/** Routes that are not part of the API, each with why. */
const INTERNAL: Readonly<Record<string, string>> = {
  'POST /hosted-fields/collect': 'posted only by the gateway\'s own card frame, never by merchant code',
  'GET /hosted-fields/frame/:field': 'the card field iframe, created by hosted-fields.js',
  'GET /hosted-fields/field.js': 'script of the field iframe',
  'GET /hosted-fields/field.css': 'style of the field iframe',
  'GET /assets/:name': 'static assets of the hosted pages',
};
const isDocsRoute = (url: string) => url === '/docs' || url.startsWith('/docs/');
/** The operator console's static files (index.html, hashed assets, the client-side routes' fallback): not API. */
// The console's and the portal's built files (pages, not API): /admin/… and /portal/… outside their /v1 APIs.
const isConsoleFile = (url: string) => ['/admin', '/portal'].some((app) => url === app || (url.startsWith(`${app}/`) && !url.startsWith(`${app}/v1/`)));
const openapiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');

type Operation = { requestBody?: { content?: Record<string, { schema?: unknown; example?: unknown; examples?: Record<string, { value: Record<string, unknown> }> }> }; parameters?: unknown[]; responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>; description?: string };

for (const { kind, skip } of await storeKinds()) {
  describe(`OpenAPI description (${kind})`, { skip }, () => {
    let gw: TestGateway;
    let spec: { openapi: string; paths: Record<string, Record<string, Operation>>; webhooks?: Record<string, unknown>; components: { schemas: Record<string, unknown> } };

    before(async () => {
      gw = await startTestGateway(kind);
      const res = await fetch(`${gw.baseUrl}/docs/json`);
      assert.equal(res.status, 200);
      spec = await res.json();
      // The demo merchant of the examples.
      await gw.store.db.transaction(async (tx) => {
        const id = newId();
        await insertMerchant(tx, gw.keyring, { id, name: 'Demo Shop', key: DEMO.key, password: DEMO.password, sandbox: true });
        await insertMid(tx, { id: newId(), merchantId: id, name: 'Sandbox card MID', connector: 'sandbox-card', paymentMode: 'SMS/DMS', cardOnFileSupport: true });
      });
    });
    after(async () => gw?.close());

    it('is valid OpenAPI 3.1', async () => {
      assert.equal(spec.openapi, '3.1.0');
      const result = await validate(structuredClone(spec) as never);
      assert.ok(result.valid, JSON.stringify(result, null, 1).slice(0, 4000));
    });

    it('documents every route: a request description, a success answer with its schema and error answers', () => {
      const problems: string[] = [];
      const routes = gw.gateway.app.routeTable.filter((r) => r.method !== 'HEAD' && !isDocsRoute(r.url) && !isConsoleFile(r.url));
      assert.ok(routes.length > 40, `${routes.length} routes recorded`);
      for (const route of routes) {
        const name = `${route.method} ${route.url}`;
        if (INTERNAL[name]) continue;
        const op = spec.paths[openapiPath(route.url)]?.[route.method.toLowerCase()];
        if (!op) {
          problems.push(`${name}: not in the document`);
          continue;
        }
        const hasParams = (op.parameters ?? []).length > 0;
        const bodySchema = Object.values(op.requestBody?.content ?? {}).some((m) => m.schema !== undefined);
        if (['POST', 'PUT', 'PATCH'].includes(route.method) && !bodySchema && !hasParams) problems.push(`${name}: no request schema`);
        const statuses = Object.keys(op.responses ?? {});
        const success = statuses.filter((s) => s.startsWith('2'));
        // A 204 has no body by definition, so it needs no schema.
        if (!success.some((s) => s === '204' || Object.values(op.responses![s]!.content ?? {}).some((m) => m.schema !== undefined))) problems.push(`${name}: no success answer schema`);
        if (!statuses.some((s) => s.startsWith('4'))) problems.push(`${name}: no error answer`);
      }
      assert.deepEqual(problems, []);
      // Nothing left in the internal list that no longer exists (the list stays honest).
      const names = new Set(routes.map((r) => `${r.method} ${r.url}`));
      assert.deepEqual(Object.keys(INTERNAL).filter((n) => !names.has(n)), []);
    });

    it('gives each merchant operation its hash recipe, one form schema per S2S action, and the callbacks as webhooks', () => {
      for (const path of ['/api/v1/session', '/api/v1/payment/status', '/api/v1/payment/capture', '/api/v1/payment/recurring', '/api/v1/payment/card/credit', '/sandbox/test-clock/advance']) {
        assert.match(spec.paths[path]!.post!.description ?? '', /\*\*hash\*\*: `sha1\(md5\(UPPER\(/, path);
      }
      const cardForm = spec.paths['/post']!.post!.requestBody!.content!['application/x-www-form-urlencoded']!;
      const cardActions = Object.keys(cardForm.examples ?? {});
      for (const action of ['SALE', 'DEBIT', 'CREDIT2CARD', 'CAPTURE', 'VOID', 'CREDITVOID', 'GET_TRANS_STATUS', 'GET_TRANS_STATUS_BY_ORDER', 'GET_TRANS_DETAILS', 'RETRY', 'RECURRING_SALE', 'RECURRING_DEBIT', 'CREATE_SCHEDULE', 'UPDATE_SCHEDULE', 'DELETE_SCHEDULE', 'PAUSE_SCHEDULE', 'RUN_SCHEDULE', 'SCHEDULE_INFO', 'DESCHEDULE']) {
        assert.ok(cardActions.includes(action), action);
      }
      assert.match(JSON.stringify(spec.components.schemas.S2sCardSale), /Formula 1/);
      const apmActions = Object.keys(spec.paths['/apm/post']!.post!.requestBody!.content!['application/x-www-form-urlencoded']!.examples ?? {});
      assert.deepEqual(apmActions.sort(), ['CAPTURE', 'CREDIT2VIRTUAL', 'CREDITVOID', 'GET_TRANS_STATUS', 'SALE', 'VOID']);
      assert.deepEqual(Object.keys(spec.webhooks ?? {}).sort(), ['checkoutCallback', 's2sApmCallback', 's2sCardCallback']);
      assert.match(JSON.stringify(spec.webhooks), /X-Callback-Id/);
      assert.match(JSON.stringify(spec.webhooks), /webhook-signature/);
      assert.ok(!JSON.stringify(spec).includes('AOCR'), 'no generated nonsense currencies');
    });

    it('every documented request example is signed for the demo merchant: none is refused for its hash', async () => {
      const mustSucceed = new Set(['/api/v1/session', '/api/v1/session/token', '/api/v1/payment/card/credit', '/sandbox/test-clock', '/sandbox/test-clock/advance', '/post SALE', '/post DEBIT', '/post CREDIT2CARD', '/post CREATE_SCHEDULE', '/apm/post SALE', '/apm/post CREDIT2VIRTUAL']);
      const answered: string[] = [];
      for (const [path, ops] of Object.entries(spec.paths)) {
        const op = ops.post;
        const json = op?.requestBody?.content?.['application/json']?.example as Record<string, unknown> | undefined;
        if (json && 'hash' in json) {
          const res = await gw.postJson(path, json);
          assert.notEqual(res.status, 401, `${path}: ${res.text}`);
          if (mustSucceed.has(path)) assert.equal(res.status, 200, `${path}: ${res.text}`);
          answered.push(path);
        }
        const form = op?.requestBody?.content?.['application/x-www-form-urlencoded']?.examples;
        for (const [action, example] of Object.entries(form ?? {})) {
          if (!('hash' in example.value)) continue;
          const res = await gw.postForm(path, example.value);
          assert.notEqual(res.status, 401, `${path} ${action}: ${res.text}`);
          if (mustSucceed.has(`${path} ${action}`)) assert.equal(res.status, 200, `${path} ${action}: ${res.text}`);
          answered.push(`${path} ${action}`);
        }
      }
      for (const name of mustSucceed) assert.ok(answered.includes(name), `${name} has an example`);
      assert.ok(answered.length >= 40, `${answered.length} examples sent`);
    });
  });
}
