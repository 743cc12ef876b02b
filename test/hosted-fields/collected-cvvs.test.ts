/** The CVV's only home between collection and processing: process memory, taken once, bound to its card, short-lived. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { CollectedCvvs, CVV_TTL_MS } from '../../src/services/hosted-fields.ts';
import { ManualClock } from '../../src/domain/clock.ts';

describe('CollectedCvvs', () => {
  it('hands a CVV out once, only for the card it came with', () => {
    const cvvs = new CollectedCvvs(new ManualClock());
    cvvs.put('s1', 'card-a', '123');
    assert.equal(cvvs.take('s1', 'card-b'), undefined, 'another card of the session gets nothing');
    assert.equal(cvvs.take('s1', 'card-a'), undefined, 'and the entry is gone after any take');
    cvvs.put('s1', 'card-a', '123');
    assert.equal(cvvs.take('s1', 'card-a'), '123');
    assert.equal(cvvs.take('s1', 'card-a'), undefined);
  });

  it('a new collection replaces the earlier one', () => {
    const cvvs = new CollectedCvvs(new ManualClock());
    cvvs.put('s1', 'card-a', '111');
    cvvs.put('s1', 'card-b', '222');
    assert.equal(cvvs.size, 1);
    assert.equal(cvvs.take('s1', 'card-b'), '222');
  });

  it('forgets CVVs after the time to live', () => {
    const clock = new ManualClock();
    const cvvs = new CollectedCvvs(clock);
    cvvs.put('s1', 'a', '123');
    clock.advance(CVV_TTL_MS - 1);
    cvvs.put('s2', 'b', '456');
    clock.advance(1);
    assert.equal(cvvs.take('s1', 'a'), undefined);
    assert.equal(cvvs.size, 1);
    clock.advance(CVV_TTL_MS);
    assert.equal(cvvs.size, 0);
  });

  it('holds a bounded number of entries, dropping the oldest', () => {
    const cvvs = new CollectedCvvs(new ManualClock(), CVV_TTL_MS, 3);
    for (const id of ['s1', 's2', 's3', 's4']) cvvs.put(id, 'v', '123');
    assert.equal(cvvs.size, 3);
    assert.equal(cvvs.take('s1', 'v'), undefined);
    assert.equal(cvvs.take('s4', 'v'), '123');
  });

  it('never prints a CVV', () => {
    const cvvs = new CollectedCvvs(new ManualClock());
    cvvs.put('s1', 'a', '987');
    assert.doesNotMatch(inspect(cvvs, { depth: 10, showHidden: true }), /987/);
    assert.doesNotMatch(JSON.stringify(cvvs), /987/);
  });
});
