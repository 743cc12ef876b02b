/** /metrics speaks the Prometheus text format and counts requests by route pattern, never by path. */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

describe('metrics', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway('pglite');
  });
  after(() => t?.close());

  it('counts answered requests by route pattern and status', async () => {
    await fetch(`${t.baseUrl}/checkout/some-secret-session-token`);
    await t.postJson('/api/v1/payment/status', { merchant_key: 'nobody', payment_id: 'x', hash: 'y' });
    const res = await fetch(`${t.baseUrl}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
    const text = await res.text();
    assert.match(text, /portcullis_http_requests_total\{method="GET",route="\/checkout\/:id",status="404"\} 1/);
    assert.match(text, /portcullis_http_requests_total\{method="POST",route="\/api\/v1\/payment\/status",status="401"\} 1/);
    assert.match(text, /portcullis_http_request_duration_seconds_bucket/);
    assert.doesNotMatch(text, /some-secret-session-token/);
  });
});
