/**
 * The risk engine's pure evaluation (issue 26): the rule set's validation on save, each condition, lists before
 * rules, modes, score thresholds, a rule that throws; fast-check properties over random rule sets.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { evaluateRisk, emailDomain, type ListHit, type RiskFacts, type RiskInputs } from '../../src/domain/risk/evaluate.ts';
import { validateRuleSet, velocityKey, type RiskConditions, type RiskRule, type RiskRuleSet } from '../../src/domain/risk/rules.ts';
import { CARD_TESTING_DEFAULTS } from '../../src/domain/risk/defaults.ts';
import { ipWithin, parseCidr, parseIp, parseIpCountries, SAMPLE_IP_TABLE } from '../../src/domain/risk/ip.ts';
import { cardFingerprint, deriveRiskKey } from '../../src/domain/risk/fingerprint.ts';

const base: RiskFacts = {
  merchantId: 'm1', channel: 's2s_card', method: 'card', intent: 'sale', money: { minor: 1050n, currency: 'EUR' },
  brand: 'visa', bin: '41111111', cardCountry: 'US', billingCountry: 'DE', ip: parseIp('203.0.113.7'), ipCountry: 'DE',
  emailDomain: 'example.com', recurring: false, merchantInitiated: false, sandbox: false, customData: { tier: 'gold' },
};
const none: RiskInputs = { velocity: new Map(), lists: [] };
const rule = (when: RiskConditions, then: RiskRule['then'] = { action: 'block' }, mode: RiskRule['mode'] = 'active'): RiskRule => ({ name: 'r', mode, when, then });
const run = (rules: RiskRule[], facts: RiskFacts = base, inputs: RiskInputs = none, merchant: RiskRule[] = []) =>
  evaluateRisk([{ scope: 'platform', set: { rules } }, { scope: 'merchant', set: { rules: merchant } }], facts, inputs);
const blocks = (when: RiskConditions, facts: RiskFacts = base, inputs: RiskInputs = none) => run([rule(when)], facts, inputs).action === 'block';

describe('risk rule sets: validated whole on save', () => {
  it('names each problem: unknown field, wrong type, window out of range', () => {
    const errors = validateRuleSet({ rules: [
      { name: 'a', mode: 'active', when: { colour: ['red'] }, then: { action: 'block' } },
      { name: 'b', mode: 'active', when: { recurring: 'yes' }, then: { action: 'block' } },
      { name: 'c', mode: 'active', when: { velocity: [{ measure: 'attempts', by: 'ip', window_minutes: 50_000, more_than: 3 }] }, then: { action: 'block' } },
    ] });
    assert.deepEqual(errors, [
      { field: 'rules[0].when.colour', message: 'This field was not expected.' },
      { field: 'rules[1].when.recurring', message: 'This value should be of type bool.' },
      { field: 'rules[2].when.velocity[0].window_minutes', message: 'This value should be between 1 and 43200.' },
    ]);
  });

  it('a rule after a catch-all, bounds out of order, figures that do not fit their measure, bad CIDR', () => {
    const errors = validateRuleSet({ rules: [
      { name: 'a', mode: 'active', when: { amount: { min: '10', max: '9.99' }, ips: ['10.0.0.0/33'] }, then: { action: 'review' } },
      { name: 'b', mode: 'active', when: { velocity: [{ measure: 'amount', by: 'card', window_minutes: 60, more_than: 3 }] }, then: { action: 'block' } },
      { name: 'all', mode: 'active', when: {}, then: { action: 'allow' } },
      { name: 'late', mode: 'active', when: { currencies: ['EUR'] }, then: { action: 'block' } },
    ] });
    assert.deepEqual(errors.map((e) => e.field), [
      'rules[0].when.amount', 'rules[0].when.ips[0]',
      'rules[1].when.velocity[0].more_than_amount', 'rules[1].when.velocity[0].currency', 'rules[1].when.velocity[0].more_than',
      'rules[3]',
    ]);
    assert.match(errors.at(-1)!.message, /never reached: rules\[2\]/);
  });

  it('a catch-all score or shadow rule leaves the rules after it reachable; the defaults are valid', () => {
    assert.deepEqual(validateRuleSet({ rules: [rule({}, { action: 'score', points: 5 }), rule({}, { action: 'block' }, 'shadow'), rule({ currencies: ['EUR'] })] }), []);
    assert.deepEqual(validateRuleSet(CARD_TESTING_DEFAULTS), []);
  });
});

describe('risk conditions: one test each', () => {
  const cases: [string, RiskConditions, RiskConditions, Partial<RiskFacts>?][] = [
    ['amount exact decimals', { amount: { min: '10.50', max: '10.50' } }, { amount: { min: '10.51' } }],
    ['currency', { currencies: ['EUR'] }, { currencies: ['USD'] }],
    ['brand', { brands: ['visa'] }, { brands: ['mastercard'] }],
    ['BIN range', { bin_ranges: [{ from: '411111', to: '411111' }] }, { bin_ranges: [{ from: '51000000', to: '55999999' }] }],
    ['issuing country', { card_countries: ['US'] }, { card_countries: ['GB'] }],
    ['billing country', { billing_countries: ['DE'] }, { billing_countries: ['US'] }],
    ['IP country', { ip_countries: ['DE'] }, { ip_countries: ['US'] }],
    ['IP and CIDR', { ips: ['203.0.113.0/24'] }, { ips: ['203.0.114.0/24', '2001:db8::/32'] }],
    ['country mismatch', { country_mismatch: ['card_ip'] }, { country_mismatch: ['ip_billing'] }],
    ['e-mail domain', { email_domains: ['example.com'] }, { email_domains: ['example.org'] }],
    ['method', { methods: ['card'] }, { methods: ['sepa'] }],
    ['merchant', { merchants: ['m1'] }, { merchants: ['m2'] }],
    ['MID', { mids: ['mid-1'] }, { mids: ['mid-2'] }, { midId: 'mid-1' }],
    ['operation', { operations: ['sale'] }, { operations: ['auth', 'payout'] }],
    ['channel', { channels: ['s2s_card'] }, { channels: ['checkout'] }],
    ['recurring', { recurring: false }, { recurring: true }],
    ['merchant-initiated', { merchant_initiated: false }, { merchant_initiated: true }],
    ['sandbox', { sandbox: false }, { sandbox: true }],
    ['custom_data', { custom_data: { tier: 'gold' } }, { custom_data: { tier: 'silver' } }],
    ['3-D Secure result', { three_ds: ['failed'] }, { three_ds: ['authenticated'] }, { threeDs: 'failed' }],
  ];
  for (const [name, holds, fails, extra] of cases) {
    it(name, () => {
      const facts = { ...base, ...extra };
      assert.equal(blocks(holds, facts), true, 'holds');
      assert.equal(blocks(fails, facts), false, 'fails');
    });
  }

  it('an unknown value never matches (no card country, no IP, no 3-D Secure result)', () => {
    const bare: RiskFacts = { ...base, cardCountry: undefined, ip: undefined, ipCountry: undefined, threeDs: undefined };
    for (const when of [{ card_countries: ['US'] }, { ip_countries: ['DE'] }, { ips: ['0.0.0.0/0'] }, { country_mismatch: ['card_ip', 'card_billing', 'ip_billing'] }, { three_ds: ['not_enrolled'] }] as RiskConditions[]) {
      assert.equal(blocks(when, bare), false, JSON.stringify(when));
    }
  });

  it('velocity: more than the figure over its window; a merchant-initiated charge skips velocity, not lists', () => {
    const when: RiskConditions = { velocity: [{ measure: 'declines', by: 'card', window_minutes: 10, more_than: 5 }, { measure: 'amount', by: 'email', window_minutes: 60, more_than_amount: '100.00', currency: 'EUR' }] };
    const [declines, amount] = when.velocity!.map(velocityKey) as [string, string];
    const at = (d: bigint, a: bigint): RiskInputs => ({ velocity: new Map([[declines, d], [amount, a]]), lists: [] });
    assert.equal(blocks(when, base, at(6n, 10_001n)), true);
    assert.equal(blocks(when, base, at(5n, 10_001n)), false, '5 is not more than 5');
    assert.equal(blocks(when, base, at(6n, 10_000n)), false, '100.00 is not more than 100.00');
    const mit = { ...base, merchantInitiated: true };
    assert.equal(blocks(when, mit, at(6n, 10_001n)), false);
    const listed: ListHit = { list: 'block', kind: 'card', value: 'fp', reason: 'chargeback', scope: 'platform' };
    assert.equal(run([], mit, { velocity: new Map(), lists: [listed] }).action, 'block');
  });
});

describe('risk evaluation', () => {
  const blockHit: ListHit = { list: 'block', kind: 'email', value: 'a@b.c', reason: 'fraud', scope: 'merchant' };
  const allowHit: ListHit = { list: 'allow', kind: 'ip', value: '203.0.113.7', reason: 'office', scope: 'merchant' };

  it('a block list entry wins over an allow list entry and over the rules; an allow entry skips the rules', () => {
    const decided = run([rule({}, { action: 'allow' })], base, { velocity: new Map(), lists: [allowHit, blockHit] });
    assert.equal(decided.action, 'block');
    assert.deepEqual(decided.decided_by, { list: blockHit });
    assert.equal(run([rule({})], base, { velocity: new Map(), lists: [allowHit] }).action, 'allow');
  });

  it('platform rules first; the first deciding active rule wins; score adds up to thresholds', () => {
    const r = run([rule({ currencies: ['EUR'] }, { action: 'review' })], base, none, [rule({}, { action: 'block' })]);
    assert.equal(r.action, 'review');
    assert.deepEqual(r.decided_by, { rule: { scope: 'platform', index: 0, name: 'r' } });
    const scored = evaluateRisk([
      { scope: 'platform', set: { rules: [rule({}, { action: 'score', points: 30 })], score_thresholds: { review: 50, block: 90 } } },
      { scope: 'merchant', set: { rules: [rule({ brands: ['visa'] }, { action: 'score', points: 25 })] } },
    ], base, none);
    assert.equal(scored.score, 55);
    assert.equal(scored.action, 'review');
    assert.equal(scored.matched.length, 2);
  });

  it('shadow rules are recorded without effect; off rules are skipped', () => {
    const r = run([rule({}, { action: 'block' }, 'shadow'), rule({}, { action: 'block' }, 'off')]);
    assert.equal(r.action, 'allow');
    assert.deepEqual(r.matched.map((m) => [m.mode, m.action]), [['shadow', 'block']]);
  });

  it('a rule that throws is skipped and recorded; the next rule still runs', () => {
    const broken = rule({ velocity: [{ measure: 'attempts', by: 'ip', window_minutes: 5, more_than: 1 }] });
    const r = run([broken, rule({ currencies: ['EUR'] }, { action: 'review' })]);
    assert.equal(r.action, 'review');
    assert.equal(r.failed.length, 1);
    assert.match(r.failed[0]!.error, /attempts:ip:5/);
  });

  it('e-mail domain, fingerprint and IP helpers', () => {
    assert.equal(emailDomain('Payer@Example.COM'), 'example.com');
    assert.equal(emailDomain('nodomain'), undefined);
    const key = deriveRiskKey(Buffer.alloc(32, 7));
    assert.equal(cardFingerprint(key, '4111 1111 1111 1111'), cardFingerprint(key, '4111111111111111'));
    assert.notEqual(cardFingerprint(key, '4111111111111111'), cardFingerprint(deriveRiskKey(Buffer.alloc(32, 8)), '4111111111111111'));
    assert.doesNotMatch(cardFingerprint(key, '4111111111111111'), /4111/);
    assert.equal(SAMPLE_IP_TABLE.country(parseIp('198.51.100.20')), 'GB');
    assert.equal(SAMPLE_IP_TABLE.country(parseIp('2001:db8::1')), 'NL');
    assert.equal(SAMPLE_IP_TABLE.country(parseIp('::ffff:192.0.2.1')), 'US');
    assert.equal(SAMPLE_IP_TABLE.country(parseIp('8.8.8.8')), undefined);
    assert.deepEqual(parseIpCountries([{ cidr: 'x', country: 'US' }, { cidr: '10.0.0.0/8', country: 'usa' }]), { problems: ['[0]: cidr should be an IPv4 or IPv6 address or block (203.0.113.0/24)', '[1]: country should be an ISO 3166-1 alpha-2 code'] });
  });
});

describe('risk evaluation: properties', () => {
  const conditions: fc.Arbitrary<RiskConditions> = fc.record({
    currencies: fc.subarray(['EUR', 'USD'], { minLength: 1 }),
    amount: fc.record({ min: fc.constantFrom('1', '10.50'), max: fc.constantFrom('10.49', '1000') }, { requiredKeys: [] }),
    brands: fc.subarray(['visa', 'mastercard'], { minLength: 1 }),
    ip_countries: fc.subarray(['DE', 'US'], { minLength: 1 }),
    recurring: fc.boolean(),
    velocity: fc.constant([{ measure: 'attempts' as const, by: 'ip' as const, window_minutes: 60, more_than: 2 }]),
  }, { requiredKeys: [] });
  const anyRule: fc.Arbitrary<RiskRule> = fc.record({
    name: fc.string({ minLength: 1, maxLength: 6 }),
    mode: fc.constantFrom('active' as const, 'shadow' as const, 'off' as const),
    when: conditions,
    then: fc.oneof(fc.constantFrom(...(['allow', 'block', 'review', 'require_3ds'] as const).map((action) => ({ action }))), fc.integer({ min: 1, max: 100 }).map((points) => ({ action: 'score' as const, points }))),
  });
  const set: fc.Arbitrary<RiskRuleSet> = fc.record({ rules: fc.array(anyRule, { maxLength: 8 }), score_thresholds: fc.option(fc.record({ review: fc.integer({ min: 1, max: 100 }) }), { nil: undefined }) });
  const facts: fc.Arbitrary<RiskFacts> = fc.record({
    minor: fc.bigInt({ min: 0n, max: 200_000n }), currency: fc.constantFrom('EUR', 'USD'), brand: fc.constantFrom('visa', 'mastercard'),
    ipCountry: fc.constantFrom('DE', 'US'), recurring: fc.boolean(), merchantInitiated: fc.boolean(),
  }).map((f) => ({ ...base, money: { minor: f.minor, currency: f.currency }, brand: f.brand, ipCountry: f.ipCountry, recurring: f.recurring, merchantInitiated: f.merchantInitiated }));
  const inputs = (count: bigint | undefined, lists: ListHit[] = []): RiskInputs => ({ velocity: count === undefined ? new Map() : new Map([['attempts:ip:60:', count]]), lists });
  const count = fc.option(fc.bigInt({ min: 0n, max: 5n }), { nil: undefined });

  it('a block-listed value is blocked whatever the rules, even when rules throw (counters missing)', () => {
    const hit: ListHit = { list: 'block', kind: 'card', value: 'fp', reason: 'r', scope: 'platform' };
    fc.assert(fc.property(set, set, facts, count, (platform, merchant, f, c) => {
      const r = evaluateRisk([{ scope: 'platform', set: platform }, { scope: 'merchant', set: merchant }], f, inputs(c, [hit]));
      return r.action === 'block' && 'list' in (r.decided_by ?? {});
    }));
  });

  it('shadow rules never change the outcome: the same set with them off decides alike', () => {
    fc.assert(fc.property(set, facts, count, (s, f, c) => {
      const off: RiskRuleSet = { ...s, rules: s.rules.map((r) => (r.mode === 'shadow' ? { ...r, mode: 'off' as const } : r)) };
      const a = evaluateRisk([{ scope: 'merchant', set: s }], f, inputs(c));
      const b = evaluateRisk([{ scope: 'merchant', set: off }], f, inputs(c));
      return a.action === b.action && a.score === b.score && a.reason === b.reason;
    }));
  });

  it('the outcome is the first deciding active rule whose conditions hold (or the score), checked by a plain model', () => {
    fc.assert(fc.property(set, facts, count, (s, f, c) => {
      const r = evaluateRisk([{ scope: 'merchant', set: s }], f, inputs(c));
      let score = 0;
      let expected: string | undefined;
      for (const x of s.rules) {
        if (x.mode !== 'active') continue;
        const w = x.when;
        const amount = Number(f.money.minor) / 100;
        if (w.velocity && c === undefined) continue; // the counter is missing: the rule throws and is skipped
        const holds = (!w.currencies || w.currencies.includes(f.money.currency))
          && (!w.amount?.min || amount >= Number(w.amount.min)) && (!w.amount?.max || amount <= Number(w.amount.max))
          && (!w.brands || w.brands.includes(f.brand!)) && (!w.ip_countries || w.ip_countries.includes(f.ipCountry!))
          && (w.recurring === undefined || w.recurring === f.recurring)
          && (!w.velocity || (!f.merchantInitiated && c! > 2n));
        if (!holds) continue;
        if (x.then.action === 'score') score = Math.min(100, score + x.then.points);
        else { expected = x.then.action; break; }
      }
      expected ??= s.score_thresholds?.review !== undefined && score >= s.score_thresholds.review ? 'review' : 'allow';
      return r.action === expected && r.score === score;
    }));
  });

  it('a CIDR block holds exactly the addresses sharing its prefix', () => {
    fc.assert(fc.property(fc.ipV4(), fc.ipV4(), fc.integer({ min: 0, max: 32 }), (a, b, prefix) => {
      const range = parseCidr(`${a}/${prefix}`)!;
      const bits = (ip: string) => ip.split('.').map((o) => Number(o).toString(2).padStart(8, '0')).join('');
      return ipWithin(parseIp(b), range) === (bits(a).slice(0, prefix) === bits(b).slice(0, prefix));
    }));
  });
});
