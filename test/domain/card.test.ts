import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  cardBrand,
  cardBrandByPrefix,
  cardNumberAccepted,
  cardExpirationDate,
  cvvValid,
  first6Last4,
  isExpired,
  luhnValid,
  maskPan,
  normalizePan,
  panValid,
  parseExpiry,
  parseExpiryText,
} from '../../src/domain/card.ts';

/** Reference Luhn check digit, written from the textbook: double every second digit from the right. */
function checkDigit(body: string): string {
  const doubledDigitSum = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9];
  let sum = 0;
  [...body].reverse().forEach((d, i) => {
    sum += i % 2 === 0 ? (doubledDigitSum[Number(d)] as number) : Number(d);
  });
  return String((10 - (sum % 10)) % 10);
}

const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
const validPan = digits(12, 18).map((body) => body + checkDigit(body));

describe('luhnValid', () => {
  it('accepts the sandbox test cards and rejects the documented invalid one', () => {
    assert.equal(luhnValid('4111111111111111'), true);
    assert.equal(luhnValid('4601541833776519'), true);
    assert.equal(cardNumberAccepted('4111111111111111'), true);
    assert.equal(cardNumberAccepted('4601541833776519'), true);
  });

  it('rejects the docs invalid card 1111222233334444 by brand: it passes Luhn (sum 60)', () => {
    assert.equal(luhnValid('1111222233334444'), true);
    assert.equal(cardBrand('1111222233334444'), undefined);
    assert.equal(cardNumberAccepted('1111222233334444'), false);
  });

  it('rejects non-digits and empty input', () => {
    for (const bad of ['', '4111 1111 1111 1111', '4111-1111-1111-1111', '411111111111111a', '４111111111111111']) {
      assert.equal(luhnValid(bad), false, bad);
    }
  });

  it('panValid requires 13 to 19 digits', () => {
    assert.equal(panValid('4222222222222'), true); // 13-digit Visa
    assert.equal(panValid('4' + '0'.repeat(10) + '0'), false); // 12 digits, Luhn-valid but too short
    const twenty = '0'.repeat(19) + '0';
    assert.equal(luhnValid(twenty), true);
    assert.equal(panValid(twenty), false);
  });

  it('property: a number completed with its check digit is valid', () => {
    fc.assert(fc.property(validPan, (pan) => luhnValid(pan) && panValid(pan)));
  });

  it('property: changing any one digit of a valid number makes it fail', () => {
    fc.assert(
      fc.property(validPan, fc.nat(), fc.integer({ min: 1, max: 9 }), (pan, at, delta) => {
        const i = at % pan.length;
        const changed = (Number(pan[i]) + delta) % 10;
        const mutated = pan.slice(0, i) + String(changed) + pan.slice(i + 1);
        return !luhnValid(mutated);
      }),
    );
  });
});

describe('normalizePan', () => {
  it('strips spaces and dashes only', () => {
    assert.equal(normalizePan('4111 1111-1111 1111'), '4111111111111111');
    assert.equal(normalizePan(' 4111\u00a01111\t1111 1111 '), '4111111111111111');
    assert.equal(normalizePan('4111.1111'), '4111.1111');
  });
});

describe('cardBrand', () => {
  const cases: [string, string | undefined][] = [
    ['4111111111111111', 'visa'],
    ['4601541833776519', 'visa'],
    ['4222222222222', 'visa'],
    ['5555555555554444', 'mastercard'],
    ['5105105105105100', 'mastercard'],
    ['2223003122003222', 'mastercard'],
    ['2720990000000007', 'mastercard'],
    ['378282246310005', 'amex'],
    ['371449635398431', 'amex'],
    ['6011111111111117', 'discover'],
    ['6445644564456445', 'discover'],
    ['6510000000000000', 'discover'],
    ['3530111333300000', 'jcb'],
    ['3566002020360505', 'jcb'],
    ['30569309025904', 'diners'],
    ['36227206271667', 'diners'],
    ['38520000023237', 'diners'],
    ['6200000000000005', 'unionpay'],
    ['6250941006528599', 'unionpay'],
    ['8171999927660000', 'unionpay'],
    ['6759649826438453', 'maestro'],
    ['6304000000000000', 'maestro'],
    ['5018000000000009', 'maestro'],
    ['2200000000000004', 'mir'],
    ['2204123456789012', 'mir'],
    ['1111222233334444', undefined],
    ['9999999999999999', undefined],
    ['2205000000000000', undefined],
    ['41111111111111', undefined], // Visa prefix, but no Visa has 14 digits
    ['3782822463100050', undefined], // Amex prefix, 16 digits
    ['411111111111', undefined], // too short for any card
  ];
  for (const [pan, brand] of cases) {
    it(`${pan} -> ${brand ?? 'unknown'}`, () => assert.equal(cardBrand(pan), brand));
  }

  it('by prefix alone, when only the first six digits are known', () => {
    assert.equal(cardBrandByPrefix('411111'), 'visa');
    assert.equal(cardBrandByPrefix('378282'), 'amex');
    assert.equal(cardBrandByPrefix('222300'), 'mastercard');
    assert.equal(cardBrandByPrefix('220012'), 'mir');
    assert.equal(cardBrandByPrefix('601100'), 'discover');
    assert.equal(cardBrandByPrefix('111122'), undefined);
    assert.equal(cardBrandByPrefix(''), undefined);
    assert.equal(cardBrandByPrefix('41x'), undefined);
  });

  it('property: a PAN with a brand has the same brand by its first six digits', () => {
    const panOfKnownBrand = fc.stringMatching(/^[0-9]{13,19}$/).filter((pan) => cardBrand(pan) !== undefined);
    fc.assert(fc.property(panOfKnownBrand, (pan) => cardBrandByPrefix(pan.slice(0, 6)) === cardBrand(pan)));
  });

  it('ignores formatting only after normalizePan', () => {
    assert.equal(cardBrand('4111 1111 1111 1111'), undefined);
    assert.equal(cardBrand(normalizePan('4111 1111 1111 1111')), 'visa');
  });
});

describe('masking', () => {
  it('shows the first six and last four digits with four stars, as callbacks do', () => {
    assert.equal(maskPan('4111111111111111'), '411111****1111');
    assert.equal(maskPan('4222222222222'), '422222****2222');
    assert.equal(maskPan('6799990100000000019'), '679999****0019');
    assert.equal(first6Last4('4111111111111111'), '4111111111');
    assert.equal(first6Last4('123'), '');
  });

  it('hides anything that is not shaped like a card number', () => {
    for (const bad of ['', '4111', '4111 1111 1111 1111', '41111111111111111111', 'abcdefghijklmnop']) {
      assert.equal(maskPan(bad), '****', bad);
    }
  });

  it('property: a mask never carries the middle digits', () => {
    fc.assert(
      fc.property(validPan, (pan) => {
        const mask = maskPan(pan);
        // Only the first six and last four digits survive; the middle is always exactly four stars
        // (a substring test would be wrong: the middle digits may also occur inside the kept ones).
        return mask === `${pan.slice(0, 6)}****${pan.slice(-4)}` && mask.slice(6, -4) === '****' && mask.replace(/\*/g, '').length === 10;
      }),
    );
  });
});

describe('expiry', () => {
  it('parses MM with YYYY or YY', () => {
    assert.deepEqual(parseExpiry('12', '2038'), { month: 12, year: 2038 });
    assert.deepEqual(parseExpiry('01', '38'), { month: 1, year: 2038 });
    assert.deepEqual(parseExpiry('1', '2039'), { month: 1, year: 2039 });
  });

  it('rejects malformed months and years', () => {
    for (const [m, y] of [['00', '2038'], ['13', '2038'], ['1a', '2038'], ['', '2038'], ['12', '238'], ['12', '20388'], ['12', ''], ['-1', '2038'], ['12', '2O38']]) {
      assert.equal(parseExpiry(m as string, y as string), undefined, `${m}/${y}`);
    }
  });

  it('parses MM/YY and MM/YYYY text', () => {
    assert.deepEqual(parseExpiryText('12/38'), { month: 12, year: 2038 });
    assert.deepEqual(parseExpiryText('01/2038'), { month: 1, year: 2038 });
    assert.deepEqual(parseExpiryText(' 05 / 38 '), { month: 5, year: 2038 });
    for (const bad of ['1238', '12-38', '12/3', '12/238', '13/38', '00/38', '/38', '12/', '']) {
      assert.equal(parseExpiryText(bad), undefined, bad);
    }
  });

  it('is valid through the last instant of the month, UTC', () => {
    const dec38 = { month: 12, year: 2038 };
    assert.equal(isExpired(dec38, new Date('2038-12-31T23:59:59.999Z')), false);
    assert.equal(isExpired(dec38, new Date('2039-01-01T00:00:00.000Z')), true);
    const feb24 = { month: 2, year: 2024 };
    assert.equal(isExpired(feb24, new Date('2024-02-29T23:59:59.999Z')), false);
    assert.equal(isExpired(feb24, new Date('2024-03-01T00:00:00.000Z')), true);
    assert.equal(isExpired(feb24, new Date('2023-12-15T00:00:00.000Z')), false);
  });

  it('property: expired exactly when the current UTC month is after the expiry month', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 2000, max: 2099 }),
        fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-12-31T23:59:59Z'), noInvalidDate: true }),
        (month, year, now) => {
          const nowIndex = now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
          return isExpired({ month, year }, now) === nowIndex > year * 12 + month;
        },
      ),
    );
  });

  it('formats card_expiration_date as MM/YYYY', () => {
    assert.equal(cardExpirationDate({ month: 1, year: 2038 }), '01/2038');
    assert.equal(cardExpirationDate({ month: 12, year: 2039 }), '12/2039');
    assert.equal(cardExpirationDate(parseExpiryText('05/38')!), '05/2038');
  });
});

describe('cvvValid', () => {
  it('wants three digits, four for amex', () => {
    assert.equal(cvvValid('123', 'visa'), true);
    assert.equal(cvvValid('1234', 'visa'), false);
    assert.equal(cvvValid('1234', 'amex'), true);
    assert.equal(cvvValid('123', 'amex'), false);
    assert.equal(cvvValid('411', 'mastercard'), true);
  });

  it('accepts three or four digits when the brand is unknown (card_cvv2 is 3-4)', () => {
    assert.equal(cvvValid('123'), true);
    assert.equal(cvvValid('1234'), true);
    for (const bad of ['', '12', '12345', '12a', ' 123', '１２３']) assert.equal(cvvValid(bad), false, bad);
    assert.equal(cvvValid('12a', 'visa'), false);
  });
});
