/**
 * The schedule runner screens a pass's charges and opens their vaulted cards side by side (issue 24: the runner
 * bench went from 22 s to 102 s for 100,000 charges when each screen's record and each card read took a statement
 * and a commit of its own). Records and reads made at the same time on the database now share a statement (group
 * commit), each caller still getting its own row; inside a transaction each runs alone, at once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { openTestStore, storeKinds, type TestStore } from '../support/stores.ts';
import { TEST_KEYRING } from '../support/keyring.ts';
import type { Database } from '../../src/store/database.ts';
import { loadCard, storeCard } from '../../src/store/card-vault.ts';
import { recordScreen, type ScreenRecord } from '../../src/store/risk-repo.ts';

const N = 20;

/** The store, counting the statements sent through it (still a database: group commit batches on it). */
function counting(db: Database): { db: Database; statements: () => number } {
  let n = 0;
  return {
    db: { ...db, query: (text, params) => { n++; return db.query(text, params); } },
    statements: () => n,
  };
}

const screenOf = (paymentId: string, merchantId: string, i: number): ScreenRecord => ({
  paymentId, merchantId, card: `card-${i}`, amount: BigInt(100 + i), currency: 'USD', count: true, review: null, now: new Date(),
  keys: { merchant: merchantId, card: `card-${i}` },
  evaluation: { action: 'allow', reason: 'no rule matched', decided_by: null, score: 0, matched: [], lists: [], failed: [], velocity: {} },
});

for (const { kind, skip } of await storeKinds()) {
  describe(`screens and vault reads made together share a statement (${kind})`, { skip }, () => {
    let store: TestStore;
    let merchantId: string;
    before(async () => {
      store = await openTestStore(kind);
      merchantId = randomUUID();
      await store.db.query('INSERT INTO merchants (id, name, merchant_key, password) VALUES ($1, $2, $3, $4)', [merchantId, 'Grouped', randomUUID(), 'secret']);
    });
    after(() => store?.dispose());

    it('records every screen, in fewer statements than screens, each counted under its own keys', async () => {
      const spy = counting(store.db);
      const ids = Array.from({ length: N }, () => randomUUID());
      await Promise.all(ids.map((id, i) => recordScreen(spy.db, screenOf(id, merchantId, i))));
      assert.ok(spy.statements() < N / 2, `${spy.statements()} statements for ${N} screens`);
      const rows = await store.db.query<{ payment_id: string; amount: string }>('SELECT payment_id, amount::text FROM risk_evaluations WHERE payment_id = ANY($1::text[]) ORDER BY amount', [ids]);
      assert.deepEqual(rows.map((r) => r.payment_id), ids);
      const cards = await store.db.query<{ n: number }>("SELECT count(DISTINCT key)::int AS n FROM risk_velocity WHERE dimension = 'card' AND key LIKE 'card-%'");
      assert.equal(cards[0]!.n, N, 'each screen counted under its card');
    });

    it('opens every card asked for, in fewer statements than cards; an unknown id is no card', async () => {
      const pans = Array.from({ length: N }, (_, i) => `41111111111${String(10000 + i)}`.slice(0, 16));
      const stored = await Promise.all(pans.map((pan) => storeCard(store.db, TEST_KEYRING, { id: randomUUID(), merchantId, pan, expMonth: '01', expYear: '2038', now: new Date() })));
      const spy = counting(store.db);
      const loaded = await Promise.all([...stored.map((c) => loadCard(spy.db, TEST_KEYRING, c.id)), loadCard(spy.db, TEST_KEYRING, randomUUID())]);
      assert.ok(spy.statements() < N / 2, `${spy.statements()} statements for ${N + 1} reads`);
      assert.deepEqual(loaded.slice(0, N).map((c) => c?.pan()), pans);
      assert.equal(loaded[N], undefined);
    });

    it('inside a transaction, records and reads at once on its connection', async () => {
      const [card] = await Promise.all([storeCard(store.db, TEST_KEYRING, { id: randomUUID(), merchantId, pan: '4242424242424242', expMonth: '02', expYear: '2039', now: new Date() })]);
      const paymentId = randomUUID();
      await store.db.transaction(async (tx) => {
        await recordScreen(tx, screenOf(paymentId, merchantId, 99));
        assert.equal((await loadCard(tx, TEST_KEYRING, card!.id))?.pan(), '4242424242424242');
        assert.equal((await tx.query('SELECT 1 FROM risk_evaluations WHERE payment_id = $1', [paymentId])).length, 1);
      });
    });
  });
}
