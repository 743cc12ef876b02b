/**
 * Property tests of the dispute rules (issue 29), pure: any sequence of events over any number of disputes of one
 * payment never holds more than the payment captured less refunded, the money moved (debits less credits) always
 * equals what the states hold, stages never go back, closed disputes only reopen by the next stage, and every
 * (stage, status, event) cell of the table lands on a valid state.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  categoryOf, overThreshold, percentOf, ratioBp, DISPUTE_EVENTS, DISPUTE_STAGES, DISPUTE_STATUSES, fitsCaptured, holdsMoney, moneyMoveOf, nextState, remainingDisputable,
  type DisputeEvent, type DisputeState,
} from '../../src/domain/disputes.ts';

const stageIndex = (s: DisputeState) => DISPUTE_STAGES.indexOf(s.stage);

describe('disputes: transitions and the total rule (properties)', () => {
  it('every cell of the table lands on a valid state and never goes back a stage', () => {
    for (const stage of DISPUTE_STAGES) for (const status of DISPUTE_STATUSES) for (const event of DISPUTE_EVENTS) {
      const next = nextState({ stage, status }, event);
      if (!next) continue;
      assert.ok(DISPUTE_STAGES.includes(next.stage) && DISPUTE_STATUSES.includes(next.status), `${stage}/${status} --${event}`);
      assert.ok(stageIndex(next) >= DISPUTE_STAGES.indexOf(stage), `${stage}/${status} --${event} -> ${next.stage}`);
    }
  });

  it('accepted disputes take no event; only an inquiry, a notice of chargeback or a chargeback opens a dispute', () => {
    for (const stage of DISPUTE_STAGES) for (const event of DISPUTE_EVENTS) assert.equal(nextState({ stage, status: 'accepted' }, event), undefined);
    const openers = DISPUTE_EVENTS.filter((e) => nextState(undefined, e));
    assert.deepEqual(openers, ['request_for_information', 'notification_of_chargeback', 'chargeback']);
  });

  const scenario = fc.record({
    captured: fc.bigInt({ min: 1n, max: 100_000n }),
    refunded: fc.bigInt({ min: 0n, max: 100_000n }),
    amounts: fc.array(fc.bigInt({ min: 1n, max: 120_000n }), { minLength: 1, maxLength: 4 }),
    steps: fc.array(fc.record({ dispute: fc.nat(3), event: fc.constantFrom(...DISPUTE_EVENTS) }), { maxLength: 40 }),
  });

  it('the disputes of a payment never hold more than captured less refunded; money moved equals what is held', () => {
    fc.assert(fc.property(scenario, ({ captured, refunded: r, amounts, steps }) => {
      const refunded = r > captured ? captured : r;
      const states: (DisputeState | undefined)[] = amounts.map(() => undefined);
      const moved = amounts.map(() => 0n);
      for (const { dispute, event } of steps) {
        const i = dispute % amounts.length;
        const before = states[i];
        const after = nextState(before, event as DisputeEvent);
        if (!after) continue;
        const move = moneyMoveOf(before, after);
        const others = amounts.filter((_, j) => j !== i && holdsMoney(states[j]));
        if (!fitsCaptured(move, amounts[i]!, remainingDisputable(captured, refunded, others))) continue;
        if (before) assert.ok(stageIndex(after) >= stageIndex(before));
        states[i] = after;
        moved[i]! += move === 'debit' ? amounts[i]! : move === 'credit' ? -amounts[i]! : 0n;
        const held = amounts.reduce((sum, a, j) => sum + (holdsMoney(states[j]) ? a : 0n), 0n);
        assert.ok(held <= captured - refunded, `held ${held} of ${captured - refunded}`);
      }
      states.forEach((s, j) => assert.equal(moved[j], holdsMoney(s) ? amounts[j] : 0n));
    }), { numRuns: 500 });
  });

  it('a duplicate event changes nothing and moves no money', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom(...DISPUTE_EVENTS), { maxLength: 12 }), (events) => {
      let state: DisputeState | undefined;
      for (const e of events) {
        const after = nextState(state, e);
        if (!after) continue;
        state = after;
        const again = nextState(state, e);
        if (again) assert.equal(moneyMoveOf(state, again), 'none', `${e} twice from ${state.stage}/${state.status}`);
      }
    }));
  });

  it('ratios: basis points rounded down, flagged only at the threshold count and ratio', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10_000n }), fc.bigInt({ min: 0n, max: 1_000_000n }), (n, settled) => {
      const bp = ratioBp(n, settled);
      if (settled === 0n) return assert.equal(bp, 0n);
      assert.ok(bp * settled <= n * 10_000n && (bp + 1n) * settled > n * 10_000n);
      assert.equal(overThreshold(n, settled), n >= 100n && n * 10_000n >= 90n * settled);
    }));
    assert.equal(percentOf(90n), '0.90');
    assert.equal(percentOf(13_333n), '133.33');
  });

  it('reason codes map to their scheme category', () => {
    assert.equal(categoryOf('10.4'), 'fraud');
    assert.equal(categoryOf('11.3'), 'authorization');
    assert.equal(categoryOf('12.6'), 'processing_error');
    assert.equal(categoryOf('13.1'), 'consumer_dispute');
    assert.equal(categoryOf('4837'), 'fraud');
    assert.equal(categoryOf('4808'), 'authorization');
    assert.equal(categoryOf('4834'), 'processing_error');
    assert.equal(categoryOf('4853'), 'consumer_dispute');
    assert.equal(categoryOf(undefined), 'consumer_dispute');
  });
});
