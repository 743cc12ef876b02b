/** A MID's currency and amount limits against payments in minor units: exact at every exponent, never floats. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { scaledDecimal, withinLimits } from '../../src/domain/routing/eligibility.ts';

const any = { currencies: null, minAmount: null, maxAmount: null };

describe('MID limits', () => {
  it('takes only the listed currencies', () => {
    assert.equal(withinLimits({ ...any, currencies: ['EUR'] }, { minor: 100n, currency: 'EUR' }), true);
    assert.equal(withinLimits({ ...any, currencies: ['EUR'] }, { minor: 100n, currency: 'USD' }), false);
    assert.equal(withinLimits(any, { minor: 100n, currency: 'USD' }), true);
  });

  it('compares amounts at the currency\'s exponent, bounds included', () => {
    const limits = { currencies: null, minAmount: '1.00', maxAmount: '5000' };
    assert.equal(withinLimits(limits, { minor: 99n, currency: 'USD' }), false);
    assert.equal(withinLimits(limits, { minor: 100n, currency: 'USD' }), true);
    assert.equal(withinLimits(limits, { minor: 500000n, currency: 'USD' }), true);
    assert.equal(withinLimits(limits, { minor: 500001n, currency: 'USD' }), false);
    assert.equal(withinLimits(limits, { minor: 5000n, currency: 'JPY' }), true, 'JPY has no minor unit');
    assert.equal(withinLimits(limits, { minor: 5001n, currency: 'JPY' }), false);
    assert.equal(withinLimits({ ...any, minAmount: '1.005' }, { minor: 1005n, currency: 'KWD' }), true, 'KWD has three decimals');
    assert.equal(withinLimits({ ...any, minAmount: '1.005' }, { minor: 1004n, currency: 'KWD' }), false);
  });

  it('does not hold a zero amount (an account check) to the amount limits, only to the currencies', () => {
    assert.equal(withinLimits({ ...any, minAmount: '1.00' }, { minor: 0n, currency: 'USD' }), true);
    assert.equal(withinLimits({ ...any, currencies: ['EUR'], minAmount: '1.00' }, { minor: 0n, currency: 'USD' }), false);
  });

  it('orders decimals as their values do', () => {
    const decimal = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }), fc.integer({ min: 0, max: 8 })).map(([n, places]) => {
      const text = n.toString().padStart(places + 1, '0');
      return places === 0 ? text : `${text.slice(0, -places)}.${text.slice(-places)}`;
    });
    fc.assert(fc.property(decimal, decimal, (a, b) => {
      const [wa = '0', fa = ''] = a.split('.');
      const [wb = '0', fb = ''] = b.split('.');
      const exact = (w: string, f: string) => BigInt(w + f.padEnd(8, '0'));
      assert.equal(scaledDecimal(a) < scaledDecimal(b), exact(wa, fa) < exact(wb, fb));
    }));
  });
});
