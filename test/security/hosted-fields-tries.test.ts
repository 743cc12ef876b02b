/**
 * Issue 25, item 2: card testing through a hosted-fields token. The token lives in the merchant's public page;
 * it gets no more declined attempts than the hosted page gives a payer (payerRetries, default 3), then the
 * session has ended: collection and processing answer the D3 "Session can not be paid.", and no acquirer is
 * called again.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { collect, newOrder, openToken, processing, spyOnConnector } from '../hosted-fields/support.ts';
import { assertD3 } from '../hardening/support.ts';

const DECLINED_EXPIRY = '02/38';

for (const { kind, skip } of await storeKinds()) {
  describe(`hosted fields: declined attempts per token (${kind})`, { skip }, () => {
    let t: TestGateway;
    let calls: unknown[];
    before(async () => {
      t = await startTestGateway(kind);
      calls = spyOnConnector(t);
    });
    after(() => t?.close());

    /** Declines `n` times through the token, then shows the session refuses a further card. */
    async function exhaust(token: string, n: number) {
      for (let i = 0; i < n; i++) {
        assert.equal((await collect(t, token, { expiry: DECLINED_EXPIRY })).status, 200, `collection ${i + 1}`);
        const declined = await processing(t, token);
        assert.equal(declined.body.result, 'decline', `attempt ${i + 1}: ${declined.text}`);
      }
      const before = calls.length;
      const collected = await collect(t, token, { expiry: '01/38' });
      assertD3(400, collected.text, 'collection after the last try');
      assert.equal(collected.body.error_message, 'Session can not be paid.');
      const refused = await processing(t, token);
      assertD3(400, refused.text, 'processing after the last try');
      assert.equal(refused.body.error_message, 'Session can not be paid.');
      assert.equal(calls.length, before, 'no acquirer call after the last try');
    }

    it('the default three declines, then the session has ended', async () => {
      await exhaust(await openToken(t, newOrder('tries')), 3);
    });

    it('the merchant\'s payerRetries decides (2), and one when retries are off', async () => {
      const two = await t.addMerchant({ settings: { payerRetries: { maxAttempts: 2 } } });
      await exhaust(await openToken(t, newOrder('tries2'), {}, two), 2);
      const off = await t.addMerchant({ settings: { payerRetries: false } });
      await exhaust(await openToken(t, newOrder('tries0'), {}, off), 1);
    });

    it('a try left still pays', async () => {
      const token = await openToken(t, newOrder('tries-ok'));
      for (let i = 0; i < 2; i++) {
        await collect(t, token, { expiry: DECLINED_EXPIRY });
        assert.equal((await processing(t, token)).body.result, 'decline');
      }
      assert.equal((await collect(t, token)).status, 200);
      assert.equal((await processing(t, token)).body.result, 'success');
    });
  });
}
