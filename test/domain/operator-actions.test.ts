/**
 * The operator actions table (domain/operator-actions.ts) against the state machine, for every combination of
 * status, authorization, amounts and an operation in flight (fast-check): nothing is offered while an operation is
 * in flight, every offer is a transition of the state table, amounts never exceed what the payment holds, and
 * the engine's rules hold (void only with nothing refunded, capture only of a held authorization).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { allowedActions, type ActionFacts } from '../../src/domain/operator-actions.ts';
import { nextStatus, STATUSES } from '../../src/domain/payment-state.ts';

const facts: fc.Arbitrary<ActionFacts> = fc.record({
  status: fc.constantFrom(...STATUSES),
  auth: fc.boolean(),
  amount: fc.bigInt({ min: 1n, max: 10_000n }),
  captured: fc.bigInt({ min: 0n, max: 10_000n }),
  refunded: fc.bigInt({ min: 0n, max: 10_000n }),
  pendingOperation: fc.constantFrom(null, 'refund', 'capture'),
}).map(({ amount, captured, refunded, ...rest }) => {
  const capturedAmount = captured > amount ? amount : captured;
  return { ...rest, amount, capturedAmount, refundedAmount: refunded > capturedAmount ? capturedAmount : refunded };
});

describe('operator actions (property)', () => {
  it('offers only transitions of the state table, within the amounts held, never while an operation is in flight', () => {
    fc.assert(fc.property(facts, (p) => {
      const offered = allowedActions(p);
      if (p.pendingOperation) assert.deepEqual(offered, []);
      for (const a of offered) {
        assert.ok(nextStatus(p.status, a.event), `${a.action} from ${p.status} is in the state table`);
        assert.ok(a.maxAmount > 0n && a.maxAmount <= p.amount);
        if (a.action === 'void') assert.equal(p.refundedAmount, 0n);
        if (a.action === 'capture') assert.ok(p.auth && p.status === 'pending');
        if (a.action === 'refund' && p.status === 'settled') assert.equal(a.maxAmount, p.capturedAmount - p.refundedAmount);
      }
      assert.equal(new Set(offered.map((a) => a.action)).size, offered.length, 'each action once');
    }), { numRuns: 2000 });
  });

  it('offers the expected actions in the common states', () => {
    const base = { auth: false, amount: 500n, capturedAmount: 500n, refundedAmount: 0n, pendingOperation: null };
    const names = (p: ActionFacts) => allowedActions(p).map((a) => a.action);
    assert.deepEqual(names({ ...base, status: 'settled' }), ['refund', 'void']);
    assert.deepEqual(names({ ...base, status: 'settled', refundedAmount: 100n }), ['refund']);
    assert.deepEqual(names({ ...base, status: 'refund', refundedAmount: 500n }), []);
    assert.deepEqual(names({ ...base, status: 'pending', auth: true, capturedAmount: 0n }), ['capture', 'refund']);
    assert.deepEqual(names({ ...base, status: 'decline', capturedAmount: 0n }), []);
    assert.deepEqual(names({ ...base, status: 'settled', pendingOperation: 'refund' }), []);
  });
});
