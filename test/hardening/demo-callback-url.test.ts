/**
 * Issue 25, item 18: outside production the demo merchant's notification URL is allowed although internal,
 * exactly as set; another port or path of its host stays refused for every merchant, at request time and at
 * delivery. Both stores.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { sale } from '../s2s-card/support.ts';
import { PRIVATE_TARGET_MESSAGE } from '../../src/domain/callback-targets.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`The demo notification URL (${kind})`, { skip }, () => {
    let t: TestGateway;
    let demo: Listener;
    let other: Listener;
    before(async () => {
      demo = await startListener();
      other = await startListener();
      // No loopback host allowed by the operator: only the demo URL, as a developer's start would set it.
      t = await startTestGateway(kind, { workers: true, allowedPrivateHosts: [], env: { DEMO_NOTIFICATION_URL: demo.url } });
    });
    after(async () => {
      await t?.close();
      await demo?.close();
      await other?.close();
    });

    it('accepts the demo URL itself and delivers the callback there', async () => {
      const res = await sale(t, { callback_url: demo.url });
      assert.equal(res.status, 200, res.text);
      await demo.waitForMatching((c) => c.fields.trans_id === res.body.trans_id, 1, 15_000);
    });

    it('refuses any other port or path on the demo host', async () => {
      const port = new URL(demo.url).port;
      for (const url of [other.url, `http://127.0.0.1:${port}/admin`, `http://127.0.0.1:${port}/callback/x`, 'http://127.0.0.1:5432/']) {
        const res = await sale(t, { callback_url: url });
        assert.equal(res.status, 400, url);
        assert.deepEqual(res.body.errors, [{ error_code: '100000', error_message: `callback_url: ${PRIVATE_TARGET_MESSAGE}` }], url);
      }
      assert.equal(other.received.length, 0);
    });
  });
}
