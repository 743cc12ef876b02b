import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MESSAGES,
  parseCheckoutForm,
  parseExpiry,
  validateCardNumber,
  validateExpiry,
  validateHolder,
  type CheckoutFormOptions,
} from '../../src/web/checkout-form.ts';
import { luhnValid } from '../../src/domain/card.ts';

const NOW = new Date('2030-06-15T12:00:00Z');
const OPTS: CheckoutFormOptions = { now: NOW, methods: ['card'], billingRequired: true, email: { required: true } };

const GOOD = {
  method: 'card',
  card_number: '4111 1111 1111 1111',
  card_expiry: '12/31',
  card_cvv: '123',
  card_holder: '  Jane   Doe ',
  billing_country: 'us',
  billing_state: 'NY',
  billing_city: 'New York',
  billing_address: '1 Main St',
  billing_zip: '10001',
  billing_phone: '+1 (212) 555-0100',
  email: 'jane@example.com',
};

describe('card rules', () => {
  it('Luhn', () => {
    assert.ok(luhnValid('4111111111111111'));
    assert.ok(luhnValid('4601541833776519'));
    assert.ok(luhnValid('378282246310005'));
    assert.ok(!luhnValid('4111111111111112'));
    assert.ok(luhnValid('1111222233334444'), 'passes Luhn; the platform rejects it for its brand');
    assert.ok(!luhnValid(''));
  });

  it('card number: 13 to 19 digits, spaces and hyphens allowed', () => {
    assert.equal(validateCardNumber('4111-1111-1111-1111'), undefined);
    assert.equal(validateCardNumber(''), MESSAGES.cardNumberEmpty);
    assert.equal(validateCardNumber('4111 1111 1111'), MESSAGES.cardNumberLength);
    assert.equal(validateCardNumber('4111a111111111111'), MESSAGES.cardNumberLength);
    assert.equal(validateCardNumber('41111111111111111111'), MESSAGES.cardNumberLength);
    assert.equal(validateCardNumber('4111 1111 1111 1112'), MESSAGES.cardNumberLuhn);
  });

  it('expiry: MM/YY and variants, not in the past', () => {
    assert.deepEqual(parseExpiry('01/38'), { month: '01', year: '2038' });
    assert.deepEqual(parseExpiry('1/38'), { month: '01', year: '2038' });
    assert.deepEqual(parseExpiry('0138'), { month: '01', year: '2038' });
    assert.deepEqual(parseExpiry('12 / 2039'), { month: '12', year: '2039' });
    assert.equal(parseExpiry('13/30'), undefined);
    assert.equal(parseExpiry('138'), undefined);
    assert.equal(validateExpiry('06/30', NOW), undefined, 'the current month is still valid');
    assert.equal(validateExpiry('05/30', NOW), MESSAGES.expiryPast);
    assert.equal(validateExpiry('ab', NOW), MESSAGES.expiryFormat);
    assert.equal(validateExpiry('', NOW), MESSAGES.expiryEmpty);
  });

  it('name on card: one word or more (mononyms), letters, at most 32 characters', () => {
    assert.equal(validateHolder('Jane Doe'), undefined);
    assert.equal(validateHolder("Zoë O'Brien-Smith"), undefined);
    assert.equal(validateHolder('Suharto'), undefined, 'a one-word name is a name');
    assert.equal(validateHolder('محمد'), undefined);
    assert.equal(validateHolder('.-'), MESSAGES.holderChars, 'at least one letter');
    assert.equal(validateHolder('Jane 7'), MESSAGES.holderChars);
    assert.equal(validateHolder('A'.repeat(20) + ' ' + 'B'.repeat(12)), MESSAGES.holderLength);
    assert.equal(validateHolder('   '), MESSAGES.holderEmpty);
  });
});

describe('parseCheckoutForm', () => {
  it('accepts a complete form and normalizes it', () => {
    const r = parseCheckoutForm(GOOD, OPTS);
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.value, {
      method: 'card',
      card: { number: '4111111111111111', expMonth: '12', expYear: '2031', cvv: '123', holder: 'Jane Doe' },
      billing: { country: 'US', state: 'NY', city: 'New York', address: '1 Main St', zip: '10001', phone: '+1 (212) 555-0100' },
      email: 'jane@example.com',
    });
  });

  it('ignores the state outside CA, US, JP, AU and IN, and requires it inside', () => {
    const de = parseCheckoutForm({ ...GOOD, billing_country: 'DE', billing_state: '' }, OPTS);
    assert.ok(de.ok);
    assert.equal(de.value.billing!.state, undefined);
    const deWithState = parseCheckoutForm({ ...GOOD, billing_country: 'DE', billing_state: 'x' }, OPTS);
    assert.ok(deWithState.ok, 'not validated for other countries');
    assert.equal(deWithState.value.billing!.state, undefined);
    for (const c of ['CA', 'US', 'JP', 'AU', 'IN']) {
      const r = parseCheckoutForm({ ...GOOD, billing_country: c, billing_state: '' }, OPTS);
      assert.ok(!r.ok);
      assert.equal(r.errors.billing_state, MESSAGES.stateEmpty);
    }
  });

  it('reports every failing field and gives back only safe values for re-display', () => {
    const r = parseCheckoutForm(
      { method: 'card', card_number: '4111111111111112', card_expiry: '01/20', card_cvv: '12', card_holder: 'Jane 7', billing_country: 'XX', billing_city: 'B', billing_address: '', billing_zip: '', billing_phone: 'call me', email: 'nope' },
      OPTS,
    );
    assert.ok(!r.ok);
    assert.deepEqual(Object.keys(r.errors).sort(), [
      'billing_address',
      'billing_city',
      'billing_country',
      'billing_phone',
      'billing_zip',
      'card_cvv',
      'card_expiry',
      'card_holder',
      'card_number',
      'email',
    ]);
    assert.deepEqual(r.values, { cardHolder: 'Jane 7', expiry: '01/20' });
    assert.ok(!JSON.stringify(r).includes('4111111111111112'));
  });

  it('expiry only for a payout with a card token', () => {
    const r = parseCheckoutForm({ card_expiry: '07/30' }, { now: NOW, methods: ['card'], billingRequired: false, expiryOnly: true });
    assert.ok(r.ok);
    assert.deepEqual(r.value, { method: 'card', card: { expMonth: '07', expYear: '2030' } });
  });

  it('rejects a method the session does not offer; takes the first of repeated fields', () => {
    const r = parseCheckoutForm({ ...GOOD, method: 'paypal' }, OPTS);
    assert.ok(!r.ok);
    assert.equal(r.errors.method, MESSAGES.method);
    const rep = parseCheckoutForm({ ...GOOD, card_cvv: ['123', '999'] }, OPTS);
    assert.ok(rep.ok);
    assert.equal(rep.value.card!.cvv, '123');
  });
});
