/**
 * Issue 12, item 6: Standard Webhooks signatures on every callback, per-merchant secrets sealed at rest and
 * rotated through the admin API. The receiver's check is written here from the Standard Webhooks spec, not
 * taken from the gateway's code. Both stores.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startListener, type Listener, type ReceivedCallback } from '../support/merchant.ts';
import { sale } from '../s2s-card/support.ts';

/** What a merchant's receiver does (standardwebhooks.com): HMAC-SHA256 over "id.timestamp.body", 5-minute window. */
function verifiedBy(secret: string, c: ReceivedCallback, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const id = String(c.headers['webhook-id']);
  const timestamp = String(c.headers['webhook-timestamp']);
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = Buffer.from(createHmac('sha256', key).update(`${id}.${timestamp}.${c.raw}`).digest('base64'));
  return String(c.headers['webhook-signature']).split(' ').some((entry) => {
    const [version, sig = ''] = entry.split(',');
    const given = Buffer.from(sig);
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

for (const { kind, skip } of await storeKinds()) {
  describe(`Webhook signatures (${kind})`, { skip }, () => {
    let t: TestGateway;
    let listener: Listener;
    const ADMIN = 'signing-admin-token';
    before(async () => {
      listener = await startListener();
      t = await startTestGateway(kind, { workers: true, adminToken: ADMIN });
    });
    after(async () => {
      await t?.close();
      await listener?.close();
    });

    const rotate = (merchantId: string, token = ADMIN) =>
      fetch(`${t.baseUrl}/admin/v1/merchants/${merchantId}/signing-secret`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });

    async function callbackOfSale(): Promise<ReceivedCallback> {
      const res = await sale(t, { callback_url: listener.url });
      assert.equal(res.status, 200, res.text);
      const [c] = await listener.waitForMatching((x) => x.fields.trans_id === res.body.trans_id, 1, 15_000);
      assert.ok(c);
      return c;
    }

    it('signs every callback: webhook-id is the event id, a fresh timestamp, v1 signatures; the platform hash stays', async () => {
      const c = await callbackOfSale();
      assert.equal(c.headers['webhook-id'], c.headers['x-callback-id']);
      assert.ok(Math.abs(Number(c.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
      assert.match(String(c.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/);
      assert.ok(c.fields.hash, 'the platform hash is still sent');
      const stored = await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM merchant_signing_secrets WHERE merchant_id = $1', [t.merchant.id]);
      assert.equal(stored[0]?.n, 1, 'the merchant got a secret without asking');
    });

    it('rotation answers the new secret once; callbacks verify with it; the previous one signs beside it', async () => {
      const res = await rotate(t.merchant.id);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const body = await res.json() as { signing_secret: string; previous_valid_until: string };
      assert.match(body.signing_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      const [row] = await t.store.db.query<{ text: string }>('SELECT sealed::text || coalesce(previous_sealed::text, \'\') AS text FROM merchant_signing_secrets WHERE merchant_id = $1', [t.merchant.id]);
      assert.ok(row && !row.text.includes(body.signing_secret.slice(6, 30)), 'sealed at rest');
      const c = await callbackOfSale();
      assert.ok(verifiedBy(body.signing_secret, c), 'verifies with the new secret');
      assert.equal(String(c.headers['webhook-signature']).split(' ').length, 2, 'old and new secrets both sign during the overlap');
      const forged = { ...c, raw: c.raw.replace(/status=[A-Z]+/, 'status=SETTLED').replace(/result=[A-Z]+/, 'result=SUCCESS') + '&x=1' };
      assert.equal(verifiedBy(body.signing_secret, forged), false, 'a changed body does not verify');
      assert.equal(verifiedBy(body.signing_secret, c, Math.floor(Date.now() / 1000) + 301), false, 'outside the replay window');
      const audit = await t.store.db.query('SELECT 1 FROM audit_log WHERE action = $1 AND object_id = $2', ['merchant.rotate_signing_secret', t.merchant.id]);
      assert.equal(audit.length, 1);
    });

    it('refuses rotation without a valid operator token, and for an unknown merchant, in D3 bodies', async () => {
      const anonymous = await rotate(t.merchant.id, 'nope');
      assert.equal(anonymous.status, 401);
      const unknown = await rotate('no-such-merchant');
      assert.equal(unknown.status, 404);
      assert.equal((await unknown.json() as { http_code: number }).http_code, 404);
    });
  });
}
