/**
 * The Wallets tab through the admin API, on both stores: certificates and keys parsed before storing, keys
 * sealed at rest and answered as fingerprints, kept when omitted, refused with D3 400s when wrong.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminCall, d3Messages, tokenFor } from './config-support.ts';
import { loadMerchantConfig, openWalletSecrets } from '../../src/store/merchant-config-repo.ts';
import { publicKeyFingerprint } from '../../src/domain/pem-keys.ts';

// A self-signed EC certificate and its key, made for these tests only (openssl req -x509 -newkey ec).
const CERT = readFileSync(new URL('./fixtures/wallet-test-only.cert.pem', import.meta.url), 'utf8');
const CERT_KEY = readFileSync(new URL('./fixtures/wallet-test-only.key.pem', import.meta.url), 'utf8');
const ecKey = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const rsaKey = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const oneLine = (pem: string) => pem.split('\n').filter((l) => l && !l.startsWith('-----')).join('');
const fingerprintOf = (pem: string) => publicKeyFingerprint(createPrivateKey(pem));
/** A piece of a key's body that appears nowhere unless the key does. */
const marker = (pem: string) => oneLine(pem).slice(30, 70);

const applePay = (extra: Record<string, unknown> = {}) => ({
  merchant_identifier: 'merchant.com.portcullis.test', country: 'GB', shop_name: 'Test Shop',
  certificate: CERT, private_key: CERT_KEY,
  merchant_capabilities: ['supports3DS', 'supportsDebit'], supported_networks: ['visa', 'masterCard'], domains: ['Shop.Example.com'],
  ...extra,
});
const googlePay = (extra: Record<string, unknown> = {}) => ({
  environment: 'TEST', allowed_auth_methods: ['PAN_ONLY'], supported_networks: ['VISA'], merchant_identifier: 'BCR2DN4T000000',
  gateway: 'portcullis', gateway_merchant_id: 'shop-1', extra_parameters: true, ...extra,
});

for (const { kind, skip } of await storeKinds()) {
  describe(`admin wallets (${kind})`, { skip }, () => {
    let t: TestGateway;
    const ADMIN = `admin-wallets-${kind}`;
    const tokens: Record<string, string> = {};
    const call = (method: string, path: string, token: string | undefined, body?: unknown) => adminCall(t.baseUrl, method, path, token, body);
    const walletsOf = (id: string) => `/admin/v1/merchants/${id}/wallets`;

    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN });
      for (const role of ['operator', 'support', 'viewer'] as const) tokens[role] = await tokenFor(t, role);
    });
    after(async () => t?.close());

    it('stores both wallets, seals the keys and answers fingerprints', async () => {
      const m = await t.addMerchant();
      assert.deepEqual((await call('GET', walletsOf(m.id), tokens.viewer)).body, { apple_pay: null, google_pay: null });
      const processing = ecKey();
      const google = ecKey();
      const res = await call('PUT', walletsOf(m.id), tokens.operator, {
        apple_pay: applePay({ processing_private_key: oneLine(processing) }),
        google_pay: googlePay({ private_key: google }),
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.apple_pay.merchant_identifier, 'merchant.com.portcullis.test');
      assert.equal(res.body.apple_pay.enabled, true);
      assert.deepEqual(res.body.apple_pay.domains, ['shop.example.com']);
      assert.match(res.body.apple_pay.certificate.fingerprint, /^sha256:[0-9a-f]{64}$/);
      assert.match(res.body.apple_pay.certificate.subject, /merchant\.com\.portcullis\.test/);
      assert.deepEqual(res.body.apple_pay.private_key, { set: true, fingerprint: fingerprintOf(CERT_KEY) });
      assert.deepEqual(res.body.apple_pay.processing_private_key, { set: true, fingerprint: fingerprintOf(processing) });
      assert.deepEqual(res.body.google_pay.private_key, { set: true, fingerprint: fingerprintOf(google) });
      assert.equal(res.body.google_pay.extra_parameters, true);
      for (const key of [CERT_KEY, processing, google]) assert.ok(!res.text.includes(marker(key)), 'no key in the answer');

      const [row] = await t.store.db.query<{ text: string }>('SELECT wallets::text || coalesce(wallet_secrets::text, \'\') AS text FROM merchants WHERE id = $1', [m.id]);
      for (const key of [CERT_KEY, processing, google]) assert.ok(!row!.text.includes(marker(key)), 'no key stored in clear');
      const audit = await t.store.db.query<{ text: string }>("SELECT before::text || after::text AS text FROM audit_log WHERE object_id = $1 AND action = 'merchant.wallets.update'", [m.id]);
      assert.equal(audit.length, 1);
      for (const key of [CERT_KEY, processing, google]) assert.ok(!audit[0]!.text.includes(marker(key)), 'no key in the audit log');
      const secrets = openWalletSecrets(t.gateway.ctx.keyring, (await loadMerchantConfig(t.store.db, t.keyring, m.id))!).expose();
      assert.equal(fingerprintOf(secrets.apple_pay_processing_private_key!), fingerprintOf(processing));
      assert.equal(secrets.google_pay_private_key, google);
      assert.equal(secrets.apple_pay_private_key!.trim(), CERT_KEY.trim());

      // Omitted keys are kept; null removes one; a wallet set to null goes with its keys.
      const again = await call('PUT', walletsOf(m.id), ADMIN, { apple_pay: applePay({ certificate: undefined, private_key: undefined, shop_name: 'Renamed', processing_private_key: null }) });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.apple_pay.shop_name, 'Renamed');
      assert.deepEqual(again.body.apple_pay.private_key, { set: true, fingerprint: fingerprintOf(CERT_KEY) });
      assert.equal(again.body.apple_pay.processing_private_key, null);
      assert.deepEqual(again.body.google_pay.private_key, { set: true, fingerprint: fingerprintOf(google) }, 'the other wallet is untouched');
      const removed = await call('PUT', walletsOf(m.id), ADMIN, { google_pay: null });
      assert.equal(removed.body.google_pay, null);
      const left = openWalletSecrets(t.gateway.ctx.keyring, (await loadMerchantConfig(t.store.db, t.keyring, m.id))!).expose();
      assert.deepEqual(Object.keys(left), ['apple_pay_private_key']);
    });

    it('refuses what is not a certificate, a key of the wrong type, or a key not of the certificate', async () => {
      const m = await t.addMerchant();
      const cases: [unknown, string][] = [
        [{ apple_pay: applePay({ certificate: CERT_KEY }) }, 'apple_pay.certificate: This value is not a valid PEM certificate.'],
        [{ apple_pay: applePay({ certificate: 'A'.repeat(80) }) }, 'apple_pay.certificate: This value is not a valid PEM certificate.'],
        [{ apple_pay: applePay({ private_key: ecKey() }) }, 'apple_pay.private_key: This value should be the private key of the certificate.'],
        [{ apple_pay: applePay({ private_key: CERT }) }, 'apple_pay.private_key: This value is not a valid PEM private key.'],
        [{ apple_pay: applePay({ processing_private_key: rsaKey() }) }, 'apple_pay.processing_private_key: This value should be a private key of type ec.'],
        [{ apple_pay: applePay({ certificate: undefined, private_key: undefined }) }, 'apple_pay.certificate: This value should not be blank.'],
        [{ google_pay: googlePay({ private_key: rsaKey() }) }, 'google_pay.private_key: This value should be a private key of type ec.'],
        [{ google_pay: googlePay({ environment: 'DEV' }) }, 'google_pay.environment'],
        [{ google_pay: googlePay({ supported_networks: [] }) }, 'google_pay.supported_networks'],
        [{ google_pay: googlePay({ allowed_auth_methods: ['PAN_ONLY', 'PAN_ONLY'] }) }, 'google_pay.allowed_auth_methods'],
        [{ apple_pay: applePay({ country: 'gb' }) }, 'apple_pay.country'],
        [{ apple_pay: applePay({ domains: ['not a domain'] }) }, 'apple_pay.domains[0]'],
        [{ apple_pay: applePay({ surprise: 1 }) }, 'apple_pay.surprise'],
        [{}, 'request'],
        ['[', 'request: This value should be valid JSON.'],
      ];
      for (const [body, expected] of cases) {
        const res = await call('PUT', walletsOf(m.id), ADMIN, body);
        assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 120)} -> ${res.status} ${res.text}`);
        const got = d3Messages(res);
        assert.ok(got.some((msg) => msg.startsWith(expected)), `${JSON.stringify(got)} lacks ${expected}`);
        assert.ok(!res.text.includes('BEGIN'), 'no key material echoed in errors');
      }
      assert.deepEqual((await call('GET', walletsOf(m.id), ADMIN)).body, { apple_pay: null, google_pay: null }, 'nothing half-written');
    });

    it('lets support and viewer read but not write, answers 401 without a token and 404 for unknown merchants', async () => {
      const m = await t.addMerchant();
      for (const role of ['support', 'viewer']) {
        assert.equal((await call('GET', walletsOf(m.id), tokens[role])).status, 200);
        const res = await call('PUT', walletsOf(m.id), tokens[role], { google_pay: googlePay() });
        assert.equal(res.status, 403);
        d3Messages(res);
      }
      assert.equal((await call('GET', walletsOf(m.id), undefined)).status, 401);
      assert.equal((await call('PUT', walletsOf('0193a0c4-0000-7000-8000-000000000000'), ADMIN, { google_pay: googlePay() })).status, 404);
      assert.equal((await call('GET', walletsOf('nope'), ADMIN)).status, 404);
    });
  });
}
