/**
 * Issue 17, item 6 on S2S APM over real HTTP on both stores: the Protocol Mapping fields shared with the other
 * protocols (brand, payment_method, payer attributes) in S2S APM callbacks and GET_TRANS_STATUS answers, on and off;
 * brand payment_document_crypto for the crypto-address method, payment_document_virtual for other methods.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { callbackHash, followUp, representative, sale } from './support.ts';

const FIELDS = representative('extra_fields', 's2s_apm');
const direct = { parameters: Object.fromEntries(FIELDS.params.filter((p) => p.collectOnPage).map((p) => [p.name, 'ABC12345'])) };
const SHARED = ['brand', 'payment_method', 'payer_email', 'payer_phone'];

for (const { kind, skip } of await storeKinds()) {
  describe(`S2S APM Protocol Mapping fields (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true });
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    const callbackOf = async (m: TestMerchant, transId: string) => {
      const [cb] = await listener.waitForMatching((c) => c.fields.trans_id === transId && c.fields.action === 'SALE', 1, 15_000);
      assert.equal(cb!.fields.hash, callbackHash(cb!.raw, m.password), 'the APM callback signature covers the added fields');
      return cb!.fields;
    };

    it('adds brand, payment_method and payer attributes where switched on, separately for callbacks and status', async () => {
      const inCallbacks = await t.addMerchant({ notificationUrl: listener.url, settings: { callbackFields: SHARED } });
      const inStatus = await t.addMerchant({ notificationUrl: listener.url, settings: { statusFields: SHARED } });
      const expected = { brand: 'payment_document_virtual', payment_method: FIELDS.key, payer_email: 'success@gmail.com', payer_phone: '+38160123456' };
      for (const [m, where] of [[inCallbacks, 'callbacks'], [inStatus, 'status']] as const) {
        const res = await sale(t, FIELDS.key, direct, m);
        assert.equal(res.body.status, 'SETTLED', res.text);
        const cb = await callbackOf(m, res.body.trans_id);
        const status = (await followUp(t, 'GET_TRANS_STATUS', res.body.trans_id, {}, m)).body;
        for (const [key, value] of Object.entries(expected)) {
          assert.equal(cb[key], where === 'callbacks' ? value : undefined, `callback ${key}, on for ${where}`);
          assert.equal(status[key], where === 'status' ? value : undefined, `status ${key}, on for ${where}`);
        }
      }
    });

    it('says payment_document_crypto for the crypto-address method', async () => {
      const m = await t.addMerchant({ notificationUrl: listener.url, settings: { statusFields: ['brand'] } });
      const res = await sale(t, 'awcc', { parameters: { crypto_type: 'USDT' } }, m);
      assert.equal(res.status, 200, res.text);
      const status = await followUp(t, 'GET_TRANS_STATUS', res.body.trans_id, {}, m);
      assert.equal(status.body.brand, 'payment_document_crypto', status.text);
    });
  });
}
