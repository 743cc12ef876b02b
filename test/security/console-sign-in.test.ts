/**
 * Issue 25, items 9 and 10 over HTTP: the console's sign-in refuses a request a browser says came from another
 * site (login CSRF); disabling a user ends its console sessions, and enabling it again revives none. Both stores.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminClient } from '../admin/support.ts';
import { assertD3 } from '../hardening/support.ts';

const ADMIN = 'console-sign-in-admin-token';
const PASSWORD = 'a sturdy console phrase 2026';

for (const { kind, skip } of await storeKinds()) {
  describe(`console sign-in: origin and disabled users (${kind})`, { skip }, () => {
    let t: TestGateway;
    let userId: string;
    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN });
      const res = await adminClient(t.baseUrl, ADMIN)('POST', '/admin/v1/users', { email: 'ops@example.com', role: 'operator', password: PASSWORD });
      assert.equal(res.status, 201, res.text);
      userId = res.body.id;
    });
    after(() => t?.close());

    const signIn = (headers: Record<string, string>) => fetch(`${t.baseUrl}/admin/v1/session`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ email: 'ops@example.com', password: PASSWORD }),
    });

    it('item 9: refuses a sign-in a browser sent from another site or origin, with no cookie', async () => {
      for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'https://evil.example' }, { origin: 'null' }] as Record<string, string>[]) {
        const res = await signIn(headers);
        const text = await res.text();
        assertD3(403, text, JSON.stringify(headers));
        assert.equal(JSON.parse(text).error_message, 'Authorization: Sign-in from another site is not allowed.');
        assert.equal(res.headers.get('set-cookie'), null);
      }
    });

    it('item 9: signs in from the console\'s own origin, and a client that is no browser', async () => {
      for (const headers of [{ 'sec-fetch-site': 'same-origin', origin: t.baseUrl }, { origin: t.baseUrl }, {}] as Record<string, string>[]) {
        const res = await signIn(headers);
        assert.equal(res.status, 201, `${JSON.stringify(headers)}: ${await res.text()}`);
      }
    });

    it('item 10: disabling a user ends its sessions; enabling it again revives none', async () => {
      const res = await signIn({ origin: t.baseUrl });
      const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
      const me = () => fetch(`${t.baseUrl}/admin/v1/me`, { headers: { cookie } }).then((r) => r.status);
      assert.equal(await me(), 200);
      const admin = adminClient(t.baseUrl, ADMIN);
      assert.equal((await admin('PATCH', `/admin/v1/users/${userId}`, { disabled: true })).status, 200);
      assert.equal(await me(), 401);
      assert.equal((await admin('PATCH', `/admin/v1/users/${userId}`, { disabled: false })).status, 200);
      assert.equal(await me(), 401, 'the old cookie stays dead');
      assert.equal((await signIn({ origin: t.baseUrl })).status, 201, 'the user signs in afresh');
    });
  });
}
