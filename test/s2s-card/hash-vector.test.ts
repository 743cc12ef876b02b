/** The docs' test vector (D2): F1 of doe@example.com / 13a4822c5907ed235f3a068c76184fc3 / 4111111111111111. */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { insertMerchant, insertMid } from '../../src/store/merchants-repo.ts';
import { s2sCard, s2sHash, card6_4 } from '../../src/domain/signatures.ts';
import { newId } from '../../src/domain/ids.ts';
import { f1, saleFields } from './support.ts';
import { platformBody } from '../support/merchant.ts';

const VECTOR = { email: 'doe@example.com', password: '13a4822c5907ed235f3a068c76184fc3', card: '4111111111111111', hash: '2702ae0c4f99506dc29b5615ba9ee3c0' };

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('S2S CARD test vector', () => {
  it('the gateway computes F1 = 2702ae0c4f99506dc29b5615ba9ee3c0', () => {
    assert.equal(s2sHash(s2sCard.f1(VECTOR.email, VECTOR.password, card6_4(VECTOR.card))), VECTOR.hash);
  });
  it('the merchant-side formula of the tests agrees', () => {
    assert.equal(f1(VECTOR.email, VECTOR.password, VECTOR.card), VECTOR.hash);
  });
});

for (const { kind, skip } of kinds) {
  describe(`S2S CARD test vector over HTTP (${kind})`, { skip }, () => {
    let gw: TestGateway;
    const key = `docs-${newId()}`;
    before(async () => {
      gw = await startTestGateway(kind);
      const merchantId = newId();
      await insertMerchant(gw.store.db, gw.keyring, { id: merchantId, name: 'Docs Shop', key, password: VECTOR.password, sandbox: true });
      await insertMid(gw.store.db, { id: newId(), merchantId, name: 'MID', connector: 'sandbox-card', paymentMode: 'SMS/DMS' });
    });
    after(() => gw.close());

    it('accepts the docs sample SALE with the literal hash 2702ae0c4f99506dc29b5615ba9ee3c0', async () => {
      const res = await gw.postForm('/post', { ...saleFields({ client_key: key }), hash: VECTOR.hash });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.result, 'SUCCESS');
    });

    it('refuses the sample with one hex digit changed', async () => {
      const res = await gw.postForm('/post', { ...saleFields({ client_key: key }), hash: VECTOR.hash.replace(/0$/, '1') });
      assert.equal(res.status, 401);
      assert.deepEqual(platformBody(res.body), { http_code: 401, error_code: '100000', error_message: 'hash: Hash is not valid.', result: 'ERROR' });
    });
  });
}
