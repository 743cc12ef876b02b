/** The admin endpoints of issue 11 in /docs: request and response schemas, D3 error responses, examples. */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

const ENDPOINTS: [string, string, { body?: boolean; errors: number[] }][] = [
  ['get', '/admin/v1/me', { errors: [] }],
  ['post', '/admin/v1/users', { body: true, errors: [400] }],
  ['get', '/admin/v1/users', { errors: [] }],
  ['get', '/admin/v1/users/{id}', { errors: [404] }],
  ['patch', '/admin/v1/users/{id}', { body: true, errors: [400, 404] }],
  ['post', '/admin/v1/users/{id}/tokens', { body: true, errors: [400, 404] }],
  ['get', '/admin/v1/users/{id}/tokens', { errors: [404] }],
  ['delete', '/admin/v1/users/{id}/tokens/{token_id}', { errors: [404] }],
  ['post', '/admin/v1/users/{id}/tokens/{token_id}/revoke', { errors: [404] }],
  ['get', '/admin/v1/audit-log', { errors: [400] }],
  ['post', '/admin/v1/merchants', { body: true, errors: [400] }],
  ['get', '/admin/v1/merchants', { errors: [400] }],
  ['get', '/admin/v1/merchants/{id}', { errors: [404] }],
  ['patch', '/admin/v1/merchants/{id}', { body: true, errors: [400, 404] }],
  ['post', '/admin/v1/merchants/{id}/disable', { errors: [404] }],
  ['post', '/admin/v1/merchants/{id}/enable', { errors: [404] }],
  ['post', '/admin/v1/merchants/{id}/password', { body: true, errors: [400, 404] }],
];

/** @fastify/swagger moves a schema's `examples` to the media type's `example` (one) or `examples` (several). */
const exampleOf = (media: any): any => media.example ?? (media.examples && Object.values(media.examples)[0] as any)?.value;

for (const { kind, skip } of await storeKinds()) {
  describe(`admin OpenAPI description (${kind})`, { skip }, () => {
    let t: TestGateway;
    let doc: any;
    before(async () => {
      t = await startTestGateway(kind);
      doc = await (await fetch(`${t.baseUrl}/docs/json`)).json();
    });
    after(async () => t?.close());

    it('describes every endpoint under the Admin tag with bearer security, schemas, D3 errors and examples', () => {
      for (const [method, path, { body, errors }] of ENDPOINTS) {
        const op = doc.paths?.[path]?.[method];
        assert.ok(op, `${method} ${path} missing`);
        assert.deepEqual(op.tags, ['Admin'], path);
        assert.deepEqual(op.security, [{ bearer: [] }], path);
        assert.ok(op.summary, path);
        const success = Object.keys(op.responses).find((s) => s.startsWith('2'))!;
        const successContent = op.responses[success].content['application/json'];
        assert.ok(successContent.schema.properties, `${path} ${success} schema`);
        assert.ok(exampleOf(successContent), `${path} ${success} example`);
        for (const status of [401, 403, ...errors]) {
          const r = op.responses[String(status)];
          assert.ok(r, `${method} ${path} lacks ${status}`);
          const schema = r.content['application/json'].schema;
          assert.deepEqual(Object.keys(schema.properties).sort(), ['error_code', 'error_message', 'errors', 'http_code']);
          assert.equal(exampleOf(r.content['application/json'])?.http_code, status, `${path} ${status} example`);
        }
        if (body) {
          const req = op.requestBody.content['application/json'].schema;
          assert.ok(req.properties, `${path} body schema`);
          assert.ok(exampleOf(op.requestBody.content['application/json']), `${path} body example`);
        }
      }
    });
  });
}
