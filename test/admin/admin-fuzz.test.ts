/**
 * Generated input over the admin endpoints of users, tokens, merchants and the audit log, with a valid admin
 * token (the whole-API fuzz stops at the token): whatever the body or query, the answer is never a 5xx and
 * every error is a D3 body.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminClient, type AdminCall } from './support.ts';

const TOKEN = 'pcop_bootstrap-token-for-admin-fuzz';
const KEYS = ['name', 'email', 'role', 'password', 'disabled', 'notification_url', 'sandbox', 'hash_algorithm', 'merchant_key', 'grace_hours'];
const scalar = fc.oneof(
  fc.string({ maxLength: 40 }), fc.constantFrom('admin', 'viewer', 'md5', 'sha256', 'https://shop.example/cb', 'http://10.0.0.1/', 'a@b.example', '', '\u0000', '%', '\\'),
  fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
);
const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...KEYS), scalar, { maxKeys: 5 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ maxLength: 60 }).map((s) => ({ raw: s })),
);
const query = fc.dictionary(fc.constantFrom('search', 'limit', 'cursor', 'disabled', 'from', 'to', 'user_id', 'action', 'object_id', 'x'), fc.string({ maxLength: 30 }), { maxKeys: 4 });

for (const { kind, skip } of await storeKinds()) {
  describe(`admin endpoints under generated input (${kind})`, { skip }, () => {
    let t: TestGateway;
    let admin: AdminCall;
    let merchantId: string;
    let userId: string;
    before(async () => {
      t = await startTestGateway(kind, { adminToken: TOKEN });
      admin = adminClient(t.baseUrl, TOKEN);
      merchantId = (await admin('POST', '/admin/v1/merchants', { name: 'Fuzzed' })).body.id;
      userId = (await admin('POST', '/admin/v1/users', { email: 'fuzzed@shop.example', role: 'viewer' })).body.id;
    });
    after(async () => t?.close());

    const check = (what: string, res: { status: number; body: any; text: string }) => {
      assert.ok(res.status < 500, `${what}: ${res.status} ${res.text}`);
      if (res.status >= 400) {
        assert.equal(res.body?.http_code, res.status, `${what}: ${res.text}`);
        assert.equal(typeof res.body?.error_message, 'string');
      }
    };

    it('answers generated bodies and queries without a 5xx, errors in D3', async () => {
      const writes: [string, () => string][] = [
        ['POST', () => '/admin/v1/users'], ['PATCH', () => `/admin/v1/users/${userId}`], ['POST', () => `/admin/v1/users/${userId}/tokens`],
        ['POST', () => '/admin/v1/merchants'], ['PATCH', () => `/admin/v1/merchants/${merchantId}`], ['POST', () => `/admin/v1/merchants/${merchantId}/password`],
      ];
      await fc.assert(fc.asyncProperty(fc.constantFrom(...writes), body, fc.boolean(), async ([method, path], b, raw) => {
        const sent = raw && typeof b === 'object' && b !== null && 'raw' in b ? String((b as { raw: string }).raw) : JSON.stringify(b);
        check(`${method} ${path()} ${sent}`, await admin(method, path(), sent));
      }), { numRuns: 150, seed: kind === 'pglite' ? 11 : 12 });
      await fc.assert(fc.asyncProperty(fc.constantFrom('/admin/v1/merchants', '/admin/v1/audit-log'), query, async (path, q) => {
        check(`GET ${path}?${new URLSearchParams(q)}`, await admin('GET', `${path}?${new URLSearchParams(q)}`));
      }), { numRuns: 100, seed: kind === 'pglite' ? 13 : 14 });
      // The admin that the generated PATCHes may have changed is still there, and so is an enabled admin.
      assert.equal((await admin('GET', '/admin/v1/me')).status, 200);
    });
  });
}
