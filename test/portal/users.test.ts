/**
 * Merchant portal users and two-factor sign-in over HTTP on both stores (issue 30, items 1 and 2): an operator
 * invites through the admin API, the invitation arrives in the sandbox outbox, the invitee sets a password (the
 * common-password rule applies) once; an owner invites from the portal; a group's user sees its members; the last
 * owner stays; TOTP enrolment and sign-in with codes computed here (RFC 6238), each code once, recovery codes once,
 * for merchant and operator users; REQUIRE_TWO_FACTOR makes the set-up the only thing a session may do.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminClient, fieldErrors } from '../admin/support.ts';
import {
  PORTAL_PASSWORD, cookieOf, invitationToken, invitedUser, portalClient, portalSignIn, request, testClock, totp,
} from './support.ts';

const ADMIN = 'portal-users-admin-token';

for (const { kind, skip } of await storeKinds()) {
  describe(`portal: users and two-factor sign-in (${kind})`, { skip }, () => {
    let t: TestGateway;
    const clock = testClock();
    let other: { id: string };

    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN, clock });
      other = await t.addMerchant();
    });
    after(async () => t?.close());

    it('an operator invites a user: the e-mail with its link is in the sandbox outbox; the invitee sets the password once', async () => {
      const admin = adminClient(t.baseUrl, ADMIN);
      const email = `owner-${kind}@shop.example`;
      const created = await admin('POST', '/admin/v1/merchant-users', { email, name: 'Olivia Owner', role: 'owner', merchant_id: t.merchant.id });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.has_password, false);
      assert.equal(created.body.merchant_id, t.merchant.id);
      assert.ok(Date.parse(created.body.invitation_expires_at) > clock.now().getTime() + 6 * 86_400_000);
      const token = await invitationToken(t.baseUrl, email);

      const weak = await request(t.baseUrl, 'POST', '/portal/v1/invitation', { body: { token, password: 'Password-Password' } });
      assert.equal(weak.status, 400, weak.text);
      assert.match(fieldErrors(weak.body).join(), /^password: This password is too common/);
      const short = await request(t.baseUrl, 'POST', '/portal/v1/invitation', { body: { token, password: 'short' } });
      assert.equal(short.status, 400);
      const ok = await request(t.baseUrl, 'POST', '/portal/v1/invitation', { body: { token, password: PORTAL_PASSWORD } });
      assert.deepEqual([ok.status, ok.body], [200, { email }]);
      const again = await request(t.baseUrl, 'POST', '/portal/v1/invitation', { body: { token, password: 'another long passphrase' } });
      assert.equal(again.status, 400);
      assert.equal(again.body.error_message, 'This invitation is not valid: it was used, replaced or has expired.');

      const duplicate = await admin('POST', '/admin/v1/merchant-users', { email: email.toUpperCase(), role: 'viewer', merchant_id: other.id });
      assert.equal(duplicate.status, 400);
      const stored = await t.store.db.query<{ password_hash: string }>('SELECT password_hash FROM merchant_users WHERE email = $1', [email]);
      assert.match(stored[0]!.password_hash, /^scrypt\$/);
    });

    it('signs in: the cookie is HttpOnly, SameSite=Strict, on /portal; the answer names the merchant, role and CSRF token; a wrong password is refused', async () => {
      const email = `owner-${kind}@shop.example`;
      const res = await request(t.baseUrl, 'POST', '/portal/v1/session', { body: { email, password: PORTAL_PASSWORD } });
      assert.equal(res.status, 201, res.text);
      assert.match(res.headers.get('set-cookie')!, /^portcullis_portal=[A-Za-z0-9_-]{43}; Path=\/portal; HttpOnly; SameSite=Strict; Max-Age=43200$/);
      assert.deepEqual(res.body.merchants.map((m: { id: string }) => m.id), [t.merchant.id]);
      assert.equal(res.body.user.role, 'owner');
      assert.ok(res.body.permissions.includes('team.manage'));
      assert.equal(res.body.two_factor_enrolment_required, false);
      const me = await request(t.baseUrl, 'GET', '/portal/v1/session', { cookie: cookieOf(res) });
      assert.equal(me.body.user.email, email);
      const wrong = await request(t.baseUrl, 'POST', '/portal/v1/session', { body: { email, password: 'not the password at all' } });
      assert.equal(wrong.status, 401);
      // The console's cookie is not the portal's, and the other way round.
      const crossed = await request(t.baseUrl, 'GET', '/admin/v1/me', { cookie: cookieOf(res).replace('portcullis_portal', 'portcullis_session') });
      assert.equal(crossed.status, 401);
    });

    it('the owner invites from the portal (CSRF header required); other roles may not; another merchant\'s user is not found', async () => {
      const owner = await portalSignIn(t.baseUrl, `owner-${kind}@shop.example`);
      const call = portalClient(t.baseUrl, owner);
      const noCsrf = await request(t.baseUrl, 'POST', '/portal/v1/team', { cookie: owner.cookie, body: { email: `dev-${kind}@shop.example`, role: 'developer' } });
      assert.equal(noCsrf.status, 403);
      const invited = await call('POST', '/portal/v1/team', { email: `dev-${kind}@shop.example`, role: 'developer' });
      assert.equal(invited.status, 201, invited.text);
      assert.equal(invited.body.merchant_id, t.merchant.id);
      await invitationToken(t.baseUrl, `dev-${kind}@shop.example`);

      const viewer = await invitedUser(t, ADMIN, { role: 'viewer' });
      const viewerCall = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, viewer.email));
      assert.equal((await viewerCall('POST', '/portal/v1/team', { email: `x-${kind}@shop.example`, role: 'viewer' })).status, 403);
      assert.equal((await viewerCall('GET', '/portal/v1/team')).status, 200);

      const stranger = await invitedUser(t, ADMIN, { role: 'viewer', merchantId: other.id });
      assert.equal((await call('PATCH', `/portal/v1/team/${stranger.id}`, { role: 'owner' })).status, 404);
      const team = await call('GET', '/portal/v1/team');
      assert.ok(!team.body.users.some((u: { id: string }) => u.id === stranger.id));
      assert.ok(team.body.users.some((u: { email: string; has_password: boolean; invitation_expires_at: string | null }) => u.email === `dev-${kind}@shop.example` && !u.has_password && u.invitation_expires_at));

      const demote = await call('PATCH', `/portal/v1/team/${owner.body.user.id}`, { role: 'viewer' });
      assert.equal(demote.status, 400);
      assert.deepEqual(fieldErrors(demote.body), ['role: The last enabled owner can not be demoted or disabled.']);

      const audit = await t.store.db.query<{ action: string; merchant_id: string; user_name: string }>(
        "SELECT action, merchant_id, user_name FROM audit_log WHERE action = 'merchant_user.invite' AND object_id = $1", [invited.body.id]);
      assert.deepEqual(audit, [{ action: 'merchant_user.invite', merchant_id: t.merchant.id, user_name: `merchant:owner-${kind}@shop.example` }]);
    });

    it('a group\'s user sees every member merchant', async () => {
      const admin = adminClient(t.baseUrl, ADMIN);
      const group = await admin('POST', '/admin/v1/merchant-groups', { name: 'Two shops', merchant_ids: [t.merchant.id, other.id] });
      assert.equal(group.status, 201, group.text);
      const user = await invitedUser(t, ADMIN, { role: 'finance', groupId: group.body.id });
      const session = await portalSignIn(t.baseUrl, user.email);
      assert.deepEqual(session.body.merchants.map((m: { id: string }) => m.id).sort(), [t.merchant.id, other.id].sort());
      const unknown = await admin('POST', '/admin/v1/merchant-groups', { name: 'Bad', merchant_ids: ['00000000-0000-7000-8000-000000000000'] });
      assert.equal(unknown.status, 400);
    });

    it('TOTP: set up with a QR code, confirmed with a code computed here; then sign-in needs a code, each code works once, recovery codes once; the secret is sealed', async () => {
      const user = await invitedUser(t, ADMIN, { role: 'support' });
      const session = await portalSignIn(t.baseUrl, user.email);
      const call = portalClient(t.baseUrl, session);
      const enrol = await call('POST', '/portal/v1/two-factor/enrolment');
      assert.equal(enrol.status, 201, enrol.text);
      assert.match(enrol.body.qr_svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      assert.match(enrol.body.otpauth_uri, /^otpauth:\/\/totp\/Portcullis:.*secret=[A-Z2-7]+/);
      const secret: string = enrol.body.secret;
      const stored = await t.store.db.query<{ secret: unknown }>('SELECT secret FROM two_factor WHERE id = $1', [`merchant:${user.id}`]);
      assert.ok(!JSON.stringify(stored[0]!.secret).includes(secret), 'the TOTP secret is sealed at rest');

      const wrong = await call('POST', '/portal/v1/two-factor/enrolment/confirm', { code: totp(secret, new Date(clock.now().getTime() - 10 * 60_000)) });
      assert.equal(wrong.status, 400);
      const confirmed = await call('POST', '/portal/v1/two-factor/enrolment/confirm', { code: totp(secret, clock.now()) });
      assert.equal(confirmed.status, 201, confirmed.text);
      assert.equal(confirmed.body.recovery_codes.length, 10);
      assert.deepEqual((await call('GET', '/portal/v1/two-factor')).body, { enabled: true, mandatory: false, recovery_codes_left: 10 });

      const noCode = await request(t.baseUrl, 'POST', '/portal/v1/session', { body: { email: user.email, password: PORTAL_PASSWORD } });
      assert.equal(noCode.status, 401);
      assert.equal(noCode.body.error_message, 'Authorization: Enter the code of your authenticator app (or a recovery code).');
      // The code of the step the set-up used is spent: the next step's code signs in, once.
      assert.equal((await request(t.baseUrl, 'POST', '/portal/v1/session', { body: { email: user.email, password: PORTAL_PASSWORD, code: totp(secret, clock.now()) } })).status, 401);
      clock.advance(30_000);
      const code = totp(secret, clock.now());
      assert.equal((await request(t.baseUrl, 'POST', '/portal/v1/session', { body: { email: user.email, password: 'wrong password here', code } })).status, 401);
      await portalSignIn(t.baseUrl, user.email, PORTAL_PASSWORD, { code });
      assert.equal((await request(t.baseUrl, 'POST', '/portal/v1/session', { body: { email: user.email, password: PORTAL_PASSWORD, code } })).status, 401);

      const recovery = confirmed.body.recovery_codes[0].toUpperCase();
      await portalSignIn(t.baseUrl, user.email, PORTAL_PASSWORD, { recovery_code: recovery });
      assert.equal((await request(t.baseUrl, 'POST', '/portal/v1/session', { body: { email: user.email, password: PORTAL_PASSWORD, recovery_code: recovery } })).status, 401);

      clock.advance(30_000);
      assert.equal((await call('POST', '/portal/v1/two-factor/disable', { code: totp(secret, clock.now()) })).status, 204);
      await portalSignIn(t.baseUrl, user.email);
    });

    it('operators too: the console\'s sign-in asks for the code once two-factor sign-in is on', async () => {
      const admin = adminClient(t.baseUrl, ADMIN);
      const email = `ops-2fa-${kind}@example.com`;
      assert.equal((await admin('POST', '/admin/v1/users', { email, role: 'viewer', password: PORTAL_PASSWORD })).status, 201);
      const first = await request(t.baseUrl, 'POST', '/admin/v1/session', { body: { email, password: PORTAL_PASSWORD } });
      assert.equal(first.status, 201, first.text);
      const session = { cookie: cookieOf(first), csrf: first.body.csrf_token };
      const enrol = await request(t.baseUrl, 'POST', '/admin/v1/two-factor/enrolment', session);
      assert.equal(enrol.status, 201, enrol.text);
      clock.advance(30_000);
      const confirmed = await request(t.baseUrl, 'POST', '/admin/v1/two-factor/enrolment/confirm', { ...session, body: { code: totp(enrol.body.secret, clock.now()) } });
      assert.equal(confirmed.status, 201, confirmed.text);
      assert.equal((await request(t.baseUrl, 'POST', '/admin/v1/session', { body: { email, password: PORTAL_PASSWORD } })).status, 401);
      clock.advance(30_000);
      const signed = await request(t.baseUrl, 'POST', '/admin/v1/session', { body: { email, password: PORTAL_PASSWORD, code: totp(enrol.body.secret, clock.now()) } });
      assert.equal(signed.status, 201, signed.text);

      // A lost phone: an admin resets it, the password alone signs in again; the reset is audited.
      const operatorId = signed.body.user.id;
      assert.equal((await admin('DELETE', `/admin/v1/users/${operatorId}/two-factor`)).status, 204);
      assert.equal((await request(t.baseUrl, 'POST', '/admin/v1/session', { body: { email, password: PORTAL_PASSWORD } })).status, 201);
      const audit = await t.store.db.query<{ action: string }>("SELECT action FROM audit_log WHERE object_id = $1 AND action LIKE 'two_factor.%' ORDER BY at", [operatorId]);
      assert.deepEqual(audit.map((a) => a.action), ['two_factor.enable', 'two_factor.reset']);
      assert.equal((await admin('DELETE', '/admin/v1/merchant-users/00000000-0000-7000-8000-000000000000/two-factor')).status, 404);
    });
  });

  describe(`portal: REQUIRE_TWO_FACTOR=on (${kind})`, { skip }, () => {
    let t: TestGateway;
    const clock = testClock();
    before(async () => { t = await startTestGateway(kind, { adminToken: ADMIN, clock, env: { REQUIRE_TWO_FACTOR: 'on' } }); });
    after(async () => t?.close());

    it('a session without two-factor sign-in may only set it up; then everything; it can not be switched off', async () => {
      const user = await invitedUser(t, ADMIN, { role: 'owner' });
      const session = await portalSignIn(t.baseUrl, user.email);
      assert.equal(session.body.two_factor_enrolment_required, true);
      const call = portalClient(t.baseUrl, session);
      const refused = await call('GET', '/portal/v1/team');
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error_message, 'Authorization: Set up two-factor sign-in before anything else.');
      const enrol = await call('POST', '/portal/v1/two-factor/enrolment');
      assert.equal((await call('POST', '/portal/v1/two-factor/enrolment/confirm', { code: totp(enrol.body.secret, clock.now()) })).status, 201);
      assert.equal((await call('GET', '/portal/v1/team')).status, 200);
      clock.advance(30_000);
      assert.equal((await call('POST', '/portal/v1/two-factor/disable', { code: totp(enrol.body.secret, clock.now()) })).status, 409);

      // An operator's console session likewise.
      const admin = adminClient(t.baseUrl, ADMIN);
      const email = `ops-required-${kind}@example.com`;
      await admin('POST', '/admin/v1/users', { email, role: 'admin', password: PORTAL_PASSWORD });
      const signed = await request(t.baseUrl, 'POST', '/admin/v1/session', { body: { email, password: PORTAL_PASSWORD } });
      assert.equal(signed.body.two_factor_enrolment_required, true);
      assert.equal((await request(t.baseUrl, 'GET', '/admin/v1/users', { cookie: cookieOf(signed) })).status, 403);
      assert.equal((await request(t.baseUrl, 'GET', '/admin/v1/two-factor', { cookie: cookieOf(signed) })).body.mandatory, true);
      // A token is no sign-in: scripts keep working.
      assert.equal((await admin('GET', '/admin/v1/users')).status, 200);
    });
  });
}
