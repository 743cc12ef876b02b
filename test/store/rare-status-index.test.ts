/**
 * The search by a rare status reads migration 026's partial index: the statement names the status as a literal
 * the index's predicate covers, and the two lists of statuses are the same. Checked with the planner on both
 * stores (sequential scans switched off, so that a small table does not hide an unusable index).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openTestStore, storeKinds, type TestStore } from '../support/stores.ts';
import { RARE_STATUSES, searchStatement } from '../../src/store/payment-search-repo.ts';
import { STATUSES } from '../../src/domain/payment-state.ts';

const migration = readFileSync(path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../src/store/migrations/026_payments_rare_status.sql'), 'utf8');

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('rare statuses', () => {
  it('are the statuses of the partial index, and statuses of the state table', () => {
    const listed = /WHERE status IN \(([^)]*)\)/.exec(migration)?.[1]?.split(',').map((s) => s.trim().replace(/^'|'$/g, '')) ?? [];
    assert.deepEqual([...listed].sort(), [...RARE_STATUSES].sort());
    for (const s of RARE_STATUSES) assert.ok((STATUSES as readonly string[]).includes(s), s);
  });

  it('are written as literals, every other value as a parameter', () => {
    assert.match(searchStatement({ status: 'chargeback' }, 50).text, /status = 'chargeback'/);
    const common = searchStatement({ status: 'settled' }, 50);
    assert.match(common.text, /status = \$1/);
    assert.deepEqual(common.params.slice(0, 1), ['settled']);
  });
});

for (const { kind, skip } of kinds) {
  describe(`rare-status search plan (${kind})`, { skip }, () => {
    let store: TestStore;
    before(async () => {
      store = await openTestStore(kind);
    });
    after(() => store?.dispose());

    it('reads payments_rare_status for a rare status, alone or with a merchant, as a prepared statement too', async () => {
      await store.db.transaction(async (tx) => {
        await tx.query('SET LOCAL enable_seqscan = off');
        // The plan a prepared statement settles on after a few runs: made without the parameters' values.
        await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
        for (const search of [{ status: 'chargeback' as const }, { status: 'refund' as const, merchantId: 'm-1' }]) {
          const { text, params } = searchStatement(search, 50);
          const plan = (await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, params)).map((r) => r['QUERY PLAN']).join('\n');
          assert.match(plan, /payments_rare_status/, plan);
        }
      });
    });
  });
}
