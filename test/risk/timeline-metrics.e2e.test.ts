/**
 * The risk screen in a payment's timeline and on /metrics (issue 26 items 6 and 7), over HTTP on both stores:
 * GET /admin/v1/payments/{id}/timeline shows the screen as a step of its own (its outcome, score, every rule matched
 * active and shadow, the lists hit) in time order: after the creation, before the attempt at the acquirer; a held
 * review's approval follows, with its note. /metrics counts by rule the payments blocked, reviewed, matched in
 * shadow, and the rules that failed at evaluation (a rule the running version cannot evaluate is skipped, recorded
 * and counted, never a 5xx, and a block-listed card is still blocked); the home's risk summary counts them by rule.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway, type TestMerchant } from '../support/gateway.ts';
import { adminCall, tokenFor } from '../admin/config-support.ts';
import { sale } from '../s2s-card/support.ts';
import { ManualClock } from '../../src/domain/clock.ts';

const rule = (name: string, when: object, then: object, mode = 'active') => ({ name, mode, when, then });

interface Step { at: string; kind: string; attempt: number | null; text: string; outcome: string | null; by: string | null; risk?: { action: string; reason: string; score: number; rules: { scope: string; name: string; mode: string; action: string }[]; lists: { scope: string; list: string; kind: string }[]; failed: { scope: string; name: string }[] } }

for (const { kind, skip } of await storeKinds()) {
  describe(`the risk screen in the timeline and on /metrics (${kind})`, { skip }, () => {
    let t: TestGateway;
    const clock = new ManualClock('2030-01-15T10:00:00Z');
    let operator: string;
    const call = (method: string, path: string, body?: unknown) => adminCall(t.baseUrl, method, path, operator, body);

    before(async () => {
      t = await startTestGateway(kind, { clock, adminToken: `risk-timeline-${kind}` });
      operator = await tokenFor(t, 'operator');
    });
    after(() => t?.close());

    async function merchantWith(rules: object[]): Promise<TestMerchant> {
      const m = await t.addMerchant({ notificationUrl: 'http://127.0.0.1:9/callbacks' });
      const res = await call('PUT', `/admin/v1/risk/rules/${m.id}`, { version: 0, rules: { rules } });
      assert.equal(res.status, 200, res.text);
      return m;
    }
    async function timeline(transId: string): Promise<Step[]> {
      const res = await call('GET', `/admin/v1/payments/${transId}/timeline`);
      assert.equal(res.status, 200, res.text);
      return res.body.steps;
    }
    const index = (steps: Step[], kind: string) => steps.findIndex((s) => s.kind === kind);

    it('the timeline shows the risk step (outcome, score, rules matched, lists hit) in time order, and a review\'s approval', async () => {
      const m = await merchantWith([
        rule('Shadow: USD', { currencies: ['USD'] }, { action: 'block' }, 'shadow'),
        rule('Score: example.com', { email_domains: ['example.com'] }, { action: 'score', points: 20 }),
        rule('Block 500 and above', { amount: { min: '500.00' } }, { action: 'block' }),
        rule('Review 100 and above', { amount: { min: '100.00' } }, { action: 'review' }),
      ]);
      const matched = (...extra: { name: string; mode: string; action: string }[]) => [
        { scope: 'merchant', name: 'Shadow: USD', mode: 'shadow', action: 'block' }, { scope: 'merchant', name: 'Score: example.com', mode: 'active', action: 'score' },
        ...extra.map((x) => ({ scope: 'merchant', ...x })),
      ];

      // Allowed: created, the screen, then the attempt at the acquirer.
      const allowed = await sale(t, { order_amount: '50.00' }, m);
      assert.equal(allowed.body.status, 'SETTLED', allowed.text);
      let steps = await timeline(allowed.body.trans_id);
      const screen = steps[index(steps, 'risk')]!;
      assert.deepEqual(screen.risk, { action: 'allow', reason: 'no rule matched', score: 20, rules: matched(), lists: [], failed: [] });
      assert.equal(screen.outcome, 'allow');
      assert.equal(screen.text, 'Risk screen: allow (no rule matched; score 20); rules matched: Shadow: USD (merchant, shadow: block), Score: example.com (merchant, score)');
      assert.ok(index(steps, 'created') < index(steps, 'risk') && index(steps, 'risk') < index(steps, 'routing'), steps.map((s) => s.kind).join());

      // Blocked: the screen decided; no attempt at an acquirer, the callback after it.
      const blocked = await sale(t, { order_amount: '500.00' }, m);
      assert.equal(blocked.body.status, 'DECLINED', blocked.text);
      steps = await timeline(blocked.body.trans_id);
      assert.deepEqual(steps.find((s) => s.kind === 'risk')!.risk, { action: 'block', reason: 'merchant rule: Block 500 and above', score: 20, rules: matched({ name: 'Block 500 and above', mode: 'active', action: 'block' }), lists: [], failed: [] });
      assert.equal(index(steps, 'routing'), -1, 'no acquirer attempt');
      assert.ok(index(steps, 'risk') < index(steps, 'callback'));

      // A list hit.
      const listed = await call('POST', `/admin/v1/risk/lists/${m.id}`, { entries: [{ list: 'block', kind: 'email', value: 'listed@example.com', reason: 'chargebacks' }] });
      assert.equal(listed.status, 200, listed.text);
      const hit = await sale(t, { order_amount: '10.00', payer_email: 'listed@example.com' }, m);
      const hitStep = (await timeline(hit.body.trans_id)).find((s) => s.kind === 'risk')!;
      assert.deepEqual([hitStep.risk?.action, hitStep.risk?.reason, hitStep.risk?.lists], ['block', 'merchant block list: email', [{ scope: 'merchant', list: 'block', kind: 'email' }]]);
      assert.match(hitStep.text, /; lists hit: merchant block list \(email\)$/);

      // Held for review at 10:00, approved five minutes later: the screen's step at the screen's time, the attempt after the approval.
      const held = await sale(t, { order_amount: '150.00' }, m);
      assert.equal(held.body.status, 'PREPARE', held.text);
      const screenedAt = clock.now().toISOString();
      clock.advance(5 * 60_000);
      const approved = await call('POST', `/admin/v1/risk/reviews/${held.body.trans_id}/approve`, { note: 'known buyer' });
      assert.equal(approved.status, 200, approved.text);
      steps = await timeline(held.body.trans_id);
      const reviewed = steps.find((s) => s.kind === 'risk')!;
      assert.deepEqual([reviewed.at, reviewed.risk?.action, reviewed.risk?.reason], [screenedAt, 'review', 'merchant rule: Review 100 and above']);
      const approval = steps.find((s) => s.kind === 'operator' && s.text.startsWith('Risk review approved'))!;
      assert.ok(approval, steps.map((s) => s.text).join('\n'));
      assert.equal(approval.text, 'Risk review approved: sent on to the acquirer: known buyer');
      assert.equal(approval.at, clock.now().toISOString());
      const routing = steps[index(steps, 'routing')]!;
      assert.ok(index(steps, 'risk') < index(steps, 'routing') && reviewed.at < routing.at, 'the attempt comes after the screen');
      const times = steps.map((s) => s.at);
      assert.deepEqual(times, [...times].sort(), 'in time order');
    });

    it('/metrics counts by rule what was blocked, reviewed, matched in shadow and failed; the home\'s summary counts them by rule too', async () => {
      const tag = `${kind}-${process.pid}`;
      const names = { block: `Block (${tag})`, review: `Review (${tag})`, shadow: `Shadow (${tag})`, failed: `From a later version (${tag})` };
      const m = await merchantWith([
        rule(names.shadow, { currencies: ['USD'] }, { action: 'block' }, 'shadow'),
        rule(names.block, { amount: { min: '500.00' } }, { action: 'block' }),
        rule(names.review, { amount: { min: '100.00' } }, { action: 'review' }),
      ]);
      for (const amount of ['500.00', '600.00', '150.00', '10.00']) assert.ok((await sale(t, { order_amount: amount }, m)).body.trans_id);

      // A rule set written by a later version of the gateway, with a condition this one does not know: the rule
      // cannot be evaluated. Its payments go on (the rule skipped and recorded), and a block-listed card is blocked.
      const later = await t.addMerchant({ notificationUrl: 'http://127.0.0.1:9/callbacks' });
      await t.store.db.query('INSERT INTO risk_rule_sets (scope, version, rules, updated_at) VALUES ($1, 1, $2::jsonb, $3)',
        [later.id, JSON.stringify({ rules: [rule(names.failed, { payer_age: { min: 18 } }, { action: 'block' })] }), clock.now().toISOString()]);
      const paid = await sale(t, { order_amount: '10.00' }, later);
      assert.equal(paid.status, 200, paid.text);
      assert.equal(paid.body.status, 'SETTLED', 'the rule is skipped, not a 5xx');
      const risk = await call('GET', `/admin/v1/payments/${paid.body.trans_id}/risk`);
      assert.deepEqual(risk.body.evaluation.failed.map((f: { name: string }) => f.name), [names.failed]);
      assert.equal((await timeline(paid.body.trans_id)).find((s) => s.kind === 'risk')!.risk!.failed[0]!.name, names.failed);
      const list = await call('POST', `/admin/v1/risk/lists/${later.id}`, { entries: [{ list: 'block', kind: 'card', value: '4111111111111111', reason: 'stolen' }] });
      assert.equal(list.status, 200, list.text);
      const listed = await sale(t, { order_amount: '10.00' }, later);
      assert.equal(listed.body.decline_reason, 'Declined by risk management', 'a failing rule lets no block-listed card through');

      const metrics = await (await fetch(`${t.baseUrl}/metrics`)).text();
      const count = (name: string, result: string) => {
        const line = metrics.split('\n').find((l) => l.startsWith(`portcullis_risk_rule_total{scope="merchant",rule="${name}",result="${result}"} `));
        return line ? Number(line.split(' ').pop()) : 0;
      };
      assert.deepEqual(
        { blocked: count(names.block, 'block'), reviewed: count(names.review, 'review'), shadow: count(names.shadow, 'shadow'), failed: count(names.failed, 'failed') },
        { blocked: 2, reviewed: 1, shadow: 4, failed: 1 },
      );
      assert.match(metrics, /^portcullis_risk_screened_total\{action="block"\} \d+$/m);

      const summary = await call('GET', '/admin/v1/risk/summary?hours=1');
      assert.equal(summary.status, 200, summary.text);
      const byRule = (summary.body.rules as { scope: string; merchant_id: string | null; rule: string; blocked: number; reviewed: number; shadow: number; failed: number }[])
        .filter((r) => Object.values(names).includes(r.rule));
      assert.deepEqual(byRule.map((r) => [r.rule, r.scope, r.merchant_id, r.blocked, r.reviewed, r.shadow, r.failed]).sort(), [
        [names.block, 'merchant', m.id, 2, 0, 0, 0],
        [names.failed, 'merchant', later.id, 0, 0, 0, 1],
        [names.review, 'merchant', m.id, 0, 1, 0, 0],
        [names.shadow, 'merchant', m.id, 0, 0, 4, 0],
      ].sort());
    });
  });
}
