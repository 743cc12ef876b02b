/**
 * The hosted page's wallet routes under hostile input (D3: never a 5xx, never a stack trace): the wallet form, the
 * sandbox simulator's token endpoint and Apple's merchant validation, with broken, mistyped and oversized bodies,
 * for unknown, open and live sessions.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { tokenFor } from '../admin/config-support.ts';
import { configureWallets, walletKit } from '../s2s-card/wallet-support.ts';

const BODIES: { type: string; body: string | Buffer }[] = [
  { type: 'application/json', body: '{"wallet": "googlepay", "payment_token": ' },
  { type: 'application/json', body: '[1, 2, 3]' },
  { type: 'application/json', body: JSON.stringify({ wallet: ['googlepay'], card: { a: 1 }, validation_url: 42, payment_token: { nested: true } }) },
  { type: 'application/x-www-form-urlencoded', body: 'wallet=googlepay&payment_token=' + 'A'.repeat(40_000) },
  { type: 'application/x-www-form-urlencoded', body: 'method=applepay&wallet=applepay&payment_token=%7B%22paymentData%22%3A1%7D' },
  { type: 'application/x-www-form-urlencoded', body: Buffer.from([0x77, 0x61, 0x6c, 0x6c, 0x65, 0x74, 0x3d, 0xff, 0xfe]) },
  { type: 'text/plain', body: 'wallet=googlepay' },
  { type: 'application/x-www-form-urlencoded', body: `validation_url=${encodeURIComponent('https://apple-pay-gateway.apple.com:8443/x')}&card=decline&wallet=applepay` },
];

for (const { kind, skip } of await storeKinds()) {
  describe(`wallet routes under hostile input (${kind})`, { skip }, () => {
    let t: TestGateway;
    const sessions: string[] = ['no-such-session'];

    before(async () => {
      t = await startTestGateway(kind);
      const kit = await walletKit(t);
      const operator = await tokenFor(t, 'operator');
      const live = await t.addMerchant({ sandbox: false, mids: [{ paymentMode: 'SMS/DMS', connector: 'akurateco' }] });
      for (const m of [t.merchant, live]) {
        await configureWallets(t, operator, m.id, kit, true);
        const order = { number: `HOSTILE-${m.id}`, amount: '5.00', currency: 'EUR', description: 'Hostile' };
        const res = await t.postJson('/api/v1/session', {
          merchant_key: m.key, operation: 'purchase', methods: ['applepay', 'googlepay-page'], order, success_url: 'https://shop.example/ok',
          error_url: 'https://shop.example/error', customer: { name: 'Jane Roe', email: 'jane@example.com' },
          hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
        });
        assert.equal(res.status, 200, res.text);
        sessions.push(new URL(res.body.redirect_url).pathname.split('/').pop()!);
      }
    });
    after(async () => t?.close());

    it('answers every body on every wallet route without a 5xx; the JSON routes with D3 bodies', async () => {
      let requests = 0;
      for (const session of sessions) {
        for (const path of [`/checkout/${session}/wallet`, `/sandbox/wallets/${session}/token`, `/checkout/${session}/applepay/validate`]) {
          for (const { type, body } of BODIES) {
            const res = await fetch(t.baseUrl + path, { method: 'POST', headers: { 'content-type': type }, body: typeof body === 'string' ? body : new Uint8Array(body) });
            const text = await res.text();
            requests += 1;
            assert.ok(res.status < 500, `${path} ${type}: ${res.status} ${text.slice(0, 200)}`);
            assert.doesNotMatch(text, /at [\w.]+ \(|node:internal/, 'no stack trace');
            if (!path.endsWith('/wallet') && res.status >= 400) {
              const d3 = JSON.parse(text) as { http_code: number; error_code: string; error_message: string };
              assert.equal(d3.http_code, res.status, text);
              assert.equal(typeof d3.error_message, 'string');
            }
          }
        }
      }
      assert.equal(requests, sessions.length * 3 * BODIES.length);
    });
  });
}
