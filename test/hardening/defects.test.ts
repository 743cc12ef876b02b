/**
 * Issue 12, defects 1-4, through HTTP on both stores: hostile JSON bodies, idempotency keys taken by
 * strangers, router answers, and card data in logged URLs.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';
import { createLogger } from '../../src/logger.ts';
import { assertD3 } from './support.ts';

/** Sends raw bytes on a socket and returns what came back (the gateway closes after an error). */
function rawRequest(baseUrl: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let out = '';
    socket.on('data', (d) => (out += d.toString('utf8')));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
    setTimeout(() => { socket.destroy(); resolve(out); }, 5000).unref();
  });
}

for (const { kind, skip } of await storeKinds()) {
  describe(`Hardening defects 1-4 (${kind})`, { skip }, () => {
    let t: TestGateway;
    const logLines: string[] = [];
    before(async () => {
      const sink = new Writable({ write(chunk, _enc, done) { logLines.push(String(chunk)); done(); } });
      t = await startTestGateway(kind, { logger: createLogger('info', sink), logRequests: true });
    });
    after(() => t?.close());

    const statusBody = (paymentId: string, extra: Record<string, unknown> = {}) => ({ merchant_key: t.merchant.key, payment_id: paymentId, hash: checkoutHash(t.merchant.password, paymentId), ...extra });

    it('1: a body of 5,000 nested arrays with an Idempotency-Key answers a D3 400, and the gateway goes on', async () => {
      const deep = JSON.stringify(statusBody('p-1')).replace(/}$/, `,"x":${'['.repeat(5000)}${']'.repeat(5000)}}`);
      const res = await t.postJson('/api/v1/payment/status', deep, { 'idempotency-key': 'k1' });
      assert.equal(res.status, 400);
      assertD3(res.status, res.text);
      assert.match(res.text, /nested too deeply/);
      const after = await t.postJson('/api/v1/payment/status', statusBody('p-1'), { 'idempotency-key': 'k1' });
      assert.equal(after.status, 400);
      assert.equal(after.body.error_message, 'Payment does not exist.');
    });

    it('1: too many keys and a prototype key answer D3 400s', async () => {
      const many = Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`k${i}`, i]));
      const wide = await t.postJson('/api/v1/payment/status', { ...statusBody('p-2'), many });
      assert.equal(wide.status, 400);
      assertD3(wide.status, wide.text);
      assert.match(wide.text, /too many fields/);
      const proto = await t.postJson('/api/v1/payment/status', '{"merchant_key":"x","__proto__":{"admin":true}}');
      assert.equal(proto.status, 400);
      assertD3(proto.status, proto.text);
    });

    it('2: a bad hash with an Idempotency-Key does not take the key from the merchant', async () => {
      const order = { number: 'idem-stolen', amount: '5.00', currency: 'USD', description: 'stolen key' };
      const genuine = { merchant_key: t.merchant.key, operation: 'purchase', order, success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/no', hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description) };
      const forged = await t.postJson('/api/v1/session', { ...genuine, hash: 'f'.repeat(40) }, { 'idempotency-key': 'K' });
      assert.equal(forged.status, 401, forged.text);
      const real = await t.postJson('/api/v1/session', genuine, { 'idempotency-key': 'K' });
      assert.equal(real.status, 200, real.text);
      const replay = await t.postJson('/api/v1/session', genuine, { 'idempotency-key': 'K' });
      assert.deepEqual(replay.body, real.body);
    });

    it('2: a request refused by validation does not keep its key either', async () => {
      const bad = await t.postJson('/api/v1/payment/status', { merchant_key: t.merchant.key, hash: checkoutHash(t.merchant.password, '') }, { 'idempotency-key': 'K2' });
      assert.equal(bad.status, 400);
      const rows = await t.store.db.query('SELECT key FROM idempotency_keys WHERE key = $1', ['K2']);
      assert.equal(rows.length, 0);
      const good = await t.postJson('/api/v1/payment/status', statusBody('p-3'), { 'idempotency-key': 'K2' });
      assert.equal(good.body.error_message, 'Payment does not exist.');
    });

    it('3: bad URL encoding, an over-long parameter, unknown paths and methods answer D3 bodies', async () => {
      const cases: [string, string][] = [
        ['GET', '/pay/%/status'], ['GET', '/api/v1/%/x'], ['GET', '/checkout/%zz'], ['GET', `/pay/${'a'.repeat(2000)}/status`],
        ['GET', '/nowhere'], ['DELETE', '/api/v1/session'], ['PUT', '/post'], ['OPTIONS', '/api/v1/session'], ['PATCH', '/checkout/x'],
      ];
      for (const [method, path] of cases) {
        const res = await fetch(t.baseUrl + path, { method });
        const text = await res.text();
        assertD3(res.status, text, `${method} ${path.slice(0, 30)}`);
        assert.ok(res.status < 500);
        assert.ok(!text.includes('aaaaaaaaaa'), 'the URL is not echoed');
      }
      const wrongType = await fetch(`${t.baseUrl}/api/v1/session`, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: '<a/>' });
      assertD3(wrongType.status, await wrongType.text(), 'text/xml');
    });

    it('3: a request Node\'s parser refuses gets a D3 body on the socket', async () => {
      const answer = await rawRequest(t.baseUrl, 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
      assert.match(answer, /^HTTP\/1\.1 400/);
      const [, body = ''] = answer.split('\r\n\r\n');
      assertD3(400, body, 'raw');
    });

    it('4: card data in a query string never reaches the log', async () => {
      const res = await fetch(`${t.baseUrl}/post?action=SALE&card_number=4111111111111111&card_cvv2=123&card%5Bnumber%5D=4111111111111111&client_key=k`);
      assertD3(res.status, await res.text());
      await new Promise((r) => setTimeout(r, 50));
      const logged = logLines.join('');
      assert.match(logged, /card_number=\[redacted\]/);
      assert.ok(!logged.includes('4111111111111111'), 'no PAN in the log');
      assert.ok(!/card_cvv2=123/.test(logged), 'no CVV in the log');
    });
  });
}
