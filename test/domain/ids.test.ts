import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isUuid, newId } from '../../src/domain/ids.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MAX_MS = 2 ** 48 - 1;

describe('payment and transaction ids (UUID version 7)', () => {
  it('are UUIDs of version 7 and the RFC 9562 variant, led by the time in milliseconds', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: MAX_MS }), (ms) => {
      const id = newId(ms);
      assert.match(id, UUID_V7);
      assert.equal(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16), ms);
    }), { numRuns: 2000 });
  });

  it('sort as their times do, so new index entries go to the end of the index', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: MAX_MS - 1 }), fc.integer({ min: 1, max: 10_000 }), (ms, later) => {
      assert.ok(newId(ms) < newId(Math.min(MAX_MS, ms + later)));
    }), { numRuns: 2000 });
  });

  it('do not repeat within one millisecond', () => {
    const ids = new Set(Array.from({ length: 50_000 }, () => newId(1_800_000_000_000)));
    assert.equal(ids.size, 50_000);
  });
});

describe('isUuid', () => {
  it('takes our ids and any UUID in either case; nothing else reaches the database', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: MAX_MS }), (ms) => isUuid(newId(ms)) && isUuid(newId(ms).toUpperCase())));
    fc.assert(fc.property(fc.uuid(), (id) => isUuid(id)));
    for (const bad of ['', 'x', "1' OR '1'='1", '0190a8f2-7c1e-7d2a-9b3c-4d5e6f708192 ', '0190a8f27c1e7d2a9b3c4d5e6f708192', '0190a8f2-7c1e-7d2a-9b3c-4d5e6f70819g']) {
      assert.equal(isUuid(bad), false, bad);
    }
  });
});
