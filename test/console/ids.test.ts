/** Short ids in the console (issue 31 item 4): the shortest prefix, 8 characters at least, that no other id on the screen shares. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { shortIdOf } from '../../console/src/ids.ts';

describe('console short ids', () => {
  it('shows 8 characters when they tell the id apart, more when another id shares them', () => {
    const a = '0193aa11-2222-7333-8444-555566667777';
    const b = '0193aa11-9999-7333-8444-555566667777';
    const c = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    assert.equal(shortIdOf(c, [a, b, c]), '7c9e6679');
    assert.equal(shortIdOf(a, [a, b, c]), '0193aa11-2');
    assert.equal(shortIdOf(b, [a, b, c]), '0193aa11-9');
    assert.equal(shortIdOf(a, [a, a]), '0193aa11', 'the same id twice is one id');
    assert.equal(shortIdOf('abc', ['abc', 'abd']), 'abc', 'a short id is shown whole');
  });
});
