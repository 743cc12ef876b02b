/**
 * VAULT_KEYS rotation re-seals two-factor secrets too (store/secret-rotation.ts), on both stores: an operator and a
 * merchant portal user set up TOTP over HTTP under the old key; after rewrapAllConfigSecrets with a new first key
 * their envelopes are under the new key, they sign in with a code over HTTP, and a code still verifies with the
 * new key alone (the old one retired).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminClient } from './support.ts';
import { parseKeyring, type Keyring } from '../../src/store/card-vault.ts';
import { rewrapAllConfigSecrets, rewrapConfigSecrets } from '../../src/store/secret-rotation.ts';
import { checkSecondFactor } from '../../src/services/two-factor.ts';
import { PORTAL_PASSWORD, cookieOf, invitedUser, portalClient, portalSignIn, request, testClock, totp } from '../portal/support.ts';

function rotated(old: Keyring): { both: Keyring; onlyNew: Keyring } {
  const k2 = randomBytes(32).toString('base64');
  const oldKey = (old.keys.get(old.activeKeyId) as { expose(): Buffer }).expose().toString('base64');
  return { both: parseKeyring(`k2:${k2},${old.activeKeyId}:${oldKey}`), onlyNew: parseKeyring(`k2:${k2}`) };
}

for (const { kind, skip } of await storeKinds()) {
  describe(`two-factor secrets re-sealed on key rotation (${kind})`, { skip }, () => {
    let t: TestGateway;
    const ADMIN = `admin-2fa-rotation-${kind}`;
    const clock = testClock();
    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN, clock });
    });
    after(async () => t?.close());

    it('an operator\'s and a portal user\'s TOTP secrets move to the new key and still verify a code', async () => {
      // An operator sets up two-factor sign-in in the console.
      const email = `ops-rotation-${kind}@example.com`;
      const created = await adminClient(t.baseUrl, ADMIN)('POST', '/admin/v1/users', { email, role: 'viewer', password: PORTAL_PASSWORD });
      assert.equal(created.status, 201, created.text);
      const first = await request(t.baseUrl, 'POST', '/admin/v1/session', { body: { email, password: PORTAL_PASSWORD } });
      assert.equal(first.status, 201, first.text);
      const opSession = { cookie: cookieOf(first), csrf: first.body.csrf_token };
      const opEnrol = await request(t.baseUrl, 'POST', '/admin/v1/two-factor/enrolment', opSession);
      assert.equal(opEnrol.status, 201, opEnrol.text);
      const opSecret: string = opEnrol.body.secret;
      assert.equal((await request(t.baseUrl, 'POST', '/admin/v1/two-factor/enrolment/confirm', { ...opSession, body: { code: totp(opSecret, clock.now()) } })).status, 201);

      // A merchant's portal user does the same in the portal.
      const user = await invitedUser(t, ADMIN, { role: 'viewer' });
      const call = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, user.email));
      const enrol = await call('POST', '/portal/v1/two-factor/enrolment');
      assert.equal(enrol.status, 201, enrol.text);
      const secret: string = enrol.body.secret;
      assert.equal((await call('POST', '/portal/v1/two-factor/enrolment/confirm', { code: totp(secret, clock.now()) })).status, 201);

      const ids = [`operator:${created.body.id}`, `merchant:${user.id}`];
      const keyIds = async () => (await t.store.db.query<{ id: string; key_id: string }>("SELECT id, secret->>'keyId' AS key_id FROM two_factor WHERE id = ANY($1::text[]) ORDER BY id", [ids])).map((r) => r.key_id);
      const oldKeyId = t.gateway.ctx.keyring.activeKeyId;
      assert.deepEqual(await keyIds(), [oldKeyId, oldKeyId]);

      const { both, onlyNew } = rotated(t.gateway.ctx.keyring);
      assert.ok((await rewrapAllConfigSecrets(t.store.db, both)) >= 2);
      assert.equal(await rewrapConfigSecrets(t.store.db, both), 0, 'nothing is left under the old key');
      assert.deepEqual(await keyIds(), ['k2', 'k2'], 'both two-factor secrets are sealed with the new key');

      // The gateway restarted with VAULT_KEYS=k2,old: both sign in with a code of the next time step.
      (t.gateway.ctx as { keyring: Keyring }).keyring = both;
      clock.advance(30_000);
      const opSigned = await request(t.baseUrl, 'POST', '/admin/v1/session', { body: { email, password: PORTAL_PASSWORD, code: totp(opSecret, clock.now()) } });
      assert.equal(opSigned.status, 201, opSigned.text);
      await portalSignIn(t.baseUrl, user.email, PORTAL_PASSWORD, { code: totp(secret, clock.now()) });

      // The old key retired (VAULT_KEYS=k2 alone): a code still verifies, a wrong one does not.
      clock.advance(30_000);
      const retired = { ...t.gateway.ctx, keyring: onlyNew };
      assert.deepEqual(await checkSecondFactor(retired, 'operator', created.body.id, { code: totp(opSecret, clock.now()) }), { needsEnrolment: false, usedRecoveryCode: false });
      assert.deepEqual(await checkSecondFactor(retired, 'merchant', user.id, { code: totp(secret, clock.now()) }), { needsEnrolment: false, usedRecoveryCode: false });
      await assert.rejects(checkSecondFactor(retired, 'merchant', user.id, { code: totp(opSecret, clock.now()) }));
    });
  });
}
