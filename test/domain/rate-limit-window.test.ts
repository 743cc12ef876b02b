/**
 * The rate limits' sliding window (domain/rate-limits.ts), estimated from two fixed windows: a limit spent just
 * before a window ends is still counted just after it (fixed windows alone let a guesser spend two limits in a
 * moment), and the block ends when one more request would be counted within the limit again.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { slidingCount, unblockedAt, windowAt, type WindowCounts } from '../../src/domain/rate-limits.ts';

const W = 60;
const T0 = Date.parse('2030-01-15T10:00:00Z'); // a window's start

/** Replays requests at the given instants against one bucket, as the limiter does: admitted while counted <= max. */
function replay(times: readonly number[], max: number): number[] {
  const hits = new Map<number, number>();
  const admitted: number[] = [];
  let blockedUntil = -Infinity;
  for (const at of times) {
    if (at < blockedUntil) continue;
    const now = new Date(at);
    const start = windowAt(now, W).start.getTime();
    hits.set(start, (hits.get(start) ?? 0) + 1);
    const counts: WindowCounts = { current: hits.get(start)!, previous: hits.get(start - W * 1000) ?? 0 };
    if (slidingCount(now, W, counts) > max) blockedUntil = unblockedAt(now, W, counts, max).getTime();
    else admitted.push(at);
  }
  return admitted;
}

describe('rate limits: sliding window', () => {
  it('counts a limit spent at the end of a window just after it ends (the fixed window let it through again)', () => {
    const max = 30;
    const burst = Array.from({ length: max }, (_, i) => T0 + 59_000 + i * 10);
    const next = Array.from({ length: max }, (_, i) => T0 + 60_000 + 500 + i * 10);
    const admitted = replay([...burst, ...next], max);
    assert.equal(admitted.filter((t) => t < T0 + 60_000).length, max);
    assert.equal(admitted.filter((t) => t >= T0 + 60_000).length, 0, 'nothing more in the next second');
  });

  it('fades the previous window out: a whole window after a burst, the limit is whole again', () => {
    const max = 5;
    const burst = Array.from({ length: max }, (_, i) => T0 + 30_000 + i);
    const later = Array.from({ length: max }, (_, i) => T0 + 120_000 + i);
    assert.equal(replay([...burst, ...later], max).length, 2 * max);
  });

  it('never admits more than twice the limit within any window length, and the block ends where one more fits', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 20 }),
      fc.array(fc.integer({ min: 0, max: 4 * W * 1000 }), { minLength: 1, maxLength: 200 }),
      (max, offsets) => {
        const admitted = replay(offsets.map((o) => T0 + o).sort((a, b) => a - b), max);
        for (const start of admitted) assert.ok(admitted.filter((t) => t >= start && t < start + W * 1000).length <= 2 * max);
      },
    ));
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: W * 1000 - 1 }),
      (max, current, previous, elapsed) => {
        const now = new Date(T0 + elapsed);
        const counts = { current, previous };
        const at = unblockedAt(now, W, counts, max);
        assert.ok(at.getTime() >= now.getTime());
        // One more request at that instant is counted within the limit.
        const sameWindow = windowAt(at, W).start.getTime() === T0;
        const then = sameWindow ? { current: current + 1, previous } : { current: 1, previous: at.getTime() - T0 < 2 * W * 1000 ? current : 0 };
        assert.ok(slidingCount(at, W, then) <= max + 1e-9, `${JSON.stringify({ max, counts, elapsed, at: at.getTime() - T0 })}`);
      },
    ));
  });
});
