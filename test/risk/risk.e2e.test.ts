/**
 * The risk engine over HTTP (issue 26), on both stores: rule sets saved through the admin API (validated whole,
 * versioned, restorable, audited), lists (CIDR, e-mail, card by number kept as its fingerprint; expiry; CSV), and
 * S2S SALEs screened by them: a block is a decline with its own reason, one callback, no acquirer call; shadow
 * rules record without effect; velocity windows at their edges; the payment's evaluation in the admin API.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminCall, d3Messages, tokenFor } from '../admin/config-support.ts';
import { sale } from '../s2s-card/support.ts';
import { spyOnConnector } from '../hosted-fields/support.ts';
import { ManualClock } from '../../src/domain/clock.ts';

const rule = (name: string, when: object, then: object = { action: 'block' }, mode = 'active') => ({ name, mode, when, then });

for (const { kind, skip } of await storeKinds()) {
  describe(`risk engine over HTTP (${kind})`, { skip }, () => {
    let t: TestGateway;
    const clock = new ManualClock('2030-01-15T10:00:00Z');
    const tokens: Record<string, string> = {};
    let calls: unknown[];
    const call = (method: string, path: string, body?: unknown, role = 'operator') => adminCall(t.baseUrl, method, path, tokens[role], body);

    before(async () => {
      t = await startTestGateway(kind, { clock, adminToken: `risk-${kind}` });
      for (const role of ['operator', 'viewer'] as const) tokens[role] = await tokenFor(t, role);
      calls = spyOnConnector(t);
    });
    after(() => t?.close());

    /** A fresh merchant, so each test's rules and counters stand alone. */
    const merchant = (): Promise<TestMerchant> => t.addMerchant({ notificationUrl: 'http://127.0.0.1:9/callbacks' });

    async function saveRules(scope: string, rules: object[], extra: object = {}) {
      const current = await call('GET', `/admin/v1/risk/rules/${scope}`);
      assert.equal(current.status, 200, current.text);
      const res = await call('PUT', `/admin/v1/risk/rules/${scope}`, { version: current.body.version, rules: { rules, ...extra } });
      assert.equal(res.status, 200, res.text);
      return res.body;
    }

    /**
     * A payment keeps only the counters some rule reads (issue 24): a shadow rule of the merchant's that reads its
     * merchant counters (attempts and approvals), so that the tests of those counters have them written.
     */
    const readMerchantCounters = (m: TestMerchant) => saveRules(m.id, [rule('reads the merchant counters', { velocity: [
      { measure: 'attempts', by: 'merchant', window_minutes: 10, more_than: 1000 },
      { measure: 'approvals', by: 'merchant', window_minutes: 10, more_than: 1000 },
    ] }, { action: 'block' }, 'shadow')]);

    const callbacksOf = async (paymentId: string) =>
      Number((await t.store.db.query<{ n: string }>('SELECT count(*)::text AS n FROM callbacks WHERE payment_id = $1', [paymentId]))[0]!.n);

    async function risk(transId: string) {
      const view = await call('GET', `/admin/v1/payments/${transId}`, undefined, 'viewer');
      assert.equal(view.status, 200, view.text);
      const res = await call('GET', `/admin/v1/payments/${view.body.payment.id}/risk`, undefined, 'viewer');
      assert.equal(res.status, 200, res.text);
      // The payment view shows the same evaluation (issue 26 item 6).
      assert.deepEqual(view.body.risk, res.body);
      return { ...res.body, paymentId: view.body.payment.id as string };
    }

    it('validates a rule set whole on save, naming each problem (D3); a stale version is refused (409)', async () => {
      const m = await merchant();
      const bad = await call('PUT', `/admin/v1/risk/rules/${m.id}`, { version: 0, rules: { rules: [
        { name: 'a', mode: 'active', when: { colour: 'red' }, then: { action: 'block' } },
        { name: 'b', mode: 'active', when: { amount: { min: 5 } }, then: { action: 'block' } },
        { name: 'c', mode: 'active', when: { velocity: [{ measure: 'attempts', by: 'ip', window_minutes: 0, more_than: 1 }] }, then: { action: 'block' } },
      ] } });
      assert.equal(bad.status, 400);
      assert.deepEqual(d3Messages(bad), [
        'rules.rules[0].when.colour: This field was not expected.',
        'rules.rules[1].when.amount.min: This value should be of type string.',
        'rules.rules[2].when.velocity[0].window_minutes: This value should be between 1 and 43200.',
      ]);
      const unreachable = await call('PUT', `/admin/v1/risk/rules/${m.id}`, { version: 0, rules: { rules: [rule('all', {}), rule('late', { currencies: ['USD'] })] } });
      assert.deepEqual(d3Messages(unreachable), ['rules.rules[1]: This rule is never reached: rules[0] decides every payment.']);
      await saveRules(m.id, [rule('usd', { currencies: ['USD'] }, { action: 'review' })]);
      const stale = await call('PUT', `/admin/v1/risk/rules/${m.id}`, { version: 0, rules: { rules: [] } });
      assert.equal(stale.status, 409, stale.text);
      assert.equal((await call('PUT', `/admin/v1/risk/rules/${m.id}`, { version: 1, rules: { rules: [] } }, 'viewer')).status, 403);
    });

    it('a payment keeps only the counters some rule reads; a rule saved later counts from then on (issue 24)', async () => {
      // Before any test saves a rule on e-mail attempts: the platform's defaults read distinct cards per e-mail only.
      const m = await merchant();
      const email = `kept-${Date.now()}@example.com`;
      const first = await sale(t, { payer_email: email }, m);
      assert.equal(first.body.status, 'SETTLED', first.text);
      const { paymentId } = await risk(first.body.trans_id);
      const kept = async () => (await t.store.db.query<{ attempts: string; members: string; merchant: string }>(
        `WITH k AS (SELECT keys->>'email' AS email FROM risk_evaluations WHERE payment_id = $1)
         SELECT (SELECT coalesce(sum(attempts), 0) FROM risk_velocity, k WHERE dimension = 'email' AND key = k.email AND grain = 1)::text AS attempts,
                (SELECT count(*) FROM risk_velocity_members, k WHERE dimension = 'email' AND key = k.email)::text AS members,
                (SELECT count(*) FROM risk_velocity WHERE dimension = 'merchant' AND key = $2)::text AS merchant`, [paymentId, m.id]))[0];
      assert.deepEqual(await kept(), { attempts: '0', members: '2', merchant: '0' }, 'distinct cards per e-mail (minute and hour), no attempt or merchant counter');
      await saveRules(m.id, [rule('attempts per e-mail', { velocity: [{ measure: 'attempts', by: 'email', window_minutes: 10, more_than: 5 }] }, { action: 'block' }, 'shadow')]);
      const second = await sale(t, { payer_email: email }, m);
      assert.equal(second.body.status, 'SETTLED', second.text);
      assert.equal((await risk(second.body.trans_id)).evaluation.velocity['attempts:email:10:'], '1', 'the attempts before the rule were not counted');
      assert.deepEqual(await kept(), { attempts: '1', members: '2', merchant: '0' });
    });

    it('versions: every save kept, an earlier one restored as the newest, each audited; the platform starts on the defaults', async () => {
      const m = await merchant();
      await saveRules(m.id, [rule('one', { currencies: ['EUR'] })]);
      await saveRules(m.id, [rule('two', { currencies: ['GBP'] })]);
      const restored = await call('POST', `/admin/v1/risk/rules/${m.id}/versions/1/restore`);
      assert.equal(restored.status, 200, restored.text);
      assert.equal(restored.body.version, 3);
      assert.equal(restored.body.rules.rules[0].name, 'one');
      const versions = await call('GET', `/admin/v1/risk/rules/${m.id}/versions`, undefined, 'viewer');
      assert.deepEqual(versions.body.map((v: { version: number; note: string | null }) => [v.version, v.note]), [[3, 'restored version 1'], [2, null], [1, null]]);
      const audit = await call('GET', `/admin/v1/audit?object_id=${m.id}`, undefined, 'operator');
      if (audit.status === 200) assert.equal(audit.body.items?.filter?.((a: { action: string }) => a.action === 'risk.rules').length ?? 3, 3);
      const platform = await call('GET', '/admin/v1/risk/rules/platform', undefined, 'viewer');
      assert.equal(platform.body.version, 0);
      assert.ok(platform.body.rules.rules.some((r: { name: string }) => /more than 5 declines of one card in 10 minutes/.test(r.name)));
      assert.equal((await call('GET', '/admin/v1/risk/rules/not-a-merchant', undefined, 'viewer')).status, 404);
    });

    it('a block is a decline with its own reason: one callback, never an acquirer call; shadow rules only record', async () => {
      const m = await merchant();
      await saveRules(m.id, [
        rule('shadow: any USD', { currencies: ['USD'] }, { action: 'block' }, 'shadow'),
        rule('large US billing', { amount: { min: '100.00' }, billing_countries: ['US'] }),
      ]);
      const before = calls.length;
      const small = await sale(t, { order_amount: '99.99' }, m);
      assert.equal(small.body.status, 'SETTLED', small.text);
      assert.equal(calls.length, before + 1);
      const recorded = await risk(small.body.trans_id);
      assert.equal(recorded.action, 'allow');
      assert.deepEqual(recorded.evaluation.matched.map((x: { name: string; mode: string }) => [x.name, x.mode]), [['shadow: any USD', 'shadow']]);

      const large = await sale(t, { order_amount: '100.00' }, m);
      assert.equal(large.body.result, 'DECLINED', large.text);
      assert.equal(large.body.decline_reason, 'Declined by risk management');
      assert.equal(calls.length, before + 1, 'no acquirer was asked');
      const blocked = await risk(large.body.trans_id);
      assert.equal(blocked.action, 'block');
      assert.equal(blocked.reason, 'merchant rule: large US billing');
      assert.equal(blocked.outcome, 'declined');
      await t.gateway.ctx.db.query('SELECT 1');
      assert.equal(await callbacksOf(blocked.paymentId), 1, 'one callback');
      const attempts = (id: string) => t.store.db.query<{ status: string }>('SELECT status FROM payment_attempts WHERE payment_id = $1', [id]);
      assert.deepEqual(await attempts(blocked.paymentId), [], 'no acquirer attempt recorded (payment_attempts)');
      assert.deepEqual(await attempts(small.body.trans_id), [{ status: 'approved' }]);
    });

    it('require_3ds asks the connector for a challenge: a card that would pass frictionless is challenged', async () => {
      const m = await merchant();
      await saveRules(m.id, [rule('3-D Secure above 50', { amount: { min: '50.00' } }, { action: 'require_3ds' })]);
      const small = await sale(t, { order_amount: '49.99' }, m);
      assert.equal(small.body.status, 'SETTLED', small.text);
      const large = await sale(t, { order_amount: '50.00' }, m);
      assert.equal(large.body.result, 'REDIRECT', large.text);
      assert.equal(large.body.status, '3DS');
      assert.equal((await risk(large.body.trans_id)).action, 'require_3ds');
    });

    it('lists: a blocked e-mail, IP block and card (listed by number, kept as fingerprint) block; an expired entry does not', async () => {
      const m = await merchant();
      const add = await call('POST', `/admin/v1/risk/lists/${m.id}`, { entries: [
        { list: 'block', kind: 'email', value: 'Fraud@Example.com', reason: 'chargebacks' },
        { list: 'block', kind: 'ip', value: '198.51.100.0/24', reason: 'card testing' },
        { list: 'block', kind: 'card', value: '5555555555554444', reason: 'stolen' },
        { list: 'block', kind: 'email', value: 'old@example.com', reason: 'was bad', expires_at: '2030-01-15T10:30:00Z' },
      ] });
      assert.equal(add.status, 200, add.text);
      const card = add.body.find((e: { kind: string }) => e.kind === 'card');
      assert.match(card.value, /^[0-9a-f]{32}$/);
      assert.ok(!add.text.includes('5555555555554444'), 'the number is never kept');
      const bad = await call('POST', `/admin/v1/risk/lists/${m.id}`, { entries: [{ list: 'block', kind: 'ip', value: '300.1.1.1', reason: 'x' }, { list: 'block', kind: 'card', value: '4111111111111112', reason: 'x' }] });
      assert.deepEqual(d3Messages(bad), ['entries[0].value: This value is not valid: an IP address or CIDR block.', 'entries[1].value: This value is not valid: a card number or a card fingerprint (32 hex digits).']);
      // Search: by part of a value or reason (any case); a card by its number typed whole (its fingerprint's entry).
      const found = async (q: string) => ((await call('GET', `/admin/v1/risk/lists/${m.id}?q=${encodeURIComponent(q)}`)).body as { kind: string; value: string }[]).map((e) => e.kind).sort();
      assert.deepEqual(await found('198.51.'), ['ip']);
      assert.deepEqual(await found('CHARGEB'), ['email']);
      assert.deepEqual(await found('5555 5555 5555 4444'), ['card']);
      assert.deepEqual(await found('Fraud@Example.com'), ['email']);
      assert.deepEqual(await found('example.com'), ['email', 'email']);
      assert.deepEqual(await found('nothing like it'), []);

      const outcomes: Record<string, string> = {};
      for (const [name, fields] of Object.entries({
        email: { payer_email: 'fraud@example.com' }, ip: { payer_ip: '198.51.100.77' }, card: { card_number: '5555555555554444' }, expiring: { payer_email: 'old@example.com' }, clean: {},
      })) outcomes[name] = (await sale(t, fields, m)).body.status;
      assert.deepEqual(outcomes, { email: 'DECLINED', ip: 'DECLINED', card: 'DECLINED', expiring: 'DECLINED', clean: 'SETTLED' });
      clock.advance(31 * 60_000);
      assert.equal((await sale(t, { payer_email: 'old@example.com' }, m)).body.status, 'SETTLED', 'expired');

      const csv = await fetch(`${t.baseUrl}/admin/v1/risk/lists/${m.id}/export`, { headers: { authorization: `Bearer ${tokens.viewer}` } });
      const text = await csv.text();
      assert.match(csv.headers.get('content-type') ?? '', /text\/csv/);
      assert.match(text, /^list,kind,value,reason,expires_at\n/);
      assert.match(text, /\nblock,email,fraud@example.com,chargebacks,\n/);
      assert.match(text, /\nblock,ip,198.51.100.0\/24,card testing,\n/);
      const other = await merchant();
      const imported = await call('POST', `/admin/v1/risk/lists/${other.id}/import`, { csv: text });
      assert.equal(imported.status, 200, imported.text);
      assert.equal(imported.body.imported, 4);
      assert.equal((await sale(t, { payer_ip: '198.51.100.5' }, other)).body.status, 'DECLINED');
      const wrong = await call('POST', `/admin/v1/risk/lists/${other.id}/import`, { csv: 'block,email,x@y.z,ok,\nblock,colour,red,no,' });
      assert.deepEqual(d3Messages(wrong), ['csv.lines[1].kind: The value you selected is not a valid choice.']);
    });

    it('a payment\'s values listed in one action: its card (by fingerprint), e-mail and IP block the next payment', async () => {
      const m = await merchant();
      const first = await sale(t, { card_number: '4012888888881881', payer_email: 'one-action@example.com', payer_ip: '192.0.2.44' }, m);
      assert.ok(first.body.trans_id, first.text);
      const { paymentId } = await risk(first.body.trans_id);
      const listed = await call('POST', `/admin/v1/risk/lists/${m.id}/from-payment`, { payment_id: paymentId, list: 'block', kinds: ['card', 'email', 'ip'], reason: 'chargeback' });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.body.map((e: { kind: string }) => e.kind).sort(), ['card', 'email', 'ip']);
      assert.ok(!listed.text.includes('4012888888881881'));
      const again = await sale(t, { card_number: '4012888888881881', payer_email: 'other@example.com', payer_ip: '192.0.2.45' }, m);
      assert.equal(again.body.decline_reason, 'Declined by risk management', 'the card alone is enough');
      const none = await call('POST', `/admin/v1/risk/lists/${m.id}/from-payment`, { payment_id: paymentId, list: 'block', kinds: ['device'], reason: 'x' });
      assert.deepEqual(d3Messages(none), ['kinds[0]: The payment has no device to list.']);
    });

    it('velocity: attempts per e-mail over a window, exact at its edges; declines per card counted apart', async () => {
      const m = await merchant();
      await saveRules(m.id, [
        rule('3 attempts per e-mail in 10 minutes', { velocity: [{ measure: 'attempts', by: 'email', window_minutes: 10, more_than: 2 }] }),
        // Card counters are platform-wide: the rule looks at this test's card only (the others were declined before).
        rule('2 declines per card in an hour', { bin_ranges: [{ from: '400000', to: '400000' }], velocity: [{ measure: 'declines', by: 'card', window_minutes: 60, more_than: 1 }] }, { action: 'review' }),
      ]);
      const email = `v-${Date.now()}@example.com`;
      const statuses: string[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await sale(t, { payer_email: email }, m)).body.status);
      assert.deepEqual(statuses, ['SETTLED', 'SETTLED', 'DECLINED'], 'the third attempt is more than 2');
      clock.advance(9 * 60_000);
      assert.equal((await sale(t, { payer_email: email }, m)).body.status, 'DECLINED', 'still inside 10 minutes');
      clock.advance(2 * 60_000);
      // Minute buckets: the first three attempts' minute has left the 10-minute window; the one 2 minutes ago has not.
      assert.equal((await sale(t, { payer_email: email }, m)).body.status, 'SETTLED', 'two in the window, this one included');
      assert.equal((await sale(t, { payer_email: email }, m)).body.status, 'DECLINED', 'three in the window');

      const card = '4000000000000002';
      for (let i = 0; i < 2; i++) assert.equal((await sale(t, { card_number: card, card_exp_month: '02', payer_email: `d${i}@example.com` }, m)).body.status, 'DECLINED');
      const third = await sale(t, { card_number: card, payer_email: 'd3@example.com' }, m);
      const seen = await risk(third.body.trans_id);
      assert.equal(seen.action, 'review');
      assert.equal(seen.evaluation.velocity['declines:card:60:'], '2');
    });

    it('the screen is recorded once with the payment\'s own write, and once alone by an attempt that ends before it', async () => {
      // A SALE: its evaluation and counters ride in the payment's insert, its outcome's counts in its update.
      const m = await merchant();
      await readMerchantCounters(m);
      const paid = await sale(t, {}, m);
      assert.equal(paid.body.status, 'SETTLED', paid.text);
      const counted = async (merchantId: string) => (await t.store.db.query<{ evaluations: string; outcomes: string; attempts: string; approvals: string }>(
        `SELECT (SELECT count(*) FROM risk_evaluations WHERE merchant_id = $1)::text AS evaluations,
                (SELECT count(*) FROM risk_evaluations WHERE merchant_id = $1 AND outcome = 'approved')::text AS outcomes,
                (SELECT coalesce(sum(attempts), 0) FROM risk_velocity WHERE dimension = 'merchant' AND key = $1 AND grain = 1)::text AS attempts,
                (SELECT coalesce(sum(approvals), 0) FROM risk_velocity WHERE dimension = 'merchant' AND key = $1 AND grain = 1)::text AS approvals`, [merchantId]))[0];
      assert.deepEqual(await counted(m.id), { evaluations: '1', outcomes: '1', attempts: '1', approvals: '1' });
      // A merchant whose only MID takes authorizations: a SALE is screened, then finds no MID and writes no payment.
      const dms = await t.addMerchant({ mids: [{ paymentMode: 'DMS' }] });
      const refused = await sale(t, {}, dms);
      assert.notEqual(refused.body.status, 'SETTLED', refused.text);
      assert.deepEqual(await counted(dms.id), { evaluations: '1', outcomes: '0', attempts: '1', approvals: '0' });
    });

    it('counters past the longest window are pruned; younger ones are kept', async () => {
      const m = await merchant();
      await readMerchantCounters(m);
      await sale(t, { payer_email: 'prune@example.com' }, m);
      const count = async () => Number((await t.store.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM risk_velocity WHERE dimension = 'merchant' AND key = $1`, [m.id]))[0]!.n);
      const written = await count();
      assert.ok(written >= 2, 'minute and hour buckets (the attempt and its outcome may land on two shards)');
      await t.gateway.riskPruner.runOnce();
      assert.equal(await count(), written);
      clock.advance((43_200 + 121) * 60_000);
      await t.gateway.riskPruner.runOnce();
      assert.equal(await count(), 0);
      clock.advance(-(43_200 + 121) * 60_000);
    });

    it('backtest: a draft over the last days answers would-block/review/allow with examples and the approved volume lost', async () => {
      const m = await merchant();
      const amounts = [['10.00', '01'], ['200.00', '01'], ['300.00', '02'], ['150.00', '01']] as const;
      const ids: string[] = [];
      for (const [amount, month] of amounts) ids.push((await sale(t, { order_amount: amount, card_exp_month: month }, m)).body.trans_id);
      const draft = { rules: [
        rule('large', { amount: { min: '175.00' } }),
        rule('medium', { amount: { min: '100.00' } }, { action: 'review' }),
        rule('attempts per IP', { velocity: [{ measure: 'attempts', by: 'ip', window_minutes: 5, more_than: 100 }] }),
      ] };
      const res = await call('POST', `/admin/v1/risk/rules/${m.id}/backtest`, { days: 1, rules: draft }, 'viewer');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.payments, 4);
      assert.deepEqual(res.body.counts, { allow: 1, block: 2, review: 1, require_3ds: 0 });
      assert.deepEqual(res.body.lost_approved, { count: 1, volume: { USD: '200.00' } }, 'the declined 300.00 was not approved');
      assert.deepEqual(res.body.reviewed_approved, { count: 1, volume: { USD: '150.00' } });
      assert.deepEqual(res.body.examples.block.map((e: { amount: string; reason: string }) => [e.amount, e.reason]), [['200.00', 'merchant rule: large'], ['300.00', 'merchant rule: large']]);
      assert.deepEqual(res.body.not_replayable, { 'attempts per IP': 1 }, 'its screen read no such counter (only the allowed payment reached the rule)');
      const bad = await call('POST', `/admin/v1/risk/rules/${m.id}/backtest`, { days: 1, rules: { rules: [{ name: 'x', mode: 'on', when: {}, then: { action: 'block' } }] } }, 'viewer');
      assert.equal(bad.status, 400);
      assert.equal((await call('POST', `/admin/v1/risk/rules/${m.id}/backtest`, { days: 91, rules: draft }, 'viewer')).status, 400);
      // What was screened stays as it was: nothing is written by a backtest.
      assert.equal((await risk(ids[1]!)).action, 'allow');
    });

    it('platform rules run before the merchant\'s; a merchant-initiated or sandbox-scoped rule applies only where it says', async () => {
      const m = await merchant();
      await saveRules(m.id, [rule('merchant allows all', {}, { action: 'allow' })]);
      const platform = await call('GET', '/admin/v1/risk/rules/platform');
      const saved = await call('PUT', '/admin/v1/risk/rules/platform', { version: platform.body.version, rules: { rules: [...platform.body.rules.rules, rule('no JPY', { currencies: ['JPY'], merchants: [m.id] })] } });
      assert.equal(saved.status, 200, saved.text);
      try {
        assert.equal((await sale(t, { order_currency: 'JPY', order_amount: '100' }, m)).body.status, 'DECLINED');
        assert.equal((await sale(t, { order_currency: 'EUR' }, m)).body.status, 'SETTLED');
      } finally {
        const restore = await call('POST', `/admin/v1/risk/rules/platform/versions/0/restore`);
        assert.equal(restore.status, 200, restore.text);
      }
    });
  });
}
