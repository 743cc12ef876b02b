/** Entity tags of configuration (domain/entity-tags.ts): stable over jsonb's key order, and RFC 9110's If-Match comparison. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { entityTag, ifMatchHolds } from '../../src/domain/entity-tags.ts';

const TAG = /^"[A-Za-z0-9_-]{27}"$/;

describe('entity tags and If-Match (domain)', () => {
  it('tags a value whatever its objects\' key order, and tells different values apart', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
      const reversed = Object.fromEntries(Object.entries(value).reverse());
      assert.equal(entityTag(reversed), entityTag(value));
      assert.match(entityTag(value), TAG);
    }));
    assert.notEqual(entityTag({ rules: [], max_extra_attempts: 1 }), entityTag({ rules: [], max_extra_attempts: 2 }));
  });

  it('matches `*`, a listed strong tag, and never a weak one or a header naming no tag', () => {
    const current = entityTag({ a: 1 });
    assert.equal(ifMatchHolds('*', current), true);
    assert.equal(ifMatchHolds(current, current), true);
    assert.equal(ifMatchHolds(` "other", ${current} `, current), true);
    assert.equal(ifMatchHolds(`W/${current}`, current), false);
    assert.equal(ifMatchHolds('"other"', current), false);
    assert.equal(ifMatchHolds(current.slice(1, -1), current), false, 'a tag without its quotes');
    assert.equal(ifMatchHolds('', current), false);
  });
});
