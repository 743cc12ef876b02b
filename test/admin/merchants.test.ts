/** The merchants resource of the admin API: create, list, read, change, disable, roles, D3 errors, audit. */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminClient, operatorWithRole, fieldErrors, D3_FORBIDDEN, D3_NOT_FOUND, type AdminCall } from './support.ts';

const BOOTSTRAP = 'pcop_bootstrap-token-for-merchants-test';

for (const { kind, skip } of await storeKinds()) {
  describe(`admin: merchants (${kind})`, { skip }, () => {
    let t: TestGateway;
    let admin: AdminCall;
    before(async () => {
      t = await startTestGateway(kind, { adminToken: BOOTSTRAP });
      admin = adminClient(t.baseUrl, BOOTSTRAP);
    });
    after(async () => t?.close());

    it('creates a merchant and shows its password and webhook signing secret once', async () => {
      const res = await admin('POST', '/admin/v1/merchants', { name: 'Second Shop', notification_url: 'https://shop.example/cb', sandbox: false, hash_algorithm: 'sha256' });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), [
        'created_at', 'disabled', 'hash_algorithm', 'id', 'live_merchant_id', 'merchant_key', 'mode', 'name', 'notification_url', 'password', 'previous_password_valid_until', 'sandbox', 'signing_secret', 'test_merchant_id', 'updated_at',
      ]);
      assert.match(res.body.signing_secret, /^whsec_[A-Za-z0-9+/]{20,}={0,2}$/);
      assert.match(res.body.merchant_key, /^[0-9a-f]{32}$/);
      assert.match(res.body.password, /^[0-9a-f]{48}$/);
      assert.equal(res.body.sandbox, false);
      assert.equal(res.body.hash_algorithm, 'sha256');
      assert.equal(res.body.disabled, false);
      const again = await admin('GET', `/admin/v1/merchants/${res.body.id}`);
      assert.equal(again.status, 200);
      assert.equal(again.text.includes(res.body.password), false, 'never shown again');
      assert.equal(again.text.includes(res.body.signing_secret), false, 'the signing secret is never shown again');
      assert.equal('password' in again.body, false);
      assert.equal(again.body.merchant_key, res.body.merchant_key);

      const defaults = await admin('POST', '/admin/v1/merchants', { name: 'Defaults' });
      assert.equal(defaults.body.sandbox, true);
      assert.equal(defaults.body.hash_algorithm, 'md5');
      assert.equal(defaults.body.notification_url, null);
    });

    it('takes an explicit key and password for a migration, refusing a key in use', async () => {
      const body = { name: 'Migrated', merchant_key: `migrated-${Date.now()}`, password: 'old-platform-password-1' };
      const res = await admin('POST', '/admin/v1/merchants', body);
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.merchant_key, body.merchant_key);
      assert.equal(res.body.password, body.password);
      const dup = await admin('POST', '/admin/v1/merchants', { ...body, name: 'Again' });
      assert.equal(dup.status, 400);
      assert.deepEqual(fieldErrors(dup.body), ['merchant_key: This value is already used.']);
      assert.deepEqual(fieldErrors((await admin('POST', '/admin/v1/merchants', { name: 'x', merchant_key: t.merchant.key })).body), ['merchant_key: This value is already used.']);
    });

    it('lists newest first, searches by name or exact key, pages by cursor', async () => {
      const tag = `Paged-${Date.now()}`;
      const made: { id: string; merchant_key: string }[] = [];
      for (let i = 0; i < 5; i += 1) made.push((await admin('POST', '/admin/v1/merchants', { name: `${tag} shop ${i}` })).body);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await admin('GET', `/admin/v1/merchants?search=${encodeURIComponent(tag.toLowerCase())}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(page.status, 200, page.text);
        assert.ok(page.body.merchants.length <= 2);
        seen.push(...page.body.merchants.map((m: { id: string }) => m.id));
        cursor = page.body.next_cursor;
      } while (cursor);
      assert.deepEqual(seen, made.map((m) => m.id).reverse());
      const byKey = await admin('GET', `/admin/v1/merchants?search=${made[2]!.merchant_key}`);
      assert.deepEqual(byKey.body.merchants.map((m: { id: string }) => m.id), [made[2]!.id]);
      const wildcard = await admin('GET', '/admin/v1/merchants?search=%25');
      assert.equal(wildcard.body.merchants.length, 0, 'a % in the search is a literal');
      const all = await admin('GET', '/admin/v1/merchants?limit=200');
      assert.ok(all.body.merchants.some((m: { id: string }) => m.id === t.merchant.id));
    });

    it('changes name, notification URL, sandbox and hash algorithm, auditing only what changed', async () => {
      const m = (await admin('POST', '/admin/v1/merchants', { name: 'Before', notification_url: 'https://a.example/cb' })).body;
      const res = await admin('PATCH', `/admin/v1/merchants/${m.id}`, { name: 'After', notification_url: 'https://b.example/cb', hash_algorithm: 'sha256', sandbox: true });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.name, 'After');
      assert.equal(res.body.notification_url, 'https://b.example/cb');
      assert.equal(res.body.hash_algorithm, 'sha256');
      const cleared = await admin('PATCH', `/admin/v1/merchants/${m.id}`, { notification_url: null });
      assert.equal(cleared.body.notification_url, null);
      const log = await admin('GET', `/admin/v1/audit-log?object_type=merchant&object_id=${m.id}`);
      assert.deepEqual(log.body.entries.map((e: { action: string }) => e.action), ['merchant.update', 'merchant.update', 'merchant.create']);
      const [second, first] = log.body.entries;
      assert.deepEqual(first.before, { name: 'Before', notification_url: 'https://a.example/cb', hash_algorithm: 'md5' });
      assert.deepEqual(first.after, { name: 'After', notification_url: 'https://b.example/cb', hash_algorithm: 'sha256' });
      assert.deepEqual(second.after, { notification_url: null });
      assert.equal(first.user.name, 'admin@localhost');
      const text = JSON.stringify(log.body);
      assert.equal(text.includes(m.password), false, 'no password in the audit log');
    });

    it('rotates the password: shown once, audited without either password', async () => {
      const m = (await admin('POST', '/admin/v1/merchants', { name: 'Rotating' })).body;
      const rotated = await admin('POST', `/admin/v1/merchants/${m.id}/password`, { grace_hours: 48 });
      assert.equal(rotated.status, 200, rotated.text);
      assert.deepEqual(Object.keys(rotated.body).sort(), ['id', 'merchant_key', 'password', 'previous_password_valid_until']);
      const given = await admin('POST', `/admin/v1/merchants/${m.id}/password`, { password: 'chosen-by-merchant-1', grace_hours: 0 });
      assert.equal(given.body.password, 'chosen-by-merchant-1');
      assert.equal(given.body.previous_password_valid_until, null);
      const same = await admin('POST', `/admin/v1/merchants/${m.id}/password`, { password: 'chosen-by-merchant-1' });
      assert.deepEqual(fieldErrors(same.body), ['password: This value should be different from the current password.']);
      const log = await admin('GET', `/admin/v1/audit-log?action=merchant.password.rotate&object_id=${m.id}`);
      assert.deepEqual(log.body.entries.map((e: { details: { grace_hours: number } }) => e.details.grace_hours), [0, 48]);
      const text = JSON.stringify(log.body);
      for (const secret of [m.password, rotated.body.password, 'chosen-by-merchant-1']) assert.equal(text.includes(secret), false);
    });

    it('lets operator write, support and viewer only read (403 on every write)', async () => {
      const m = (await admin('POST', '/admin/v1/merchants', { name: 'Roles' })).body;
      const operator = await operatorWithRole(t, 'operator');
      assert.equal((await operator.call('POST', '/admin/v1/merchants', { name: 'By operator' })).status, 201);
      assert.equal((await operator.call('PATCH', `/admin/v1/merchants/${m.id}`, { name: 'Renamed' })).status, 200);
      for (const role of ['support', 'viewer'] as const) {
        const u = await operatorWithRole(t, role);
        assert.equal((await u.call('GET', '/admin/v1/merchants')).status, 200);
        assert.equal((await u.call('GET', `/admin/v1/merchants/${m.id}`)).status, 200);
        for (const [method, path, body] of [
          ['POST', '/admin/v1/merchants', { name: 'x' }], ['PATCH', `/admin/v1/merchants/${m.id}`, { name: 'x' }],
          ['POST', `/admin/v1/merchants/${m.id}/disable`], ['POST', `/admin/v1/merchants/${m.id}/enable`],
          ['POST', `/admin/v1/merchants/${m.id}/password`, {}],
        ] as const) {
          const res = await u.call(method, path, body);
          assert.equal(res.status, 403, `${role} ${method} ${path}`);
          assert.deepEqual(res.body, D3_FORBIDDEN);
        }
      }
      assert.equal((await adminClient(t.baseUrl, 'bad')('GET', '/admin/v1/merchants')).status, 401);
    });

    it('answers malformed input with D3 400s and unknown ids with 404, never a 5xx', async () => {
      const cases: [string, unknown, string[]][] = [
        ['POST', {}, ['name: This value should not be blank.']],
        ['POST', { name: '' }, ['name: This value should not be blank.']],
        ['POST', { name: 'x', notification_url: 'ftp://x.example/cb' }, ['notification_url: This value is not a valid URL.']],
        ['POST', { name: 'x', notification_url: 'not a url' }, ['notification_url: This value is not a valid URL.']],
        // Issue 12's callback target rule: no internal address (the test gateway allows only loopback).
        ['POST', { name: 'x', notification_url: 'http://169.254.169.254/latest/meta-data' }, ['notification_url: This URL must point to a public address (an operator allows an internal host with CALLBACK_ALLOWED_PRIVATE_HOSTS).']],
        ['POST', { name: 'x', notification_url: 'http://10.0.0.5/cb' }, ['notification_url: This URL must point to a public address (an operator allows an internal host with CALLBACK_ALLOWED_PRIVATE_HOSTS).']],
        ['POST', { name: 'x', notification_url: 'http://intranet/cb' }, ['notification_url: This URL must point to a public address (an operator allows an internal host with CALLBACK_ALLOWED_PRIVATE_HOSTS).']],
        ['POST', { name: 'x', hash_algorithm: 'sha1' }, ['hash_algorithm: The value you selected is not a valid choice.']],
        ['POST', { name: 'x', sandbox: 'yes' }, ['sandbox: This value should be of type bool.']],
        ['POST', { name: 'x', password: 'short' }, ['password: This value is too short. It should have 16 characters or more.']],
        ['POST', { name: 'x', merchant_key: 'has space' }, ['merchant_key: This value is not valid.']],
        ['POST', { name: 'x', extra: 1 }, []],
        ['POST', '{"name"', ['request: This value should be valid JSON.']],
        ['POST', 'null', []],
        ['POST', { name: 'x\u0000' }, []],
      ];
      for (const [method, body, messages] of cases) {
        const res = await admin(method, '/admin/v1/merchants', body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.equal(res.body.error_message, 'Request data is invalid.');
        if (messages.length) assert.deepEqual(fieldErrors(res.body), messages);
      }
      const m = (await admin('POST', '/admin/v1/merchants', { name: 'Malformed' })).body;
      const internal = await admin('PATCH', `/admin/v1/merchants/${m.id}`, { notification_url: 'http://[::ffff:10.1.2.3]/cb' });
      assert.deepEqual(fieldErrors(internal.body), ['notification_url: This URL must point to a public address (an operator allows an internal host with CALLBACK_ALLOWED_PRIVATE_HOSTS).']);
      for (const body of [{}, { notification_url: 'javascript:alert(1)' }, { hash_algorithm: 'MD5' }, { password: 'x' }, { disabled: true }]) {
        assert.equal((await admin('PATCH', `/admin/v1/merchants/${m.id}`, body)).status, 400, JSON.stringify(body));
      }
      for (const body of [{ grace_hours: -1 }, { grace_hours: 721 }, { grace_hours: 1.5 }, { grace_hours: '24' }, { password: 'short' }]) {
        assert.equal((await admin('POST', `/admin/v1/merchants/${m.id}/password`, body)).status, 400, JSON.stringify(body));
      }
      for (const q of ['limit=0', 'limit=201', 'limit=x', 'cursor=!!!', 'cursor=WyJhIiwiYiJd', 'disabled=maybe', 'surprise=1']) {
        const res = await admin('GET', `/admin/v1/merchants?${q}`);
        assert.equal(res.status, 400, `${q}: ${res.text}`);
      }
      for (const id of ['nope', '00000000-0000-7000-8000-000000000000', '%00', 'x'.repeat(900)]) {
        assert.deepEqual((await admin('GET', `/admin/v1/merchants/${id}`)).body, D3_NOT_FOUND);
        assert.deepEqual((await admin('PATCH', `/admin/v1/merchants/${id}`, { name: 'n' })).body, D3_NOT_FOUND);
        assert.deepEqual((await admin('POST', `/admin/v1/merchants/${id}/disable`)).body, D3_NOT_FOUND);
        assert.deepEqual((await admin('POST', `/admin/v1/merchants/${id}/password`)).body, D3_NOT_FOUND);
      }
    });

    it('filters the audit log by user, action, object and date, newest first, paged by cursor', async () => {
      const op = await operatorWithRole(t, 'operator');
      const made = (await op.call('POST', '/admin/v1/merchants', { name: 'Audited' })).body;
      await op.call('POST', `/admin/v1/merchants/${made.id}/disable`);
      await op.call('POST', `/admin/v1/merchants/${made.id}/enable`);
      const byUser = await admin('GET', `/admin/v1/audit-log?user_id=${op.userId}`);
      assert.deepEqual(byUser.body.entries.map((e: { action: string }) => e.action), ['merchant.enable', 'merchant.disable', 'merchant.create']);
      assert.deepEqual(byUser.body.entries[1].before, { disabled: false });
      assert.deepEqual(byUser.body.entries[1].after, { disabled: true });
      const byAction = await admin('GET', `/admin/v1/audit-log?action=merchant.disable&object_id=${made.id}`);
      assert.equal(byAction.body.entries.length, 1);
      const at = byAction.body.entries[0].at as string;
      assert.equal((await admin('GET', `/admin/v1/audit-log?user_id=${op.userId}&from=${encodeURIComponent(at)}&to=${encodeURIComponent(at)}`)).body.entries.length, 0, 'to is exclusive');
      const later = new Date(Date.parse(at) + 3_600_000).toISOString();
      assert.equal((await admin('GET', `/admin/v1/audit-log?user_id=${op.userId}&from=${later}`)).body.entries.length, 0);
      const pages: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await admin('GET', `/admin/v1/audit-log?user_id=${op.userId}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
        pages.push(...page.body.entries.map((e: { action: string }) => e.action));
        cursor = page.body.next_cursor;
      } while (cursor);
      assert.deepEqual(pages, ['merchant.enable', 'merchant.disable', 'merchant.create']);
      for (const q of ['from=yesterday', 'to=2026-13-45', 'cursor=abc', 'limit=500']) {
        const res = await admin('GET', `/admin/v1/audit-log?${q}`);
        assert.equal(res.status, 400, `${q}: ${res.text}`);
      }
      for (const role of ['support', 'viewer'] as const) assert.equal((await (await operatorWithRole(t, role)).call('GET', '/admin/v1/audit-log')).status, 200);
    });
  });
}
