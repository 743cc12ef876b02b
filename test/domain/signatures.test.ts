/**
 * Every signature formula against a reference written straight from the PHP in wire-reference.md section 1
 * (strtoupper, strrev, md5, sha1 and `.`), with node:crypto and nothing from the code under test.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  apmByTransId,
  apmCallbackHash,
  apmCredit2Virtual,
  apmCredit2VirtualCallback,
  card6_4,
  checkout,
  checkoutHash,
  preimage,
  s2sApm,
  s2sCard,
  s2sHash,
  s2sHashWithRawSuffix,
  sameDigest,
  verifyAny,
  type CallbackValue,
  type Digest,
} from '../../src/domain/signatures.ts';

// ---------------------------------------------------------------------------------------------------
// The reference: PHP functions over byte strings.

type Bytes = Buffer | string;
const bytes = (s: Bytes): Buffer => (typeof s === 'string' ? Buffer.from(s, 'utf8') : s);
/** PHP `.` */
const dot = (...parts: Bytes[]): Buffer => Buffer.concat(parts.map(bytes));
/** PHP strtoupper (PHP 8): bytes a-z only. */
const strtoupper = (s: Bytes): Buffer => Buffer.from(bytes(s).map((b) => (b >= 0x61 && b <= 0x7a ? b - 0x20 : b)));
/** PHP strrev: bytes. */
const strrev = (s: Bytes): Buffer => Buffer.from(bytes(s)).reverse();
const md5 = (s: Bytes): string => createHash('md5').update(bytes(s)).digest('hex');
const sha1 = (s: Bytes): string => createHash('sha1').update(bytes(s)).digest('hex');
const sha256 = (s: Bytes): string => createHash('sha256').update(bytes(s)).digest('hex');
const digestOf = (d: Digest) => (d === 'md5' ? md5 : sha256);
/** substr($card, 0, 6) . substr($card, -4) */
const first6last4 = (card: string): string => card.slice(0, 6) + card.slice(-4);

// ---------------------------------------------------------------------------------------------------

const EMAIL = 'doe@example.com';
const PASSWORD = '13a4822c5907ed235f3a068c76184fc3';
const CARD = '4111111111111111';

/** Any text, including non-ASCII and astral code points. */
const text = fc.string({ unit: 'binary', maxLength: 40 });
const hexDigest = fc.stringMatching(/^[0-9a-f]{32}$/);
const inputs = fc.record({
  email: text,
  password: text,
  transId: text,
  orderId: text,
  amount: text,
  currency: text,
  description: text,
  identifier: text,
  status: text,
  card: fc.stringMatching(/^[0-9]{13,19}$/),
});
type Inputs = typeof inputs extends fc.Arbitrary<infer T> ? T : never;

const digests: Digest[] = ['md5', 'sha256'];

describe('signatures: the docs test vector (decisions D2)', () => {
  it('builds the documented pre-image for F1', () => {
    const pre = preimage(s2sCard.f1(EMAIL, PASSWORD, card6_4(CARD)));
    assert.equal(pre.toString('utf8'), 'MOC.ELPMAXE@EOD13A4822C5907ED235F3A068C76184FC31111111114');
  });

  it('gives F1 = 2702ae0c4f99506dc29b5615ba9ee3c0', () => {
    assert.equal(s2sHash(s2sCard.f1(EMAIL, PASSWORD, card6_4(CARD))), '2702ae0c4f99506dc29b5615ba9ee3c0');
    assert.equal(md5('MOC.ELPMAXE@EOD13A4822C5907ED235F3A068C76184FC31111111114'), '2702ae0c4f99506dc29b5615ba9ee3c0');
  });

  it('the Unicode-upper variant agrees for ASCII input', () => {
    assert.equal(s2sHash(s2sCard.f1(EMAIL, PASSWORD, card6_4(CARD)), 'md5', 'unicode'), '2702ae0c4f99506dc29b5615ba9ee3c0');
  });

  it('card6_4 is first six and last four', () => {
    assert.equal(card6_4(CARD), '4111111111');
    assert.equal(card6_4('4601541833776519'), '4601546519');
    assert.equal(card6_4(''), '');
  });
});

/** Each formula: the implementation and the PHP reference, for the same inputs and digest mode. */
interface Formula {
  readonly name: string;
  impl(i: Inputs, d: Digest): string;
  ref(i: Inputs, d: Digest): string;
}

const checkoutRef = (d: Digest, ...parts: Bytes[]) => sha1(digestOf(d)(strtoupper(dot(...parts))));

const CHECKOUT: Formula[] = [
  {
    name: 'session (order.number . amount . currency . description)',
    impl: (i, d) => checkoutHash(checkout.session({ number: i.orderId, amount: i.amount, currency: i.currency, description: i.description }), i.password, d),
    ref: (i, d) => checkoutRef(d, i.orderId, i.amount, i.currency, i.description, i.password),
  },
  {
    name: 'status by payment_id',
    impl: (i, d) => checkoutHash(checkout.byPaymentId(i.transId), i.password, d),
    ref: (i, d) => checkoutRef(d, i.transId, i.password),
  },
  {
    name: 'status by order_id',
    impl: (i, d) => checkoutHash(checkout.byOrderId(i.orderId), i.password, d),
    ref: (i, d) => checkoutRef(d, i.orderId, i.password),
  },
  {
    name: 'capture / refund (payment_id . amount)',
    impl: (i, d) => checkoutHash(checkout.captureOrRefund(i.transId, i.amount), i.password, d),
    ref: (i, d) => checkoutRef(d, i.transId, i.amount, i.password),
  },
  {
    name: 'void / retry',
    impl: (i, d) => checkoutHash(checkout.voidOrRetry(i.transId), i.password, d),
    ref: (i, d) => checkoutRef(d, i.transId, i.password),
  },
  {
    name: 'recurring (no currency)',
    impl: (i, d) =>
      checkoutHash(checkout.recurring({ initTransId: i.transId, token: i.identifier, number: i.orderId, amount: i.amount, description: i.description }), i.password, d),
    ref: (i, d) => checkoutRef(d, i.transId, i.identifier, i.orderId, i.amount, i.description, i.password),
  },
  {
    name: 'callback (id . order_number . amount . currency . description)',
    impl: (i, d) =>
      checkoutHash(checkout.callback({ id: i.transId, orderNumber: i.orderId, amount: i.amount, currency: i.currency, description: i.description }), i.password, d),
    ref: (i, d) => checkoutRef(d, i.transId, i.orderId, i.amount, i.currency, i.description, i.password),
  },
  {
    name: 'card credit (order_id . amount . currency . description)',
    impl: (i, d) => checkoutHash(checkout.cardCredit({ orderId: i.orderId, amount: i.amount, currency: i.currency, description: i.description }), i.password, d),
    ref: (i, d) => checkoutRef(d, i.orderId, i.amount, i.currency, i.description, i.password),
  },
];

const s2sRef = (d: Digest, ...parts: Bytes[]) => digestOf(d)(strtoupper(dot(...parts)));

const S2S_CARD: Formula[] = [
  {
    name: 'F1 md5(UPPER(strrev(email) . PASSWORD . strrev(card6_4)))',
    impl: (i, d) => s2sHash(s2sCard.f1(i.email, i.password, card6_4(i.card)), d),
    ref: (i, d) => s2sRef(d, strrev(i.email), i.password, strrev(first6last4(i.card))),
  },
  {
    name: 'F1 with card_token',
    impl: (i, d) => s2sHash(s2sCard.f1(i.email, i.password, i.identifier), d),
    ref: (i, d) => s2sRef(d, strrev(i.email), i.password, strrev(i.identifier)),
  },
  {
    name: 'F2 md5(UPPER(strrev(email) . PASSWORD . trans_id . strrev(card6_4)))',
    impl: (i, d) => s2sHash(s2sCard.f2(i.email, i.password, i.transId, card6_4(i.card)), d),
    ref: (i, d) => s2sRef(d, strrev(i.email), i.password, i.transId, strrev(first6last4(i.card))),
  },
  {
    name: 'F3 md5(UPPER(strrev(PASSWORD)))',
    impl: (i, d) => s2sHash(s2sCard.f3(i.password), d),
    ref: (i, d) => s2sRef(d, strrev(i.password)),
  },
  {
    name: 'F4 md5(UPPER(strrev(schedule_id . PASSWORD)))',
    impl: (i, d) => s2sHash(s2sCard.f4(i.transId, i.password), d),
    ref: (i, d) => s2sRef(d, strrev(dot(i.transId, i.password))),
  },
  {
    name: 'F5 md5(UPPER(PASSWORD . strrev(card6_4)))',
    impl: (i, d) => s2sHash(s2sCard.f5(i.password, card6_4(i.card)), d),
    ref: (i, d) => s2sRef(d, i.password, strrev(first6last4(i.card))),
  },
  {
    name: 'F6 md5(UPPER(PASSWORD . trans_id . strrev(card6_4)))',
    impl: (i, d) => s2sHash(s2sCard.f6(i.password, i.transId, card6_4(i.card)), d),
    ref: (i, d) => s2sRef(d, i.password, i.transId, strrev(first6last4(i.card))),
  },
  {
    name: 'F7 md5(UPPER(strrev(email) . PASSWORD . order_id . strrev(card6_4)))',
    impl: (i, d) => s2sHash(s2sCard.f7(i.email, i.password, i.orderId, card6_4(i.card)), d),
    ref: (i, d) => s2sRef(d, strrev(i.email), i.password, i.orderId, strrev(first6last4(i.card))),
  },
  {
    name: 'F8 md5(UPPER(strrev(email) . PASSWORD))',
    impl: (i, d) => s2sHash(s2sCard.f8(i.email, i.password), d),
    ref: (i, d) => s2sRef(d, strrev(i.email), i.password),
  },
  {
    name: "interface spec's follow-up recipe md5(UPPER(strrev(trans_id)) . PASSWORD)",
    impl: (i, d) => {
      const r = s2sCard.reversedId(i.transId, i.password);
      return s2sHashWithRawSuffix(r.upper, r.raw, d);
    },
    ref: (i, d) => digestOf(d)(dot(strtoupper(strrev(i.transId)), i.password)),
  },
];

const S2S_APM: Formula[] = [
  {
    name: 'SALE md5(UPPER(strrev(identifier . order_id . order_amount . order_currency . PASSWORD)))',
    impl: (i, d) => s2sHash(s2sApm.sale({ identifier: i.identifier, orderId: i.orderId, amount: i.amount, currency: i.currency }, i.password), d),
    ref: (i, d) => s2sRef(d, strrev(dot(i.identifier, i.orderId, i.amount, i.currency, i.password))),
  },
  {
    name: 'SALE without identifier and amount (both left out)',
    impl: (i, d) => s2sHash(s2sApm.sale({ orderId: i.orderId, currency: i.currency }, i.password), d),
    ref: (i, d) => s2sRef(d, strrev(dot(i.orderId, i.currency, i.password))),
  },
  {
    name: 'CREDITVOID md5(UPPER(strrev(trans_id . PASSWORD)))',
    impl: (i, d) => s2sHash(s2sApm.creditvoid(i.transId, i.password), d),
    ref: (i, d) => s2sRef(d, strrev(dot(i.transId, i.password))),
  },
  {
    name: 'VOID / GET_TRANS_STATUS / CAPTURE md5(UPPER(strrev(trans_id)) . PASSWORD)',
    impl: (i, d) => apmByTransId(i.transId, i.password, d),
    ref: (i, d) => digestOf(d)(dot(strtoupper(strrev(i.transId)), i.password)),
  },
  {
    name: 'CREDIT2VIRTUAL md5(UPPER(strrev(order_id . order_amount . order_currency)) . PASSWORD)',
    impl: (i, d) => apmCredit2Virtual({ orderId: i.orderId, amount: i.amount, currency: i.currency }, i.password, d),
    ref: (i, d) => digestOf(d)(dot(strtoupper(strrev(dot(i.orderId, i.amount, i.currency))), i.password)),
  },
  {
    name: 'CREDIT2VIRTUAL callback md5(UPPER(strrev(trans_id . order_id . status)) . PASSWORD)',
    impl: (i, d) => apmCredit2VirtualCallback({ transId: i.transId, orderId: i.orderId, status: i.status }, i.password, d),
    ref: (i, d) => digestOf(d)(dot(strtoupper(strrev(dot(i.transId, i.orderId, i.status))), i.password)),
  },
];

const SAMPLE: Inputs = {
  email: EMAIL,
  password: PASSWORD,
  transId: '9b3a4d1e-5f0c-11ee-8c99-0242ac120002',
  orderId: 'order-1001',
  amount: '10.50',
  currency: 'USD',
  description: 'Blue shirt, size M',
  identifier: 'wallet-7',
  status: 'SETTLED',
  card: CARD,
};

for (const [family, formulas] of [['Checkout', CHECKOUT], ['S2S CARD', S2S_CARD], ['S2S APM', S2S_APM]] as const) {
  describe(`signatures: ${family}`, () => {
    for (const f of formulas) {
      it(`${f.name}: matches the PHP reference on the sample`, () => {
        for (const d of digests) assert.equal(f.impl(SAMPLE, d), f.ref(SAMPLE, d), d);
      });

      it(`${f.name}: property, matches the PHP reference on any input, both digest modes`, () => {
        fc.assert(
          fc.property(inputs, fc.constantFrom(...digests), (i, d) => f.impl(i, d) === f.ref(i, d)),
          { numRuns: 200 },
        );
      });
    }
  });
}

describe('signatures: Checkout is sha1 of the md5 hex string', () => {
  it('is not sha1 of the raw md5 bytes, nor md5 alone', () => {
    const upper = strtoupper(dot(SAMPLE.transId, PASSWORD));
    const got = checkoutHash(checkout.byPaymentId(SAMPLE.transId), PASSWORD);
    assert.equal(got, sha1(md5(upper)));
    assert.notEqual(got, sha1(createHash('md5').update(upper).digest()));
    assert.equal(got.length, 40);
  });
});

// ---------------------------------------------------------------------------------------------------
// The APM callback signature (array_walk_recursive strrev; ksort; implode; md5(strtoupper(s . PASSWORD))).

/** PHP convert(): a value reversed, or each level sorted by key (byte order for names) and imploded. */
function phpConvert(value: CallbackValue): Buffer {
  if (typeof value === 'string') return strrev(value);
  if (Array.isArray(value)) return Buffer.concat(value.map(phpConvert));
  const record = value as Record<string, CallbackValue>;
  const keys = Object.keys(record).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return Buffer.concat(keys.map((k) => phpConvert(record[k] as CallbackValue)));
}

const apmCallbackRef = (params: Record<string, CallbackValue>, password: string, d: Digest = 'md5') => {
  const { hash: _hash, ...rest } = params;
  return digestOf(d)(strtoupper(dot(phpConvert(rest), password)));
};

describe('signatures: S2S APM callback', () => {
  const params: Record<string, CallbackValue> = {
    trans_id: 'abc',
    status: 'SETTLED',
    result: 'SUCCESS',
    order_id: 'ORDER-1',
    list: ['ab', 'cd'],
    hash: 'not part of the signature',
    custom_data: { b: 'xy', a: '12' },
    amount: '9.22',
    action: 'SALE',
  };

  it('matches a pre-image written out by hand (ksort order, values reversed, nested levels sorted)', () => {
    // action, amount, custom_data{a, b}, list[0, 1], order_id, result, status, trans_id
    const joined = 'ELAS' + '22.9' + '21' + 'yx' + 'ba' + 'dc' + '1-REDRO' + 'SSECCUS' + 'DELTTES' + 'cba';
    assert.equal(apmCallbackHash(params, PASSWORD), md5(joined.toUpperCase() + PASSWORD.toUpperCase()));
  });

  it('ignores the hash field itself and the order params arrive in', () => {
    const reordered = Object.fromEntries(Object.entries(params).reverse());
    const { hash: _hash, ...withoutHash } = params;
    assert.equal(apmCallbackHash(reordered, PASSWORD), apmCallbackHash(params, PASSWORD));
    assert.equal(apmCallbackHash(withoutHash, PASSWORD), apmCallbackHash(params, PASSWORD));
  });

  it('sorts list indexes numerically (10 after 9)', () => {
    const list = Array.from({ length: 11 }, (_, i) => `v${i}`);
    const joined = list.map((v) => [...v].reverse().join('')).join('');
    assert.equal(apmCallbackHash({ list }, PASSWORD), md5((joined + PASSWORD).toUpperCase()));
  });

  it('property: matches the PHP reference for any nesting of named levels and lists', () => {
    const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,11}$/);
    const { value } = fc.letrec<{ value: CallbackValue }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        text,
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(key, tie('value'), { maxKeys: 4 }),
      ),
    }));
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 8 }), text, fc.constantFrom(...digests), (params, password, d) =>
        apmCallbackHash(params, password, d) === apmCallbackRef(params, password, d),
      ),
      { numRuns: 200 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// PHP semantics of the building blocks.

describe('signatures: strtoupper and strrev semantics', () => {
  it('upper-cases ASCII a-z only, as PHP 8 strtoupper', () => {
    assert.equal(preimage(['straße émile ŉ ÿ']).toString('utf8'), 'STRAßE éMILE ŉ ÿ');
    assert.equal(preimage(['straße émile'], 'unicode').toString('utf8'), 'STRASSE ÉMILE');
  });

  it('property: the ASCII-upper variant changes bytes 0x61-0x7a and nothing else', () => {
    fc.assert(
      fc.property(text, (s) => {
        const before = Buffer.from(s, 'utf8');
        const after = preimage([s]);
        return after.length === before.length && before.every((b, i) => after[i] === (b >= 0x61 && b <= 0x7a ? b - 0x20 : b));
      }),
    );
  });

  it('strrev reverses bytes, splitting multi-byte characters as PHP does', () => {
    assert.deepEqual([...preimage([{ rev: 'é1' }])], [0x31, 0xa9, 0xc3]);
    assert.equal(preimage([{ rev: 'abc' }]).toString('utf8'), 'CBA');
  });

  it('property: a reversed term is the byte reversal, then ASCII upper', () => {
    fc.assert(fc.property(text, (s) => preimage([{ rev: s }]).equals(strtoupper(strrev(s)))));
  });

  it('property: reversal twice gives the upper-cased original bytes', () => {
    fc.assert(fc.property(text, (s) => strrev(preimage([{ rev: s }])).equals(strtoupper(s))));
  });

  it('the Unicode variant reverses before it upper-cases, as mb_strtoupper(strrev(x)) does', () => {
    // "ŉ" upper-cases to two code points ("ʼN"): the order of the two steps shows.
    assert.equal(preimage([{ rev: 'ŉa' }], 'unicode').toString('utf8'), 'AʼN');
  });
});

describe('signatures: verification', () => {
  /** What a merchant library with Unicode upper-casing (mb_strtoupper, JS toUpperCase) sends for F1. */
  const unicodeF1 = (email: string, password: string, card: string) => {
    const reverse = (s: string) => [...s].reverse().join('');
    return md5((reverse(email) + password + reverse(first6last4(card))).toUpperCase());
  };
  const asciiF1 = (email: string, password: string, card: string) => s2sRef('md5', strrev(email), password, strrev(first6last4(card)));
  const f1Candidate = (email: string, password: string, card: string) => (u: 'ascii' | 'unicode') =>
    s2sHash(s2sCard.f1(email, password, card6_4(card)), 'md5', u);

  const unicodeEmail = fc.tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }), fc.constantFrom('example.com', 'bücher.de', 'mañana.es'))
    .map(([local, domain]) => `${local}@${domain}`);
  const card = fc.stringMatching(/^[0-9]{16}$/);

  it('accepts the ASCII-upper and the Unicode-upper hash of a non-ASCII e-mail', () => {
    const email = 'jürgen.straße@bücher.de';
    assert.notEqual(asciiF1(email, PASSWORD, CARD), unicodeF1(email, PASSWORD, CARD));
    assert.equal(verifyAny(asciiF1(email, PASSWORD, CARD), [f1Candidate(email, PASSWORD, CARD)]), true);
    assert.equal(verifyAny(unicodeF1(email, PASSWORD, CARD), [f1Candidate(email, PASSWORD, CARD)]), true);
  });

  it('property: verifyAny accepts both upper-case variants', () => {
    fc.assert(
      fc.property(unicodeEmail, text, card, (email, password, pan) => {
        const candidates = [f1Candidate(email, password, pan)];
        return verifyAny(asciiF1(email, password, pan), candidates) && verifyAny(unicodeF1(email, password, pan), candidates);
      }),
      { numRuns: 200 },
    );
  });

  it('property: verifyAny rejects a digest with any single character changed', () => {
    fc.assert(
      fc.property(unicodeEmail, card, fc.nat(), fc.integer({ min: 1, max: 15 }), (email, pan, at, delta) => {
        const good = asciiF1(email, PASSWORD, pan);
        const i = at % good.length;
        const changed = ((parseInt(good[i] as string, 16) + delta) % 16).toString(16);
        const bad = good.slice(0, i) + changed + good.slice(i + 1);
        return verifyAny(good, [f1Candidate(email, PASSWORD, pan)]) && !verifyAny(bad, [f1Candidate(email, PASSWORD, pan)]);
      }),
      { numRuns: 300 },
    );
  });

  it('property: verifyAny rejects a hash made with any single character of the input changed', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9.]{1,20}@example\.com$/), fc.nat(), fc.stringMatching(/^[0-9A-Z#]$/), (email, at, replacement) => {
        const i = at % email.length;
        const other = email.slice(0, i) + replacement + email.slice(i + 1);
        fc.pre(other.toUpperCase() !== email.toUpperCase());
        return !verifyAny(asciiF1(other, PASSWORD, CARD), [f1Candidate(email, PASSWORD, CARD)]);
      }),
    );
  });

  it('accepts a hash that matches any one of several formulas (D2: F2 or the reversed-id recipe)', () => {
    const candidates = [
      (u: 'ascii' | 'unicode') => s2sHash(s2sCard.f2(EMAIL, PASSWORD, SAMPLE.transId, card6_4(CARD)), 'md5', u),
      (u: 'ascii' | 'unicode') => {
        const r = s2sCard.reversedId(SAMPLE.transId, PASSWORD);
        return s2sHashWithRawSuffix(r.upper, r.raw, 'md5', u);
      },
    ];
    assert.equal(verifyAny(s2sRef('md5', strrev(EMAIL), PASSWORD, SAMPLE.transId, strrev(first6last4(CARD))), candidates), true);
    assert.equal(verifyAny(md5(dot(strtoupper(strrev(SAMPLE.transId)), PASSWORD)), candidates), true);
    assert.equal(verifyAny(md5('something else'), candidates), false);
  });

  it('rejects non-strings, empty and oversized hashes', () => {
    const candidates = [f1Candidate(EMAIL, PASSWORD, CARD)];
    for (const given of [undefined, null, 42, ['2702ae0c4f99506dc29b5615ba9ee3c0'], '', 'a'.repeat(129)]) {
      assert.equal(verifyAny(given, candidates), false, String(given));
    }
  });
});

describe('signatures: digest modes', () => {
  it('property: sha256 mode uses the same inputs and gives a different, 64-hex digest', () => {
    fc.assert(
      fc.property(inputs, (i) => {
        const terms = s2sCard.f1(i.email, i.password, card6_4(i.card));
        const md = s2sHash(terms, 'md5');
        const sh = s2sHash(terms, 'sha256');
        return md !== sh && md.length === 32 && /^[0-9a-f]{64}$/.test(sh) && sh === sha256(preimage(terms));
      }),
    );
  });

  it('Checkout in sha256 mode is sha1(sha256(...))', () => {
    const got = checkoutHash(checkout.voidOrRetry(SAMPLE.transId), PASSWORD, 'sha256');
    assert.equal(got, sha1(sha256(strtoupper(dot(SAMPLE.transId, PASSWORD)))));
    assert.notEqual(got, checkoutHash(checkout.voidOrRetry(SAMPLE.transId), PASSWORD, 'md5'));
  });
});

describe('signatures: sameDigest', () => {
  it('property: case-insensitive', () => {
    fc.assert(fc.property(hexDigest, (h) => sameDigest(h, h.toUpperCase()) && sameDigest(h.toUpperCase(), h)));
    fc.assert(fc.property(fc.mixedCase(hexDigest), (h) => sameDigest(h.toLowerCase(), h)));
  });

  it('property: different digests and different lengths never match', () => {
    fc.assert(fc.property(hexDigest, hexDigest, (a, b) => sameDigest(a, b) === (a === b)));
    fc.assert(fc.property(hexDigest, (h) => !sameDigest(h, h.slice(1)) && !sameDigest(h, `${h}0`) && !sameDigest(h, '')));
  });
});
