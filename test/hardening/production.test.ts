/**
 * Issue 12, items 12 and 13: production mode (start-up refuses unsafe settings; sandbox pages serve sandbox
 * merchants only), compression and security headers on every answer. Both stores.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { sale } from '../s2s-card/support.ts';
import { loadConfig } from '../../src/config.ts';
import { assertD3 } from './support.ts';
import { insertPayment } from '../../src/store/payments-repo.ts';
import { newId } from '../../src/domain/ids.ts';

const SAFE = { GATEWAY_MODE: 'production', VAULT_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`, BASE_URL: 'https://pay.example.com' };

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('production settings', () => {
  it('NODE_ENV=production or GATEWAY_MODE=production refuses unsafe settings, naming each', () => {
    for (const env of [{ NODE_ENV: 'production' }, { GATEWAY_MODE: 'production' }]) {
      assert.throws(() => loadConfig({ ...env, DEMO_MERCHANT_KEY: 'demo', RATE_LIMITS: 'off' }), (err: Error) =>
        /VAULT_KEYS is not set/.test(err.message) && /BASE_URL must be an https/.test(err.message) && /DEMO_MERCHANT_KEY/.test(err.message) && /RATE_LIMITS=off/.test(err.message));
    }
    assert.throws(() => loadConfig({ ...SAFE, CALLBACK_ALLOWED_PRIVATE_HOSTS: '10.0.0.5,169.254.169.254' }), /metadata/);
    assert.equal(loadConfig(SAFE).production, true);
    assert.equal(loadConfig({ NODE_ENV: 'production', GATEWAY_MODE: 'development' }).production, false);
    assert.equal(loadConfig({}).production, false);
  });

  it('the gateway does not start in production with unsafe settings, and says why', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { PATH: process.env.PATH, NODE_ENV: 'production', DATA_DIR: '/nonexistent/never-created' }, encoding: 'utf8', timeout: 60_000,
    });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /unsafe settings for production mode/);
    assert.match(run.stderr, /VAULT_KEYS is not set/);
  });
});

/** GET with an Accept-Encoding, body undecoded (fetch would decode it). */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

for (const { kind, skip } of kinds) {
  describe(`Production mode, compression, security headers (${kind})`, { skip }, () => {
    let t: TestGateway;
    let live: TestMerchant;
    before(async () => {
      t = await startTestGateway(kind, { production: true });
      live = await t.addMerchant({ sandbox: false });
    });
    after(() => t?.close());

    it('serves the sandbox ACS for a sandbox merchant\'s payment only; the outbox is off', async () => {
      const mine = await sale(t, { card_exp_month: '05' });
      assert.equal(mine.body.status, '3DS', mine.text);
      // Issue 13: a live merchant is never charged through the sandbox connector at all.
      const refused = await sale(t, { card_exp_month: '05' }, live);
      assert.equal(refused.body.error_code, '204002', refused.text);
      // A live merchant's payment waiting at its acquirer's ACS, as a real connector leaves it.
      const theirs = newId();
      await insertPayment(t.store.db, {
        id: theirs, merchantId: live.id, channel: 's2s_card', operation: 'purchase', orderId: 'LIVE-3DS', amount: 199n, currency: 'USD',
        description: 'Live', status: '3ds', auth: false, now: new Date(),
      });
      assert.equal((await fetch(`${t.baseUrl}/sandbox/acs/${mine.body.trans_id}`)).status, 200);
      for (const path of [`/sandbox/acs/${theirs}`, `/sandbox/provider/${theirs}`, '/sandbox/outbox?to=a@b.c', '/sandbox/outbox/messages?to=a@b.c', '/sandbox/apm/nope']) {
        const res = await fetch(t.baseUrl + path);
        assert.equal(res.status, 404, path);
        assertD3(404, await res.text(), path);
      }
      // Issue 17: the sandbox APM provider's API and pages are off too (no accounts can be issued).
      for (const path of ['/sandbox/apm-provider/accounts', '/sandbox/apm-provider/pix/payin', '/sandbox/apm-provider/pages/accounts/x']) {
        const res = await fetch(t.baseUrl + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        assert.equal(res.status, 404, path);
        assertD3(404, await res.text(), path);
      }
    });

    it('compresses pages, assets and JSON for clients that accept it', async () => {
      const docs = await rawGet(`${t.baseUrl}/docs/json`, { 'accept-encoding': 'gzip' });
      assert.equal(docs.headers['content-encoding'], 'gzip');
      assert.ok(JSON.parse(gunzipSync(docs.body).toString('utf8')).openapi);
      const sdk = await rawGet(`${t.baseUrl}/sdk/hosted-fields.js`, { 'accept-encoding': 'br' });
      assert.equal(sdk.status, 200);
      assert.equal(sdk.headers['content-encoding'], 'br');
      assert.match(brotliDecompressSync(sdk.body).toString('utf8'), /HostedFields/);
      const plain = await rawGet(`${t.baseUrl}/docs/json`);
      assert.equal(plain.headers['content-encoding'], undefined);
    });

    it('sets nosniff everywhere, keeps JSON and the docs out of frames, lets merchants frame the payer pages', async () => {
      const json = await fetch(`${t.baseUrl}/nowhere`);
      assert.equal(json.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(json.headers.get('x-frame-options'), 'DENY');
      assert.match(json.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      const docs = await fetch(`${t.baseUrl}/docs/`);
      assert.equal(docs.headers.get('x-frame-options'), 'DENY');
      const frame = await fetch(`${t.baseUrl}/hosted-fields/frame/card`);
      assert.equal(frame.headers.get('x-frame-options'), null);
      assert.match(frame.headers.get('content-security-policy') ?? '', /frame-ancestors \*/);
      assert.equal(frame.headers.get('x-content-type-options'), 'nosniff');
    });

    it('sends HSTS on every answer in production (its BASE_URL is https; issue 25, item 11)', async () => {
      assert.match((await fetch(`${t.baseUrl}/health`)).headers.get('strict-transport-security') ?? '', /max-age=31536000/);
    });
  });
}
