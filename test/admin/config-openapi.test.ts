/**
 * The OpenAPI description (/docs) of the configuration endpoints: under the Admin tag, with request and
 * response schemas, the D3 error responses and examples, on both stores (the description does not depend on
 * the store, but the gateway that serves it does).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

const ENDPOINTS: readonly [string, string, number][] = [
  ['get', '/admin/v1/merchants/{id}/mids', 200],
  ['post', '/admin/v1/merchants/{id}/mids', 201],
  ['put', '/admin/v1/merchants/{id}/mids/order', 200],
  ['get', '/admin/v1/merchants/{id}/mids/{midId}', 200],
  ['patch', '/admin/v1/merchants/{id}/mids/{midId}', 200],
  ['post', '/admin/v1/merchants/{id}/mids/{midId}/enable', 200],
  ['post', '/admin/v1/merchants/{id}/mids/{midId}/disable', 200],
  ['get', '/admin/v1/merchants/{id}/settings', 200],
  ['patch', '/admin/v1/merchants/{id}/settings', 200],
  ['get', '/admin/v1/merchants/{id}/wallets', 200],
  ['put', '/admin/v1/merchants/{id}/wallets', 200],
  ['get', '/admin/v1/merchants/{id}/routing', 200],
  ['put', '/admin/v1/merchants/{id}/routing', 200],
  ['post', '/admin/v1/merchants/{id}/routing/dry-run', 200],
  ['get', '/admin/v1/connectors', 200],
  ['get', '/admin/v1/protocol-mapping', 200],
];

const WITH_EXAMPLE_BODY = new Set(['post /admin/v1/merchants/{id}/mids', 'patch /admin/v1/merchants/{id}/mids/{midId}', 'patch /admin/v1/merchants/{id}/settings', 'put /admin/v1/merchants/{id}/wallets', 'put /admin/v1/merchants/{id}/routing']);

for (const { kind, skip } of await storeKinds()) {
  describe(`configuration endpoints in OpenAPI (${kind})`, { skip }, () => {
    let t: TestGateway;
    let doc: any;
    before(async () => {
      t = await startTestGateway(kind);
      const res = await fetch(`${t.baseUrl}/docs/json`);
      assert.equal(res.status, 200);
      doc = await res.json();
    });
    after(async () => t?.close());

    for (const [method, path, success] of ENDPOINTS) {
      it(`${method.toUpperCase()} ${path}: schemas, D3 errors and examples`, () => {
        const op = doc.paths[path]?.[method];
        assert.ok(op, 'described');
        assert.deepEqual(op.tags, ['Admin']);
        assert.deepEqual(op.security, [{ bearer: [] }]);
        assert.ok(op.summary);
        for (const status of [String(success), '400', '401', '403', '404']) {
          const schema = op.responses[status]?.content?.['application/json']?.schema;
          assert.ok(schema?.type === 'object', `${status} has a schema`);
        }
        for (const status of ['400', '401', '403', '404']) {
          assert.deepEqual(op.responses[status].content['application/json'].schema.required, ['http_code', 'error_code', 'error_message']);
          assert.ok(JSON.stringify(op.responses[status]).includes('"example'), `${status} has an example`);
        }
        if (['post', 'patch', 'put'].includes(method) && !path.endsWith('able')) {
          assert.equal(op.requestBody?.content?.['application/json']?.schema?.type, 'object', 'request schema');
        }
        if (WITH_EXAMPLE_BODY.has(`${method} ${path}`)) {
          assert.ok(JSON.stringify(op.requestBody).includes('"example'), 'request example');
          assert.ok(JSON.stringify(op.responses[String(success)]).includes('"example'), 'response example');
        }
      });
    }
  });
}
