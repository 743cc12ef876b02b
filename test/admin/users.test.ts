/** Operator users and tokens over the admin API: admins only, tokens shown once, the last admin kept. */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { permissionsOf } from '../../src/domain/admin-roles.ts';
import { verifyOperatorPassword } from '../../src/domain/operator-passwords.ts';
import { TOO_COMMON_USER_PASSWORD } from '../../src/domain/user-passwords.ts';
import { adminClient, operatorWithRole, fieldErrors, D3_FORBIDDEN, D3_NOT_FOUND, D3_UNAUTHORIZED, type AdminCall } from './support.ts';

const BOOTSTRAP = 'pcop_bootstrap-token-for-users-test';

for (const { kind, skip } of await storeKinds()) {
  describe(`admin: users and tokens (${kind})`, { skip }, () => {
    let t: TestGateway;
    let admin: AdminCall;
    const clock = new ManualClock('2030-03-01T10:00:00Z');
    before(async () => {
      t = await startTestGateway(kind, { adminToken: BOOTSTRAP, clock });
      admin = adminClient(t.baseUrl, BOOTSTRAP);
    });
    after(async () => t?.close());

    it('answers GET /me with the user, role and permissions of any role\'s token', async () => {
      const me = await admin('GET', '/admin/v1/me');
      assert.equal(me.status, 200);
      assert.equal(me.body.user.role, 'admin');
      assert.equal(me.body.user.email, 'admin@localhost');
      assert.deepEqual(me.body.permissions, permissionsOf('admin'));
      assert.match(me.body.token.prefix, /^pcop_/);
      const viewer = await operatorWithRole(t, 'viewer');
      const vm = await viewer.call('GET', '/admin/v1/me');
      assert.equal(vm.status, 200);
      assert.equal(vm.body.user.id, viewer.userId);
      assert.deepEqual(vm.body.permissions, permissionsOf('viewer'));
      assert.deepEqual((await adminClient(t.baseUrl, 'nope')('GET', '/admin/v1/me')).body, D3_UNAUTHORIZED);
    });

    it('creates a user, issues a token shown once, and the token works with the user\'s role', async () => {
      const created = await admin('POST', '/admin/v1/users', { email: 'ops@shop.example', name: 'Olga Ops', role: 'operator', password: 'correct horse battery' });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.role, 'operator');
      assert.equal(created.body.has_password, true);
      assert.equal('password' in created.body, false);
      const [row] = await t.store.db.query<{ password_hash: string }>('SELECT password_hash FROM operator_users WHERE id = $1', [created.body.id]);
      assert.match(row!.password_hash, /^scrypt\$/);
      assert.equal(await verifyOperatorPassword('correct horse battery', row!.password_hash), true);
      assert.equal(await verifyOperatorPassword('wrong horse battery', row!.password_hash), false);

      const issued = await admin('POST', `/admin/v1/users/${created.body.id}/tokens`, { name: 'deploy script' });
      assert.equal(issued.status, 201, issued.text);
      assert.match(issued.body.token, /^pcop_[A-Za-z0-9_-]{43}$/);
      assert.equal(issued.body.token.startsWith(issued.body.prefix), true);
      assert.equal(issued.body.name, 'deploy script');

      const ops = adminClient(t.baseUrl, issued.body.token);
      const me = await ops('GET', '/admin/v1/me');
      assert.equal(me.body.user.email, 'ops@shop.example');
      assert.deepEqual(me.body.permissions, permissionsOf('operator'));
      // An operator may not manage users.
      assert.deepEqual((await ops('GET', '/admin/v1/users')).body, D3_FORBIDDEN);

      const list = await admin('GET', `/admin/v1/users/${created.body.id}/tokens`);
      assert.equal(list.status, 200);
      assert.equal(list.body.tokens.length, 1);
      assert.equal(list.text.includes(issued.body.token), false, 'a token list never shows the token');
      assert.deepEqual(Object.keys(list.body.tokens[0]).sort(), ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at', 'user_id']);
      assert.equal(list.body.tokens[0].last_used_at, clock.now().toISOString(), 'the use by GET /me was recorded');

      const users = await admin('GET', '/admin/v1/users');
      assert.deepEqual(users.body.users.map((u: { email: string }) => u.email).includes('ops@shop.example'), true);
      assert.equal((await admin('GET', `/admin/v1/users/${created.body.id}`)).body.name, 'Olga Ops');
    });

    it('records last use at most once a minute per token', async () => {
      const u = await operatorWithRole(t, 'support');
      const lastUsed = async () => (await t.store.db.query<{ last_used_at: Date | null }>('SELECT last_used_at FROM operator_tokens WHERE user_id = $1', [u.userId]))[0]!.last_used_at;
      await u.call('GET', '/admin/v1/me');
      const first = await lastUsed();
      assert.equal(first?.toISOString(), clock.now().toISOString());
      clock.advance(30_000);
      await u.call('GET', '/admin/v1/me');
      assert.equal((await lastUsed())?.toISOString(), first?.toISOString(), 'not rewritten within the minute');
      clock.advance(31_000);
      await u.call('GET', '/admin/v1/me');
      assert.equal((await lastUsed())?.toISOString(), clock.now().toISOString());
    });

    it('revokes a token (DELETE and POST .../revoke) so it answers 401 at once', async () => {
      const u = await operatorWithRole(t, 'viewer');
      const second = await admin('POST', `/admin/v1/users/${u.userId}/tokens`);
      assert.equal(second.status, 201, second.text);
      assert.equal(second.body.name, 'api');
      const tokens = (await admin('GET', `/admin/v1/users/${u.userId}/tokens`)).body.tokens as { id: string; prefix: string }[];
      const first = tokens.find((x) => u.token.startsWith(x.prefix))!;

      const revoked = await admin('DELETE', `/admin/v1/users/${u.userId}/tokens/${first.id}`);
      assert.equal(revoked.status, 200, revoked.text);
      assert.equal(revoked.body.revoked_at, clock.now().toISOString());
      assert.deepEqual((await u.call('GET', '/admin/v1/me')).body, D3_UNAUTHORIZED);
      const again = await admin('POST', `/admin/v1/users/${u.userId}/tokens/${first.id}/revoke`);
      assert.equal(again.status, 200);
      assert.equal(again.body.revoked_at, revoked.body.revoked_at, 'revoking again keeps the first revocation');

      const other = adminClient(t.baseUrl, second.body.token);
      assert.equal((await other('GET', '/admin/v1/me')).status, 200);
      assert.equal((await admin('POST', `/admin/v1/users/${u.userId}/tokens/${second.body.id}/revoke`)).status, 200);
      assert.equal((await other('GET', '/admin/v1/me')).status, 401);
      assert.deepEqual((await admin('DELETE', `/admin/v1/users/${u.userId}/tokens/not-a-uuid`)).body, D3_NOT_FOUND);
    });

    it('disables a user (all their tokens stop at once) and enables them again', async () => {
      const u = await operatorWithRole(t, 'support');
      const off = await admin('PATCH', `/admin/v1/users/${u.userId}`, { disabled: true });
      assert.equal(off.status, 200, off.text);
      assert.equal(off.body.disabled, true);
      assert.equal((await u.call('GET', '/admin/v1/me')).status, 401);
      assert.equal((await admin('PATCH', `/admin/v1/users/${u.userId}`, { disabled: false, role: 'operator', name: 'Promoted' })).status, 200);
      const me = await u.call('GET', '/admin/v1/me');
      assert.equal(me.body.user.role, 'operator');
      assert.equal(me.body.user.name, 'Promoted');
    });

    it('sets, changes and removes a user\'s password', async () => {
      const u = await operatorWithRole(t, 'viewer');
      const set = await admin('PATCH', `/admin/v1/users/${u.userId}`, { password: 'first password here' });
      assert.equal(set.body.has_password, true);
      const removed = await admin('PATCH', `/admin/v1/users/${u.userId}`, { password: null });
      assert.equal(removed.body.has_password, false);
      const [row] = await t.store.db.query<{ password_hash: string | null }>('SELECT password_hash FROM operator_users WHERE id = $1', [u.userId]);
      assert.equal(row!.password_hash, null);
      const log = await admin('GET', `/admin/v1/audit-log?object_id=${u.userId}`);
      assert.deepEqual(log.body.entries.map((e: { details: { password: string } }) => e.details.password), ['removed', 'changed']);
    });

    it('never lets the last enabled admin be demoted or disabled', async () => {
      const me = (await admin('GET', '/admin/v1/me')).body.user;
      const admins = (await admin('GET', '/admin/v1/users')).body.users.filter((u: { role: string; disabled: boolean }) => u.role === 'admin' && !u.disabled);
      assert.equal(admins.length, 1);
      for (const patch of [{ role: 'viewer' }, { disabled: true }]) {
        const res = await admin('PATCH', `/admin/v1/users/${me.id}`, patch);
        assert.equal(res.status, 400);
        assert.deepEqual(fieldErrors(res.body), [`${Object.keys(patch)[0]}: The last enabled admin can not be demoted or disabled.`]);
      }
      // With a second admin, the first may step down; then the second is the last one.
      const second = await admin('POST', '/admin/v1/users', { email: 'second-admin@shop.example', role: 'admin' });
      const token = (await admin('POST', `/admin/v1/users/${second.body.id}/tokens`, { name: 'x' })).body.token;
      const secondAdmin = adminClient(t.baseUrl, token);
      assert.equal((await secondAdmin('PATCH', `/admin/v1/users/${me.id}`, { role: 'operator' })).status, 200);
      assert.equal((await secondAdmin('PATCH', `/admin/v1/users/${second.body.id}`, { disabled: true })).status, 400);
      assert.equal((await secondAdmin('PATCH', `/admin/v1/users/${me.id}`, { role: 'admin' })).status, 200);
      // Two admins demoting each other at once: never both (the loser is refused as the last admin, or,
      // when it was demoted before its request was authorised, as a viewer).
      const both = await Promise.all([
        secondAdmin('PATCH', `/admin/v1/users/${me.id}`, { role: 'viewer' }),
        admin('PATCH', `/admin/v1/users/${second.body.id}`, { role: 'viewer' }),
      ]);
      assert.deepEqual(both.map((r) => r.status).filter((s) => s === 200), [200]);
      assert.ok(both.every((r) => [200, 400, 403].includes(r.status)));
      const left = await t.store.db.query<{ id: string }>("SELECT id FROM operator_users WHERE role = 'admin' AND NOT disabled");
      assert.equal(left.length, 1);
      // Whoever is left hands admin back to the bootstrap user, which the next tests use.
      const survivor = left[0]!.id === me.id ? admin : secondAdmin;
      assert.equal((await survivor('PATCH', `/admin/v1/users/${me.id}`, { role: 'admin' })).status, 200);
    });

    it('refuses users.manage to operator, support and viewer with 403, and unknown tokens with 401', async () => {
      for (const role of ['operator', 'support', 'viewer'] as const) {
        const u = await operatorWithRole(t, role);
        for (const [method, path, body] of [
          ['GET', '/admin/v1/users'], ['POST', '/admin/v1/users', { email: `x-${role}@example.com`, role: 'viewer' }],
          ['GET', `/admin/v1/users/${u.userId}`], ['PATCH', `/admin/v1/users/${u.userId}`, { role: 'admin' }],
          ['POST', `/admin/v1/users/${u.userId}/tokens`, {}], ['GET', `/admin/v1/users/${u.userId}/tokens`],
        ] as const) {
          const res = await u.call(method, path, body);
          assert.equal(res.status, 403, `${role} ${method} ${path}`);
          assert.deepEqual(res.body, D3_FORBIDDEN);
        }
      }
      assert.deepEqual((await adminClient(t.baseUrl, undefined)('GET', '/admin/v1/users')).body, D3_UNAUTHORIZED);
    });

    it('answers malformed bodies with D3 400s, unknown ids with 404, never a 5xx', async () => {
      const cases: [string, string, unknown, string[]][] = [
        ['POST', '/admin/v1/users', {}, ['email: This value should not be blank.', 'role: This value should not be blank.']],
        ['POST', '/admin/v1/users', { email: 'not-an-email', role: 'root' }, ['email: This value is not a valid email address.', 'role: The value you selected is not a valid choice.']],
        ['POST', '/admin/v1/users', { email: 'a@b.example', role: 'viewer', password: 'short' }, ['password: This value is too short. It should have 12 characters or more.']],
        ['POST', '/admin/v1/users', { email: 'c@b.example', role: 'viewer', password: 'Password-Password' }, [`password: ${TOO_COMMON_USER_PASSWORD}`]],
        ['POST', '/admin/v1/users', { email: 'd@b.example', role: 'viewer', password: '123456789012' }, [`password: ${TOO_COMMON_USER_PASSWORD}`]],
        ['POST', '/admin/v1/users', { email: 'ops@shop.example', role: 'viewer' }, ['email: This value is already used.']],
        ['POST', '/admin/v1/users', { email: 'OPS@shop.example', role: 'viewer' }, ['email: This value is already used.']],
        ['POST', '/admin/v1/users', '{"email":', ['request: This value should be valid JSON.']],
        ['POST', '/admin/v1/users', [1, 2], []],
        ['POST', '/admin/v1/users', { email: 'z@b.example', role: 'viewer', name: 'x\u0000y' }, []],
      ];
      for (const [method, path, body, messages] of cases) {
        const res = await admin(method, path, body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.equal(res.body.error_message, 'Request data is invalid.');
        if (messages.length) assert.deepEqual(fieldErrors(res.body), messages);
      }
      const someone = await operatorWithRole(t, 'viewer');
      for (const body of [{}, { role: 'god' }, { disabled: 'yes' }, { surprise: 1 }, { password: 12 }]) {
        const res = await admin('PATCH', `/admin/v1/users/${someone.userId}`, body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      }
      // The same rule when an admin changes a password: a common one is refused, the password kept.
      for (const password of ['Correct Horse Battery Staple', 'abcabcabcabcabc', 'qwerty1234567890']) {
        const res = await admin('PATCH', `/admin/v1/users/${someone.userId}`, { password });
        assert.equal(res.status, 400, `${password}: ${res.text}`);
        assert.deepEqual(fieldErrors(res.body), [`password: ${TOO_COMMON_USER_PASSWORD}`]);
      }
      assert.equal((await t.store.db.query('SELECT 1 FROM operator_users WHERE id = $1 AND password_hash IS NULL', [someone.userId])).length, 1);
      assert.equal((await admin('POST', `/admin/v1/users/${someone.userId}/tokens`, { name: '' })).status, 400);
      for (const id of ['nope', '00000000-0000-7000-8000-000000000000', 'x'.repeat(900)]) {
        assert.deepEqual((await admin('GET', `/admin/v1/users/${id}`)).body, D3_NOT_FOUND);
        assert.deepEqual((await admin('PATCH', `/admin/v1/users/${id}`, { name: 'n' })).body, D3_NOT_FOUND);
        assert.deepEqual((await admin('POST', `/admin/v1/users/${id}/tokens`, {})).body, D3_NOT_FOUND);
      }
    });

    it('writes every change to the audit log without passwords or tokens', async () => {
      const res = await admin('GET', '/admin/v1/audit-log?object_type=user&limit=200');
      assert.equal(res.status, 200, res.text);
      const actions = new Set(res.body.entries.map((e: { action: string }) => e.action));
      for (const a of ['user.bootstrap', 'user.create', 'user.update']) assert.ok(actions.has(a), a);
      const tokens = await admin('GET', '/admin/v1/audit-log?object_type=token&limit=200');
      assert.ok(tokens.body.entries.some((e: { action: string }) => e.action === 'token.revoke'));
      const all = await t.store.db.query<{ row: string }>('SELECT row_to_json(a)::text AS row FROM audit_log a');
      const text = all.map((r) => r.row).join('\n');
      assert.equal(text.includes('correct horse battery'), false);
      assert.equal(text.includes('scrypt$'), false);
      assert.equal(text.includes(BOOTSTRAP), false);
    });
  });
}
