/**
 * The one MID picker (domain/routing/route.ts) and its eligibility pass: every MID accounted for once, eligible ones
 * by priority, the others with why not; and, over random merchants, MIDs, payments and rules, what route() may never
 * do (an ineligible, disabled or sandbox-for-live candidate, a MID without its reason, an order the rules did not say).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { explain, type RoutingMid } from '../../src/domain/routing/eligibility.ts';
import type { PaymentMode } from '../../src/domain/model/mid.ts';
import type { Intent } from '../../src/domain/operations.ts';
import { NO_RULES, PATHS, reachable, route } from '../../src/domain/routing/route.ts';
import type { PaymentFacts } from '../../src/domain/routing/facts.ts';
import type { RoutingConfig, RoutingOutput } from '../../src/domain/routing/rules.ts';
import { exponentOf } from '../../src/domain/money.ts';
import { prng } from '../support/prng.ts';

const noLimits = { currencies: null, minAmount: null, maxAmount: null };
const mid = fc.record({
  id: fc.uuid(),
  paymentMode: fc.constantFrom<PaymentMode>('SMS', 'DMS', 'SMS/DMS'),
  enabled: fc.boolean(),
  priority: fc.integer({ min: -5, max: 5 }),
  connector: fc.constantFrom('sandbox-card', 'gone'),
}).map((m): RoutingMid => ({ ...m, ...noLimits }));
const intent = fc.constantFrom<Intent>('sale', 'auth', 'payout');
const available = new Set(['sandbox-card']);
const modeFits = (m: RoutingMid, i: Intent) => i === 'payout' || m.paymentMode === 'SMS/DMS' || m.paymentMode === (i === 'sale' ? 'SMS' : 'DMS');
const sale = (money = { minor: 100n, currency: 'EUR' }): PaymentFacts => ({ intent: 'sale', money, method: 'card', recurring: false });

describe('eligibility', () => {
  it('keeps the enabled MIDs whose mode fits and whose connector is here, by priority, and every other MID once with why not', () => {
    fc.assert(fc.property(fc.uniqueArray(mid, { selector: (m) => m.id, maxLength: 6 }), intent, (mids, i) => {
      const { eligible, considered } = explain(mids, { intent: i, money: { minor: 100n, currency: 'EUR' } }, available);
      const expected = mids.filter((m) => m.enabled && modeFits(m, i) && available.has(m.connector)).sort((a, b) => b.priority - a.priority);
      assert.deepEqual(eligible.map((m) => m.id), expected.map((m) => m.id));
      assert.deepEqual(considered.map((c) => c.midId).sort(), mids.map((m) => m.id).sort());
      assert.deepEqual(considered.filter((c) => c.eligible).map((c) => c.midId), eligible.map((m) => m.id));
      for (const c of considered.filter((x) => !x.eligible)) {
        const m = mids.find((x) => x.id === c.midId)!;
        const reason = !m.enabled ? 'disabled' : !modeFits(m, i) ? 'payment_mode' : 'connector_unavailable';
        assert.equal(c.reason, reason, JSON.stringify(m));
      }
      fc.pre(eligible.length > 0);
      const { decision } = route({ ...sale(), intent: i }, mids, NO_RULES, { connectors: available });
      assert.equal(decision.midId, eligible[0]!.id);
      assert.equal(decision.intent, i);
      assert.deepEqual(decision.considered, considered);
    }));
  });

  it('gives the reason of a further rule and keeps its MIDs out of the eligible ones', () => {
    const mids: RoutingMid[] = [
      { id: 'eur-only', paymentMode: 'SMS', enabled: true, priority: 9, connector: 'sandbox-card', ...noLimits },
      { id: 'any', paymentMode: 'SMS', enabled: true, priority: 1, connector: 'sandbox-card', ...noLimits },
    ];
    const limits = { reason: 'limits', allows: (m: RoutingMid) => m.id !== 'eur-only' };
    assert.deepEqual(explain(mids, sale(), available, PATHS.card, [limits]).considered, [
      { midId: 'any', priority: 1, eligible: true },
      { midId: 'eur-only', priority: 9, eligible: false, reason: 'limits' },
    ]);
  });

  it('explains a DMS-only MID skipped for a sale', () => {
    const mids: RoutingMid[] = [
      { id: 'dms', paymentMode: 'DMS', enabled: true, priority: 9, connector: 'sandbox-card', ...noLimits },
      { id: 'off', paymentMode: 'SMS', enabled: false, priority: 5, connector: 'sandbox-card', ...noLimits },
      { id: 'sms', paymentMode: 'SMS', enabled: true, priority: 1, connector: 'sandbox-card', ...noLimits },
    ];
    assert.deepEqual(route(sale(), mids, NO_RULES, { connectors: available }).decision, {
      intent: 'sale', midId: 'sms', rule: 'highest_priority', candidates: ['sms'],
      considered: [
        { midId: 'sms', priority: 1, eligible: true },
        { midId: 'dms', priority: 9, eligible: false, reason: 'payment_mode' },
        { midId: 'off', priority: 5, eligible: false, reason: 'disabled' },
      ],
    });
  });

  it('a path applies only its own checks: a session opening ignores the daily caps, APM the payment mode, a survey the limits', () => {
    const capped: RoutingMid = { id: 'capped', paymentMode: 'DMS', enabled: true, priority: 1, connector: 'sandbox-card', currencies: ['USD'], minAmount: null, maxAmount: null, dailyCaps: { EUR: { max_count: 0 } } };
    const eur = { ...capped, currencies: null };
    assert.equal(route({ ...sale(), intent: 'auth' }, [eur], NO_RULES, { connectors: available }).refusal, 'dayMidLimit');
    assert.deepEqual(route({ ...sale(), intent: 'auth' }, [eur], NO_RULES, { connectors: available, checks: PATHS.session }).candidates, [eur]);
    assert.equal(route(sale(), [eur], NO_RULES, { connectors: available, checks: PATHS.session }).refusal, 'noEligibleMid', 'a DMS MID takes no sale');
    assert.deepEqual(route(sale(), [{ ...eur, dailyCaps: null }], NO_RULES, { connectors: available, checks: PATHS.apm }).candidates.map((m) => m.id), ['capped']);
    assert.deepEqual(reachable([capped], 'auth', available).map((m) => m.id), ['capped'], 'a survey reads no limits');
    assert.deepEqual(reachable([capped], 'sale', available), []);
  });
});

// --- route() over random merchants ------------------------------------------------------------------------------

const IDS = ['m0', 'm1', 'm2', 'm3', 'm4', 'm5'];
const CONNECTORS = ['sandbox-card', 'adyen', 'gone'];
const amount = fc.constantFrom(null, '0.5', '10', '10.00', '99.99', '1000');
const routingMid = (id: string) => fc.record({
  paymentMode: fc.constantFrom<PaymentMode>('SMS', 'DMS', 'SMS/DMS'),
  enabled: fc.boolean(),
  priority: fc.integer({ min: 0, max: 4 }),
  connector: fc.constantFrom(...CONNECTORS),
  currencies: fc.option(fc.subarray(['EUR', 'USD', 'JPY'], { minLength: 1 }), { nil: null }),
  minAmount: amount,
  maxAmount: amount,
  dailyCaps: fc.option(fc.record({ EUR: fc.record({ max_count: fc.integer({ min: 0, max: 2 }), max_amount: fc.constantFrom('5.00', '500.00') }, { requiredKeys: [] }) }), { nil: null }),
}).map((m): RoutingMid => ({ id, ...m }));
const mids = fc.shuffledSubarray(IDS).chain((ids) => fc.tuple(...ids.map(routingMid)));
const facts: fc.Arbitrary<PaymentFacts> = fc.record({
  intent: fc.constantFrom<Intent>('sale', 'auth', 'payout'),
  money: fc.record({ minor: fc.bigInt({ min: 0n, max: 200_000n }), currency: fc.constantFrom('EUR', 'USD', 'JPY') }),
  method: fc.constant('card'),
  brand: fc.option(fc.constantFrom('visa', 'mastercard'), { nil: undefined }),
  recurring: fc.boolean(),
});
const list = fc.shuffledSubarray(IDS, { minLength: 1 });
const output: fc.Arbitrary<RoutingOutput> = fc.oneof(
  fc.constantFrom(...IDS).map((id) => ({ kind: 'mid' as const, mid_id: id })),
  list.map((ids) => ({ kind: 'fallback' as const, mid_ids: ids })),
  fc.tuple(list, list).map(([a, b]) => ({ kind: 'split' as const, shares: [{ weight: 60, mid_ids: a }, { weight: 40, mid_ids: b }] })),
  list.map((ids) => ({ kind: 'success_rate' as const, mid_ids: ids })),
);
const config: fc.Arbitrary<RoutingConfig> = fc.record({
  rules: fc.array(fc.record({
    name: fc.constant('r'),
    when: fc.record({ currencies: fc.subarray(['EUR', 'USD', 'JPY'], { minLength: 1 }), operations: fc.subarray(['sale', 'auth', 'payout'] as Intent[], { minLength: 1 }), recurring: fc.boolean() }, { requiredKeys: [] }),
    then: output,
  }), { maxLength: 4 }),
  max_extra_attempts: fc.integer({ min: 0, max: 2 }),
});

/** The oracle: written from the rules' text, not from the code (amounts compared as exact rationals). */
function limitsAllow(m: RoutingMid, f: PaymentFacts): boolean {
  if (m.currencies && !m.currencies.includes(f.money.currency)) return false;
  if (f.money.minor === 0n) return true;
  // Both sides as integers of 10^-8 major units.
  const limit = (decimal: string) => { const [w = '0', d = ''] = decimal.split('.'); return BigInt(w + d.padEnd(8, '0')); };
  const paid = f.money.minor * 10n ** BigInt(8 - exponentOf(f.money.currency));
  return (m.minAmount === null || paid >= limit(m.minAmount)) && (m.maxAmount === null || paid <= limit(m.maxAmount));
}
function capAllows(m: RoutingMid, f: PaymentFacts): boolean {
  const cap = m.dailyCaps?.[f.money.currency];
  if (!cap) return true;
  const maxMinor = cap.max_amount === undefined ? undefined : BigInt(cap.max_amount.replace('.', ''));
  return (cap.max_count === undefined || cap.max_count >= 1) && (maxMinor === undefined || f.money.minor <= maxMinor);
}
const usable = (sandboxMerchant: boolean) => new Set(CONNECTORS.filter((c) => c !== 'gone' && (sandboxMerchant || c !== 'sandbox-card')));

describe('route()', () => {
  it('gives only eligible candidates, in the order of the rule that picked them or by priority, and a reason for every MID left out', () => {
    fc.assert(fc.property(mids, facts, config, fc.boolean(), fc.integer(), (ms, f, cfg, sandboxMerchant, seed) => {
      const connectors = usable(sandboxMerchant);
      const result = route(f, ms, cfg, { connectors, draw: prng(seed) });
      const eligible = (m: RoutingMid, caps = true) => m.enabled && limitsAllow(m, f) && (!caps || capAllows(m, f)) && modeFits(m, f.intent) && connectors.has(m.connector);
      const expected = ms.filter((m) => eligible(m)).sort((a, b) => b.priority - a.priority).map((m) => m.id);
      const ids = result.candidates.map((m) => m.id);
      // Never an ineligible, disabled or (for a live merchant) sandbox MID; never one MID twice.
      for (const m of result.candidates) {
        assert.ok(eligible(m), `ineligible candidate ${JSON.stringify(m)}`);
        assert.ok(m.enabled);
        if (!sandboxMerchant) assert.notEqual(m.connector, 'sandbox-card');
      }
      assert.equal(new Set(ids).size, ids.length);
      // Every MID once in considered: eligible ones (all of them) by priority, each other with a reason.
      const considered = result.decision.considered;
      assert.deepEqual(considered.map((c) => c.midId).sort(), ms.map((m) => m.id).sort());
      assert.deepEqual(considered.filter((c) => c.eligible).map((c) => c.midId), expected);
      for (const c of considered.filter((x) => !x.eligible)) assert.ok(typeof c.reason === 'string' && c.reason.length > 0, JSON.stringify(c));
      if (expected.length === 0) {
        assert.deepEqual(ids, []);
        const capsOnly = ms.some((m) => eligible(m, false));
        assert.equal(result.refusal, capsOnly ? 'dayMidLimit' : 'noEligibleMid');
        return;
      }
      assert.equal(result.refusal, undefined);
      assert.equal(result.decision.midId, ids[0]);
      assert.deepEqual(result.decision.candidates, ids);
      const matched = result.decision.matchedRule;
      if (!matched) {
        assert.equal(result.decision.rule, 'highest_priority');
        assert.deepEqual(ids, expected, 'no rule: every eligible MID by priority');
        return;
      }
      const rule = cfg.rules[matched.index]!;
      const named = rule.then.kind === 'mid' ? [rule.then.mid_id] : rule.then.kind === 'split' ? rule.then.shares[result.decision.share!]!.mid_ids : rule.then.mid_ids;
      const inRuleOrder = named.filter((id) => expected.includes(id));
      if (rule.then.kind === 'success_rate') assert.deepEqual([...ids].sort(), [...inRuleOrder].sort(), 'the rule\'s eligible MIDs, ranked');
      else assert.deepEqual(ids, inRuleOrder, 'the rule\'s eligible MIDs in its order');
    }), { numRuns: 500 });
  });

  it('is pure: the same facts, MIDs, config and draws give the same answer', () => {
    fc.assert(fc.property(mids, facts, config, fc.integer(), (ms, f, cfg, seed) => {
      const once = route(f, ms, cfg, { connectors: usable(true), draw: prng(seed) });
      const again = route(f, ms, cfg, { connectors: usable(true), draw: prng(seed) });
      assert.deepEqual(again, once);
    }), { numRuns: 100 });
  });
});
