/**
 * The attempt's empty steps (services/attempt/screen.ts and post.ts), where the risk engine and the ledger plug in:
 * every attempt is screened exactly once before its acquirer call, and every applied outcome posted exactly once,
 * on each path a payment takes (S2S CARD sale and decline, a 3-D Secure challenge completed, a chain's charge, a
 * scheduled charge, S2S APM sale and payout). Observed through the context's test probes, driven over HTTP.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { ScheduleRunner } from '../../src/workers/schedule-runner.ts';
import { sale } from '../s2s-card/support.ts';
import { initSale, newSchedule, recurringSale } from '../recurring/support.ts';
import { ledger } from '../schedules/support.ts';
import * as apm from '../apm/support.ts';

interface Seen {
  screened: { paymentId: string; channel: string; kind: string }[];
  posted: { paymentId: string; status: string }[];
}

const count = (list: { paymentId: string }[], id: string) => list.filter((x) => x.paymentId === id).length;

for (const { kind, skip } of await storeKinds()) {
  describe(`attempt: screen before, post after, once each (${kind})`, { skip }, () => {
    let gw: TestGateway;
    const clock = new ManualClock('2030-01-15T10:00:00Z');
    const seen: Seen = { screened: [], posted: [] };
    before(async () => {
      gw = await startTestGateway(kind, { clock, notificationUrl: 'http://127.0.0.1:9/callbacks' });
      gw.gateway.ctx.attemptHooks = {
        screened: (f) => seen.screened.push(f),
        posted: (p) => seen.posted.push(p),
      };
    });
    after(() => gw?.close());

    it('an approved and a declined S2S sale: one screen, one post each', async () => {
      for (const expiry of ['01', '02']) {
        const res = await sale(gw, { card_exp_month: expiry });
        const id = res.body.trans_id as string;
        assert.ok(id, res.text);
        assert.equal(count(seen.screened, id), 1);
        assert.equal(count(seen.posted, id), 1);
        assert.equal(seen.screened.find((s) => s.paymentId === id)!.channel, 's2s_card');
      }
    });

    it('a sale that waits for its payer (3-D Secure): screened once; posted at the challenge and at the end', async () => {
      const res = await sale(gw, { card_exp_month: '05' });
      const id = res.body.trans_id as string;
      assert.equal(res.body.result, 'REDIRECT', res.text);
      assert.equal(count(seen.screened, id), 1);
      assert.equal(count(seen.posted, id), 1, 'the challenge step');
      const acs = await fetch(`${gw.baseUrl}/sandbox/acs/${id}/complete`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=submit' });
      assert.ok(acs.status < 400, await acs.text());
      assert.equal(count(seen.screened, id), 1, 'the completion is no new attempt');
      assert.equal(count(seen.posted, id), 2, 'and the final outcome');
    });

    it('a merchant-initiated charge of a chain, and the schedule runner\'s charge: one screen, one post each', async () => {
      const scheduleId = await newSchedule(gw, { interval_length: '1', interval_unit: 'day', payments_count: '1' });
      const first = await initSale(gw, { schedule_id: scheduleId, schedule_start_date: clock.now().toISOString().slice(0, 10) });
      assert.equal(first.body.result, 'SUCCESS', first.text);
      const charge = await recurringSale(gw, { initId: first.body.trans_id, token: first.body.recurring_token });
      assert.equal(charge.body.result, 'SUCCESS', charge.text);
      assert.equal(count(seen.screened, charge.body.trans_id), 1);
      assert.equal(count(seen.posted, charge.body.trans_id), 1);
      const runner = new ScheduleRunner(gw.gateway.ctx, { batchSize: 5 });
      while ((await runner.runOnce()).claimed > 0);
      const [scheduled] = (await ledger(gw.store.db, scheduleId)).charges;
      assert.ok(scheduled);
      assert.equal(count(seen.screened, scheduled.paymentId), 1);
      assert.equal(seen.screened.find((s) => s.paymentId === scheduled.paymentId)!.channel, 'schedule');
      assert.equal(count(seen.posted, scheduled.paymentId), 1);
    });

    it('an S2S APM sale: one screen, one post', async () => {
      const method = apm.representative('extra_fields', 's2s_apm');
      const parameters = Object.fromEntries(method.params.filter((p) => p.collectOnPage).map((p) => [p.name, 'ABC12345']));
      const res = await apm.sale(gw, method.key, { parameters });
      const id = res.body.trans_id as string;
      assert.ok(id, res.text);
      assert.equal(count(seen.screened, id), 1);
      assert.equal(seen.screened.find((s) => s.paymentId === id)!.kind, 'apm');
      assert.equal(count(seen.posted, id), 1);
    });
  });
}
