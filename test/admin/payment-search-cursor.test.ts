/** The search cursor is opaque and round-trips; whatever a caller sends instead is refused, never thrown on. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeCursor, encodeCursor, parseSearch } from '../../src/services/admin/payment-search.ts';
import { GatewayError } from '../../src/domain/errors.ts';

describe('payment search cursor', () => {
  it('decodes what it encodes', () => {
    fc.assert(fc.property(fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }), fc.uuid(), (createdAt, id) => {
      assert.deepEqual(decodeCursor(encodeCursor({ createdAt, id })), { createdAt, id });
    }));
  });

  it('answers any other text with a D3 field error on cursor', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (text) => {
      const decoded = decodeCursor(text);
      if (decoded) return; // a string that happens to encode a valid cursor
      assert.throws(() => parseSearch({ cursor: text }), (err: unknown) =>
        err instanceof GatewayError && err.spec.http === 400 && err.fields.length === 1 && err.fields[0]!.field === 'cursor');
    }));
  });
});
