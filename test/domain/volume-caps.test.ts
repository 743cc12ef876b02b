/** Daily volume caps and the BIN table (issue 15), without I/O. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { capFor, fitsEmptyDay, utcDay, validateCaps } from '../../src/domain/routing/caps.ts';
import { isKnownCurrency } from '../../src/domain/money.ts';
import { BinTable, parseBinRanges, SAMPLE_BIN_TABLE } from '../../src/domain/bin-table.ts';
import { cardFacts } from '../../src/domain/routing/facts.ts';
import { ruleMatches } from '../../src/domain/routing/rules.ts';

describe('daily volume caps', () => {
  it('reads a currency\'s cap in minor units; another currency has none', () => {
    const caps = { EUR: { max_count: 3, max_amount: '100.50' }, JPY: { max_amount: '5000' } };
    assert.deepEqual(capFor(caps, 'EUR'), { maxCount: 3, maxMinor: 10050n });
    assert.deepEqual(capFor(caps, 'JPY'), { maxCount: null, maxMinor: 5000n });
    assert.equal(capFor(caps, 'USD'), undefined);
    assert.equal(capFor(null, 'EUR'), undefined);
  });

  it('a payment fits an empty day exactly when the cap lets one payment of its amount through', () => {
    fc.assert(fc.property(fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }), fc.option(fc.bigInt({ min: 0n, max: 10_000n }), { nil: undefined }), fc.bigInt({ min: 0n, max: 10_000n }),
      (count, amount, minor) => {
        const cap = capFor({ EUR: { ...(count === undefined ? {} : { max_count: count }), ...(amount === undefined ? {} : { max_amount: (Number(amount) / 100).toFixed(2) }) } }, 'EUR');
        const fits = fitsEmptyDay(cap, { minor, currency: 'EUR' });
        assert.equal(fits, (count === undefined || count >= 1) && (amount === undefined || minor <= amount));
      }));
  });

  it('days are UTC', () => {
    assert.equal(utcDay(new Date('2030-03-01T23:59:59.999Z')), '2030-03-01');
    assert.equal(utcDay(new Date('2030-03-02T00:00:00+02:00')), '2030-03-01');
  });

  it('validates currencies and amounts at their exponent', () => {
    assert.deepEqual(validateCaps({ EUR: { max_count: 1 } }, isKnownCurrency), []);
    const errors = validateCaps({ XXQ: { max_count: 1 }, JPY: { max_amount: '10.5' }, EUR: {} }, isKnownCurrency);
    assert.deepEqual(errors.map((e) => e.field).sort(), ['daily_caps.EUR', 'daily_caps.JPY.max_amount', 'daily_caps.XXQ']);
  });
});

describe('BIN table', () => {
  const table = new BinTable([
    { from: '400000', to: '499999', country: 'US' },
    { from: '410000', to: '419999', country: 'GB' },
    { from: '41111111', to: '41111111', country: 'DE', brand: 'visa' },
    { from: '222100', to: '272099', country: 'FR' },
  ]);

  it('the longest, then narrowest, range wins; fewer than six digits or no range: unknown', () => {
    assert.deepEqual(table.lookup('4111111111111111'), { country: 'DE', brand: 'visa' });
    assert.deepEqual(table.lookup('41222233'), { country: 'GB' });
    assert.deepEqual(table.lookup('450000'), { country: 'US' });
    assert.deepEqual(table.lookup('27200000'), { country: 'FR' });
    assert.equal(table.lookup('51000000'), undefined);
    assert.equal(table.lookup('41111'), undefined);
  });

  it('agrees with a brute-force search over random tables', () => {
    const range = fc.tuple(fc.integer({ min: 100_000, max: 999_999 }), fc.integer({ min: 0, max: 50_000 }), fc.constantFrom('US', 'DE', 'FR'))
      .map(([from, width, country]) => ({ from: String(from), to: String(Math.min(999_999, from + width)), country }));
    fc.assert(fc.property(fc.array(range, { maxLength: 12 }), fc.integer({ min: 100_000, max: 999_999 }), (ranges, bin) => {
      const digits = String(bin);
      const holding = ranges.filter((r) => digits >= r.from && digits <= r.to);
      const narrowest = Math.min(...holding.map((r) => Number(r.to) - Number(r.from)));
      const found = new BinTable(ranges).lookup(digits);
      if (holding.length === 0) assert.equal(found, undefined);
      else assert.ok(holding.some((r) => Number(r.to) - Number(r.from) === narrowest && r.country === found?.country));
    }));
  });

  it('a file is checked whole: every bad entry named, a good one read', () => {
    const bad = parseBinRanges([{ from: '4111', to: '4111', country: 'US' }, { from: '411111', to: '411111', country: 'ZZ' }, { from: '500000', to: '400000', country: 'US' }, { from: '411111', to: '411111', country: 'US', brand: 'Visa!' }]);
    assert.ok('problems' in bad && bad.problems.length === 4, JSON.stringify(bad));
    assert.ok('problems' in parseBinRanges({ nope: true }));
    assert.deepEqual(parseBinRanges({ ranges: [{ from: '411111', to: '411199', country: 'DE', brand: 'visa' }] }), { ranges: [{ from: '411111', to: '411199', country: 'DE', brand: 'visa' }] });
  });

  it('makes card_countries conditions match: the card country comes from the table, the brand from the prefixes', () => {
    const facts = cardFacts({ intent: 'sale', amount: 100n, currency: 'EUR', pan: '4111111111111111', recurring: false }, table);
    assert.equal(facts.cardCountry, 'DE');
    assert.equal(facts.brand, 'visa');
    assert.ok(ruleMatches({ card_countries: ['DE'] }, facts));
    assert.ok(!ruleMatches({ card_countries: ['US'] }, facts));
    const unknown = cardFacts({ intent: 'sale', amount: 100n, currency: 'EUR', pan: '5105105105105100', recurring: false }, table);
    assert.equal(unknown.cardCountry, undefined);
    assert.ok(!ruleMatches({ card_countries: ['DE', 'US', 'FR'] }, unknown), 'an unknown country never matches');
    assert.equal(cardFacts({ intent: 'sale', amount: 1n, currency: 'EUR', pan: '4111111111111111', recurring: false }).cardCountry, SAMPLE_BIN_TABLE.lookup('41111111')?.country);
  });
});
