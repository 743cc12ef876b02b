/**
 * The fraud-dispute feed (issue 29 item 6 into issue 26's lists), over HTTP on both stores. Off until an operator
 * saves it (compare-and-set, audited): a fraud chargeback then puts its payment's card fingerprint, e-mail and
 * device id on a block list in the dispute's transaction, with an audit entry naming the dispute: a live merchant's
 * in the platform's lists, a sandbox merchant's in its own. The entries expire after the days set, block the
 * payer's next payment, and show in the lists (searchable by the dispute). A consumer dispute, or any dispute while
 * the feed is off, lists nothing.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminClient, type AdminCall } from '../admin/support.ts';
import { adminCall, tokenFor } from '../admin/config-support.ts';
import { sale } from '../s2s-card/support.ts';
import { newOrder, openToken, processing, processingBody } from '../hosted-fields/support.ts';
import type { CardConnector } from '../../src/connectors/types.ts';

const DEVICE = 'fraud-device-0000000001';

interface Entry { kind: string; value: string; list: string; reason: string; expires_at: string | null; created_by: string | null }

for (const { kind, skip } of await storeKinds()) {
  describe(`fraud disputes feed the block list (${kind})`, { skip }, () => {
    let t: TestGateway;
    let admin: AdminCall;
    let sandboxShop: TestMerchant;
    let liveShop: TestMerchant;

    before(async () => {
      t = await startTestGateway(kind, { adminToken: `feed-${kind}` });
      admin = adminClient(t.baseUrl, `feed-${kind}`);
      sandboxShop = await t.addMerchant({ notificationUrl: 'http://127.0.0.1:9/callbacks' });
      // A live merchant's acquirer here is the sandbox's card engine under another name (as in card-testing.e2e).
      const connectors = t.gateway.ctx.connectors as Map<string, CardConnector>;
      connectors.set('acquirer-under-test', connectors.get('sandbox-card')!);
      liveShop = await t.addMerchant({ sandbox: false, notificationUrl: 'http://127.0.0.1:9/callbacks', mids: [{ paymentMode: 'SMS/DMS', connector: 'acquirer-under-test' }] });
    });
    after(() => t?.close());

    /** A settled hosted-fields payment of the sandbox shop with this e-mail and device: its id. */
    async function hostedPayment(email: string): Promise<string> {
      const token = await openToken(t, newOrder('feed'), {}, sandboxShop);
      const collected = await t.postJson('/hosted-fields/collect', { card_number: '4111111111111111', card_expiry: '01/38', card_cvv: '123', device_id: DEVICE }, { origin: t.baseUrl, token });
      assert.equal(collected.status, 200, collected.text);
      const res = await processing(t, token, 'purchase', processingBody({ email }));
      assert.equal(res.body.result, 'success', res.text);
      return res.body.public_id as string;
    }
    const chargeback = async (paymentId: string, reasonCode: string) => {
      const res = await admin('POST', `/admin/v1/payments/${paymentId}/disputes`, { event: 'chargeback', reason_code: reasonCode, note: 'bank letter' });
      assert.equal(res.status, 201, res.text);
      return res.body as { id: string; category: string };
    };
    const entries = async (scope: string, q = ''): Promise<Entry[]> => {
      const res = await admin('GET', `/admin/v1/risk/lists/${scope}${q ? `?q=${encodeURIComponent(q)}` : ''}`);
      assert.equal(res.status, 200, res.text);
      return res.body;
    };

    it('is off until saved; saved with compare-and-set and audited; refuses no kinds', async () => {
      const off = await admin('GET', '/admin/v1/risk/dispute-feed');
      assert.deepEqual(off.body, { enabled: false, kinds: ['card', 'email'], scope: 'platform', expires_days: null, version: 0, updated_at: null, updated_by: null });
      const paid = await hostedPayment('while-off@example.org');
      assert.equal((await chargeback(paid, '10.4')).category, 'fraud');
      assert.deepEqual(await entries(sandboxShop.id), [], 'the feed is off: nothing listed');

      const none = await admin('PUT', '/admin/v1/risk/dispute-feed', { version: 0, enabled: true, kinds: [], scope: 'platform' });
      assert.equal(none.status, 400, none.text);
      assert.match(none.text, /kinds: Choose at least one/);
      const saved = await admin('PUT', '/admin/v1/risk/dispute-feed', { version: 0, enabled: true, kinds: ['card', 'email', 'device'], scope: 'platform', expires_days: 30 });
      assert.equal(saved.status, 200, saved.text);
      assert.deepEqual([saved.body.enabled, saved.body.version, saved.body.expires_days], [true, 1, 30]);
      const stale = await admin('PUT', '/admin/v1/risk/dispute-feed', { version: 0, enabled: false, kinds: ['card'], scope: 'merchant' });
      assert.equal(stale.status, 409, stale.text);
      assert.match(stale.text, /was changed since it was read/);
      // risk.read reads it; changing it needs risk.write.
      const viewer = await tokenFor(t, 'viewer');
      assert.equal((await adminCall(t.baseUrl, 'GET', '/admin/v1/risk/dispute-feed', viewer)).body.version, 1);
      assert.equal((await adminCall(t.baseUrl, 'PUT', '/admin/v1/risk/dispute-feed', viewer, { version: 1, enabled: false, kinds: ['card'], scope: 'platform' })).status, 403);
      const audit = await admin('GET', '/admin/v1/audit-log?action=risk.dispute_feed');
      assert.deepEqual(audit.body.entries.map((e: { before: { enabled: boolean }; after: { enabled: boolean; version: number } }) => [e.before.enabled, e.after.enabled, e.after.version]), [[false, true, 1]]);
    });

    it('a sandbox merchant\'s fraud chargeback lists card, e-mail and device in its own lists; the payer is then blocked', async () => {
      const paid = await hostedPayment('Fraudster@Example.org');
      const dispute = await chargeback(paid, '10.4');
      const listed = await entries(sandboxShop.id);
      assert.deepEqual(listed.map((e) => [e.list, e.kind]).sort(), [['block', 'card'], ['block', 'device'], ['block', 'email']]);
      const byKind = Object.fromEntries(listed.map((e) => [e.kind, e]));
      assert.match(byKind.card!.value, /^[0-9a-f]{32}$/, 'the card by its fingerprint, never its number');
      assert.deepEqual([byKind.email!.value, byKind.device!.value], ['fraudster@example.org', DEVICE]);
      for (const e of listed) {
        assert.equal(e.reason, `fraud chargeback 10.4 (dispute ${dispute.id}, payment ${paid})`);
        assert.equal(e.created_by, 'fraud dispute feed');
        const days = (Date.parse(e.expires_at!) - Date.now()) / 86_400_000;
        assert.ok(days > 29.9 && days <= 30, `expires in 30 days: ${e.expires_at}`);
      }
      assert.equal((await entries(sandboxShop.id, dispute.id)).length, 3, 'found by the dispute\'s id');
      assert.deepEqual(await entries('platform'), [], 'a sandbox merchant\'s dispute never feeds the platform\'s lists');
      const audit = await admin('GET', `/admin/v1/audit-log?object_id=${sandboxShop.id}&action=risk.list.add`);
      const [entry] = audit.body.entries as { user: { id: string | null; name: string }; details: { dispute_id: string; reason_code: string } }[];
      assert.deepEqual([entry?.user, entry?.details.dispute_id, entry?.details.reason_code], [{ id: null, name: 'fraud dispute feed' }, dispute.id, '10.4']);

      // The same payer (e-mail) with the success card: blocked by the list before any acquirer call.
      const token = await openToken(t, newOrder('feed-again'), {}, sandboxShop);
      await t.postJson('/hosted-fields/collect', { card_number: '4111111111111111', card_expiry: '01/38', card_cvv: '123' }, { origin: t.baseUrl, token });
      const again = await processing(t, token, 'purchase', processingBody({ email: 'fraudster@example.org' }));
      assert.equal(again.body.decline_message, 'Declined by risk management', again.text);
      const risk = await admin('GET', `/admin/v1/payments/${again.body.public_id}/risk`);
      assert.match(risk.body.reason, /block list/);
    });

    it('a consumer dispute lists nothing; a live merchant\'s fraud chargeback feeds the platform\'s list', async () => {
      const consumer = await sale(t, { payer_email: 'unhappy@example.net', card_number: '4111111111111111', order_amount: '2.50' }, liveShop);
      assert.equal(consumer.body.status, 'SETTLED', consumer.text);
      assert.equal((await chargeback(consumer.body.trans_id, '13.1')).category, 'consumer_dispute');
      assert.deepEqual(await entries('platform'), []);

      const fraud = await sale(t, { payer_email: 'stolen-card@example.net', card_number: '4111111111111111' }, liveShop);
      assert.equal(fraud.body.status, 'SETTLED', fraud.text);
      await chargeback(fraud.body.trans_id, '4837');
      const platform = await entries('platform');
      assert.deepEqual(platform.map((e) => [e.kind, e.kind === 'email' ? e.value : 'fingerprint']).sort(), [['card', 'fingerprint'], ['email', 'stolen-card@example.net']], 'no device: an S2S payment has none');
      assert.deepEqual(await entries(liveShop.id), []);
    });

    it('an operator\'s entry for the value wins: its reason, expiry and allow or block kept; the feed adds nothing beside it', async () => {
      // The earlier chargeback's card entry goes (the sandbox has one success card); paid first: an operator's
      // block would stop the payment itself.
      for (const e of (await entries('platform')).filter((x) => x.kind === 'card') as (Entry & { id: string })[]) {
        assert.equal((await admin('DELETE', `/admin/v1/risk/lists/platform/${e.id}`)).status, 204);
      }
      const blockedPay = await sale(t, { payer_email: 'known-mule@example.net', card_number: '4111111111111111', order_amount: '3.10' }, liveShop);
      const allowedPay = await sale(t, { payer_email: 'vip@example.net', card_number: '4111111111111111', order_amount: '3.20' }, liveShop);
      assert.deepEqual([blockedPay.body.status, allowedPay.body.status], ['SETTLED', 'SETTLED'], blockedPay.text + allowedPay.text);
      const expiresAt = new Date(Date.now() + 400 * 86_400_000).toISOString();
      const added = await admin('POST', '/admin/v1/risk/lists/platform', { entries: [
        { list: 'block', kind: 'email', value: 'known-mule@example.net', reason: 'operator: known mule', expires_at: expiresAt },
        { list: 'allow', kind: 'email', value: 'vip@example.net', reason: 'operator: trusted customer' },
      ] });
      assert.equal(added.status, 200, added.text);
      const mine = async () => (await entries('platform')).filter((e) => e.kind === 'email' && ['known-mule@example.net', 'vip@example.net'].includes(e.value))
        .map((e) => [e.list, e.value, e.reason, e.expires_at && new Date(e.expires_at).toISOString(), e.created_by === 'fraud dispute feed'])
        .sort((a, b) => String(a[1]).localeCompare(String(b[1])));
      const before = await mine();
      assert.deepEqual(before, [
        ['block', 'known-mule@example.net', 'operator: known mule', expiresAt, false],
        ['allow', 'vip@example.net', 'operator: trusted customer', null, false],
      ]);

      await chargeback(blockedPay.body.trans_id, '10.4');
      await chargeback(allowedPay.body.trans_id, '10.4');
      assert.deepEqual(await mine(), before, 'the operator\'s entries unchanged, and no block entry beside the allow');
      // The card had no operator entry: the feed's own entry for it is still there, naming the latest dispute.
      const card = (await entries('platform')).filter((e) => e.kind === 'card');
      assert.equal(card.length, 1);
      assert.equal(card[0]!.created_by, 'fraud dispute feed');
      assert.match(card[0]!.reason, new RegExp(`payment ${allowedPay.body.trans_id}`));
    });
  });
}
