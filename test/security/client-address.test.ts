/**
 * Issue 25, item 1: the client address comes from X-Forwarded-For only as far as TRUST_PROXY says. By default no
 * proxy is trusted, so a client writing a new X-Forwarded-For per request is still one address to the rate
 * limits, and cannot get a victim's address locked out by claiming it.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { loadConfig, type TrustProxy } from '../../src/config.ts';

// A one-hour window: the limiter's windows are fixed (epoch-aligned), and a minute's could end between the failures.
const LIMITS = { enabled: true, authFailures: 3, windowSeconds: 3600 };

for (const { kind, skip } of await storeKinds()) {
  describe(`TRUST_PROXY (${kind})`, { skip }, () => {
    const gateways: TestGateway[] = [];
    after(() => Promise.all(gateways.map((g) => g.close())));
    async function gateway(trustProxy: TrustProxy): Promise<TestGateway> {
      const t = await startTestGateway(kind, { rateLimits: LIMITS, trustProxy });
      gateways.push(t);
      return t;
    }
    /** A failed authentication (an unknown key) claiming to come through `forwardedFor`. */
    const fail = (t: TestGateway, forwardedFor: string) =>
      fetch(`${t.baseUrl}/api/v1/payment/status`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        body: JSON.stringify({ merchant_key: `nobody-${randomBytes(4).toString('hex')}`, payment_id: 'p-1', hash: checkoutHash('x', 'p-1') }),
      });

    it('by default ignores X-Forwarded-For: a fresh address per request does not escape the limit', async () => {
      const t = await gateway(loadConfig({}).trustProxy);
      for (let i = 1; i <= 4; i++) assert.equal((await fail(t, `198.51.100.${i}`)).status, 401);
      assert.equal((await fail(t, '198.51.100.200')).status, 429, 'the socket address is the one counted');
    });

    it('with a hop count believes only what the trusted proxy appended, not what the client wrote before it', async () => {
      const t = await gateway(1);
      const victim = '192.0.2.10';
      for (let i = 0; i < 4; i++) assert.equal((await fail(t, `${victim}, 203.0.113.9`)).status, 401);
      assert.equal((await fail(t, `${victim}, 203.0.113.9`)).status, 429, 'the attacker is limited');
      assert.equal((await fail(t, victim)).status, 401, 'the address it claimed is not');
    });

    it('with proxy addresses believes the header only from them', async () => {
      const t = await gateway(['10.9.8.7/32']);
      for (let i = 1; i <= 4; i++) assert.equal((await fail(t, `198.51.100.${i}`)).status, 401);
      assert.equal((await fail(t, '198.51.100.200')).status, 429, '127.0.0.1 is no trusted proxy');
    });
  });
}
