/**
 * Decisions D4: S2S APM on a listener port of its own when configured (S2S_APM_PORT). `{s2s_apm_host}/post` is then
 * that listener's `/post`, the QR bank's callback its `/bank/callback`; the main port keeps `/apm/post`. Over real
 * HTTP on both stores: the same payments through either door, signed callbacks, D3 errors, nothing else served there.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { loadConfig } from '../../src/config.ts';
import { callbackHash, qrMethod, representative, saleFields, signedSale, transHash } from './support.ts';

const FIELDS = representative('extra_fields', 's2s_apm');
/** The extra-fields method with its page fields sent: the provider decides at once, by the payer's e-mail. */
const direct = () => ({ parameters: Object.fromEntries(FIELDS.params.filter((p) => p.collectOnPage).map((p) => [p.name, 'ABC12345'])) });

/** A form POST the way a merchant's S2S client sends it (nested values as bracket keys). */
async function postForm(url: string, fields: Record<string, unknown>): Promise<{ status: number; body: any; text: string }> {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) form.append(`${key}[${k}]`, String(v));
    else if (value !== undefined) form.append(key, String(value));
  }
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
}

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('S2S_APM_PORT configuration', () => {
  it('takes a TCP port other than PORT, and refuses anything else by name', () => {
    assert.equal(loadConfig({}).s2sApmPort, undefined, 'unset: no listener of its own');
    assert.equal(loadConfig({ S2S_APM_PORT: '8443' }).s2sApmPort, 8443);
    for (const [value, message] of [['8080', /S2S_APM_PORT must differ from PORT/], ['70000', /S2S_APM_PORT must be a TCP port/], ['apm', /S2S_APM_PORT must be a non-negative integer/]] as const) {
      assert.throws(() => loadConfig({ S2S_APM_PORT: value }), message);
    }
  });
});

for (const { kind, skip } of kinds) {
  describe(`S2S APM on its own listener (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    let apm: string;
    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true, notificationUrl: listener.url, s2sApmListener: true });
      assert.ok(t.apmUrl, 'the gateway listens for S2S APM on a port of its own');
      apm = t.apmUrl;
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    it('serves SALE and GET_TRANS_STATUS at {s2s_apm_host}/post; the main port sees the same payment at /apm/post', async () => {
      assert.notEqual(new URL(apm).port, new URL(t.baseUrl).port);
      const fields = saleFields(FIELDS.key, direct());
      const res = await postForm(`${apm}/post`, signedSale(t.merchant, fields));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.result, 'SUCCESS');
      assert.equal(res.body.status, 'SETTLED');
      const id = res.body.trans_id as string;
      const [cb] = await listener.waitForMatching((c) => c.fields.trans_id === id && c.fields.action === 'SALE', 1);
      assert.equal(cb!.fields.hash, callbackHash(cb!.raw, t.merchant.password), 'the callback is signed as on the main port');

      const status = { action: 'GET_TRANS_STATUS', client_key: t.merchant.key, trans_id: id, hash: transHash(id, t.merchant.password) };
      const here = await postForm(`${apm}/post`, status);
      const there = await t.postForm('/apm/post', status);
      assert.equal(here.body.status, 'SETTLED', here.text);
      assert.deepEqual(here.body, there.body);
    });

    it('answers D3 errors with result ERROR there, and an S2S CARD request is an APM request on that host', async () => {
      const badHash = await postForm(`${apm}/post`, { ...signedSale(t.merchant, saleFields(FIELDS.key, direct())), hash: 'f'.repeat(32) });
      assert.equal(badHash.status, 401, badHash.text);
      assert.equal(badHash.body.result, 'ERROR');
      assert.equal(badHash.body.error_message, 'hash: Hash is not valid.');
      const cardSale = await postForm(`${apm}/post`, { action: 'SALE', client_key: t.merchant.key, order_id: 'C-1', order_amount: '1.00', order_currency: 'USD', order_description: 'Card', card_number: '4111111111111111', hash: 'x' });
      assert.equal(cardSale.status, 400, cardSale.text);
      assert.equal(cardSale.body.result, 'ERROR');
      assert.ok((cardSale.body.errors as { error_message: string }[]).some((e) => e.error_message === 'brand: This value should not be blank.'), cardSale.text);
    });

    it('takes the QR bank callback at {s2s_apm_host}/bank/callback', async () => {
      const qr = qrMethod();
      const res = await postForm(`${apm}/post`, signedSale(t.merchant, saleFields(qr.key, { order_currency: 'RSD', order_amount: '100.00' })));
      assert.equal(res.body.status, 'PENDING', res.text);
      const id = res.body.trans_id as string;
      await t.store.db.query('UPDATE sandbox_apm_payments SET state = $2 WHERE end_to_end_id = $1', [id, 'executed']);
      const bank = await postForm(`${apm}/bank/callback`, { EndToEndId: id, TxSts: 'ACSC', TxId: 'BANK-1' });
      assert.equal(bank.status, 200, bank.text);
      assert.deepEqual(bank.body, { result: 'OK', trans_id: id, status: 'SETTLED' });
    });

    it('serves nothing else there: no Checkout, no pages, no admin; /health answers for the balancer', async () => {
      for (const path of ['/api/v1/session', '/apm/post', '/admin/v1/me']) {
        const res = await postForm(`${apm}${path}`, {});
        assert.equal(res.status, 404, `${path}: ${res.text}`);
        assert.equal(typeof res.body.error_message, 'string', 'a D3 body');
      }
      assert.equal((await fetch(`${apm}/docs`)).status, 404);
      assert.equal((await fetch(`${apm}/health`)).status, 200);
    });
  });
}
