/**
 * test/support/utc-day.ts: today's UTC day at once when midnight is far, and the next day, after waiting past
 * midnight, when it is closer than the margin (a fake clock and sleep: nothing really waits).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dayAwayFromMidnight } from '../support/utc-day.ts';

/** A clock that only moves when slept on; the sleeps it was asked for. */
function fakeClock(startIso: string) {
  let at = Date.parse(startIso);
  const slept: number[] = [];
  return {
    now: () => at,
    sleep: async (ms: number) => {
      slept.push(ms);
      at += ms;
    },
    slept,
  };
}

test('far from midnight: today\'s UTC day, without waiting', async () => {
  const clock = fakeClock('2026-11-29T12:00:00.000Z');
  assert.equal(await dayAwayFromMidnight(90_000, clock.now, clock.sleep), '2026-11-29');
  assert.deepEqual(clock.slept, []);
  const edge = fakeClock('2026-11-29T23:58:30.000Z'); // exactly the margin left
  assert.equal(await dayAwayFromMidnight(90_000, edge.now, edge.sleep), '2026-11-29');
  assert.deepEqual(edge.slept, []);
});

test('closer to midnight than the margin: waits until a second after it and answers the new day', async () => {
  const clock = fakeClock('2026-12-31T23:59:00.000Z');
  assert.equal(await dayAwayFromMidnight(90_000, clock.now, clock.sleep), '2027-01-01');
  assert.deepEqual(clock.slept, [61_000]);
  assert.equal(new Date(clock.now()).toISOString(), '2027-01-01T00:00:01.000Z');
});

test('the real clock by default: today\'s UTC day', async () => {
  const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const before = Date.now();
  const day = await dayAwayFromMidnight(0);
  assert.ok([dayOf(before), dayOf(Date.now())].includes(day), day); // either side of a midnight passing meanwhile
});
