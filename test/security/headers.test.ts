/**
 * Issue 25, items 19, 11 and 16 over HTTP: nosniff on every answer, the router's own 404s and Node's parser
 * errors included; in production the session cookie is Secure and HSTS is sent whatever X-Forwarded-Proto says
 * (BASE_URL is https); /metrics in production only with its token or from its addresses.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminClient } from '../admin/support.ts';
import { assertD3 } from '../hardening/support.ts';

const ADMIN = 'headers-test-admin-token';
const PASSWORD = 'a sturdy console phrase 2026';
const METRICS_TOKEN = 'metrics-scrape-token-0123456789abcdef';

/** Writes raw bytes and returns the whole answer (Node's parser refusing the request answers on the socket). */
function rawAnswer(baseUrl: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('nosniff on every answer (item 19)', () => {
  let t: TestGateway;
  before(async () => (t = await startTestGateway('pglite')));
  after(() => t?.close());

  it('on the router\'s own 404 (a bad %-encoding) and a route\'s 404, with the D3 body', async () => {
    for (const path of ['/%', '/checkout/%zz', '/nowhere']) {
      for (const method of ['GET', 'POST']) {
        const res = await fetch(t.baseUrl + path, { method });
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${method} ${path}`);
        assert.equal(res.headers.get('x-frame-options'), 'DENY', `${method} ${path}`);
        assertD3(404, await res.text(), `${method} ${path}`);
      }
    }
  });

  it('outside production, HSTS only over TLS (a trusted proxy\'s X-Forwarded-Proto)', async () => {
    assert.equal((await fetch(`${t.baseUrl}/health`)).headers.get('strict-transport-security'), null);
    const tls = await fetch(`${t.baseUrl}/health`, { headers: { 'x-forwarded-proto': 'https' } });
    assert.match(tls.headers.get('strict-transport-security') ?? '', /max-age=31536000/);
  });

  it('on what Node\'s parser refuses before any route', async () => {
    const text = await rawAnswer(t.baseUrl, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.match(text, /^HTTP\/1\.1 431/);
    assert.match(text, /\r\nX-Content-Type-Options: nosniff\r\n/i);
  });
});

describe('production: TLS is assumed (item 11) and /metrics is closed (item 16)', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway('pglite', { production: true, adminToken: ADMIN });
    const res = await adminClient(t.baseUrl, ADMIN)('POST', '/admin/v1/users', { email: 'ops@example.com', role: 'operator', password: PASSWORD });
    assert.equal(res.status, 201, res.text);
  });
  after(() => t?.close());

  it('sends HSTS with no X-Forwarded-Proto, and with X-Forwarded-Proto: http', async () => {
    for (const headers of [{}, { 'x-forwarded-proto': 'http' }] as Record<string, string>[]) {
      const res = await fetch(`${t.baseUrl}/health`, { headers });
      assert.match(res.headers.get('strict-transport-security') ?? '', /max-age=31536000/, JSON.stringify(headers));
    }
  });

  it('marks the console session cookie Secure with no X-Forwarded-Proto', async () => {
    const res = await fetch(`${t.baseUrl}/admin/v1/session`, {
      method: 'POST', headers: { 'content-type': 'application/json', origin: t.baseUrl }, body: JSON.stringify({ email: 'ops@example.com', password: PASSWORD }),
    });
    assert.equal(res.status, 201, await res.text());
    assert.match(res.headers.get('set-cookie') ?? '', /; Secure(;|$)/);
  });

  it('answers /metrics with a D3 401 when no scrape access is configured', async () => {
    const res = await fetch(`${t.baseUrl}/metrics`);
    assert.equal(res.status, 401);
    assertD3(401, await res.text());
  });
});

describe('/metrics access settings (item 16)', () => {
  const gateways: TestGateway[] = [];
  after(() => Promise.all(gateways.map((g) => g.close())));
  const start = async (metricsAccess: { token?: string; addresses: string[] }) => {
    const t = await startTestGateway('pglite', { production: true, metricsAccess, trustProxy: ['loopback'] });
    gateways.push(t);
    return t;
  };
  const scrape = (t: TestGateway, headers: Record<string, string> = {}) => fetch(`${t.baseUrl}/metrics`, { headers }).then((r) => r.status);

  it('METRICS_TOKEN: the bearer token, and only it, reads the metrics', async () => {
    const t = await start({ token: METRICS_TOKEN, addresses: [] });
    assert.equal(await scrape(t), 401);
    assert.equal(await scrape(t, { authorization: `Bearer ${METRICS_TOKEN}x` }), 401);
    assert.equal(await scrape(t, { authorization: `Bearer ${METRICS_TOKEN}` }), 200);
  });

  it('METRICS_ALLOWED_ADDRESSES: only clients from those addresses (as the trusted proxy names them)', async () => {
    const t = await start({ addresses: ['10.1.0.0/16', '192.0.2.7'] });
    assert.equal(await scrape(t, { 'x-forwarded-for': '10.1.200.3' }), 200);
    assert.equal(await scrape(t, { 'x-forwarded-for': '192.0.2.7' }), 200);
    assert.equal(await scrape(t, { 'x-forwarded-for': '10.2.0.1' }), 401);
    assert.equal(await scrape(t), 401, '127.0.0.1 is not listed');
  });

  it('outside production with neither set, /metrics stays open', async () => {
    const t = await startTestGateway('pglite');
    gateways.push(t);
    assert.equal(await scrape(t), 200);
  });
});
