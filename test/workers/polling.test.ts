import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { PollingLoop } from '../../src/workers/polling.ts';

describe('the workers\' polling loop', () => {
  it('runs a pass, pauses, and goes again at once while a pass reports more work', async () => {
    const started: number[] = [];
    let passes = 0;
    const loop = new PollingLoop({ pollMs: 60_000, onError: assert.fail, pass: async () => (started.push(Date.now()), ++passes < 3) });
    loop.start();
    await sleep(50);
    assert.equal(passes, 3, 'two passes with more work waiting, then a third, then the pause');
    const stopAt = Date.now();
    await loop.stop();
    assert.ok(Date.now() - stopAt < 10_000, 'stop() wakes the pause (of a minute; a loaded machine may take a second or more)');
    assert.equal(passes, 3);
  });

  it('reports a failing pass and goes on after the pause', async () => {
    const errors: unknown[] = [];
    let passes = 0;
    const loop = new PollingLoop({
      pollMs: 10,
      onError: (err) => errors.push(err),
      pass: async () => {
        passes += 1;
        if (passes === 1) throw new Error('store down');
        return false;
      },
    });
    loop.start();
    await sleep(100);
    await loop.stop();
    assert.equal((errors[0] as Error).message, 'store down');
    assert.equal(errors.length, 1);
    assert.ok(passes >= 2);
  });

  it('waits for the passes in flight when stopped, and says it is stopping to them', async () => {
    let sawStopping = false;
    let finished = 0;
    const loop: PollingLoop = new PollingLoop({
      pollMs: 60_000,
      lanes: 2,
      onError: assert.fail,
      pass: async () => {
        await sleep(50);
        sawStopping ||= loop.stopping;
        finished += 1;
        return true;
      },
    });
    loop.start();
    await sleep(10);
    await loop.stop();
    assert.equal(finished, 2, 'each lane finished its pass before stop() resolved');
    assert.ok(sawStopping);
  });

  it('pauses before the first pass when asked, and can start again after a stop', async () => {
    let passes = 0;
    const loop = new PollingLoop({ pollMs: 60_000, pauseFirst: true, onError: assert.fail, pass: async () => (passes++, false) });
    loop.start();
    await sleep(30);
    await loop.stop();
    assert.equal(passes, 0);
    const quick = new PollingLoop({ pollMs: 10, pauseFirst: true, onError: assert.fail, pass: async () => (passes++, false) });
    quick.start();
    await sleep(60);
    await quick.stop();
    const after = passes;
    assert.ok(after >= 1);
    quick.start();
    await sleep(60);
    await quick.stop();
    assert.ok(passes > after);
  });

  it('a wake ends the pause early, never sooner than minPauseMs after the last pass', async () => {
    const passAt: number[] = [];
    const loop = new PollingLoop({ pollMs: 60_000, minPauseMs: 100, onError: assert.fail, pass: async () => (passAt.push(performance.now()), false) });
    loop.start();
    await waitUntil(() => passAt.length === 1);
    loop.wake();
    loop.wake();
    await waitUntil(() => passAt.length === 2);
    assert.ok(passAt[1]! - passAt[0]! >= 99, `second pass ${passAt[1]! - passAt[0]!} ms after the first`);
    await sleep(250);
    assert.equal(passAt.length, 2, 'two wakes in one pause make one pass');
    await loop.stop();
    loop.wake();
    assert.equal(passAt.length, 2, 'a stopped loop ignores a wake');
  });

  it('a wake that arrives during a pass cuts the pause after it short (the pass may have read before the write)', async () => {
    let passes = 0;
    let release: () => void = () => undefined;
    const loop = new PollingLoop({
      pollMs: 60_000,
      onError: assert.fail,
      pass: async () => {
        passes += 1;
        if (passes === 1) await new Promise<void>((r) => (release = r));
        return false;
      },
    });
    loop.start();
    await waitUntil(() => passes === 1);
    loop.wake();
    release();
    await waitUntil(() => passes === 2);
    await loop.stop();
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await sleep(25);
  assert.ok(condition(), 'condition met within 10 s');
}
