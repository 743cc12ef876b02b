/**
 * Daily volume caps per MID and card-country routing (issue 15), end to end on both stores: caps set through the
 * admin API's MID settings and validated there; 100 concurrent SALEs never take a MID past its cap (the overflow
 * goes to the next MID, or gets the routing error when none is left); a declined payment gives its share back;
 * the payment view shows the capped MID dropped with its reason; scheduled charges take the same path; and a
 * BIN table file makes `card_countries` rules match.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminCall, d3Messages, merchantWith, tokenFor } from './config-support.ts';
import { sale } from '../s2s-card/support.ts';
import { checkoutHash } from '../support/merchant.ts';
import { seedChains, ledger } from '../schedules/support.ts';
import { newId } from '../../src/domain/ids.ts';
import { ManualClock } from '../../src/domain/clock.ts';
import { ScheduleRunner } from '../../src/workers/schedule-runner.ts';
import { loadBinTable } from '../../src/gateway.ts';

const DAY = 86_400_000;
async function volume(t: TestGateway, midId: string): Promise<{ count: number; amount: number } | undefined> {
  const [row] = await t.store.db.query<{ count: number; amount: string }>('SELECT count, amount::text AS amount FROM mid_daily_volume WHERE mid_id = $1', [midId]);
  return row && { count: Number(row.count), amount: Number(row.amount) };
}

for (const { kind, skip } of await storeKinds()) {
  describe(`daily volume caps (${kind})`, { skip }, () => {
    let t: TestGateway;
    let operator: string;
    let viewer: string;
    const clock = new ManualClock('2030-01-15T10:00:00Z');
    const call = (method: string, p: string, token: string, body?: unknown) => adminCall(t.baseUrl, method, p, token, body);
    const setCaps = async (m: TestMerchant, midId: string, caps: unknown) => {
      const res = await call('PATCH', `/admin/v1/merchants/${m.id}/mids/${midId}`, operator, { daily_caps: caps });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };

    before(async () => {
      t = await startTestGateway(kind, { adminToken: `admin-${kind}`, clock });
      operator = await tokenFor(t, 'operator');
      viewer = await tokenFor(t, 'viewer');
    });
    after(async () => t?.close());

    it('takes caps through the MID settings, validated (currency, amount exact at its exponent, a bound given)', async () => {
      const a = newId();
      const m = await merchantWith(t, [{ id: a, priority: 10 }]);
      const midPath = `/admin/v1/merchants/${m.id}/mids/${a}`;
      const bad = await call('PATCH', midPath, operator, { daily_caps: { XXQ: { max_count: 1 }, JPY: { max_amount: '10.5' } } });
      assert.equal(bad.status, 400, bad.text);
      assert.deepEqual(d3Messages(bad).sort(), ['daily_caps.JPY.max_amount: This value is not a valid amount in JPY.', 'daily_caps.XXQ: This value is not a valid currency.'], bad.text);
      assert.equal((await call('PATCH', midPath, operator, { daily_caps: { EUR: {} } })).status, 400, 'a cap without a bound');
      assert.equal((await call('PATCH', midPath, operator, { daily_caps: { EUR: { max_count: -1 } } })).status, 400);
      assert.equal((await call('PATCH', midPath, viewer, { daily_caps: { EUR: { max_count: 1 } } })).status, 403);
      const saved = await setCaps(m, a, { EUR: { max_count: 5, max_amount: '100.00' }, JPY: { max_amount: '5000' } });
      assert.deepEqual(saved.daily_caps, { EUR: { max_count: 5, max_amount: '100.00' }, JPY: { max_amount: '5000' } });
      assert.deepEqual((await call('GET', midPath, viewer)).body.daily_caps, saved.daily_caps);
      assert.equal((await setCaps(m, a, null)).daily_caps, null);
    });

    it('100 concurrent SALEs never take a MID past its count cap: exactly the cap on it, the rest on the next MID', async () => {
      const [a, b] = [newId(), newId()];
      const m = await merchantWith(t, [{ id: a, priority: 30 }, { id: b, priority: 20 }]);
      await setCaps(m, a, { USD: { max_count: 10 } });
      const answers = await Promise.all(Array.from({ length: 100 }, () => sale(t, { order_amount: '1.99' }, m)));
      assert.ok(answers.every((r) => r.body.status === 'SETTLED'), answers.find((r) => r.body.status !== 'SETTLED')?.text);
      const rows = await t.store.db.query<{ mid_id: string; n: string }>(
        "SELECT mid_id, count(*)::text AS n FROM payments WHERE merchant_id = $1 AND status = 'settled' GROUP BY mid_id", [m.id]);
      const perMid = Object.fromEntries(rows.map((r) => [r.mid_id, Number(r.n)]));
      assert.deepEqual(perMid, { [a]: 10, [b]: 90 });
      assert.deepEqual(await volume(t, a), { count: 10, amount: 1990 });
      assert.equal(await volume(t, b), undefined, 'a MID without a cap keeps no counts');

      // The operator sees why a payment went to b: a's cap was reached.
      const [paymentOnB] = await t.store.db.query<{ id: string }>('SELECT id FROM payments WHERE merchant_id = $1 AND mid_id = $2 LIMIT 1', [m.id, b]);
      assert.ok(paymentOnB);
      const view = await call('GET', `/admin/v1/payments/${paymentOnB!.id}`, viewer);
      assert.equal(view.status, 200, view.text);
      assert.equal(view.body.routing.mid_id, b);
      assert.deepEqual(view.body.routing.candidates, [b]);
      assert.deepEqual(view.body.routing.considered.find((c: { mid_id: string }) => c.mid_id === a), { mid_id: a, priority: 30, eligible: false, candidate: false, reason: 'daily_cap' });
    });

    it('an amount cap holds under concurrency too; with no MID left the payment gets the routing error', async () => {
      const a = newId();
      const m = await merchantWith(t, [{ id: a, priority: 10 }]);
      await setCaps(m, a, { USD: { max_amount: '10.00' } });
      const answers = await Promise.all(Array.from({ length: 20 }, () => sale(t, { order_amount: '1.99' }, m)));
      const settled = answers.filter((r) => r.body.status === 'SETTLED');
      assert.equal(settled.length, 5, 'five of 1.99 fit in 10.00, a sixth would not');
      const refused = answers.filter((r) => r.body.status !== 'SETTLED');
      assert.ok(refused.every((r) => r.body.error_code === '204007' && r.body.error_message === 'Day MID limit is not set or exceeded.'), `the others: the platform's day-limit error; ${refused[0]?.text}`);
      assert.deepEqual(await volume(t, a), { count: 5, amount: 995 });
      // The operator reads the same running counts beside the cap, for today's UTC day (the gateway's clock).
      const shown = await call('GET', `/admin/v1/merchants/${m.id}/mids/${a}`, viewer);
      assert.deepEqual(shown.body.today, { day: '2030-01-15', volume: { USD: { count: 5, amount: '9.95' } } }, shown.text);
      const listed = await call('GET', `/admin/v1/merchants/${m.id}/mids`, viewer);
      assert.deepEqual(listed.body.mids.map((v: { today: unknown }) => v.today), [shown.body.today]);
      // A payment larger than the whole day's cap never reaches the counters.
      assert.equal((await sale(t, { order_amount: '10.01' }, m)).body.error_code, '204007');
      // When more than the cap stands in the way (a currency the MID does not take), it is the plain routing error.
      assert.equal((await call('PATCH', `/admin/v1/merchants/${m.id}/mids/${a}`, operator, { currencies: ['USD'] })).status, 200);
      assert.equal((await sale(t, { order_amount: '1.00', order_currency: 'EUR' }, m)).body.error_code, '204002');
    });

    it('a declined payment gives its share back; a new UTC day starts from zero', async () => {
      const [a, b] = [newId(), newId()];
      const m = await merchantWith(t, [{ id: a, priority: 30, decline: 'lost_or_stolen' }, { id: b, priority: 20 }]);
      await setCaps(m, a, { USD: { max_count: 2 } });
      for (let i = 0; i < 5; i++) {
        const res = await sale(t, {}, m);
        assert.equal(res.body.status, 'DECLINED', res.text);
      }
      assert.deepEqual(await volume(t, a), { count: 0, amount: 0 }, 'every hard decline released its reservation');

      // Cascading: a retryable decline on a gives a's share back and takes b's.
      const [c, d] = [newId(), newId()];
      const m2 = await merchantWith(t, [{ id: c, priority: 30, decline: 'do_not_honor' }, { id: d, priority: 20 }]);
      await setCaps(m2, c, { USD: { max_count: 1 } });
      await setCaps(m2, d, { USD: { max_count: 1 } });
      const cascaded = await sale(t, {}, m2);
      assert.equal(cascaded.body.status, 'SETTLED', cascaded.text);
      assert.deepEqual([await volume(t, c), await volume(t, d)], [{ count: 0, amount: 0 }, { count: 1, amount: 199 }]);
      assert.equal((await sale(t, {}, m2)).body.status, 'DECLINED', 'd is full: the decline on c is final');
      assert.equal((await sale(t, {}, m2)).body.status, 'DECLINED');
      assert.deepEqual([await volume(t, c), await volume(t, d)], [{ count: 0, amount: 0 }, { count: 1, amount: 199 }], 'the final declines gave c\'s share back');
      clock.advance(DAY);
      assert.equal((await sale(t, {}, m2)).body.status, 'SETTLED', 'a new day: d takes payments again');
    });

    it('a payer on the hosted page whose payment only the cap refuses is told the method is not available now', async () => {
      const a = newId();
      const m = await merchantWith(t, [{ id: a, priority: 10 }]);
      await setCaps(m, a, { EUR: { max_count: 1 } });
      const pay = async (number: string) => {
        const order = { number, amount: '5.00', currency: 'EUR', description: 'Capped order' };
        const session = await t.postJson('/api/v1/session', {
          merchant_key: m.key, operation: 'purchase', methods: ['card'], order, success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel',
          customer: { name: 'John Doe', email: 'john@example.com' }, billing_address: { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567' },
          hash: checkoutHash(m.password, order.number, order.amount, order.currency, order.description),
        });
        assert.equal(session.status, 200, session.text);
        const res = await fetch(`${new URL(session.body.redirect_url).pathname.replace(/^/, t.baseUrl)}/pay`, {
          method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ method: 'card', card_number: '4111 1111 1111 1111', card_expiry: '01/38', card_cvv: '123', card_holder: 'John Doe' }).toString(),
        });
        return { status: res.status, html: await res.text() };
      };
      const first = await pay(`CAPPED-1-${kind}`);
      assert.ok(first.status < 400, `the first payment fits the cap (HTTP ${first.status})`);
      const second = await pay(`CAPPED-2-${kind}`);
      assert.ok(second.status < 500, `HTTP ${second.status}`);
      assert.match(second.html, /This payment method is not available for this payment\. Choose another method\./);
      assert.deepEqual(await volume(t, a), { count: 1, amount: 500 });
    });

    it('scheduled charges go through the same routing: the chain\'s MID while its cap has room, then the next MID', async () => {
      const [a, b] = [newId(), newId()];
      const m = await merchantWith(t, [{ id: a, priority: 30 }, { id: b, priority: 20 }]);
      const today = clock.now().toISOString().slice(0, 10);
      const { scheduleId } = await seedChains(t, 3, today, { interval_length: '1', interval_unit: 'day', payments_count: '1' }, m);
      // The chains' first payments were made on a; tomorrow a takes one more charge.
      clock.advance(DAY);
      await setCaps(m, a, { USD: { max_count: 1 } });
      const runner = new ScheduleRunner(t.gateway.ctx, { batchSize: 10 });
      while ((await runner.runOnce()).claimed > 0);
      const l = await ledger(t.store.db, scheduleId);
      assert.equal(l.charges.length, 3);
      assert.ok(l.charges.every((c) => c.status === 'settled'), JSON.stringify(l.charges));
      const mids = await t.store.db.query<{ mid_id: string; routing: any }>(
        `SELECT p.mid_id, p.details->'routing' AS routing FROM schedule_charges c JOIN payments p ON p.id = c.payment_id
         JOIN schedule_subscriptions s ON s.id = c.subscription_id WHERE s.schedule_id = $1`, [scheduleId]);
      assert.deepEqual(mids.map((r) => r.mid_id).sort(), [a, b, b].sort());
      const onB = mids.find((r) => r.mid_id === b)!;
      assert.deepEqual(onB.routing.considered.find((c: { midId: string }) => c.midId === a)?.reason, 'daily_cap');
      assert.deepEqual(await volume(t, a), { count: 1, amount: 199 });
    });

    it('a scheduled charge only the caps keep from every MID is declined with the day-limit text', async () => {
      const a = newId();
      const m = await merchantWith(t, [{ id: a, priority: 30 }]);
      const today = clock.now().toISOString().slice(0, 10);
      const { scheduleId } = await seedChains(t, 2, today, { interval_length: '1', interval_unit: 'day', payments_count: '1' }, m);
      clock.advance(DAY);
      await setCaps(m, a, { USD: { max_count: 1 } });
      const runner = new ScheduleRunner(t.gateway.ctx, { batchSize: 10 });
      while ((await runner.runOnce()).claimed > 0);
      const l = await ledger(t.store.db, scheduleId);
      assert.deepEqual(l.charges.map((c) => [c.status, c.reason]).sort(), [['decline', 'Day MID limit is not set or exceeded.'], ['settled', null]]);
      assert.ok(l.charges.every((c) => c.callbacks === 1), 'each charge its one callback');
    });
  });

  describe(`card country routing with a BIN table file (${kind})`, { skip }, () => {
    let t: TestGateway;
    let operator: string;
    const call = (method: string, p: string, body?: unknown) => adminCall(t.baseUrl, method, p, operator, body);

    const dirs: string[] = [];
    const tempDir = async (prefix: string) => {
      const dir = await mkdtemp(path.join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    };

    before(async () => {
      const dir = await tempDir('bins-');
      const file = path.join(dir, 'bins.json');
      await writeFile(file, JSON.stringify({ ranges: [{ from: '400000', to: '499999', country: 'US' }, { from: '41111111', to: '41111111', country: 'DE' }] }));
      t = await startTestGateway(kind, { adminToken: `admin-bins-${kind}`, binTableFile: file });
      operator = await tokenFor(t, 'operator');
    });
    after(async () => {
      await t?.close();
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    });

    it('routes by the card\'s issuing country from the table; the dry run shows the country', async () => {
      const [a, b] = [newId(), newId()];
      const m = await merchantWith(t, [{ id: a, priority: 30 }, { id: b, priority: 20 }]);
      const rules = { rules: [{ name: 'German cards', when: { card_countries: ['DE'] }, then: { kind: 'mid', mid_id: b } }], max_extra_attempts: 1 };
      assert.equal((await call('PUT', `/admin/v1/merchants/${m.id}/routing`, rules)).status, 200);
      const paid = await sale(t, {}, m);
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      const view = await call('GET', `/admin/v1/payments/${paid.body.trans_id}`);
      assert.equal(view.body.routing.mid_id, b);
      assert.deepEqual(view.body.routing.matched_rule, { index: 0, name: 'German cards' });
      assert.deepEqual(view.body.routing.considered.map((c: any) => [c.mid_id, c.eligible, c.candidate, c.reason]), [[a, true, false, null], [b, true, true, null]],
        'a is eligible, but the matched rule names only b');
      assert.deepEqual(view.body.routing.skipped_rules, []);
      const dry = await call('POST', `/admin/v1/merchants/${m.id}/routing/dry-run`, { operation: 'sale', amount: '5.00', currency: 'USD', bin: '41111111' });
      assert.deepEqual([dry.body.card_country, dry.body.brand, dry.body.mid_id], ['DE', 'visa', b]);
      const us = await call('POST', `/admin/v1/merchants/${m.id}/routing/dry-run`, { operation: 'sale', amount: '5.00', currency: 'USD', bin: '42424242' });
      assert.deepEqual([us.body.card_country, us.body.mid_id, us.body.rule], ['US', a, 'highest_priority']);
    });

    it('start-up refuses a BIN table file with a bad entry, naming it', async () => {
      const dir = await tempDir('bins-bad-');
      const file = path.join(dir, 'bins.json');
      await writeFile(file, JSON.stringify([{ from: '411111', to: '411111', country: 'DE' }, { from: '4111', to: '4111', country: 'DE' }]));
      await assert.rejects(loadBinTable(file), /\[1\]: from and to/);
    });
  });
}
