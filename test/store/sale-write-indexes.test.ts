/**
 * Migration 192 took index entries off the S2S SALE's writes (issue 24): the readers of the indexes it dropped or
 * narrowed still read an index, and the tables a SALE updates keep room for HOT updates. The plans are asked of the
 * repositories' own statements (an Sql that prefixes EXPLAIN), on both stores, with sequential scans switched off so
 * that a small table does not hide an unusable index, and as generic plans (made without the parameters' values).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore, storeKinds, type TestStore } from '../support/stores.ts';
import type { Sql } from '../../src/store/database.ts';
import { countDeclinedAttempts } from '../../src/store/sessions-repo.ts';
import { recordsByRefs } from '../../src/store/reconciliation-repo.ts';
import { feeLines } from '../../src/store/portal-exports-repo.ts';

/** Runs a repository function on an Sql that answers no rows and keeps the plans of its statements. */
async function plansOf(tx: Sql, run: (sql: Sql) => Promise<unknown>): Promise<string> {
  const plans: string[] = [];
  await run({
    async query<T>(text: string, params?: readonly unknown[]): Promise<T[]> {
      const rows = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, params);
      plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
      return [];
    },
  });
  return plans.join('\n');
}

for (const { kind, skip } of await storeKinds()) {
  describe(`the SALE's write path, indexes and fillfactors (${kind})`, { skip }, () => {
    let store: TestStore;
    before(async () => {
      store = await openTestStore(kind);
    });
    after(() => store?.dispose());

    it('reads an index for a session\'s declines, an acquirer\'s reference and the fees export', async () => {
      await store.db.transaction(async (tx) => {
        await tx.query('SET LOCAL enable_seqscan = off');
        await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
        const declines = await plansOf(tx, (sql) => countDeclinedAttempts(sql, 'session-1', ['expired']));
        assert.match(declines, /payments_session\b/, declines);
        const records = await plansOf(tx, (sql) => recordsByRefs(sql, 'mid-1', 'acquirer:mid-1:receivable', ['ref-1', 'ref-2'], []));
        assert.match(records, /payments_connector_ref/, records);
        for (const merchantIds of [['m-1'], ['m-1', 'm-2']]) {
          const fees = await plansOf(tx, (sql) => feeLines(sql, { merchantIds, createdFrom: new Date(0) }, 50));
          assert.match(fees, /ledger_entries_fee_lines/, fees);
        }
      });
    });

    it('leaves the payment\'s pending write and the platform\'s fee revenue out of the narrowed indexes', async () => {
      const [connector] = await store.db.query<{ def: string }>("SELECT pg_get_indexdef('payments_connector_ref'::regclass) AS def");
      assert.match(connector!.def, /IS NOT NULL\) AND \(\(details ->> 'connectorRef'::text\) IS NOT NULL\)/);
      const [fees] = await store.db.query<{ def: string }>("SELECT pg_get_indexdef('ledger_entries_fee_lines'::regclass) AS def");
      assert.match(fees!.def, /account ~~ 'merchant:%'::text/);
      const [declined] = await store.db.query<{ present: boolean }>("SELECT to_regclass('payments_session_declined') IS NOT NULL AS present");
      assert.equal(declined!.present, false);
    });

    it('keeps room on the pages of the rows a SALE updates', async () => {
      const rows = await store.db.query<{ relname: string; reloptions: string[] | null }>(
        "SELECT relname, reloptions FROM pg_class WHERE relname IN ('risk_evaluations', 'transactions', 'payment_attempts') AND relkind = 'r' AND relnamespace = to_regnamespace(current_schema())::oid ORDER BY relname",
      );
      assert.deepEqual(rows.map((r) => [r.relname, r.reloptions]), [
        ['payment_attempts', ['fillfactor=75']],
        ['risk_evaluations', ['fillfactor=60']],
        ['transactions', ['fillfactor=80']],
      ]);
    });
  });
}
