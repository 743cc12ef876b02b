/**
 * Merchant changes made through the admin API, observed through every merchant channel as a merchant's
 * integration sees them: a disabled merchant is refused as unknown; a rotated password signs the next
 * request, the previous one works during the grace period only, and callbacks are signed with the new one.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { checkoutHash, startListener, type Listener } from '../support/merchant.ts';
import { sale as s2sSale, f2, CARD, EMAIL } from '../s2s-card/support.ts';
import { transHash } from '../apm/support.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { insertMid } from '../../src/store/merchants-repo.ts';
import { newId } from '../../src/domain/ids.ts';
import { adminClient, type AdminCall } from './support.ts';

const BOOTSTRAP = 'pcop_bootstrap-token-for-channels-test';
const MERCHANT_NOT_FOUND = 'merchant_key: Merchant not found.';
const HASH_INVALID = 'hash: Hash is not valid.';

interface Outcome {
  status: number;
  message?: string;
}

/** One signed request per merchant channel; each answers 2xx (or a non-authentication error) when the hash is accepted. */
function channels(t: TestGateway): Record<string, (m: TestMerchant) => Promise<Outcome>> {
  const order = () => ({ number: `e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, amount: '10.00', currency: 'USD', description: 'Admin e2e' });
  const outcome = (res: { status: number; body: any }): Outcome => ({ status: res.status, message: res.body?.error_message });
  return {
    checkout: async (m) => {
      const o = order();
      return outcome(await t.postJson('/api/v1/session', {
        merchant_key: m.key, operation: 'purchase', order: o, success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/no',
        hash: checkoutHash(m.password, o.number, o.amount, o.currency, o.description),
      }));
    },
    'hosted fields': async (m) => {
      const o = order();
      return outcome(await t.postJson('/api/v1/session/token', {
        merchant_key: m.key, operation: 'purchase', order: o, return_url: 'https://shop.example/return',
        hash: checkoutHash(m.password, o.number, o.amount, o.currency, o.description),
      }));
    },
    's2s card': async (m) => outcome(await s2sSale(t, {}, m)),
    's2s apm': async (m) => {
      // An unknown transaction: "Transaction does not exist." is answered only after the hash was accepted.
      const transId = newId();
      return outcome(await t.postForm('/apm/post', { action: 'GET_TRANS_STATUS', client_key: m.key, trans_id: transId, hash: transHash(transId, m.password) }));
    },
    'test clock': async (m) => outcome(await t.postJson('/sandbox/test-clock', { merchant_key: m.key, hash: checkoutHash(m.password, m.key) })),
  };
}

const accepted = (o: Outcome) => o.status !== 401 && (o.status === 200 || o.message === 'Transaction does not exist.');

for (const { kind, skip } of await storeKinds()) {
  describe(`admin: merchant changes seen by the merchant channels (${kind})`, { skip }, () => {
    let t: TestGateway;
    let admin: AdminCall;
    let listener: Listener;
    const clock = new ManualClock(new Date());
    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { adminToken: BOOTSTRAP, clock, workers: true });
      admin = adminClient(t.baseUrl, BOOTSTRAP);
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    /** A merchant made through the API, with a sandbox card MID (the MID API is issue 11's part B). */
    async function apiMerchant(extra: Record<string, unknown> = {}): Promise<TestMerchant> {
      const res = await admin('POST', '/admin/v1/merchants', { name: 'Channel Shop', sandbox: true, notification_url: listener.url, ...extra });
      assert.equal(res.status, 201, res.text);
      await insertMid(t.store.db, { id: newId(), merchantId: res.body.id, name: 'Sandbox', connector: 'sandbox-card', paymentMode: 'SMS/DMS' });
      return { id: res.body.id, key: res.body.merchant_key, password: res.body.password };
    }

    it('refuses a disabled merchant as unknown on every merchant channel, and serves it again once enabled', async () => {
      const m = await apiMerchant();
      const calls = channels(t);
      for (const [name, call] of Object.entries(calls)) assert.ok(accepted(await call(m)), `${name} before disabling`);
      assert.equal((await admin('POST', `/admin/v1/merchants/${m.id}/disable`)).body.disabled, true);
      for (const [name, call] of Object.entries(calls)) {
        const o = await call(m);
        assert.equal(o.status, 401, name);
        assert.equal(o.message, MERCHANT_NOT_FOUND, name);
      }
      assert.equal((await admin('POST', `/admin/v1/merchants/${m.id}/enable`)).body.disabled, false);
      for (const [name, call] of Object.entries(calls)) assert.ok(accepted(await call(m)), `${name} after enabling`);
    });

    it('accepts the new password at once and the previous one during the grace period only, on every channel', async () => {
      const m = await apiMerchant();
      const calls = channels(t);
      const rotated = await admin('POST', `/admin/v1/merchants/${m.id}/password`, { grace_hours: 2 });
      assert.equal(rotated.status, 200, rotated.text);
      assert.notEqual(rotated.body.password, m.password);
      assert.equal(rotated.body.previous_password_valid_until, new Date(clock.now().getTime() + 2 * 3_600_000).toISOString());
      const current = { ...m, password: rotated.body.password as string };
      const previous = m;
      for (const [name, call] of Object.entries(calls)) {
        assert.ok(accepted(await call(current)), `${name}: new password`);
        assert.ok(accepted(await call(previous)), `${name}: previous password in grace`);
      }
      assert.equal((await admin('GET', `/admin/v1/merchants/${m.id}`)).body.previous_password_valid_until, rotated.body.previous_password_valid_until);
      clock.advance(2 * 3_600_000);
      for (const [name, call] of Object.entries(calls)) {
        assert.ok(accepted(await call(current)), `${name}: new password after grace`);
        const old = await call(previous);
        assert.equal(old.status, 401, `${name}: previous password after grace`);
        assert.equal(old.message, HASH_INVALID, name);
      }
      assert.equal((await admin('GET', `/admin/v1/merchants/${m.id}`)).body.previous_password_valid_until, null);
    });

    it('ends the previous password at once with grace_hours 0, and signs callbacks with the new password', async () => {
      const m = await apiMerchant();
      const rotated = await admin('POST', `/admin/v1/merchants/${m.id}/password`, { grace_hours: 0 });
      assert.equal(rotated.body.previous_password_valid_until, null);
      const current = { ...m, password: rotated.body.password as string };
      const old = await s2sSale(t, {}, m);
      assert.equal(old.status, 401);
      assert.equal(old.body.error_message, HASH_INVALID);

      // Rotated again with grace: a SALE signed with the previous password gets a callback signed with the new one.
      const again = await admin('POST', `/admin/v1/merchants/${m.id}/password`, {});
      assert.equal(Date.parse(again.body.previous_password_valid_until) - clock.now().getTime(), 24 * 3_600_000, 'default grace: 24 h');
      const res = await s2sSale(t, {}, current);
      assert.equal(res.status, 200, res.text);
      const transId = res.body.trans_id as string;
      const [callback] = await listener.waitForMatching((c) => c.fields.trans_id === transId, 1, 20_000);
      assert.equal(callback!.fields.hash, f2(EMAIL, again.body.password, transId, CARD));
      assert.notEqual(callback!.fields.hash, f2(EMAIL, current.password, transId, CARD));
    });

    it('applies a changed hash algorithm to the next request', async () => {
      const m = await apiMerchant();
      assert.ok(accepted(await channels(t)['s2s card']!(m)));
      assert.equal((await admin('PATCH', `/admin/v1/merchants/${m.id}`, { hash_algorithm: 'sha256' })).status, 200);
      const md5Signed = await s2sSale(t, {}, m);
      assert.equal(md5Signed.status, 401);
      const { signedSale, saleFields } = await import('../s2s-card/support.ts');
      const sha = await t.postForm('/post', signedSale(m, saleFields(), 'sha256'));
      assert.equal(sha.status, 200, sha.text);
    });
  });
}
