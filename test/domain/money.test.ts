import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { exponentOf, format, formatAmount, isKnownCurrency, parseAmount } from '../../src/domain/money.ts';

/** One currency per exponent the gateway must handle. */
const BY_EXPONENT: Record<number, string> = { 0: 'JPY', 2: 'USD', 3: 'KWD', 4: 'CLF', 8: 'BTC', 18: 'ETH' };
const currencies = Object.values(BY_EXPONENT);

function minorOf(text: string, currency: string): bigint {
  const parsed = parseAmount(text, currency);
  assert.ok(parsed.ok, `${text} ${currency} should parse`);
  return parsed.money.minor;
}

function reasonOf(text: string, currency: string): string | undefined {
  const parsed = parseAmount(text, currency);
  return parsed.ok ? undefined : parsed.reason;
}

/** Independent reference: a canonical decimal string's minor units by digit manipulation alone. */
function referenceMinor(whole: string, fraction: string, exponent: number): bigint {
  return BigInt(whole + fraction.padEnd(exponent, '0'));
}

const nonNegativeMinor = fc.bigInt({ min: 0n, max: 10n ** 40n });
const wholePart = fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,20}$/));

describe('money: exponents', () => {
  it('knows the exponent of each currency family', () => {
    for (const [exponent, currency] of Object.entries(BY_EXPONENT)) assert.equal(exponentOf(currency), Number(exponent), currency);
    assert.equal(exponentOf('EUR'), 2);
    assert.equal(exponentOf('KRW'), 0);
    assert.equal(exponentOf('BHD'), 3);
  });
});

describe('money: round trip', () => {
  for (const [exponent, currency] of Object.entries(BY_EXPONENT)) {
    it(`property: parse(format(x)) === x for ${currency} (exponent ${exponent})`, () => {
      fc.assert(
        fc.property(nonNegativeMinor, (minor) => {
          const text = formatAmount(minor, currency);
          const parsed = parseAmount(text, currency);
          return parsed.ok && parsed.money.minor === minor && parsed.money.currency === currency;
        }),
      );
    });

    it(`property: format(parse(s)) is s for canonical ${currency} strings`, () => {
      const e = Number(exponent);
      const canonical = e === 0 ? wholePart : fc.tuple(wholePart, fc.stringMatching(new RegExp(`^[0-9]{${e}}$`))).map(([w, f]) => `${w}.${f}`);
      fc.assert(
        fc.property(canonical, (text) => {
          const parsed = parseAmount(text, currency);
          return parsed.ok && format(parsed.money) === text;
        }),
      );
    });
  }
});

describe('money: canonical forms', () => {
  it('formats with exactly the exponent of fraction digits', () => {
    assert.equal(formatAmount(301n, 'USD'), '3.01');
    assert.equal(formatAmount(1000n, 'JPY'), '1000');
    assert.equal(formatAmount(1500n, 'KWD'), '1.500');
    assert.equal(formatAmount(5n, 'USD'), '0.05');
    assert.equal(formatAmount(0n, 'USD'), '0.00');
    assert.equal(formatAmount(1n, 'BTC'), '0.00000001');
    assert.equal(formatAmount(10n ** 18n, 'ETH'), '1.000000000000000000');
    assert.equal(formatAmount(12345n, 'CLF'), '1.2345');
  });

  it('parses the canonical forms back', () => {
    assert.equal(format({ minor: minorOf('3.01', 'USD'), currency: 'USD' }), '3.01');
    assert.equal(format({ minor: minorOf('1000', 'JPY'), currency: 'JPY' }), '1000');
    assert.equal(format({ minor: minorOf('1.500', 'KWD'), currency: 'KWD' }), '1.500');
  });

  it('canonicalises short fractions', () => {
    assert.equal(format({ minor: minorOf('10.5', 'USD'), currency: 'USD' }), '10.50');
    assert.equal(format({ minor: minorOf('10', 'USD'), currency: 'USD' }), '10.00');
    assert.equal(format({ minor: minorOf('1.5', 'KWD'), currency: 'KWD' }), '1.500');
  });
});

describe('money: exponent-0 currencies', () => {
  it('accepts "100" and "100.00" for JPY as the same amount', () => {
    assert.equal(minorOf('100', 'JPY'), 100n);
    assert.equal(minorOf('100.00', 'JPY'), 100n);
    assert.equal(minorOf('100.0', 'JPY'), 100n);
    assert.equal(format({ minor: minorOf('100.00', 'JPY'), currency: 'JPY' }), '100');
  });

  it('property: every exponent-0 currency reads "n" and "n.00" alike', () => {
    fc.assert(
      fc.property(fc.constantFrom('JPY', 'KRW', 'CLP', 'UGX', 'VND', 'ISK'), wholePart, (currency, whole) =>
        minorOf(whole, currency) === minorOf(`${whole}.00`, currency) && minorOf(whole, currency) === BigInt(whole),
      ),
    );
  });

  it('rejects a non-zero fraction for JPY', () => {
    assert.equal(reasonOf('100.50', 'JPY'), 'precision');
    assert.equal(reasonOf('100.01', 'JPY'), 'precision');
  });
});

describe('money: precision', () => {
  it('rejects more decimals than the exponent unless they are zeros', () => {
    assert.equal(reasonOf('1.001', 'USD'), 'precision');
    assert.equal(minorOf('1.000', 'USD'), 100n);
    assert.equal(minorOf('1.0000000', 'USD'), 100n);
    assert.equal(reasonOf('1.0001', 'KWD'), 'precision');
    assert.equal(reasonOf('0.000000001', 'BTC'), 'precision');
  });

  for (const [exponent, currency] of Object.entries(BY_EXPONENT)) {
    const e = Number(exponent);
    it(`property: ${currency} extra fraction digits are rejected when any is non-zero, ignored when all are zero`, () => {
      const kept = fc.stringMatching(new RegExp(`^[0-9]{${e}}$`));
      const extra = fc.stringMatching(/^[0-9]{1,6}$/);
      fc.assert(
        fc.property(wholePart, kept, extra, (whole, keptDigits, extraDigits) => {
          const parsed = parseAmount(`${whole}.${keptDigits}${extraDigits}`, currency);
          if (/[^0]/.test(extraDigits)) return !parsed.ok && parsed.reason === 'precision';
          return parsed.ok && parsed.money.minor === referenceMinor(whole, keptDigits, e);
        }),
      );
    });
  }
});

describe('money: no floats', () => {
  it('adds 0.1 and 0.2 exactly', () => {
    const sum = minorOf('0.1', 'USD') + minorOf('0.2', 'USD');
    assert.equal(sum, 30n);
    assert.equal(formatAmount(sum, 'USD'), '0.30');
    assert.notEqual(0.1 + 0.2, 0.3); // what a float would have done
  });

  it('keeps amounts beyond 2^53 exact', () => {
    assert.equal(minorOf('90071992547409.93', 'USD'), 9007199254740993n);
    assert.equal(formatAmount(9007199254740993n, 'USD'), '90071992547409.93');
    assert.equal(minorOf('123456789.123456789123456789', 'ETH'), 123456789123456789123456789n);
  });

  it('property: minor units are bigints equal to the decimal digits read as an integer', () => {
    fc.assert(
      fc.property(fc.constantFrom(...currencies), wholePart, fc.stringMatching(/^[0-9]{0,18}$/), (currency, whole, fraction) => {
        const e = exponentOf(currency);
        const f = fraction.slice(0, e);
        const text = f === '' ? whole : `${whole}.${f}`;
        const parsed = parseAmount(text, currency);
        return parsed.ok && typeof parsed.money.minor === 'bigint' && parsed.money.minor === referenceMinor(whole, f, e);
      }),
    );
  });

  it('property: sums of parsed amounts equal the parse of the exact decimal sum', () => {
    fc.assert(
      fc.property(fc.constantFrom(...currencies), nonNegativeMinor, nonNegativeMinor, (currency, a, b) => {
        const sum = minorOf(formatAmount(a, currency), currency) + minorOf(formatAmount(b, currency), currency);
        return sum === a + b && minorOf(formatAmount(sum, currency), currency) === a + b;
      }),
    );
  });
});

describe('money: malformed input', () => {
  it('rejects leading zeros', () => {
    for (const bad of ['01.00', '00', '007', '00.50', '01']) assert.equal(reasonOf(bad, 'USD'), 'format', bad);
    assert.equal(minorOf('0.50', 'USD'), 50n);
    assert.equal(minorOf('0', 'USD'), 0n);
  });

  it('property: any whole part with a leading zero and more digits is rejected', () => {
    fc.assert(fc.property(fc.stringMatching(/^0[0-9]{1,10}(\.[0-9]{1,2})?$/), (text) => reasonOf(text, 'USD') === 'format'));
  });

  it('rejects negatives, exponent notation and other number syntaxes', () => {
    const bad = ['-1', '-0.01', '-0', '+1', '1e3', '1E3', '1.5e1', '1e-2', '.5', '1.', '1,00', '1 000', ' 1', '1 ', '',
      'Infinity', 'NaN', '0x10', '0b1', '1_000', '１', '١', '1.2.3', '1..2'];
    for (const text of bad) assert.equal(reasonOf(text, 'USD'), 'format', JSON.stringify(text));
  });

  it('property: a minus sign or an exponent anywhere is rejected', () => {
    fc.assert(
      fc.property(nonNegativeMinor, fc.constantFrom('-', 'e', 'E', 'e+', 'e-'), fc.nat(), (minor, marker, at) => {
        const text = formatAmount(minor, 'USD');
        const i = at % (text.length + 1);
        return !parseAmount(text.slice(0, i) + marker + text.slice(i), 'USD').ok;
      }),
    );
  });
});

describe('money: currencies', () => {
  it('rejects unknown currency codes', () => {
    for (const code of ['XXX', 'ABC', 'usd', 'Usd', 'US', 'USDD', '', ' USD', 'ABCDEFG', '__proto__', 'constructor', 'toString', 'TOSTRING']) {
      assert.equal(isKnownCurrency(code), false, code);
      assert.equal(reasonOf('1.00', code), 'currency', code);
    }
  });

  it('accepts fiat and crypto codes of 3 to 6 letters', () => {
    for (const code of ['USD', 'EUR', 'JPY', 'KWD', 'CLF', 'BTC', 'ETH', 'USDT', 'DOGE']) assert.equal(isKnownCurrency(code), true, code);
  });

  it('checks the currency before the amount', () => {
    assert.equal(reasonOf('not a number', 'XXX'), 'currency');
  });
});
