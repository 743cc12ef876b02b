/** The routing rule evaluator (issue 15): first match wins, volume splits hold their shares, validation on save. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  chooseCandidates, pickShare, ruleMatches, validateRouting, type RoutingConditions, type RoutingConfig, type RoutingRuleDef,
} from '../../src/domain/routing/rules.ts';
import type { PaymentFacts } from '../../src/domain/routing/facts.ts';
import { prng as mulberry32 } from '../support/prng.ts';

const MIDS = ['m1', 'm2', 'm3', 'm4'];
const facts = fc.record({
  intent: fc.constantFrom('sale' as const, 'auth' as const, 'payout' as const),
  money: fc.record({ minor: fc.bigInt({ min: 0n, max: 1_000_000n }), currency: fc.constantFrom('EUR', 'USD', 'JPY') }),
  method: fc.constant('card'),
  brand: fc.option(fc.constantFrom('visa', 'mastercard'), { nil: undefined }),
  bin: fc.option(fc.stringMatching(/^[2-5]\d{7}$/), { nil: undefined }),
  billingCountry: fc.option(fc.constantFrom('DE', 'FR', 'US'), { nil: undefined }),
  recurring: fc.boolean(),
  customData: fc.option(fc.dictionary(fc.constantFrom('tier', 'shop'), fc.constantFrom('gold', 'silver')), { nil: undefined }),
}) as fc.Arbitrary<PaymentFacts>;

const conditions: fc.Arbitrary<RoutingConditions> = fc.record({
  currencies: fc.subarray(['EUR', 'USD', 'JPY'], { minLength: 1 }),
  amount: fc.record({ min: fc.constantFrom('1', '10.50', '100'), max: fc.constantFrom('50', '1000', '9999.99') }, { requiredKeys: [] }),
  brands: fc.subarray(['visa', 'mastercard'], { minLength: 1 }),
  bin_ranges: fc.constant([{ from: '400000', to: '499999' }]),
  billing_countries: fc.subarray(['DE', 'FR', 'US'], { minLength: 1 }),
  operations: fc.subarray(['sale', 'auth', 'payout'] as const, { minLength: 1 }).map((o) => [...o]),
  recurring: fc.boolean(),
  custom_data: fc.dictionary(fc.constantFrom('tier', 'shop'), fc.constantFrom('gold', null), { minKeys: 1 }),
}, { requiredKeys: [] });

const rule = fc.record({ name: fc.string({ minLength: 1, maxLength: 8 }), when: conditions, then: fc.shuffledSubarray(MIDS, { minLength: 1 }).map((ids) => ({ kind: 'fallback' as const, mid_ids: ids })) }) as fc.Arbitrary<RoutingRuleDef>;

describe('routing rules', () => {
  it('the first matching rule with an eligible MID wins; no match: every eligible MID by priority', () => {
    fc.assert(fc.property(fc.array(rule, { maxLength: 8 }), facts, fc.shuffledSubarray(MIDS), (rules, p, eligible) => {
      const config: RoutingConfig = { rules, max_extra_attempts: 1 };
      const choice = chooseCandidates(config, eligible, p);
      const winner = rules.findIndex((r) => ruleMatches(r.when, p) && r.then.kind === 'fallback' && r.then.mid_ids.some((id) => eligible.includes(id)));
      if (winner === -1) {
        assert.equal(choice.rule, null);
        assert.deepEqual(choice.candidates, eligible);
      } else {
        assert.equal(choice.rule?.index, winner);
        const named = (rules[winner]!.then as { mid_ids: string[] }).mid_ids;
        assert.deepEqual(choice.candidates, named.filter((id) => eligible.includes(id)), 'its MIDs, in its order, eligible ones only');
        // Every earlier rule either did not match or named no eligible MID (and is reported as passed over).
        for (const s of choice.skipped) assert.ok(s.index < winner && ruleMatches(rules[s.index]!.when, p));
      }
      for (const id of choice.candidates) assert.ok(eligible.includes(id), 'never an ineligible MID');
    }));
  });

  it('matches each condition exactly (amounts in minor units compared without floats, BIN ranges, custom_data)', () => {
    const p: PaymentFacts = { intent: 'sale', money: { minor: 1050n, currency: 'EUR' }, method: 'card', brand: 'visa', bin: '41111111', billingCountry: 'DE', recurring: false, customData: { tier: 'gold' } };
    assert.ok(ruleMatches({ amount: { min: '10.50', max: '10.50' } }, p));
    assert.ok(!ruleMatches({ amount: { min: '10.51' } }, p));
    assert.ok(ruleMatches({ bin_ranges: [{ from: '411111', to: '411111' }] }, p));
    assert.ok(!ruleMatches({ bin_ranges: [{ from: '51000000', to: '55999999' }] }, p));
    assert.ok(ruleMatches({ custom_data: { tier: 'gold' } }, p) && ruleMatches({ custom_data: { tier: null } }, p));
    assert.ok(!ruleMatches({ custom_data: { tier: 'silver' } }, p) && !ruleMatches({ custom_data: { shop: null } }, p));
    assert.ok(!ruleMatches({ card_countries: ['DE'] }, p), 'an unknown card country never matches');
    assert.ok(ruleMatches({ operations: ['sale'], recurring: false, brands: ['visa'], billing_countries: ['DE'], methods: ['card'] }, p));
  });

  it('a volume split draws each share in proportion to its weight (10,000 draws within 4.5 standard deviations)', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 2, maxLength: 4 }).filter((w) => w.reduce((a, b) => a + b, 0) < 100), fc.integer(), (weights, seed) => {
      const shares = [...weights, 100 - weights.reduce((a, b) => a + b, 0)].map((weight, i) => ({ weight, mid_ids: [`m${i}`] }));
      const rng = mulberry32(seed);
      const counts = shares.map(() => 0);
      const N = 10_000;
      for (let i = 0; i < N; i += 1) counts[pickShare(shares, rng())]! += 1;
      for (const [i, s] of shares.entries()) {
        const p = s.weight / 100;
        const sd = Math.sqrt(N * p * (1 - p));
        assert.ok(Math.abs(counts[i]! - N * p) <= 4.5 * sd + 1, `share ${i} weight ${s.weight}: ${counts[i]} of ${N}`);
      }
    }), { numRuns: 30 });
  });

  it('validates on save: unknown MIDs, shares not adding up to 100, rules after a catch-all, inverted ranges', () => {
    const known = new Set(['m1', 'm2']);
    const errors = validateRouting({
      rules: [
        { name: 'split', when: { currencies: ['EUR'] }, then: { kind: 'split', shares: [{ weight: 60, mid_ids: ['m1'] }, { weight: 30, mid_ids: ['m2', 'm2'] }] } },
        { name: 'amount', when: { amount: { min: '10', max: '5' }, bin_ranges: [{ from: '499999', to: '400000' }] }, then: { kind: 'mid', mid_id: 'nope' } },
        { name: 'all', when: {}, then: { kind: 'fallback', mid_ids: ['m2', 'm1'] } },
        { name: 'never', when: { currencies: ['USD'] }, then: { kind: 'mid', mid_id: 'm1' } },
      ],
      max_extra_attempts: 1,
    }, known);
    assert.deepEqual(errors.map((e) => `${e.field}: ${e.message}`), [
      'rules[0].then: A MID may appear once in a fallback list.',
      'rules[0].then.shares: The weights should add up to 100 (they add up to 90).',
      'rules[1].then: Unknown MID nope.',
      'rules[1].when.amount: min should not be greater than max.',
      'rules[1].when.bin_ranges[0]: from and to should have the same length and from should not be greater than to.',
      'rules[3]: This rule is never reached: rules[2] matches every payment.',
    ]);
    assert.deepEqual(validateRouting({ rules: [{ name: 'all', when: {}, then: { kind: 'fallback', mid_ids: ['m2', 'm1'] } }], max_extra_attempts: 0 }, known), []);
  });

  it('refuses codes of the right shape that name no country or currency, at their place (issue 31 item 9)', () => {
    const errors = validateRouting({
      rules: [{ name: 'codes', when: { card_countries: ['DE', 'XX'], billing_countries: ['QQ'], currencies: ['EUR', 'XXY'] }, then: { kind: 'mid', mid_id: 'm1' } }],
      max_extra_attempts: 0,
    }, new Set(['m1']));
    assert.deepEqual(errors.map((e) => `${e.field}: ${e.message}`), [
      "rules[0].when.card_countries[1]: 'XX' is not a country code.",
      "rules[0].when.billing_countries[0]: 'QQ' is not a country code.",
      "rules[0].when.currencies[1]: 'XXY' is not a currency code.",
    ]);
  });
});

