/** The form parser's fast path agrees with qs and URLSearchParams on flat forms, raw or malformed; bracket keys still nest. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import qs from 'qs';
import { parseForm } from '../../src/channels/form.ts';

const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,12}$/).filter((k) => !['__proto__', 'constructor', 'prototype'].includes(k));

describe('parseForm', () => {
  it('property: flat forms parse as qs parses them (repeated keys become arrays)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(key, fc.string({ maxLength: 20 })), { maxLength: 30 }), (pairs) => {
        const body = new URLSearchParams(pairs).toString();
        assert.deepEqual({ ...parseForm(body) }, { ...qs.parse(body, { allowPrototypes: false }) });
      }),
    );
  });

  it('property: any body without brackets parses as URLSearchParams reads it (%-sequences valid or not, +, =, &&)', () => {
    const viaUrlSearchParams = (body: string) => {
      const out: Record<string, unknown> = {};
      for (const [k, v] of new URLSearchParams(body)) {
        if (['__proto__', 'constructor', 'prototype'].includes(k)) continue;
        const seen = out[k];
        out[k] = seen === undefined ? v : Array.isArray(seen) ? [...seen, v] : [seen, v];
      }
      return out;
    };
    const piece = fc.oneof(fc.constantFrom('&', '=', '+', '%', '%2', '%zz', '%20', '%C3', '%C3%A9', '%E2%82%AC', '%ED%A0%80', '%00', '%25', 'a', 'b', 'é', '€'), fc.string({ maxLength: 4 }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }).map((parts) => parts.join('')).filter((body) => !/\[|%5b/i.test(body)), (body) => {
        assert.deepEqual({ ...parseForm(body) }, viaUrlSearchParams(body));
      }),
      { numRuns: 2000 },
    );
  });

  it('nests bracket keys, encoded or not', () => {
    assert.deepEqual(parseForm('parameters[a]=1&custom_data%5Bk%5D=v'), { parameters: { a: '1' }, custom_data: { k: 'v' } });
  });

  it('drops keys that could reach the prototype', () => {
    const parsed = parseForm('__proto__=x&constructor=y&a=1');
    assert.deepEqual(Object.keys(parsed), ['a']);
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });
});
