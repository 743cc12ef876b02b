/**
 * Key rotation of sealed configuration secrets, on both stores: MID credentials, wallet keys and connector
 * option secrets written through the admin API under one key are re-sealed under a new first key of
 * VAULT_KEYS, after which the old key can be retired; a damaged envelope stops the rotation, named.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminCall } from './config-support.ts';
import { parseKeyring, VaultError, type Keyring } from '../../src/store/card-vault.ts';
import { rewrapAllConfigSecrets, rewrapConfigSecrets } from '../../src/store/secret-rotation.ts';
import { listMids, openMidCredentials } from '../../src/store/merchants-repo.ts';
import { loadMerchantConfig, openOptionSecrets, openWalletSecrets } from '../../src/store/merchant-config-repo.ts';
import { insertSigningSecret, replaceSigningSecret, signingSecrets } from '../../src/store/signing-secrets-repo.ts';

/** The test gateway's own key (id "default") plus a new first key k2: the ring after VAULT_KEYS gains k2. */
function rotated(old: Keyring): { both: Keyring; onlyNew: Keyring } {
  const k2 = randomBytes(32).toString('base64');
  const oldKey = (old.keys.get(old.activeKeyId) as { expose(): Buffer }).expose().toString('base64');
  return { both: parseKeyring(`k2:${k2},${old.activeKeyId}:${oldKey}`), onlyNew: parseKeyring(`k2:${k2}`) };
}

for (const { kind, skip } of await storeKinds()) {
  describe(`configuration secrets key rotation (${kind})`, { skip }, () => {
    let t: TestGateway;
    const ADMIN = `admin-rotation-${kind}`;
    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN });
    });
    after(async () => t?.close());

    it('re-seals MID credentials, wallet keys, option secrets and webhook signing secrets under the new key; the old one can go', async () => {
      const m = await t.addMerchant({ mids: [] });
      const call = (method: string, path: string, body?: unknown) => adminCall(t.baseUrl, method, path, ADMIN, body);
      assert.equal((await call('POST', `/admin/v1/merchants/${m.id}/mids`, { connector: 'sandbox-card', credentials: { api_key: 'sk_live_rotate_me_0001' } })).status, 201);
      const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      assert.equal((await call('PUT', `/admin/v1/merchants/${m.id}/wallets`, { google_pay: { environment: 'TEST', allowed_auth_methods: ['PAN_ONLY'], supported_networks: ['VISA'], merchant_identifier: 'M', gateway: 'g', gateway_merchant_id: 'x', private_key: ec, extra_parameters: false } })).status, 200);
      assert.equal((await call('PATCH', `/admin/v1/merchants/${m.id}/settings`, { connector_options: { token_call: { private_key: ec } } })).status, 200);

      // A webhook signing secret rotated once: both its envelopes (current and previous) are sealed.
      const now = new Date();
      await insertSigningSecret(t.store.db, t.gateway.ctx.keyring, m.id, 'whsec-first-0001', now);
      await replaceSigningSecret(t.store.db, t.gateway.ctx.keyring, m.id, 'whsec-second-0002', now, new Date(now.getTime() + 3_600_000));

      const { both, onlyNew } = rotated(t.gateway.ctx.keyring);
      const moved = await rewrapAllConfigSecrets(t.store.db, both);
      assert.ok(moved >= 5, `moved ${moved}`);
      assert.equal(await rewrapConfigSecrets(t.store.db, both), 0, 'nothing is left under the old key');

      const [mid] = await listMids(t.store.db, m.id);
      assert.equal(mid!.sealedCredentials!.keyId, 'k2');
      assert.deepEqual(openMidCredentials(onlyNew, mid!).expose(), { api_key: 'sk_live_rotate_me_0001' });
      // The running gateway still has only the old key: the MID answers without failing, naming the new key.
      const shown = await call('GET', `/admin/v1/merchants/${m.id}/mids/${mid!.id}`);
      assert.equal(shown.status, 200, shown.text);
      assert.equal(shown.body.credentials, null);
      assert.equal(shown.body.credentials_key_id, 'k2');
      const config = (await loadMerchantConfig(t.store.db, t.keyring, m.id))!;
      assert.equal(config.walletSecrets!.keyId, 'k2');
      assert.equal(openWalletSecrets(onlyNew, config).expose().google_pay_private_key, ec);
      assert.equal(openOptionSecrets(onlyNew, config).expose().token_call_private_key, ec);
      const signing = await signingSecrets(t.store.db, onlyNew, m.id, now);
      assert.deepEqual(signing?.map((s) => s.expose()), ['whsec-second-0002', 'whsec-first-0001'], 'webhook signing secrets, current and previous, moved too');
    });

    it('stops at an envelope that does not open, naming its row', async () => {
      const m = await t.addMerchant({ mids: [] });
      const created = await adminCall(t.baseUrl, 'POST', `/admin/v1/merchants/${m.id}/mids`, ADMIN, { connector: 'sandbox-card', credentials: { api_key: 'sk_live_damaged_0002' } });
      // Copied onto another MID, the envelope no longer opens: it is bound to its own row.
      const other = await adminCall(t.baseUrl, 'POST', `/admin/v1/merchants/${m.id}/mids`, ADMIN, { connector: 'sandbox-card' });
      await t.store.db.query('UPDATE mids SET credentials = (SELECT credentials FROM mids WHERE id = $1) WHERE id = $2', [created.body.id, other.body.id]);
      const { both } = rotated(t.gateway.ctx.keyring);
      await assert.rejects(rewrapAllConfigSecrets(t.store.db, both), (err: Error) => err instanceof VaultError && err.message.includes(other.body.id) && !err.message.includes('sk_live'));
    });
  });
}
