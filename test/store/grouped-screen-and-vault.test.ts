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
import { readForScreen, recordScreen, upsertListEntries, type ScreenRecord } from '../../src/store/risk-repo.ts';

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

    it('reads every screen\'s counters and list hits, in fewer statements than screens, each its own', async () => {
      // Each card screened i + 1 times (attempts counted), and a block entry for card 3 only.
      const now = new Date();
      for (let i = 0; i < N; i++) {
        await Promise.all(Array.from({ length: i + 1 }, () => recordScreen(store.db, { ...screenOf(randomUUID(), merchantId, i), keys: { merchant: merchantId, card: `read-${i}` }, card: `read-${i}`, now })));
      }
      await upsertListEntries(store.db, [{ id: randomUUID(), scope: merchantId, list: 'block', kind: 'card', value: 'read-3', reason: 'test', expiresAt: null, createdBy: null }], now);
      const spy = counting(store.db);
      const since = new Date(now.getTime() - 10 * 60_000);
      const reads = await Promise.all(Array.from({ length: N }, (_, i) => readForScreen(spy.db, ['platform', merchantId], [
        { id: 'attempts', measure: 'attempts', dimension: 'card', key: `read-${i}`, grain: 1, since, currency: '' },
        { id: 'cards', measure: 'distinct_cards', dimension: 'merchant', key: merchantId, grain: 1, since, currency: '' },
      ], { card: `read-${i}` }, `read-${i}`, now)));
      assert.ok(spy.statements() < N / 2, `${spy.statements()} statements for ${N} reads`);
      reads.forEach((read, i) => {
        assert.equal(read.counters.get('attempts')?.value, BigInt(i + 1), `card ${i}'s attempts`);
        assert.equal(read.counters.get('cards')?.memberSeen, true, `card ${i} is among the merchant's cards`);
        assert.deepEqual(read.lists.map((l) => l.value), i === 3 ? ['read-3'] : [], `card ${i}'s list hits`);
      });
      // The same read alone (one statement, the unbatched form) answers the same.
      const alone = await readForScreen(store.db, ['platform', merchantId], [{ id: 'attempts', measure: 'attempts', dimension: 'card', key: 'read-3', grain: 1, since, currency: '' }], { card: 'read-3' }, null, now);
      assert.equal(alone.counters.get('attempts')?.value, 4n);
      assert.deepEqual(alone.lists.map((l) => [l.list, l.value, l.scope]), [['block', 'read-3', 'merchant']]);
    });

    // PGlite has no JIT to switch off.
    if (kind === 'postgres') it('compiles no plan just in time (a batched read over JSON crossed jit_above_cost: 23 ms to compile 0.3 ms of work)', async () => {
      const [row] = await store.db.query<{ jit: string }>('SHOW jit');
      assert.equal(row?.jit, 'off');
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
