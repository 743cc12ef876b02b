/**
 * Configuration secrets never reach a log, on both stores: a gateway logging every request at trace level is
 * given MID credentials, a token-call key and wallet keys (accepted and refused ones), and its whole log output
 * is searched for them.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import pino from 'pino';
import { storeKinds } from '../support/stores.ts';
import { openTestStore, type TestStore } from '../support/stores.ts';
import { adminCall } from './config-support.ts';
import { assembleGateway, type Gateway } from '../../src/gateway.ts';
import { loadConfig } from '../../src/config.ts';
import { keyringFromEnv } from '../../src/store/card-vault.ts';
import { insertMerchant } from '../../src/store/merchants-repo.ts';
import { REDACTED_PATHS } from '../../src/logger.ts';
import { newId } from '../../src/domain/ids.ts';
import { TEST_KEYRING } from '../support/keyring.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`configuration secrets are never logged (${kind})`, { skip }, () => {
    let store: TestStore;
    let gateway: Gateway;
    let baseUrl: string;
    const lines: string[] = [];
    const ADMIN = `admin-logs-${kind}`;

    before(async () => {
      store = await openTestStore(kind);
      const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
      const logger = pino({ level: 'trace', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
      gateway = await assembleGateway({
        config: { ...loadConfig({}), port: 0, baseUrl: 'http://127.0.0.1:0', adminToken: ADMIN }, db: store.db,
        keyring: keyringFromEnv(undefined, () => randomBytes(32)), logger, logRequests: true,
      });
      baseUrl = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await gateway?.close();
      await store?.dispose();
    });

    it('logs requests, but none of the credentials and keys they carried', async () => {
      const merchantId = newId();
      await insertMerchant(store.db, TEST_KEYRING, { id: merchantId, name: 'Log Shop', key: `key-${randomBytes(6).toString('hex')}`, password: 'x'.repeat(20), sandbox: true });
      const credential = `sk_live_${randomBytes(12).toString('hex')}`;
      const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const call = (method: string, path: string, body: unknown) => adminCall(baseUrl, method, `/admin/v1/merchants/${merchantId}${path}`, ADMIN, body);
      const google = (key: string) => ({ google_pay: { environment: 'TEST', allowed_auth_methods: ['PAN_ONLY'], supported_networks: ['VISA'], merchant_identifier: 'M', gateway: 'g', gateway_merchant_id: 'x', private_key: key, extra_parameters: false } });

      const created = await call('POST', '/mids', { connector: 'sandbox-card', credentials: { api_key: credential } });
      assert.equal(created.status, 201);
      assert.equal((await call('PATCH', `/mids/${created.body.id}`, { credentials: { api_key: 42 } })).status, 400);
      assert.equal((await call('PATCH', '/settings', { connector_options: { token_call: { private_key: ec } } })).status, 200);
      assert.equal((await call('PUT', '/wallets', google(ec))).status, 200);
      assert.equal((await call('PUT', '/wallets', google(rsa))).status, 400);

      const log = lines.join('');
      assert.ok(log.includes(`/admin/v1/merchants/${merchantId}/wallets`), 'the requests were logged');
      const body = (pem: string) => pem.split('\n').filter((l) => l && !l.startsWith('-----')).join('');
      for (const secret of [credential, body(ec).slice(20, 60), body(rsa).slice(20, 60), ADMIN]) {
        assert.ok(!log.includes(secret), 'a secret is in the log');
      }
    });
  });
}
