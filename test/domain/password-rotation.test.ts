/** Which merchant passwords verify a request: the current one always, the previous one strictly before its end. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { acceptedPasswords, graceEnd } from '../../src/domain/password-rotation.ts';

describe('password rotation', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  it('accepts the previous password until, and not at, the end of its grace period', () => {
    const until = graceEnd(now, 24)!;
    assert.equal(until.toISOString(), '2030-01-02T00:00:00.000Z');
    const state = { password: 'new', previousPassword: 'old', previousPasswordExpiresAt: until };
    assert.deepEqual(acceptedPasswords(state, now), ['new', 'old']);
    assert.deepEqual(acceptedPasswords(state, new Date(until.getTime() - 1)), ['new', 'old']);
    assert.deepEqual(acceptedPasswords(state, until), ['new']);
  });
  it('has no grace period at 0 hours, and none without a previous password', () => {
    assert.equal(graceEnd(now, 0), null);
    assert.deepEqual(acceptedPasswords({ password: 'p', previousPassword: null, previousPasswordExpiresAt: null }, now), ['p']);
    assert.deepEqual(acceptedPasswords({ password: 'p', previousPassword: 'o', previousPasswordExpiresAt: null }, now), ['p']);
  });
});
