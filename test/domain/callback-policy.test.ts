import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import qs from 'qs';
import {
  afterSuccess,
  afterTimeout,
  CALLBACK_MAX_ATTEMPTS,
  CALLBACK_RETRY_DELAYS_MS,
  HEALTHY_URL,
  isDelivered,
  isPrivateAddressUrl,
  isUrlBlocked,
  nextAttemptDelay,
  responseOutcome,
  type UrlHealth,
} from '../../src/domain/callback-policy.ts';
import { encodeForm, formEncodeComponent, type FormFields, type FormValue } from '../../src/domain/form-encoding.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = new Date('2030-01-15T10:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

/** Applies timeouts (ms after T0) to a health state. */
const timeoutsAt = (health: UrlHealth, offsets: number[]): UrlHealth =>
  offsets.reduce<UrlHealth>((h, ms) => afterTimeout(h, at(ms)), health);

describe('retry schedule', () => {
  it('is 1 min, 5 min x2, 10 min x5, 1 h x5, 6 h x3', () => {
    assert.deepEqual(CALLBACK_RETRY_DELAYS_MS, [
      MINUTE,
      5 * MINUTE,
      5 * MINUTE,
      ...Array(5).fill(10 * MINUTE),
      ...Array(5).fill(HOUR),
      ...Array(3).fill(6 * HOUR),
    ]);
    assert.equal(CALLBACK_MAX_ATTEMPTS, 17);
  });

  it('adds up to about a day', () => {
    const total = CALLBACK_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    assert.equal(total, 24 * HOUR + MINUTE);
  });

  it('nextAttemptDelay: now for the first attempt, the table after each failure, then undefined', () => {
    assert.equal(nextAttemptDelay(0), 0);
    assert.equal(nextAttemptDelay(1), MINUTE);
    assert.equal(nextAttemptDelay(2), 5 * MINUTE);
    assert.equal(nextAttemptDelay(4), 10 * MINUTE);
    assert.equal(nextAttemptDelay(9), HOUR);
    assert.equal(nextAttemptDelay(16), 6 * HOUR);
    assert.equal(nextAttemptDelay(17), undefined);
    assert.equal(nextAttemptDelay(100), undefined);
  });
});

describe('URL block rule', () => {
  it('five timeouts within five minutes block the URL for fifteen minutes', () => {
    const h = timeoutsAt(HEALTHY_URL, [0, MINUTE, 2 * MINUTE, 3 * MINUTE, 4 * MINUTE]);
    assert.deepEqual(h.blockedUntil, at(19 * MINUTE));
    assert.equal(isUrlBlocked(h, at(19 * MINUTE - 1)), true);
    assert.equal(isUrlBlocked(h, at(19 * MINUTE)), false);
    assert.deepEqual(h.timeouts, [], 'a block starts a fresh count');
  });

  it('the fifth exactly five minutes after the first still blocks', () => {
    const h = timeoutsAt(HEALTHY_URL, [0, MINUTE, 2 * MINUTE, 3 * MINUTE, 5 * MINUTE]);
    assert.deepEqual(h.blockedUntil, at(20 * MINUTE));
  });

  it('four timeouts do not block', () => {
    const h = timeoutsAt(HEALTHY_URL, [0, 1000, 2000, 3000]);
    assert.equal(h.blockedUntil, null);
    assert.equal(isUrlBlocked(h, at(4000)), false);
  });

  it('five timeouts spread over six minutes do not block', () => {
    const h = timeoutsAt(HEALTHY_URL, [0, 1.5 * MINUTE, 3 * MINUTE, 4.5 * MINUTE, 6 * MINUTE]);
    assert.equal(h.blockedUntil, null);
    assert.equal(h.timeouts.length, 4, 'the first fell out of the window');
  });

  it('four timeouts, then a success in minute 6, reset the count', () => {
    const before = timeoutsAt(HEALTHY_URL, [0, MINUTE, 2 * MINUTE, 3 * MINUTE]);
    const reset = afterSuccess(before);
    assert.deepEqual(reset.timeouts, []);
    // Four more right away: eight in five minutes without the reset, four with it.
    const h = timeoutsAt(reset, [6 * MINUTE, 6 * MINUTE + 1, 6 * MINUTE + 2, 6 * MINUTE + 3]);
    assert.equal(h.blockedUntil, null);
    assert.equal(afterTimeout(h, at(7 * MINUTE)).justBlocked, true);
  });

  it('reports justBlocked only for the timeout that blocks', () => {
    let h: UrlHealth = HEALTHY_URL;
    const flags = [0, 1, 2, 3, 4].map((i) => {
      const next = afterTimeout(h, at(i * 1000));
      h = next;
      return next.justBlocked;
    });
    assert.deepEqual(flags, [false, false, false, false, true]);
  });

  it('a success does not lift a block already set', () => {
    const blocked = timeoutsAt(HEALTHY_URL, [0, 1, 2, 3, 4]);
    assert.deepEqual(afterSuccess(blocked).blockedUntil, blocked.blockedUntil);
  });
});

describe('isDelivered', () => {
  const table: [protocol: 'checkout' | 's2s', status: number, body: string, delivered: boolean][] = [
    ['checkout', 200, '', true],
    ['checkout', 204, '', true],
    ['checkout', 201, 'ERROR', true],
    ['checkout', 299, 'anything', true],
    ['checkout', 199, '', false],
    ['checkout', 301, '', false],
    ['checkout', 302, 'OK', false],
    ['checkout', 404, 'OK', false],
    ['checkout', 500, '', false],
    ['s2s', 200, 'OK', true],
    ['s2s', 200, 'ok', true],
    ['s2s', 200, ' Ok\r\n', true],
    ['s2s', 201, 'OK', true],
    ['s2s', 200, '\uFEFFOK', true],
    ['s2s', 200, 'ERROR', false],
    ['s2s', 200, '', false],
    ['s2s', 200, 'OKAY', false],
    ['s2s', 200, 'O K', false],
    ['s2s', 302, 'OK', false],
    ['s2s', 500, 'OK', false],
  ];
  for (const [protocol, status, body, delivered] of table) {
    it(`${protocol} ${status} ${JSON.stringify(body)} -> ${delivered}`, () => {
      assert.equal(isDelivered(protocol, status, body), delivered);
    });
  }

  it('responseOutcome names the failure', () => {
    assert.equal(responseOutcome('s2s', 200, 'OK'), 'delivered');
    assert.equal(responseOutcome('s2s', 200, 'ERROR'), 'not_ok_body');
    assert.equal(responseOutcome('checkout', 302, ''), 'redirect');
    assert.equal(responseOutcome('checkout', 503, ''), 'http_error');
  });
});

describe('isPrivateAddressUrl', () => {
  const privateUrls = [
    'http://localhost/cb',
    'http://LOCALHOST./cb',
    'http://api.localhost/cb',
    'http://127.0.0.1:8080/cb',
    'http://2130706433/cb', // 127.0.0.1 in decimal
    'http://0x7f.1/cb',
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://172.31.255.255/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:10.0.0.1]/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://[64:ff9b::a00:1]/',
    'not a url',
  ];
  const publicUrls = [
    'https://merchant.example.com/callback',
    'http://8.8.8.8/',
    'http://172.32.0.1/',
    'http://192.169.0.1/',
    'http://[2001:4860:4860::8888]/',
    'http://[::ffff:8.8.8.8]/',
  ];
  for (const url of privateUrls) it(`${url} is private`, () => assert.equal(isPrivateAddressUrl(url), true));
  for (const url of publicUrls) it(`${url} is public`, () => assert.equal(isPrivateAddressUrl(url), false));
});

describe('form encoding', () => {
  it('encodes nested values as bracket keys, spaces as +, escapes as PHP urlencode does', () => {
    const body = encodeForm({
      id: 'f0a5',
      order_description: 'Two tickets & a hat',
      card: '411111****1111',
      date: '2022-07-05 09:22:09',
      custom_data: { key: 'value', 'with space': 'ü€' },
      items: [{ sku: 'a-1' }, { sku: 'b_2' }],
      amount: 10n,
      flag: true,
    });
    assert.equal(
      body,
      'id=f0a5&order_description=Two+tickets+%26+a+hat&card=411111%2A%2A%2A%2A1111&date=2022-07-05+09%3A22%3A09' +
        '&custom_data[key]=value&custom_data[with+space]=%C3%BC%E2%82%AC&items[0][sku]=a-1&items[1][sku]=b_2' +
        '&amount=10&flag=true',
    );
  });

  it('omits empty, null and undefined values by default (S2S)', () => {
    assert.equal(encodeForm({ a: '1', rrn: '', arn: undefined, b: null, c: { d: '' }, e: '2' }), 'a=1&e=2');
  });

  it('keeps empty strings when asked (Checkout sends RRN and ARN empty)', () => {
    assert.equal(
      encodeForm({ a: '1', rrn: '', arn: '', gone: undefined }, { omitEmptyStrings: false }),
      'a=1&rrn=&arn=',
    );
  });

  it('escapes brackets inside keys, so they cannot fake nesting', () => {
    assert.equal(encodeForm({ 'a[b]': 'x' }), 'a%5Bb%5D=x');
  });

  it('encodes lone surrogates as U+FFFD instead of throwing', () => {
    assert.equal(formEncodeComponent('\uD800'), '%EF%BF%BD');
    assert.equal(formEncodeComponent('a\uDC00b\uD83D'), 'a%EF%BF%BDb%EF%BF%BD');
  });

  it('escapes every text as PHP urlencode does, byte by byte', () => {
    // The rule spelled out over UTF-8 bytes (only A-Z a-z 0-9 - _ . literal, the space as +), against any text.
    const php = (text: string): string => [...new TextEncoder().encode(text)].map((byte) =>
      byte === 0x20 ? '+' : /[A-Za-z0-9._-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    assert.equal(formEncodeComponent("!'()*~ &=+/%?#[]"), php("!'()*~ &=+/%?#[]"));
    fc.assert(fc.property(fc.string({ unit: fc.oneof(fc.constantFrom('!', "'", '(', ')', '*', '~', ' ', '\uD800', '\uDFFF', 'é', '€', '😀'), fc.string({ unit: 'binary', maxLength: 1 })) }), (text) => {
      assert.equal(formEncodeComponent(text), php(text));
    }), { numRuns: 2000 });
  });

  it('qs.parse(encodeForm(x)) gives x back for string leaves', () => {
    // Keys qs cannot give back as they were are left out: brackets, array-index-like digits, prototype names.
    const key = fc
      .string({ unit: 'binary', minLength: 1, maxLength: 8 })
      .filter((k) => !/[[\]]/.test(k) && !/^\d+$/.test(k) && !(k in Object.prototype));
    const { value } = fc.letrec<{ value: FormValue; array: FormValue[]; object: Record<string, FormValue> }>((tie) => ({
      value: fc.oneof({ maxDepth: 3 }, fc.string({ unit: 'binary', maxLength: 12 }), tie('array'), tie('object')),
      array: fc.array(tie('value'), { minLength: 1, maxLength: 4 }),
      object: fc.dictionary(key, tie('value'), { minKeys: 1, maxKeys: 4, noNullPrototype: true }),
    }));
    const fields = fc.dictionary(key, value, { minKeys: 1, maxKeys: 6, noNullPrototype: true });
    fc.assert(
      fc.property(fields, (f: FormFields) => {
        const parsed = qs.parse(encodeForm(f, { omitEmptyStrings: false }), { depth: 10, arrayLimit: 100 });
        assert.deepEqual(parsed, f);
      }),
      { numRuns: 500 },
    );
  });
});
