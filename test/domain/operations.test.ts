/**
 * The operations table against the wire reference: what each operation a payment is written with means
 * (intent, transaction types, payout, card token, step callbacks), and the operations a payment has in flight.
 * The expectations are written from the documents (S2S CARD 5.x, 6.7.0, Checkout auth), not copied from the table.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  IN_FLIGHT, OPERATIONS, authTxType, awaitsAuthorization, chargedAs, finalTxType, hasStepCallback, intentOf, intentTxType, isAuthorizationEvent,
  isHoldable, isOperation, isPayout, isRecurring, payinIntent, recheckBy, reversedWhenSettled, settlesInFlight, takesWallets, tokenizesCard,
  type Intent, type NotifiedOperation, type Operation,
} from '../../src/domain/operations.ts';

const OPS: readonly Operation[] = ['purchase', 'debit', 'credit', 'recurring', 'recurring_debit'];
const anyOp = fc.constantFrom(...OPS);

/** One row per operation, from the wire reference. */
const EXPECTED: Readonly<Record<Operation, {
  intent: 'sale' | 'payout'; holdable: boolean; authTx: 'sale' | 'credit' | 'recurring'; finalTx: string; payout: boolean;
  token: boolean; step: boolean; recurring: boolean; chain: 'recurring' | 'recurring_debit'; reversed: boolean; wallets: boolean;
}>> = {
  // SALE (auth=Y holds), Checkout purchase; wallets pay only purchases.
  purchase: { intent: 'sale', holdable: true, authTx: 'sale', finalTx: 'sale', payout: false, token: false, step: false, recurring: false, chain: 'recurring', reversed: false, wallets: true },
  // DEBIT: the card always gets a token; 3ds and redirect steps are called back; settled, it is reversed (5.2).
  debit: { intent: 'sale', holdable: false, authTx: 'sale', finalTx: 'debit', payout: false, token: true, step: true, recurring: false, chain: 'recurring_debit', reversed: true, wallets: false },
  // CREDIT2CARD and Checkout credit: a payout.
  credit: { intent: 'payout', holdable: false, authTx: 'credit', finalTx: 'credit', payout: true, token: false, step: false, recurring: false, chain: 'recurring', reversed: false, wallets: false },
  // RECURRING_SALE (auth=Y holds) and RECURRING_DEBIT: merchant-initiated charges, recorded as recurring.
  recurring: { intent: 'sale', holdable: true, authTx: 'recurring', finalTx: 'recurring', payout: false, token: false, step: false, recurring: true, chain: 'recurring', reversed: false, wallets: false },
  recurring_debit: { intent: 'sale', holdable: false, authTx: 'recurring', finalTx: 'recurring', payout: false, token: false, step: false, recurring: true, chain: 'recurring_debit', reversed: false, wallets: false },
};

describe('OPERATIONS', () => {
  it('has exactly the operations payments are written with', () => {
    assert.deepEqual(Object.keys(OPERATIONS).sort(), [...OPS].sort());
    for (const op of OPS) assert.equal(isOperation(op), true);
    for (const other of ['CREDIT2CARD', 'sale', 'authorize', 'toString', '']) assert.equal(isOperation(other), false, other);
  });

  for (const op of OPS) {
    it(`${op} means what the wire reference says`, () => {
      const e = EXPECTED[op];
      assert.equal(intentOf({ operation: op, auth: false }), e.intent);
      assert.equal(isHoldable(op), e.holdable);
      assert.equal(authTxType(op, intentOf({ operation: op, auth: false })), e.authTx);
      assert.equal(finalTxType(op), e.finalTx);
      assert.equal(isPayout(op), e.payout);
      assert.equal(tokenizesCard(op), e.token);
      assert.equal(hasStepCallback(op), e.step);
      assert.equal(isRecurring(op), e.recurring);
      assert.equal(chargedAs(op), e.chain);
      assert.equal(reversedWhenSettled(op), e.reversed);
      assert.equal(takesWallets(op), e.wallets);
    });
  }

  it('the auth flag turns a sale into an authorization, never a payout', () => {
    fc.assert(fc.property(anyOp, fc.boolean(), (operation, auth) => {
      const intent = intentOf({ operation, auth });
      if (isPayout(operation)) return intent === 'payout';
      return intent === (auth ? 'auth' : 'sale');
    }));
  });

  it('an authorizing attempt is recorded with its intent\'s type, a chain\'s charge as recurring', () => {
    fc.assert(fc.property(anyOp, fc.constantFrom<Intent>('sale', 'auth', 'payout'), (operation, intent) => {
      const type = authTxType(operation, intent);
      return isRecurring(operation) ? type === 'recurring' : type === intentTxType(intent);
    }));
    assert.deepEqual([intentTxType('sale'), intentTxType('auth'), intentTxType('payout')], ['sale', 'auth', 'credit']);
  });

  it('a chain started by any operation charges as a recurring operation of its kind, and stays so', () => {
    fc.assert(fc.property(anyOp, (operation) => {
      const charged = chargedAs(operation);
      return isRecurring(charged) && chargedAs(charged) === charged && tokenizesCard(charged) === false;
    }));
  });

  it('payinIntent refuses a payout', () => {
    assert.equal(payinIntent({ operation: 'purchase', auth: true }), 'auth');
    assert.equal(payinIntent({ operation: 'debit', auth: false }), 'sale');
    assert.throws(() => payinIntent({ operation: 'credit', auth: false }));
  });
});

describe('IN_FLIGHT', () => {
  const NAMES = Object.keys(IN_FLIGHT);

  it('an authorization is awaited in authorize and complete only', () => {
    assert.deepEqual(NAMES.filter((n) => awaitsAuthorization(n)), ['authorize', 'complete']);
    for (const none of [null, undefined, '', 'purchase', 'constructor']) assert.equal(awaitsAuthorization(none), false);
  });

  it('lost outcomes are asked of the card connector or the APM provider; the rest go to an operator', () => {
    assert.deepEqual(Object.fromEntries(NAMES.map((n) => [n, recheckBy(n) ?? null])), {
      authorize: 'card', complete: 'card', retry: null, apm_initiate: 'apm', apm_payout: null, capture: null, refund: null, reversal: null, void: null,
    });
    assert.equal(recheckBy(null), undefined);
    assert.equal(recheckBy('unknown'), undefined);
  });

  it('a notified follow-up settles the operation in flight it may stand for', () => {
    /** notified event -> our operations in flight it settles (a void of a capture may come back as a reversal). */
    const SETTLES: Readonly<Record<Exclude<NotifiedOperation, 'authorize'>, readonly string[]>> = {
      capture: ['capture'], refund: ['refund', 'reversal'], reversal: ['reversal', 'void'], void: ['void', 'reversal'],
    };
    for (const [event, settled] of Object.entries(SETTLES) as [keyof typeof SETTLES, readonly string[]][]) {
      for (const name of [...NAMES, 'unknown', null]) {
        assert.equal(settlesInFlight(event, name), name !== null && settled.includes(name), `${event} -> ${name}`);
      }
    }
  });

  it('only the authorize event is an authorization outcome', () => {
    const events: NotifiedOperation[] = ['authorize', 'capture', 'refund', 'reversal', 'void'];
    assert.deepEqual(events.filter(isAuthorizationEvent), ['authorize']);
  });
});
