/** A fee schedule's row may name any method the gateway takes: card brands and every catalog key (with hyphens). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseFeeRows, quoteFee } from '../../src/domain/ledger/fees.ts';
import { METHODS } from '../../src/domain/methods/catalog.ts';

describe('fee rows by method', () => {
  it('accept every method key of the catalog and quote its own row', () => {
    const keys = Object.keys(METHODS);
    assert.ok(keys.some((k) => k.includes('-')), 'the catalog has hyphenated keys');
    for (const method of keys) {
      const parsed = parseFeeRows([{ operation: 'sale', method, currency: 'EUR', fixed: '0.25' }, { operation: 'sale', currency: 'EUR', fixed: '0.10' }]);
      assert.ok('rows' in parsed, `${method}: ${JSON.stringify('problems' in parsed && parsed.problems)}`);
      const schedule = { id: 's', merchantId: null, effectiveFrom: new Date(0), rows: parsed.rows };
      assert.equal(quoteFee(schedule, { operation: 'sale', method, region: 'domestic', currency: 'EUR', amount: 1000n }).fee, 25n, method);
    }
  });

  it('refuse a key in upper case or with spaces, naming the row', () => {
    for (const method of ['Bank-Code', 'bank code', 'x']) {
      const parsed = parseFeeRows([{ operation: 'sale', method, currency: 'EUR', fixed: '0.25' }]);
      assert.ok('problems' in parsed, method);
      assert.equal(parsed.problems[0]?.field, 'rows[0].method');
    }
  });
});
