/**
 * Issue 25, item 26: test and live keys, over HTTP on both stores. A live merchant is given a test key through the
 * admin API (its own key, password and signing secret); the test key's payments settle in the sandbox and never
 * reach a live MID, even one it was given; the live key's never reach the sandbox; each key takes only its own
 * password; the admin payment list (and the console's CSV export, made from it) and the audit log keep them apart
 * with mode=test|live.
 * Existing single-key merchants keep their meaning: a sandbox merchant's key is a test key, a live one's a live key.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminCall, tokenFor } from '../admin/config-support.ts';
import { saleFields, signedSale } from '../s2s-card/support.ts';
import { insertMid } from '../../src/store/merchants-repo.ts';
import { newId } from '../../src/domain/ids.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`test and live keys (${kind})`, { skip }, () => {
    let t: TestGateway;
    let operator: string;
    let live: TestMerchant;
    before(async () => {
      t = await startTestGateway(kind, { adminToken: `keys-${kind}` });
      operator = await tokenFor(t, 'operator');
      // A live merchant whose MID is an acquirer of the platform family: this gateway's own /post, as its sandbox merchant.
      live = await t.addMerchant({
        sandbox: false,
        mids: [{ paymentMode: 'SMS/DMS', connector: 'akurateco', settings: { endpoint: `${t.baseUrl}/post` }, credentials: { client_key: t.merchant.key, password: t.merchant.password } }],
      });
    });
    after(() => t?.close());

    const admin = (method: string, path: string, body?: unknown) => adminCall(t.baseUrl, method, path, operator, body);
    const sale = (m: TestMerchant, password = m.password) => t.postForm('/post', signedSale({ ...m, password }, saleFields()));

    it('existing merchants keep their meaning: a sandbox merchant\'s key is test, a live merchant\'s is live', async () => {
      assert.equal((await admin('GET', `/admin/v1/merchants/${t.merchant.id}`)).body.mode, 'test');
      const view = (await admin('GET', `/admin/v1/merchants/${live.id}`)).body;
      assert.deepEqual([view.mode, view.test_merchant_id, view.live_merchant_id], ['live', null, null]);
      const paid = await sale(live);
      assert.equal(paid.body.status, 'SETTLED', paid.text);
    });

    it('a live merchant gets a test key: its own key, password and secret; each key takes only its own password; the pair keeps its modes', async () => {
      const issued = await admin('POST', `/admin/v1/merchants/${live.id}/test-key`);
      assert.equal(issued.status, 201, issued.text);
      const test = issued.body;
      assert.deepEqual([test.mode, test.sandbox, test.live_merchant_id], ['test', true, live.id]);
      assert.notEqual(test.merchant_key, live.key);
      assert.ok(test.password.length >= 32, 'a generated password');
      assert.match(test.signing_secret, /^whsec_/);
      assert.equal((await admin('GET', `/admin/v1/merchants/${live.id}`)).body.test_merchant_id, test.id);
      const testKey: TestMerchant = { id: test.id, key: test.merchant_key, password: test.password };

      const paid = await sale(testKey);
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      assert.equal((await sale(testKey, live.password)).body.error_message, 'hash: Hash is not valid.', 'the live password does not sign for the test key');
      assert.equal((await sale(live, test.password)).body.error_message, 'hash: Hash is not valid.', 'nor the test password for the live key');

      assert.equal((await admin('POST', `/admin/v1/merchants/${live.id}/test-key`)).status, 400, 'one test key per live merchant');
      assert.equal((await admin('POST', `/admin/v1/merchants/${t.merchant.id}/test-key`)).status, 400, 'a sandbox merchant\'s key is a test key already');
      assert.equal((await admin('POST', `/admin/v1/merchants/${newId()}/test-key`)).status, 404);
      for (const [id, sandbox] of [[live.id, true], [test.id, false]] as const) {
        const flip = await admin('PATCH', `/admin/v1/merchants/${id}`, { sandbox });
        assert.equal(flip.status, 400, flip.text);
      }
    });

    it('the test key never reaches a live MID, even one it was given first; the live key never reaches the sandbox', async () => {
      const test = (await admin('POST', `/admin/v1/merchants/${(await t.addMerchant({ sandbox: false })).id}/test-key`)).body;
      const testKey: TestMerchant = { id: test.id, key: test.merchant_key, password: test.password };
      const liveMid = newId();
      await insertMid(t.store.db, { id: liveMid, merchantId: test.id, name: 'Live acquirer', connector: 'akurateco', paymentMode: 'SMS/DMS', priority: 100, settings: { endpoint: `${t.baseUrl}/post`, live: true } });
      t.gateway.ctx.merchants.invalidate();
      const paid = await sale(testKey);
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      const attempts = await t.store.db.query<{ mid_id: string }>('SELECT mid_id FROM payment_attempts WHERE payment_id = $1', [paid.body.trans_id]);
      assert.ok(attempts.length > 0);
      assert.ok(attempts.every((a) => a.mid_id !== liveMid), 'no attempt on the live MID');

      // A live merchant with a sandbox MID only: refused, nothing charged in the sandbox.
      const liveOnSandbox = await t.addMerchant({ sandbox: false });
      const refused = await sale(liveOnSandbox);
      assert.equal(refused.body.error_message, 'Enabled merchant mappings or MIDs not found.', refused.text);
    });

    it('the admin payment list keeps test apart from live: mode=test, mode=live', async () => {
      const testKey = (await admin('GET', `/admin/v1/merchants/${live.id}`)).body.test_merchant_id as string;
      const listed = async (query: string) => {
        const res = await admin('GET', `/admin/v1/payments?${query}&limit=200`);
        assert.equal(res.status, 200, res.text);
        return new Set((res.body.payments as { merchant_id: string }[]).map((p) => p.merchant_id));
      };
      const tested = await listed('mode=test');
      const lived = await listed('mode=live');
      assert.ok(tested.has(testKey) && tested.has(t.merchant.id), 'the test key\'s payments and the sandbox merchant\'s');
      assert.ok(!tested.has(live.id));
      assert.ok(lived.has(live.id));
      assert.ok(!lived.has(testKey) && !lived.has(t.merchant.id));
      assert.deepEqual([...(await listed(`mode=live&merchant_id=${testKey}`))], []);
      const bad = await admin('GET', '/admin/v1/payments?mode=sandbox');
      assert.equal(bad.status, 400, bad.text);
    });

    it('the audit log keeps test apart from live: mode=test lists entries about test keys\' merchants, mode=live the others', async () => {
      const testKey = (await admin('GET', `/admin/v1/merchants/${live.id}`)).body.test_merchant_id as string;
      for (const id of [t.merchant.id, live.id, testKey]) {
        const res = await admin('PATCH', `/admin/v1/merchants/${id}`, { name: `Shop ${id.slice(-4)}` });
        assert.equal(res.status, 200, res.text);
      }
      const paid = await sale(live);
      const refunded = await admin('POST', `/admin/v1/payments/${paid.body.trans_id}/refund`, { amount: '1.00' });
      assert.ok(refunded.status < 300, refunded.text);
      const about = async (query: string) => {
        const res = await admin('GET', `/admin/v1/audit-log?${query}&limit=200`);
        assert.equal(res.status, 200, res.text);
        return (res.body.entries as { action: string; object_type: string; object_id: string }[]);
      };
      const tested = await about('mode=test');
      const lived = await about('mode=live');
      const updated = (entries: { action: string; object_id: string }[]) => new Set(entries.filter((e) => e.action === 'merchant.update').map((e) => e.object_id));
      assert.deepEqual(updated(tested), new Set([t.merchant.id, testKey]));
      assert.deepEqual(updated(lived), new Set([live.id]));
      assert.ok(lived.some((e) => e.object_type === 'payment' && e.object_id === paid.body.trans_id), 'a live payment\'s refund is live');
      assert.ok(!tested.some((e) => e.object_id === paid.body.trans_id));
      const all = await about('');
      assert.equal(tested.length + lived.length, all.length, 'every entry is in one of the two');
      assert.equal((await admin('GET', '/admin/v1/audit-log?mode=sandbox')).status, 400);
    });

    it('the merchants list keeps test apart from live: mode=test, mode=live', async () => {
      const ids = async (query: string) => {
        const res = await admin('GET', `/admin/v1/merchants?${query}&limit=200`);
        assert.equal(res.status, 200, res.text);
        return (res.body.merchants as { id: string; mode: string }[]);
      };
      const tested = await ids('mode=test');
      const lived = await ids('mode=live');
      assert.ok(tested.length > 0 && tested.every((m) => m.mode === 'test'), JSON.stringify(tested));
      assert.ok(tested.some((m) => m.id === t.merchant.id));
      assert.ok(lived.length > 0 && lived.every((m) => m.mode === 'live'), JSON.stringify(lived));
      assert.ok(lived.some((m) => m.id === live.id));
      assert.equal((await ids('')).length, tested.length + lived.length);
    });

    it('the callbacks list keeps test apart from live: mode=test, mode=live, and a bulk resend by filter takes the mode', async () => {
      for (const m of [t.merchant, live]) {
        const set = await admin('PATCH', `/admin/v1/merchants/${m.id}`, { notification_url: `https://${m.id === live.id ? 'live' : 'test'}-shop.example/callbacks` });
        assert.equal(set.status, 200, set.text);
        assert.equal((await sale(m)).body.status, 'SETTLED');
      }
      const merchantsOf = async (query: string) => {
        const res = await admin('GET', `/admin/v1/callbacks?${query}`);
        assert.equal(res.status, 200, res.text);
        return new Set((res.body.callbacks as { merchant_id: string }[]).map((c) => c.merchant_id));
      };
      const tested = await merchantsOf('mode=test');
      const lived = await merchantsOf('mode=live');
      assert.ok(tested.has(t.merchant.id) && !tested.has(live.id), [...tested].join());
      assert.ok(lived.has(live.id) && !lived.has(t.merchant.id), [...lived].join());
      const resent = await admin('POST', '/admin/v1/callbacks/resend', { filter: { mode: 'live', merchant_id: t.merchant.id } });
      assert.equal(resent.status, 200, resent.text);
      assert.deepEqual(resent.body.resent, [], 'the sandbox merchant\'s callbacks are no live key\'s');
    });
  });
}
