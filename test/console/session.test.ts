/**
 * The console's sign-in over HTTP on both stores (issue 14): e-mail and password open a session stored in the
 * database; the cookie is HttpOnly, SameSite=Strict, scoped to /admin and Secure behind TLS; every write the
 * cookie authenticates needs the CSRF header; roles still decide; idle sessions end; sign-out ends it; failed
 * sign-ins are rate-limited. Also the /admin static answers (CSP, client routes, API 404s) and GET /admin/v1/stats.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminClient, D3_FORBIDDEN, D3_UNAUTHORIZED } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { ensureConsoleBuilt } from './support.ts';

const ADMIN = 'console-session-admin-token';
const PASSWORD = 'a sturdy console phrase 2026';

interface Answer { status: number; headers: Headers; text: string; body: any }

async function request(t: TestGateway, method: string, path: string, opts: { cookie?: string; csrf?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.csrf) headers['x-csrf-token'] = opts.csrf;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(t.baseUrl + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), redirect: 'manual' });
  const text = await res.text();
  let body: any;
  try { body = JSON.parse(text); } catch { body = undefined; }
  return { status: res.status, headers: res.headers, text, body };
}

const cookieOf = (res: Answer) => (res.headers.get('set-cookie') ?? '').split(';')[0]!;

for (const { kind, skip } of await storeKinds()) {
  describe(`console: sessions (${kind})`, { skip }, () => {
    let t: TestGateway;
    const users = {} as Record<'operator' | 'support', string>;

    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN });
      const admin = adminClient(t.baseUrl, ADMIN);
      for (const role of ['operator', 'support'] as const) {
        const email = `${role}-${kind}@example.com`;
        const res = await admin('POST', '/admin/v1/users', { email, role, password: PASSWORD });
        assert.equal(res.status, 201, res.text);
        users[role] = email;
      }
    });
    after(async () => t?.close());

    const signIn = (email: string, password = PASSWORD, headers?: Record<string, string>) => request(t, 'POST', '/admin/v1/session', { body: { email, password }, headers });

    it('signs in with e-mail and password: HttpOnly SameSite=Strict cookie on /admin, CSRF token and permissions in the answer', async () => {
      const res = await signIn(users.operator.toUpperCase());
      assert.equal(res.status, 201, res.text);
      const cookie = res.headers.get('set-cookie')!;
      assert.match(cookie, /^portcullis_session=[A-Za-z0-9_-]{43}; Path=\/admin; HttpOnly; SameSite=Strict; Max-Age=43200$/);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.body.user.role, 'operator');
      assert.ok(res.body.permissions.includes('payments.act'));
      assert.ok(!res.body.permissions.includes('users.manage'));
      assert.equal(res.body.idle_timeout_seconds, 1800);
      assert.match(res.body.csrf_token, /^[A-Za-z0-9_-]{32}$/);
      assert.ok(!res.text.includes(cookieOf(res).split('=')[1]!), 'the cookie secret is not in the body');
    });

    it('sets Secure behind TLS (X-Forwarded-Proto: https)', async () => {
      const res = await signIn(users.operator, PASSWORD, { 'x-forwarded-proto': 'https' });
      assert.equal(res.status, 201, res.text);
      assert.match(res.headers.get('set-cookie')!, /; Secure$/);
    });

    it('refuses a wrong password and an unknown e-mail alike (D3 401), and a malformed body (D3 400)', async () => {
      const expected = { http_code: 401, error_code: '100000', error_message: 'Authorization: E-mail or password is not valid.' };
      for (const res of [await signIn(users.operator, 'wrong password!!'), await signIn('nobody@example.com')]) {
        assert.equal(res.status, 401, res.text);
        assert.deepEqual(res.body, expected);
        assert.equal(res.headers.get('set-cookie'), null);
      }
      const bad = await request(t, 'POST', '/admin/v1/session', { body: { email: 'x' } });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.error_message, 'Request data is invalid.');
    });

    it('the cookie authenticates the admin API; writes need the CSRF header; the role still decides', async () => {
      const op = await signIn(users.operator);
      const cookie = cookieOf(op);
      const me = await request(t, 'GET', '/admin/v1/me', { cookie });
      assert.equal(me.status, 200, me.text);
      assert.equal(me.body.user.email, users.operator);

      const body = { name: `Console shop ${kind}` };
      const noCsrf = await request(t, 'POST', '/admin/v1/merchants', { cookie, body });
      assert.equal(noCsrf.status, 403, noCsrf.text);
      assert.deepEqual(noCsrf.body, { http_code: 403, error_code: '100000', error_message: 'Authorization: CSRF token is missing or not valid.' });
      const wrongCsrf = await request(t, 'POST', '/admin/v1/merchants', { cookie, body, csrf: 'x'.repeat(32) });
      assert.equal(wrongCsrf.status, 403, wrongCsrf.text);
      const created = await request(t, 'POST', '/admin/v1/merchants', { cookie, body, csrf: op.body.csrf_token });
      assert.equal(created.status, 201, created.text);

      const support = await signIn(users.support);
      const refused = await request(t, 'POST', '/admin/v1/merchants', { cookie: cookieOf(support), body, csrf: support.body.csrf_token });
      assert.equal(refused.status, 403, refused.text);
      assert.deepEqual(refused.body, D3_FORBIDDEN);
      assert.deepEqual(support.body.permissions, ['payments.read', 'payments.note', 'callbacks.read', 'callbacks.resend', 'merchants.read', 'mids.read', 'audit.read', 'risk.read', 'money.read', 'reconciliation.read']);

      const audit = await adminClient(t.baseUrl, ADMIN)('GET', `/admin/v1/audit-log?action=merchant.create`);
      assert.ok(audit.body.entries.some((e: any) => e.user.name === users.operator && e.object_id === created.body.id), 'the change is the signed-in user\'s');
    });

    it('GET /admin/v1/session answers the session (the console reloading); an idle session ends', async () => {
      const op = await signIn(users.operator);
      const cookie = cookieOf(op);
      const again = await request(t, 'GET', '/admin/v1/session', { cookie });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.csrf_token, op.body.csrf_token);
      // Thirty-one minutes without a request:
      await t.store.db.query("UPDATE console_sessions SET last_seen_at = now() - interval '31 minutes' WHERE user_id = (SELECT id FROM operator_users WHERE email = $1)", [users.operator]);
      const idle = await request(t, 'GET', '/admin/v1/session', { cookie });
      assert.equal(idle.status, 401, idle.text);
      assert.deepEqual(idle.body, D3_UNAUTHORIZED);
      assert.match(idle.headers.get('set-cookie')!, /^portcullis_session=; .*Max-Age=0/);
      assert.equal((await request(t, 'GET', '/admin/v1/me', { cookie })).status, 401);
    });

    it('signs out: DELETE needs the CSRF header, then the cookie is worth nothing', async () => {
      const op = await signIn(users.operator);
      const cookie = cookieOf(op);
      assert.equal((await request(t, 'DELETE', '/admin/v1/session', { cookie })).status, 403);
      const out = await request(t, 'DELETE', '/admin/v1/session', { cookie, csrf: op.body.csrf_token });
      assert.equal(out.status, 204, out.text);
      assert.match(out.headers.get('set-cookie')!, /Max-Age=0/);
      assert.equal((await request(t, 'GET', '/admin/v1/me', { cookie })).status, 401);
    });

    it('a sign-in deletes the sessions that can no longer be used (signed out, idle, past their end), not live ones', async () => {
      const live = cookieOf(await signIn(users.support));
      const idle = cookieOf(await signIn(users.support));
      const expired = cookieOf(await signIn(users.support));
      const out = await signIn(users.support);
      assert.equal((await request(t, 'DELETE', '/admin/v1/session', { cookie: cookieOf(out), csrf: out.body.csrf_token })).status, 204);
      const digestOf = (cookie: string) => createHash('sha256').update(cookie.split('=')[1]!).digest();
      const age = async (cookie: string, set: string) => t.store.db.query(`UPDATE console_sessions SET ${set} WHERE secret_digest = $1`, [digestOf(cookie)]);
      await age(idle, "last_seen_at = now() - interval '31 minutes'");
      await age(expired, "expires_at = now() - interval '1 second'");
      const exists = async (cookie: string) => (await t.store.db.query('SELECT 1 FROM console_sessions WHERE secret_digest = $1', [digestOf(cookie)])).length === 1;
      for (const cookie of [live, idle, expired, cookieOf(out)]) assert.ok(await exists(cookie), 'kept until the next sign-in');

      const next = cookieOf(await signIn(users.operator));
      assert.deepEqual(
        await Promise.all([live, idle, expired, cookieOf(out), next].map(exists)),
        [true, false, false, false, true],
        'live sessions and the new one stay; the dead ones are gone',
      );
      assert.equal((await request(t, 'GET', '/admin/v1/me', { cookie: live })).status, 200, 'the live session still works');
      assert.equal((await request(t, 'GET', '/admin/v1/me', { cookie: idle })).status, 401);
    });

    it('a new password ends the user\'s console sessions; the new password signs in', async () => {
      const admin = adminClient(t.baseUrl, ADMIN);
      const created = await admin('POST', '/admin/v1/users', { email: `rotating-${kind}@example.com`, role: 'viewer', password: PASSWORD });
      const cookie = cookieOf(await signIn(`rotating-${kind}@example.com`));
      assert.equal((await request(t, 'GET', '/admin/v1/me', { cookie })).status, 200);
      assert.equal((await admin('PATCH', `/admin/v1/users/${created.body.id}`, { password: 'a brand new passphrase' })).status, 200);
      assert.equal((await request(t, 'GET', '/admin/v1/me', { cookie })).status, 401, 'the old session is over');
      assert.equal((await signIn(`rotating-${kind}@example.com`)).status, 401, 'the old password no longer signs in');
      assert.equal((await signIn(`rotating-${kind}@example.com`, 'a brand new passphrase')).status, 201);
    });

    it('a disabled user\'s sessions stop working at once', async () => {
      const admin = adminClient(t.baseUrl, ADMIN);
      const created = await admin('POST', '/admin/v1/users', { email: `leaver-${kind}@example.com`, role: 'viewer', password: PASSWORD });
      const session = await signIn(`leaver-${kind}@example.com`);
      const cookie = cookieOf(session);
      assert.equal((await request(t, 'GET', '/admin/v1/me', { cookie })).status, 200);
      assert.equal((await admin('PATCH', `/admin/v1/users/${created.body.id}`, { disabled: true })).status, 200);
      assert.equal((await request(t, 'GET', '/admin/v1/me', { cookie })).status, 401);
    });

    it('GET /admin/v1/stats: payments, approval rate, approved volume per currency, failing callbacks, per merchant', async () => {
      const m = await t.addMerchant();
      assert.equal((await sale(t, { order_amount: '10.00', order_currency: 'EUR' }, m)).body.status, 'SETTLED');
      assert.equal((await sale(t, { order_amount: '2.50', order_currency: 'EUR' }, m)).body.status, 'SETTLED');
      assert.equal((await sale(t, { order_amount: '7.00', order_currency: 'USD', card_number: '5555555555554444' }, m)).body.status, 'DECLINED');
      const op = await signIn(users.support);
      const res = await request(t, 'GET', `/admin/v1/stats?since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`, { cookie: cookieOf(op) });
      assert.equal(res.status, 200, res.text);
      const mine = res.body.merchants.find((x: any) => x.merchant_id === m.id);
      assert.deepEqual(mine, {
        merchant_id: m.id, merchant_name: 'Test Shop', payments: 3, approved: 2, declined: 1, approval_rate: 0.6667,
        volume: [{ currency: 'EUR', amount: '12.50', payments: 2 }], callbacks_failing: 0,
      });
      const bad = await request(t, 'GET', '/admin/v1/stats?since=yesterday', { cookie: cookieOf(op) });
      assert.equal(bad.status, 400, bad.text);
    });

    it('serves the console at /admin under a strict CSP; client routes get the page; unknown API paths a D3 404', async () => {
      ensureConsoleBuilt();
      const page = await request(t, 'GET', '/admin');
      assert.equal(page.status, 200, page.text);
      assert.match(page.headers.get('content-type')!, /^text\/html/);
      assert.equal(page.headers.get('content-security-policy'), "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
      assert.equal(page.headers.get('x-frame-options'), 'DENY');
      assert.doesNotMatch(page.text, /<script>|<script(?![^>]*\bsrc=)[^>]*>|https?:\/\//, 'no inline script, nothing from elsewhere');
      const deep = await request(t, 'GET', '/admin/payments/some-id?status=settled');
      assert.equal(deep.status, 200);
      assert.equal(deep.text, page.text);
      const asset = page.text.match(/src="(\/admin\/assets\/[^"]+\.js)"/)![1]!;
      const js = await request(t, 'GET', asset);
      assert.equal(js.status, 200);
      assert.match(js.headers.get('content-type')!, /javascript/);
      assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const api404 = await request(t, 'GET', '/admin/v1/no-such-thing');
      assert.equal(api404.status, 404);
      assert.deepEqual(api404.body, { http_code: 404, error_code: '100000', error_message: 'Not found.' });
      assert.equal((await request(t, 'GET', '/admin/assets/missing.js')).status, 404);
    });
  });

  describe(`console: sign-in rate limit (${kind})`, { skip }, () => {
    let t: TestGateway;
    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN, rateLimits: { enabled: true, authFailures: 3, windowSeconds: 3600 } });
    });
    after(async () => t?.close());

    it('answers 429 with Retry-After once an IP failed too often', async () => {
      const statuses: number[] = [];
      let last: Answer | undefined;
      for (let i = 0; i < 5; i++) {
        last = await request(t, 'POST', '/admin/v1/session', { body: { email: `guess${i}@example.com`, password: 'not the password' } });
        statuses.push(last.status);
      }
      assert.deepEqual(statuses.slice(0, 3), [401, 401, 401]);
      assert.equal(statuses.at(-1), 429, last!.text);
      assert.ok(Number(last!.headers.get('retry-after')) >= 1);
    });
  });
}
