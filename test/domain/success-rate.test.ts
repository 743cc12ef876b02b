/**
 * Success-rate routing (issue 15), without I/O: decay weighs newer outcomes more, a MID with too few outcomes
 * scores the rule's default, the ranking puts the best score first, and the exploration share holds over 10,000
 * draws. The rule evaluator ranks a success_rate rule's eligible MIDs by the scores it is given.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decayed, rankBySuccess, scoreOf, SUCCESS_RATE_DEFAULTS, type MidScore } from '../../src/domain/routing/success-rate.ts';
import { chooseCandidates, validateRouting, type RoutingConfig } from '../../src/domain/routing/rules.ts';
import type { PaymentFacts } from '../../src/domain/routing/facts.ts';
import { prng as draws } from '../support/prng.ts';

const T0 = new Date('2030-01-01T00:00:00Z');
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

describe('success-rate scores', () => {
  it('decay halves the weight every half-life, never grows it, and keeps the rate of a MID that sees nothing new', () => {
    fc.assert(fc.property(fc.double({ min: 0, max: 1000, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 1, max: 1440 }),
      (total, rate, elapsed, halfLife) => {
        const counts = { approved: total * rate, total, updatedAt: T0 };
        const later = decayed(counts, minutes(elapsed), halfLife);
        assert.ok(later.total <= total + 1e-9);
        assert.ok(Math.abs(later.total - total * 0.5 ** (elapsed / halfLife)) <= 1e-6 * Math.max(1, total));
        if (later.total > 1e-9) assert.ok(Math.abs(later.approved / later.total - rate) < 1e-6, 'the rate survives decay');
      }));
    assert.deepEqual(decayed({ approved: 8, total: 16, updatedAt: T0 }, minutes(60), 60), { approved: 4, total: 8 });
  });

  it('newer outcomes weigh more: the same outcomes, recent declines after old approvals, score lower than the reverse', () => {
    // Ten approvals then ten declines an hour later, folded as the store's upsert folds them.
    const fold = (first: boolean, second: boolean) => {
      const old = { approved: first ? 10 : 0, total: 10, updatedAt: T0 };
      const d = decayed(old, minutes(60), 30);
      return { approved: d.approved + (second ? 10 : 0), total: d.total + 10, updatedAt: minutes(60) };
    };
    const params = { ...SUCCESS_RATE_DEFAULTS, min_outcomes: 5 };
    const recentDeclines = scoreOf('a', fold(true, false), minutes(60), 30, params);
    const recentApprovals = scoreOf('a', fold(false, true), minutes(60), 30, params);
    assert.ok(recentDeclines.score < 0.5 && recentApprovals.score > 0.5, `${recentDeclines.score} < 0.5 < ${recentApprovals.score}`);
  });

  it('a MID with fewer outcomes than the minimum scores the default; at or above it, its own rate', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 100 }), fc.double({ min: 0, max: 1, noNaN: true }),
      (approved, declined, minOutcomes, defaultScore) => {
        const total = approved + declined;
        const s = scoreOf('m', { approved, total, updatedAt: T0 }, T0, 60, { exploration_percent: 0, min_outcomes: minOutcomes, default_score: defaultScore });
        assert.equal(s.observed, total >= minOutcomes && total > 0);
        const expected = s.observed ? approved / total : defaultScore;
        assert.ok(Math.abs(s.score - expected) <= 1e-4, `${s.score} vs ${expected}`);
      }));
    assert.equal(scoreOf('m', undefined, T0, 60, SUCCESS_RATE_DEFAULTS).score, SUCCESS_RATE_DEFAULTS.default_score);
  });
});

describe('success-rate ranking', () => {
  const score = fc.record({ mid_id: fc.constant(''), score: fc.double({ min: 0, max: 1, noNaN: true }), outcomes: fc.constant(0), observed: fc.boolean() });
  const scoresOf = fc.array(score, { minLength: 1, maxLength: 6 }).map((list) => list.map((s, i) => ({ ...s, mid_id: `m${i}` })));

  it('without exploration: best score first, ties in the rule\'s order, every MID once', () => {
    fc.assert(fc.property(scoresOf, (scores) => {
      const { order, explored } = rankBySuccess(scores, 0, Math.random);
      assert.equal(explored, false);
      assert.deepEqual([...order].sort(), scores.map((s) => s.mid_id).sort());
      const at = (id: string) => scores.find((s) => s.mid_id === id)!;
      for (let i = 1; i < order.length; i++) {
        const [prev, cur] = [at(order[i - 1]!), at(order[i]!)];
        assert.ok(prev.score > cur.score || (prev.score === cur.score && scores.indexOf(prev) < scores.indexOf(cur)));
      }
    }));
  });

  it('explores the configured share of payments (10,000 draws within 4.5 standard deviations), the explored MID uniform', () => {
    const scores: MidScore[] = [0.95, 0.5, 0.2].map((s, i) => ({ mid_id: `m${i}`, score: s, outcomes: 100, observed: true }));
    for (const percent of [5, 10, 30]) {
      const draw = draws(percent);
      const n = 10_000;
      let explored = 0;
      const firsts = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        const r = rankBySuccess(scores, percent, draw);
        if (r.explored) {
          explored += 1;
          firsts.set(r.order[0]!, (firsts.get(r.order[0]!) ?? 0) + 1);
        } else assert.equal(r.order[0], 'm0');
      }
      const p = percent / 100;
      const sd = Math.sqrt(n * p * (1 - p));
      assert.ok(Math.abs(explored - n * p) <= 4.5 * sd, `${percent}%: ${explored} explored of ${n}`);
      for (const id of ['m0', 'm1', 'm2']) {
        const k = firsts.get(id) ?? 0;
        const q = 1 / 3;
        assert.ok(Math.abs(k - explored * q) <= 4.5 * Math.sqrt(explored * q * (1 - q)), `${id} first in ${k} of ${explored} explorations`);
      }
    }
  });
});

describe('success_rate rules', () => {
  const facts: PaymentFacts = { intent: 'sale', money: { minor: 1000n, currency: 'EUR' }, method: 'card', brand: 'visa', recurring: false };

  it('orders the eligible MIDs of the rule by the scores given; an ineligible MID is left out; the decision keeps the scores', () => {
    const config: RoutingConfig = { rules: [{ name: 'by success', when: {}, then: { kind: 'success_rate', mid_ids: ['a', 'b', 'c'], exploration_percent: 0 } }], max_extra_attempts: 1 };
    const rates: Record<string, number> = { a: 0.4, b: 0.9, c: 0.7 };
    const scorer = (id: string) => ({ mid_id: id, score: rates[id]!, outcomes: 50, observed: true });
    const choice = chooseCandidates(config, ['a', 'b', 'c'], facts, Math.random, scorer);
    assert.deepEqual(choice.candidates, ['b', 'c', 'a']);
    assert.deepEqual(choice.scores?.map((s) => s.mid_id), ['a', 'b', 'c']);
    assert.equal(choice.explored, false);
    assert.deepEqual(chooseCandidates(config, ['a', 'c'], facts, Math.random, scorer).candidates, ['c', 'a']);
  });

  it('is validated on save like the other kinds: unknown MIDs, a MID twice', () => {
    const config: RoutingConfig = { rules: [{ name: 'x', when: {}, then: { kind: 'success_rate', mid_ids: ['a', 'zz', 'a'] } }], max_extra_attempts: 1 };
    const errors = validateRouting(config, new Set(['a', 'b']));
    assert.deepEqual(errors.map((e) => e.message).sort(), ['A MID may appear once in a fallback list.', 'Unknown MID zz.']);
  });
});
