/**
 * "Send a test callback" from the portal's developers screen (issue 30): a developer sends one; it reaches the
 * notification URL signed as real callbacks are (webhook-signature with the secret the portal reveals, X-Callback-Id);
 * GET /portal/v1/callbacks/{id} shows its delivery; the send is in the merchant's audit log with the user. A viewer
 * may not send one (callbacks.resend), another merchant's owner does not find the callback, and a merchant without
 * a notification URL is told so at the field.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startListener, type Listener } from '../support/merchant.ts';
import { verifyWebhook } from '../../src/domain/webhook-signature.ts';
import { invitedUser, portalClient, portalSignIn } from './support.ts';

const ADMIN = 'portal-test-callback-admin';

for (const { kind, skip } of await storeKinds()) {
  describe(`portal: send a test callback (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true, notificationUrl: listener.url, adminToken: ADMIN });
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    it('arrives signed, its delivery is shown, it is audited; refused to a viewer, hidden from another merchant', async () => {
      const dev = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, ADMIN, { role: 'developer' })).email));
      const viewer = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, ADMIN, { role: 'viewer' })).email));
      const other = await t.addMerchant();
      const stranger = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, ADMIN, { role: 'owner', merchantId: other.id })).email));

      const sent = await dev('POST', '/portal/v1/developers/test-callback', {});
      assert.equal(sent.status, 200, sent.text);
      assert.equal(sent.body.merchant_id, t.merchant.id);
      const [arrived] = await listener.waitForMatching((c) => c.headers['x-callback-id'] === sent.body.id, 1, 30_000);
      assert.equal(arrived!.fields.type, 'test');
      const secret = (await dev('POST', '/portal/v1/developers/signing-secret/reveal', {})).body.signing_secret as string;
      const headers = Object.fromEntries(Object.entries(arrived!.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
      assert.ok(verifyWebhook(secret, headers, arrived!.raw, Math.floor(Date.now() / 1000)), 'signed with the revealed secret');

      let shown = await dev('GET', `/portal/v1/callbacks/${sent.body.id}`);
      for (let i = 0; i < 50 && shown.body.attempt_log.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 200));
        shown = await dev('GET', `/portal/v1/callbacks/${sent.body.id}`);
      }
      assert.equal(shown.status, 200, shown.text);
      assert.deepEqual([shown.body.event_type, shown.body.status, shown.body.attempt_log[0].outcome, shown.body.attempt_log[0].http_status], ['test', 'delivered', 'delivered', 200]);

      // The list's page size: 1 to 1000, anything else the D3 400 on limit (never a silent cap).
      assert.equal((await dev('GET', '/portal/v1/callbacks?limit=1')).body.callbacks.length, 1);
      for (const limit of ['1001', '0']) {
        const res = await dev('GET', `/portal/v1/callbacks?limit=${limit}`);
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(res.body.errors.map((e: { error_message: string }) => e.error_message), ['limit: This value should be between 1 and 1000.'], res.text);
      }

      const audit = await dev('GET', '/portal/v1/audit');
      assert.equal(audit.status, 403, 'a developer does not read the audit log');
      const owner = portalClient(t.baseUrl, await portalSignIn(t.baseUrl, (await invitedUser(t, ADMIN, { role: 'owner' })).email));
      const entries = (await owner('GET', '/portal/v1/audit')).body.entries as { action: string; object_id: string; user_name: string }[];
      assert.ok(entries.some((e) => e.action === 'callback.test' && e.object_id === sent.body.id && e.user_name.startsWith('merchant:developer-')), JSON.stringify(entries));

      assert.equal((await viewer('POST', '/portal/v1/developers/test-callback', {})).status, 403);
      assert.equal((await viewer('GET', `/portal/v1/callbacks/${sent.body.id}`)).status, 200, 'a viewer reads callbacks');
      assert.equal((await stranger('GET', `/portal/v1/callbacks/${sent.body.id}`)).status, 404);
      assert.equal((await stranger('POST', '/portal/v1/developers/test-callback', { merchant_id: t.merchant.id })).status, 404);
      const none = await stranger('POST', '/portal/v1/developers/test-callback', {});
      assert.equal(none.status, 400, 'the other merchant has no notification URL');
      assert.match(none.text, /notification_url/);
    });
  });
}
