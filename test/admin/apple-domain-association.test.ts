/**
 * Issue 25 item 22: Apple verifies the gateway's page domain by fetching
 * /.well-known/apple-developer-merchantid-domain-association. The operator uploads Apple's file in a merchant's
 * Wallets tab (admin API); the gateway serves it byte for byte, the latest upload when several merchants have one.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminCall, d3Messages, tokenFor } from './config-support.ts';

const CERT = readFileSync(new URL('./fixtures/wallet-test-only.cert.pem', import.meta.url), 'utf8');
const CERT_KEY = readFileSync(new URL('./fixtures/wallet-test-only.key.pem', import.meta.url), 'utf8');
const WELL_KNOWN = '/.well-known/apple-developer-merchantid-domain-association';

const applePay = (extra: Record<string, unknown> = {}) => ({
  merchant_identifier: 'merchant.com.portcullis.test', country: 'GB', shop_name: 'Test Shop', certificate: CERT, private_key: CERT_KEY,
  merchant_capabilities: ['supports3DS'], supported_networks: ['visa'], domains: ['pay.portcullis.test'], ...extra,
});
/** Apple's file is a long hex text; this one ends without a newline and keeps a trailing space, to be served as it is. */
const appleFile = () => `${randomBytes(2048).toString('hex')}\r\n${randomBytes(512).toString('hex')} `;

for (const { kind, skip } of await storeKinds()) {
  describe(`Apple Pay domain-association file (${kind})`, { skip }, () => {
    let t: TestGateway;
    let operator: string;
    let viewer: string;
    const call = (method: string, path: string, token: string | undefined, body?: unknown) => adminCall(t.baseUrl, method, path, token, body);
    const fetchFile = () => fetch(`${t.baseUrl}${WELL_KNOWN}`);

    before(async () => {
      t = await startTestGateway(kind, { adminToken: `admin-apple-domain-${kind}` });
      operator = await tokenFor(t, 'operator');
      viewer = await tokenFor(t, 'viewer');
    });
    after(async () => t?.close());

    it('404 (D3) while no file is uploaded', async () => {
      const res = await fetchFile();
      assert.equal(res.status, 404);
      assert.equal((await res.json()).error_message, 'Not found.');
    });

    it('uploaded in the Wallets tab, served byte for byte as text/plain; shown to the operator by its digest, kept when omitted', async () => {
      const m = await t.addMerchant();
      const file = appleFile();
      const put = await call('PUT', `/admin/v1/merchants/${m.id}/wallets`, operator, { apple_pay: applePay({ domain_association: file }) });
      assert.equal(put.status, 200, put.text);
      const view = put.body.apple_pay.domain_association;
      assert.match(view.sha256, /^sha256:[0-9a-f]{64}$/);
      assert.equal(view.size, Buffer.byteLength(file));
      assert.ok(!put.text.includes(file.slice(0, 64)), 'the file is not echoed');
      assert.deepEqual((await call('GET', `/admin/v1/merchants/${m.id}/wallets`, viewer)).body.apple_pay.domain_association, view);

      const res = await fetchFile();
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      assert.equal(await res.text(), file);

      // Saving the tab again without the file keeps it.
      const again = await call('PUT', `/admin/v1/merchants/${m.id}/wallets`, operator, { apple_pay: applePay({ shop_name: 'Renamed Shop' }) });
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body.apple_pay.domain_association, view);
      assert.equal(await (await fetchFile()).text(), file);
    });

    it('a file whose first bytes look like a deflate stream ("80...") is served byte for byte, uncompressed', async () => {
      const m = await t.addMerchant();
      const file = `80${appleFile()}`;
      assert.equal((await call('PUT', `/admin/v1/merchants/${m.id}/wallets`, operator, { apple_pay: applePay({ domain_association: file }) })).status, 200);
      const res = await fetch(`${t.baseUrl}${WELL_KNOWN}`, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-encoding'), null);
      assert.equal(await res.text(), file);
      const removed = await call('PUT', `/admin/v1/merchants/${m.id}/wallets`, operator, { apple_pay: applePay({ domain_association: null }) });
      assert.equal(removed.status, 200);
    });

    it('the latest upload is served; removing it (null) serves the one before; a read-only role cannot upload', async () => {
      const first = await t.addMerchant();
      const second = await t.addMerchant();
      const a = appleFile();
      const b = appleFile();
      assert.equal((await call('PUT', `/admin/v1/merchants/${first.id}/wallets`, operator, { apple_pay: applePay({ domain_association: a }) })).status, 200);
      await new Promise((r) => setTimeout(r, 5));
      assert.equal((await call('PUT', `/admin/v1/merchants/${second.id}/wallets`, operator, { apple_pay: applePay({ domain_association: b }) })).status, 200);
      assert.equal(await (await fetchFile()).text(), b);
      const removed = await call('PUT', `/admin/v1/merchants/${second.id}/wallets`, operator, { apple_pay: applePay({ domain_association: null }) });
      assert.equal(removed.body.apple_pay.domain_association, null);
      assert.equal(await (await fetchFile()).text(), a);
      const refused = await call('PUT', `/admin/v1/merchants/${first.id}/wallets`, viewer, { apple_pay: applePay({ domain_association: b }) });
      assert.equal(refused.status, 403);
      const empty = await call('PUT', `/admin/v1/merchants/${first.id}/wallets`, operator, { apple_pay: applePay({ domain_association: '' }) });
      assert.equal(empty.status, 400);
      assert.ok(d3Messages(empty).some((m) => m.startsWith('apple_pay.domain_association')), empty.text);
    });
  });
}
