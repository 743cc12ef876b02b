/** The form parser's fast path agrees with qs on flat forms; bracket keys still nest. */
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

  it('nests bracket keys, encoded or not', () => {
    assert.deepEqual(parseForm('parameters[a]=1&custom_data%5Bk%5D=v'), { parameters: { a: '1' }, custom_data: { k: 'v' } });
  });

  it('drops keys that could reach the prototype', () => {
    const parsed = parseForm('__proto__=x&constructor=y&a=1');
    assert.deepEqual(Object.keys(parsed), ['a']);
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });
});
