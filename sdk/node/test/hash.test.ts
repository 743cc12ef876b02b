/**
 * The SDK's own formulas against the published test vector (decisions D2) and, for any input, against the
 * gateway's implementation (src/domain/signatures.ts): two independent writings of each recipe must agree.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as gateway from '../../../src/domain/signatures.ts';
import { byReversedId, cardTerm, checkoutDigest, checkoutFields, s2sApmHash, s2sCardPieces, s2sDigest } from '../src/index.ts';

const text = fc.string({ unit: 'grapheme', maxLength: 24 });
const digest = fc.constantFrom('md5' as const, 'sha256' as const);
const pan = fc.stringMatching(/^[0-9]{16}$/);

describe('SDK hash formulas', () => {
  it('Formula 1 gives the published test vector', () => {
    assert.equal(s2sDigest(s2sCardPieces.f1('doe@example.com', '13a4822c5907ed235f3a068c76184fc3', '4111111111111111')), '2702ae0c4f99506dc29b5615ba9ee3c0');
  });

  it('takes the card term from a number, a mask or ten digits, and keeps a card_token as it is', () => {
    assert.equal(cardTerm('4111111111111111'), '4111111111');
    assert.equal(cardTerm('411111****1111'), '4111111111');
    assert.equal(cardTerm('4111111111'), '4111111111');
    assert.equal(cardTerm('a'.repeat(64)), 'a'.repeat(64));
    assert.equal(cardTerm('1'.repeat(64)), '1'.repeat(64), 'an all-digit token is not mistaken for a card');
  });

  it('Checkout recipes agree with the gateway for any text (non-ASCII included) and both digests', () => {
    fc.assert(fc.property(text, text, text, text, text, digest, (a, b, c, d, pw, dg) => {
      assert.equal(checkoutDigest(checkoutFields.session({ number: a, amount: b, currency: c, description: d }), pw, dg), gateway.checkoutHash(gateway.checkout.session({ number: a, amount: b, currency: c, description: d }), pw, dg));
      assert.equal(checkoutDigest(checkoutFields.paymentIdAmount(a, b), pw, dg), gateway.checkoutHash(gateway.checkout.captureOrRefund(a, b), pw, dg));
      assert.equal(checkoutDigest(checkoutFields.recurring({ initTransId: a, token: b, number: c, amount: d, description: a }), pw, dg),
        gateway.checkoutHash(gateway.checkout.recurring({ initTransId: a, token: b, number: c, amount: d, description: a }), pw, dg));
      assert.equal(checkoutDigest(checkoutFields.callback(a, { number: b, amount: c, currency: d, description: a }), pw, dg),
        gateway.checkoutHash(gateway.checkout.callback({ id: a, orderNumber: b, amount: c, currency: d, description: a }), pw, dg));
    }), { numRuns: 200 });
  });

  it('S2S CARD formulas F1 to F8 and the trans_id recipe agree with the gateway', () => {
    fc.assert(fc.property(text, text, text, pan, digest, (email, pw, id, card, dg) => {
      const c = gateway.card6_4(card);
      const same = (sdk: ReturnType<typeof s2sCardPieces.f1>, gw: gateway.Term[]) => assert.equal(s2sDigest(sdk, dg), gateway.s2sHash(gw, dg));
      same(s2sCardPieces.f1(email, pw, card), gateway.s2sCard.f1(email, pw, c));
      same(s2sCardPieces.f2(email, pw, id, card), gateway.s2sCard.f2(email, pw, id, c));
      same(s2sCardPieces.f3(pw), gateway.s2sCard.f3(pw));
      same(s2sCardPieces.f4(id, pw), gateway.s2sCard.f4(id, pw));
      same(s2sCardPieces.f5(pw, card), gateway.s2sCard.f5(pw, c));
      same(s2sCardPieces.f6(pw, id, card), gateway.s2sCard.f6(pw, id, c));
      same(s2sCardPieces.f7(email, pw, id, card), gateway.s2sCard.f7(email, pw, id, c));
      same(s2sCardPieces.f8(email, pw), gateway.s2sCard.f8(email, pw));
      const r = gateway.s2sCard.reversedId(id, pw);
      assert.equal(byReversedId(id, pw, dg), gateway.s2sHashWithRawSuffix(r.upper, r.raw, dg));
    }), { numRuns: 200 });
  });

  it('S2S APM recipes, the callback signature with nested values included, agree with the gateway', () => {
    const nested = fc.dictionary(fc.stringMatching(/^[a-z_0-9]{1,8}$/), fc.oneof(text, fc.dictionary(fc.stringMatching(/^[a-z0-9]{1,4}$/), text, { maxKeys: 3 })), { maxKeys: 6 });
    fc.assert(fc.property(text, text, text, text, text, digest, nested, (ident, order, amount, currency, pw, dg, params) => {
      assert.equal(s2sApmHash.sale({ identifier: ident, orderId: order, amount, currency }, pw, dg), gateway.s2sHash(gateway.s2sApm.sale({ identifier: ident, orderId: order, amount, currency }, pw), dg));
      assert.equal(s2sApmHash.byTransId(order, pw, dg), gateway.apmByTransId(order, pw, dg));
      assert.equal(s2sApmHash.creditvoid(order, pw, dg), gateway.s2sHash(gateway.s2sApm.creditvoid(order, pw), dg));
      assert.equal(s2sApmHash.credit2virtual({ orderId: order, amount, currency }, pw, dg), gateway.apmCredit2Virtual({ orderId: order, amount, currency }, pw, dg));
      assert.equal(s2sApmHash.credit2virtualCallback({ transId: ident, orderId: order, status: amount }, pw, dg), gateway.apmCredit2VirtualCallback({ transId: ident, orderId: order, status: amount }, pw, dg));
      assert.equal(s2sApmHash.callback(params, pw, dg), gateway.apmCallbackHash(params, pw, dg));
    }), { numRuns: 200 });
  });
});
