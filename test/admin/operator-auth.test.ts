/** The admin API's guard: tokens by digest, roles by the permission table, D3 bodies for 401 and 403. */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { mayDo, permissionsOf, ROLES, PERMISSIONS } from '../../src/domain/admin-roles.ts';
import { insertOperatorUser } from '../../src/store/operators-repo.ts';
import { issueOperatorToken } from '../../src/services/operators.ts';
import { newId } from '../../src/domain/ids.ts';

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('admin roles table', () => {
  it('gives admin everything and each lesser role a subset of the one above', () => {
    assert.deepEqual(permissionsOf('admin'), [...PERMISSIONS]);
    for (const [upper, lower] of [['admin', 'operator'], ['operator', 'support'], ['support', 'viewer']] as const) {
      for (const p of permissionsOf(lower)) assert.ok(mayDo(upper, p), `${upper} lacks ${p} that ${lower} has`);
    }
  });

  it('keeps money movement and configuration away from support and viewer', () => {
    for (const role of ['support', 'viewer'] as const) {
      for (const p of ['payments.act', 'merchants.write', 'mids.write', 'users.manage'] as const) assert.equal(mayDo(role, p), false);
    }
    assert.equal(mayDo('support', 'callbacks.resend'), true);
    assert.equal(mayDo('viewer', 'callbacks.resend'), false);
    assert.equal(mayDo('operator', 'users.manage'), false);
    for (const role of ROLES) assert.equal(mayDo(role, 'payments.read'), true);
  });
});

for (const { kind, skip } of kinds) {
  describe(`admin guard (${kind})`, { skip }, () => {
    let t: TestGateway;
    const ADMIN = 'bootstrap-admin-token';
    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN });
    });
    after(async () => t?.close());

    const get = (path: string, token?: string) =>
      fetch(`${t.baseUrl}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

    it('takes ADMIN_TOKEN as the first admin\'s token and refuses unknown tokens with 401', async () => {
      assert.equal((await get('/admin/v1/callbacks', ADMIN)).status, 200);
      for (const token of [undefined, '', 'nope']) {
        const res = await get('/admin/v1/callbacks', token);
        assert.equal(res.status, 401);
        assert.deepEqual(await res.json(), { http_code: 401, error_code: '100000', error_message: 'Authorization: Operator token is not valid.' });
      }
    });

    it('answers 403 in the D3 shape when the role may not', async () => {
      const userId = newId();
      await insertOperatorUser(t.store.db, { id: userId, email: `viewer-${userId}@example.com`, name: 'Viewer', role: 'viewer' });
      const { token } = await issueOperatorToken(t.store.db, userId, 'test');
      assert.equal((await get('/admin/v1/callbacks', token)).status, 200);
      const res = await fetch(`${t.baseUrl}/admin/v1/callback-urls/unblock`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://x.example/cb' }),
      });
      assert.equal(res.status, 403);
      assert.deepEqual(await res.json(), { http_code: 403, error_code: '100000', error_message: 'Authorization: Your role does not permit this action.' });
    });

    it('refuses UPDATE and DELETE of the audit log', async () => {
      const [row] = await t.store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_log WHERE action = 'user.bootstrap'");
      assert.equal(row!.n, 1);
      await assert.rejects(t.store.db.query("UPDATE audit_log SET user_name = 'x'"), /append-only/);
      await assert.rejects(t.store.db.query('DELETE FROM audit_log'), /append-only/);
    });
  });
}
