/**
 * Issue 25, item 15: an operator API token may carry an expiry (set when issued, listed with the token); past
 * it the token authenticates nothing. Both stores.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminClient, D3_UNAUTHORIZED } from '../admin/support.ts';
import { ManualClock } from '../../src/domain/clock.ts';

const ADMIN = 'token-expiry-admin-token';

for (const { kind, skip } of await storeKinds()) {
  describe(`operator tokens: expiry (${kind})`, { skip }, () => {
    let t: TestGateway;
    let userId: string;
    const clock = new ManualClock('2030-03-01T12:00:00Z');
    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN, clock });
      const res = await adminClient(t.baseUrl, ADMIN)('POST', '/admin/v1/users', { email: 'robot@example.com', role: 'viewer' });
      assert.equal(res.status, 201, res.text);
      userId = res.body.id;
    });
    after(() => t?.close());

    it('a token issued with expires_at works until then, and is listed with its expiry', async () => {
      const admin = adminClient(t.baseUrl, ADMIN);
      const issued = await admin('POST', `/admin/v1/users/${userId}/tokens`, { name: 'export', expires_at: '2030-03-01T13:00:00Z' });
      assert.equal(issued.status, 201, issued.text);
      assert.equal(issued.body.expires_at, '2030-03-01T13:00:00.000Z');
      const forever = await admin('POST', `/admin/v1/users/${userId}/tokens`, { name: 'forever' });
      assert.equal(forever.body.expires_at, null);
      const me = (token: string) => adminClient(t.baseUrl, token)('GET', '/admin/v1/me');
      assert.equal((await me(issued.body.token)).status, 200);
      clock.advance(60 * 60_000);
      const expired = await me(issued.body.token);
      assert.equal(expired.status, 401);
      assert.deepEqual(expired.body, D3_UNAUTHORIZED);
      assert.equal((await me(forever.body.token)).status, 200, 'a token without expiry goes on');
      const list = await admin('GET', `/admin/v1/users/${userId}/tokens`);
      assert.deepEqual(list.body.tokens.map((x: { name: string; expires_at: string | null }) => [x.name, x.expires_at]), [['export', '2030-03-01T13:00:00.000Z'], ['forever', null]]);
    });

    it('refuses an expiry that is not in the future, or not a timestamp (D3 400)', async () => {
      const admin = adminClient(t.baseUrl, ADMIN);
      const past = await admin('POST', `/admin/v1/users/${userId}/tokens`, { expires_at: '2020-01-01T00:00:00Z' });
      assert.equal(past.status, 400, past.text);
      assert.deepEqual(past.body.errors, [{ error_code: '100000', error_message: 'expires_at: The expiry must be in the future.' }]);
      assert.equal((await admin('POST', `/admin/v1/users/${userId}/tokens`, { expires_at: 'tomorrow' })).status, 400);
    });
  });
}
