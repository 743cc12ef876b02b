/**
 * /metrics speaks the Prometheus text format, counts requests by route pattern, never by path, and reports the
 * gateway's work from the store at each scrape.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { storeKinds } from '../support/stores.ts';
import { followUp, sale } from '../s2s-card/support.ts';
import { flagForOperator, getPayment } from '../../src/store/payments-repo.ts';
import { ManualClock } from '../../src/domain/clock.ts';

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

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

for (const { kind, skip } of kinds) {
  describe(`metrics of the gateway's work (${kind})`, { skip }, () => {
    let t: TestGateway;
    const clock = new ManualClock('2030-06-01T10:00:00Z');
    before(async () => {
      // Callbacks to a port nothing listens on, and no dispatcher running: they stay pending.
      t = await startTestGateway(kind, { clock, notificationUrl: 'http://127.0.0.1:9/callbacks' });
    });
    after(() => t?.close());

    const scrape = async () => {
      const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
      const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
      return { text, value };
    };

    it('counts payments needing an operator or in flight, the callback outbox and blocked URLs at each scrape', async () => {
      const before = await scrape();
      assert.equal(before.value('portcullis_store_up'), 1);
      assert.equal(before.value('portcullis_payments_needing_operator{mode="test"}'), 0);
      assert.equal(before.value('portcullis_payments_needing_operator{mode="live"}'), 0);
      assert.equal(before.value('portcullis_callbacks_pending{mode="test"}'), 0);

      // A settled sale: its callback waits in the outbox.
      const sold = await sale(t, { order_amount: '5.00' });
      assert.equal(sold.body.status, 'SETTLED', sold.text);
      // A refund whose answer is lost: in flight, then handed to an operator.
      const card = t.gateway.ctx.connectors.get('sandbox-card')!;
      const original = card.refund;
      card.refund = async () => { throw new Error('connection reset'); };
      try {
        await followUp(t, 'CREDITVOID', sold.body.trans_id, { amount: '2.00' });
      } finally {
        card.refund = original;
      }
      const inFlight = await scrape();
      // The test gateway's merchant is a sandbox merchant: a test key's figures.
      assert.equal(inFlight.value('portcullis_payments_in_flight{mode="test"}'), 1);
      assert.equal(inFlight.value('portcullis_payments_in_flight{mode="live"}'), 0);
      assert.equal(inFlight.value('portcullis_payments_needing_operator{mode="test"}'), 0);
      assert.equal(inFlight.value('portcullis_callbacks_pending{mode="test"}'), 1);
      assert.equal(inFlight.value('portcullis_callbacks_pending{mode="live"}'), 0);
      assert.equal(inFlight.value('portcullis_callbacks_overdue{mode="test"}'), 0, 'due now, not overdue yet');

      assert.ok(await flagForOperator(t.store.db, (await getPayment(t.store.db, sold.body.trans_id))!, clock.now()));
      await t.store.db.query('INSERT INTO callback_url_health (url, blocked_until) VALUES ($1, $2)', ['http://127.0.0.1:9/callbacks', new Date(clock.now().getTime() + 900_000)]);
      clock.advance(120_000);
      const later = await scrape();
      assert.equal(later.value('portcullis_payments_in_flight{mode="test"}'), 0);
      assert.equal(later.value('portcullis_payments_needing_operator{mode="test"}'), 1);
      assert.equal(later.value('portcullis_callbacks_overdue{mode="test"}'), 1, 'no dispatcher: the callback is two minutes late');
      assert.equal(later.value('portcullis_callbacks_overdue{mode="live"}'), 0);
      assert.equal(later.value('portcullis_callback_urls_blocked'), 1);
      assert.match(later.text, /# HELP portcullis_callbacks_overdue /);

      // Issue 25, item 26: the figures follow the key's mode. The same merchant made live: its payment and callback
      // count as live, and the test series fall to 0.
      await t.store.db.query('UPDATE merchants SET sandbox = false WHERE id = $1', [t.merchant.id]);
      const live = await scrape();
      assert.equal(live.value('portcullis_payments_needing_operator{mode="live"}'), 1);
      assert.equal(live.value('portcullis_payments_needing_operator{mode="test"}'), 0);
      assert.equal(live.value('portcullis_callbacks_overdue{mode="live"}'), 1);
      assert.equal(live.value('portcullis_callbacks_pending{mode="test"}'), 0);
    });
  });
}
