import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { groupCommit, jsonRows, jsonRowsParam } from '../../src/store/group-commit.ts';
import { insertMerchant, insertMid } from '../../src/store/merchants-repo.ts';
import { getPayment, insertPaymentWithTransaction, listTransactions, updatePayment, updatePaymentAndTransaction, type NewPayment, type OutboxOf } from '../../src/store/payments-repo.ts';
import type { Payment } from '../../src/domain/model/payment.ts';
import { getSession, insertSessionWithPayment, type SessionRequest } from '../../src/store/sessions-repo.ts';
import { openTestStore, storeKinds, type TestStore } from '../support/stores.ts';
import { TEST_KEYRING } from '../support/keyring.ts';

/** A statement log for groupCommit's two ways of writing. */
function recorder(failing = new Set<number>(), hold?: Promise<void>) {
  const statements: { kind: 'one' | 'many'; items: number[] }[] = [];
  // A statement takes 5 ms, or until `hold` settles (so a test can keep it in flight however slow the machine).
  const tick = () => hold ?? new Promise((r) => setTimeout(r, 5));
  return {
    statements,
    one: async (item: number) => {
      statements.push({ kind: 'one', items: [item] });
      await tick();
      if (failing.has(item)) throw new Error(`item ${item} is bad`);
      return item * 10;
    },
    many: async (items: readonly number[]) => {
      statements.push({ kind: 'many', items: [...items] });
      await tick();
      if (items.some((i) => failing.has(i))) throw new Error('batch failed');
      return items.map((i) => i * 10);
    },
  };
}

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('groupCommit', () => {
  it('writes a lone item through the single-row statement', async () => {
    const r = recorder();
    const submit = groupCommit({ one: r.one, many: r.many });
    assert.equal(await submit(7), 70);
    assert.deepEqual(r.statements, [{ kind: 'one', items: [7] }]);
  });

  it('writes items submitted in one turn together, each caller getting its own answer', async () => {
    const r = recorder();
    const submit = groupCommit({ one: r.one, many: r.many });
    const answers = await Promise.all([1, 2, 3, 4].map(submit));
    assert.deepEqual(answers, [10, 20, 30, 40]);
    assert.deepEqual(r.statements, [{ kind: 'many', items: [1, 2, 3, 4] }]);
  });

  /** A promise that settles when told to: keeps the statements in flight until the items are submitted. */
  const gate = () => {
    let open!: () => void;
    const held = new Promise<void>((resolve) => (open = resolve));
    return { held, open };
  };

  it('queues items while maxInFlight statements run, and writes them in the next batch', async () => {
    const { held, open } = gate();
    const r = recorder(undefined, held);
    const submit = groupCommit({ one: r.one, many: r.many, maxInFlight: 1 });
    const first = submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    const later = [2, 3, 4].map(submit);
    open();
    assert.deepEqual(await Promise.all([first, ...later]), [10, 20, 30, 40]);
    assert.deepEqual(r.statements, [{ kind: 'one', items: [1] }, { kind: 'many', items: [2, 3, 4] }]);
  });

  it('keeps one statement of a key in flight by default: the items arriving meanwhile gather into the next', async () => {
    const { held, open } = gate();
    const r = recorder(undefined, held);
    const submit = groupCommit({ one: r.one, many: r.many });
    const answers = [submit(1)];
    for (const item of [2, 3, 4, 5]) {
      await new Promise((resolve) => setImmediate(resolve));
      answers.push(submit(item));
    }
    open();
    assert.deepEqual(await Promise.all(answers), [10, 20, 30, 40, 50]);
    assert.deepEqual(r.statements, [{ kind: 'one', items: [1] }, { kind: 'many', items: [2, 3, 4, 5] }]);
  });

  it('does not hold a key\'s items back for a statement of another key', async () => {
    const r = recorder();
    const submit = groupCommit({ one: r.one, many: r.many, keyOf: (i) => (i % 2 ? 'odd' : 'even') });
    const odd = submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    const even = submit(2);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(r.statements, [{ kind: 'one', items: [1] }, { kind: 'one', items: [2] }], 'both in flight at once');
    assert.deepEqual(await Promise.all([odd, even]), [10, 20]);
  });

  it('splits at maxBatch', async () => {
    const r = recorder();
    const submit = groupCommit({ one: r.one, many: r.many, maxBatch: 2 });
    await Promise.all([1, 2, 3, 4, 5].map(submit));
    assert.deepEqual(r.statements.map((s) => s.items), [[1, 2], [3, 4], [5]]);
  });

  it('keeps items of different keys in different statements', async () => {
    const r = recorder();
    const submit = groupCommit({ one: r.one, many: r.many, keyOf: (i) => (i % 2 ? 'odd' : 'even') });
    await Promise.all([1, 2, 3, 4].map(submit));
    assert.deepEqual(r.statements.map((s) => s.items).sort(), [[1, 3], [2, 4]]);
  });

  it('retries a failed batch item by item, so only the bad item fails', async () => {
    const r = recorder(new Set([3]));
    const submit = groupCommit({ one: r.one, many: r.many });
    const settled = await Promise.allSettled([1, 2, 3, 4].map(submit));
    assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    assert.match(String((settled[2] as PromiseRejectedResult).reason), /item 3 is bad/);
    assert.equal(r.statements.filter((s) => s.kind === 'one').length, 4);
  });
});

describe('jsonRows', () => {
  it('reads each column from its place in the row, as its type', () => {
    assert.equal(jsonRows('v', [['id', 'text'], ['amount', 'int8'], ['details', 'jsonb']]),
      '(SELECT (e->>0)::text AS id, (e->>1)::int8 AS amount, (e->>2)::jsonb AS details FROM jsonb_array_elements($1::jsonb) AS e) AS v');
  });

  it('sends the rows as arrays of JSON values: bigints as decimal strings, dates as instants, undefined as null', () => {
    const at = new Date('2030-01-15T10:00:00.123Z');
    const later = new Date('2030-01-15T10:00:01Z');
    const param = jsonRowsParam([['a', 12345678901234567890n, '{"k":"\\""}', at, true], ['b', undefined, null, later, at]]);
    assert.deepEqual(JSON.parse(param), [
      ['a', '12345678901234567890', '{"k":"\\""}', '2030-01-15T10:00:00.123Z', true],
      ['b', null, null, '2030-01-15T10:00:01.000Z', '2030-01-15T10:00:00.123Z'],
    ]);
  });
});

for (const { kind, skip } of kinds) {
  describe(`group commit of payment writes on ${kind}`, { skip }, () => {
    let store: TestStore;
    const merchantId = randomUUID();
    const midId = randomUUID();
    const now = new Date('2030-01-15T10:00:00Z');

    /** Statements run by the store, to tell batched writes from single ones. */
    const statements: string[] = [];
    let transactions = 0;
    const batchedStatements = () => statements.filter((text) => /^WITH [iv] AS \(SELECT \* FROM (unnest\(|\(SELECT [^]*? FROM jsonb_array_elements\()/.test(text)).length;

    before(async () => {
      store = await openTestStore(kind);
      const query = store.db.query.bind(store.db);
      store.db.query = (text, params) => {
        statements.push(text);
        return query(text, params);
      };
      const transaction = store.db.transaction.bind(store.db);
      store.db.transaction = (fn) => transaction((tx) => (transactions++, fn)({
        query: (text, params) => {
          statements.push(text);
          return tx.query(text, params);
        },
      }));
      await insertMerchant(store.db, TEST_KEYRING, { id: merchantId, name: 'Batch', key: `key-${merchantId}`, password: 'secret', sandbox: true });
      await insertMid(store.db, { id: midId, merchantId, name: 'Sandbox', connector: 'sandbox-card', paymentMode: 'SMS/DMS' });
    });
    after(() => store.dispose());

    const newPayment = (orderId: string, description = 'Batch order'): NewPayment => ({
      id: randomUUID(), merchantId, channel: 's2s_card', operation: 'purchase', orderId, amount: 1999n, currency: 'USD', description,
      status: 'prepare', auth: false, midId, pendingOperation: 'authorize', payer: { email: 'doe@example.com' },
      details: { cardMask: '411111****1111', lastTransId: 'x' }, now,
    });
    const create = (p: NewPayment) => insertPaymentWithTransaction(store.db, p, { id: randomUUID(), paymentId: p.id, type: 'sale', status: 'waiting', amount: p.amount, now });

    it('creates payments written at the same time, each with its transaction, as if written alone', async () => {
      const wanted = Array.from({ length: 30 }, (_, i) => newPayment(`order-${i}`));
      const before = batchedStatements();
      const created = await Promise.all(wanted.map(create));
      assert.ok(batchedStatements() > before, 'the inserts shared a statement');
      for (const [i, p] of created.entries()) {
        assert.equal(p.id, wanted[i]!.id);
        assert.equal(p.orderId, `order-${i}`);
        assert.equal(p.amount, 1999n);
        assert.equal(p.status, 'prepare');
        assert.equal(p.pendingOperation, 'authorize');
        assert.deepEqual(p.details, { cardMask: '411111****1111', lastTransId: 'x' });
        assert.equal(p.version, 0);
        const transactions = await listTransactions(store.db, p.id);
        assert.deepEqual(transactions.map((t) => [t.type, t.status, t.amount]), [['sale', 'waiting', 1999n]]);
      }
    });

    it('fails only the payment whose row the database rejects', async () => {
      const good = [newPayment('good-1'), newPayment('good-2')];
      const bad = newPayment('bad', 'NUL \u0000 byte');
      const settled = await Promise.allSettled([create(good[0]!), create(bad), create(good[1]!)]);
      assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled']);
      assert.equal(await getPayment(store.db, bad.id), undefined);
      assert.equal((await getPayment(store.db, good[1]!.id))?.orderId, 'good-2');
    });

    const settle = (p: Payment, status: 'settled' | 'decline', transId: string, outbox?: OutboxOf) =>
      updatePaymentAndTransaction(store.db, p.id, { status: 'prepare', pendingOperation: 'authorize' },
        status === 'settled' ? { status, capturedAmount: p.amount, pendingOperation: null, details: { rrn: '123' } } : { status, declineReason: 'Declined', pendingOperation: null },
        now, { id: transId, status: status === 'settled' ? 'success' : 'fail' }, outbox && { of: outbox, prior: p });
    /** A callback naming the payment's status as written: built from the updated payment. */
    const callbackOf: OutboxOf = (updated) => ({
      merchantId, paymentId: updated.id, url: 'https://shop.example/callback', protocol: 's2s', now,
      fields: { trans_id: updated.id, status: updated.status.toUpperCase(), version: String(updated.version) },
    });
    const callbacksOf = (paymentId: string) =>
      store.db.query<{ body: string; protocol: string }>('SELECT body, protocol FROM callbacks WHERE payment_id = $1 ORDER BY created_at', [paymentId]);

    it('applies outcomes written at the same time, each to its own payment and transaction', async () => {
      const payments = await Promise.all(Array.from({ length: 20 }, (_, i) => create(newPayment(`outcome-${i}`))));
      const transIds = await Promise.all(payments.map(async (p) => (await listTransactions(store.db, p.id))[0]!.id));
      const before = batchedStatements();
      const updated = await Promise.all(payments.map((p, i) => settle(p, i % 3 ? 'settled' : 'decline', transIds[i]!)));
      assert.ok(batchedStatements() > before, 'the updates shared a statement');
      for (const [i, u] of updated.entries()) {
        assert.ok(u, `outcome ${i} applied`);
        assert.equal(u.id, payments[i]!.id);
        assert.equal(u.status, i % 3 ? 'settled' : 'decline');
        assert.equal(u.pendingOperation, null);
        assert.equal(u.version, 1);
        assert.equal(u.capturedAmount, i % 3 ? 1999n : 0n);
        assert.equal(u.declineReason, i % 3 ? null : 'Declined');
        assert.deepEqual(u.details, i % 3 ? { cardMask: '411111****1111', lastTransId: 'x', rrn: '123' } : { cardMask: '411111****1111', lastTransId: 'x' });
        const [t] = await listTransactions(store.db, u.id);
        assert.equal(t?.status, i % 3 ? 'success' : 'fail');
      }
    });

    it('lets exactly one of two outcomes for one payment in the same batch apply (compare-and-set)', async () => {
      const p = await create(newPayment('contested'));
      const [t] = await listTransactions(store.db, p.id);
      const before = batchedStatements();
      const [a, b] = await Promise.all([settle(p, 'settled', t!.id), settle(p, 'settled', t!.id)]);
      assert.equal(batchedStatements(), before + 1, 'both outcomes went in one statement');
      assert.equal([a, b].filter(Boolean).length, 1);
      const stored = await getPayment(store.db, p.id);
      assert.equal(stored?.status, (a ?? b)?.status);
      assert.equal(stored?.version, 1);
      const [after] = await listTransactions(store.db, p.id);
      assert.equal(after?.status, stored?.status === 'settled' ? 'success' : 'fail');
    });

    it('writes the callback of each applied outcome with it, from the updated payment, and none for a lost one', async () => {
      const payments = await Promise.all(Array.from({ length: 8 }, (_, i) => create(newPayment(`callback-${i}`))));
      const transIds = await Promise.all(payments.map(async (p) => (await listTransactions(store.db, p.id))[0]!.id));
      const before = batchedStatements();
      const contested = settle(payments[0]!, 'settled', transIds[0]!, callbackOf);
      const updated = await Promise.all([contested, ...payments.map((p, i) => settle(p, 'settled', transIds[i]!, callbackOf))]);
      assert.ok(batchedStatements() > before, 'the outcomes shared a statement');
      assert.equal(updated.filter(Boolean).length, payments.length, 'one of the two outcomes of the first payment lost');
      for (const p of payments) {
        const callbacks = await callbacksOf(p.id);
        assert.deepEqual(callbacks, [{ body: `trans_id=${p.id}&status=SETTLED&version=1`, protocol: 's2s' }]);
      }
    });

    it('writes an outcome and its callback in one statement, without a transaction', async () => {
      const p = await create(newPayment('callback-one-statement'));
      const [t] = await listTransactions(store.db, p.id);
      const [statementsBefore, transactionsBefore] = [statements.length, transactions];
      const updated = await settle(p, 'settled', t!.id, callbackOf);
      assert.equal(updated?.version, 1);
      assert.equal(statements.length - statementsBefore, 1, statements.slice(statementsBefore).join('\n---\n'));
      assert.equal(transactions, transactionsBefore);
      assert.deepEqual(await callbacksOf(p.id), [{ body: `trans_id=${p.id}&status=SETTLED&version=1`, protocol: 's2s' }]);
    });

    it('builds the callback from the row written when the payment changed since it was read', async () => {
      const p = await create(newPayment('callback-written-since'));
      const [t] = await listTransactions(store.db, p.id);
      // Another write of the claimed payment (an acquirer's reference kept, say) after `p` was read.
      const since = await updatePayment(store.db, p.id, { status: 'prepare', pendingOperation: 'authorize' }, { details: { connectorRef: 'ref-1' } }, now);
      assert.equal(since?.version, 1);
      const transactionsBefore = transactions;
      const updated = await settle(p, 'settled', t!.id, callbackOf);
      assert.equal(updated?.version, 2);
      assert.equal(updated?.details.connectorRef, 'ref-1');
      assert.equal(transactions, transactionsBefore + 1, 'written again as before: the update and its callback in a transaction');
      assert.deepEqual(await callbacksOf(p.id), [{ body: `trans_id=${p.id}&status=SETTLED&version=2`, protocol: 's2s' }]);
    });

    it("keeps a caller's own version guard: an outcome guarded by a version since gone writes nothing", async () => {
      const p = await create(newPayment('callback-caller-version'));
      const [t] = await listTransactions(store.db, p.id);
      const stale = await updatePaymentAndTransaction(store.db, p.id, { status: 'prepare', pendingOperation: 'authorize', version: 7 },
        { status: 'settled', pendingOperation: null }, now, { id: t!.id, status: 'success' }, { of: callbackOf, prior: p });
      assert.equal(stale, undefined);
      assert.equal((await getPayment(store.db, p.id))?.status, 'prepare');
      assert.deepEqual(await callbacksOf(p.id), []);
      const held = await updatePaymentAndTransaction(store.db, p.id, { status: 'prepare', pendingOperation: 'authorize', version: 0 },
        { status: 'settled', pendingOperation: null }, now, { id: t!.id, status: 'success' }, { of: callbackOf, prior: p });
      assert.equal(held?.version, 1);
      assert.deepEqual(await callbacksOf(p.id), [{ body: `trans_id=${p.id}&status=SETTLED&version=1`, protocol: 's2s' }]);
    });

    it('builds the callback from the payment exactly as the database gives the updated row back', async () => {
      // Keys jsonb orders differently from JavaScript (by length, then bytes; digits-only keys), nested values,
      // undefined members and non-ASCII keys: the payment the callback is built from must be the row returned.
      const key = fc.oneof(fc.constantFrom('a', 'bb', 'z', '10', '2', 'éa', 'b€', 'cardMask', 'lastTransId', 'rrn', 'Ω'), fc.string({ minLength: 1, maxLength: 6 }));
      const json = fc.letrec((tie) => ({
        value: fc.oneof({ maxDepth: 2 }, fc.string({ maxLength: 5 }), fc.integer(), fc.boolean(), fc.constant(null), tie('object'), fc.array(tie('value'), { maxLength: 3 })),
        object: fc.dictionary(key, tie('value'), { maxKeys: 5 }),
      }));
      const object = json.object as fc.Arbitrary<Record<string, unknown>>;
      // What JSON.stringify writes otherwise than it holds: undefined left out, a date as its ISO text, NaN as null.
      const patchDetails = fc.dictionary(key, fc.oneof(json.value, fc.constant(undefined), fc.date({ noInvalidDate: true }), fc.constant(Number.NaN), fc.array(fc.constant(undefined), { maxLength: 2 })), { maxKeys: 4 });
      const serialized = (payment: Payment) => JSON.stringify(payment, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
      await fc.assert(fc.asyncProperty(object, object, object, patchDetails, async (details, payer, customData, patched) => {
        if (Object.values({ ...details, ...payer, ...customData, ...patched }).some((v) => JSON.stringify(v)?.includes('\\u0000'))) return;
        const p = await create({ ...newPayment('callback-exact'), details, payer, customData });
        const [t] = await listTransactions(store.db, p.id);
        let built: Payment | undefined;
        const updated = await updatePaymentAndTransaction(store.db, p.id, { status: 'prepare', pendingOperation: 'authorize' },
          { status: 'settled', capturedAmount: p.amount, pendingOperation: null, details: patched }, now, { id: t!.id, status: 'success' },
          { of: (u) => { built = u; return undefined; }, prior: p });
        assert.ok(updated && built);
        assert.equal(serialized(built), serialized(updated));
      }), { numRuns: kind === 'pglite' ? 15 : 40 });
    });

    it('writes nothing when building a callback fails, and only that outcome fails', async () => {
      const [good, bad] = await Promise.all([create(newPayment('callback-good')), create(newPayment('callback-bad'))]);
      const [goodTx] = await listTransactions(store.db, good!.id);
      const [badTx] = await listTransactions(store.db, bad!.id);
      const failing: OutboxOf = () => {
        throw new Error('no callback for you');
      };
      const settled = await Promise.allSettled([settle(good!, 'settled', goodTx!.id, callbackOf), settle(bad!, 'settled', badTx!.id, failing)]);
      assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'rejected']);
      assert.equal((await getPayment(store.db, bad!.id))?.status, 'prepare');
      assert.deepEqual(await callbacksOf(bad!.id), []);
      assert.equal((await getPayment(store.db, good!.id))?.status, 'settled');
      assert.equal((await callbacksOf(good!.id)).length, 1);
    });

    it('leaves a payment whose expectation no longer holds untouched', async () => {
      const p = await create(newPayment('stale'));
      const [t] = await listTransactions(store.db, p.id);
      const fresh = await create(newPayment('fresh'));
      const [ft] = await listTransactions(store.db, fresh.id);
      assert.ok(await settle(p, 'settled', t!.id));
      const [again, other] = await Promise.all([settle(p, 'decline', t!.id), settle(fresh, 'settled', ft!.id)]);
      assert.equal(again, undefined);
      assert.equal(other?.status, 'settled');
      assert.equal((await getPayment(store.db, p.id))?.status, 'settled');
    });

    it('opens sessions opened at the same time, each with its first payment', async () => {
      const request: SessionRequest = { methods: ['card'], parameters: {}, successUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/cancel', reqToken: false, recurringInit: false, auth: false };
      const wanted = Array.from({ length: 12 }, (_, i) => {
        const payment = { ...newPayment(`session-order-${i}`), channel: 'checkout' as const, pendingOperation: undefined, sessionId: randomUUID() };
        const session = { id: payment.sessionId, merchantId, operation: 'purchase' as const, orderNumber: `session-order-${i}`, amount: 1999n, currency: 'USD', description: 'Batch order', request, expiresAt: now, paymentId: payment.id, createdAt: now };
        return { session, payment };
      });
      const before = batchedStatements();
      await Promise.all(wanted.map(({ session, payment }) => insertSessionWithPayment(store.db, session, payment)));
      assert.ok(batchedStatements() > before, 'the sessions shared a statement');
      for (const { session, payment } of wanted) {
        const stored = await getSession(store.db, session.id);
        assert.equal(stored?.orderNumber, session.orderNumber);
        assert.equal(stored?.paymentId, payment.id);
        assert.equal(stored?.status, 'open');
        assert.deepEqual(stored?.request, request);
        const p = await getPayment(store.db, payment.id);
        assert.equal(p?.sessionId, session.id);
        assert.equal(p?.channel, 'checkout');
      }
    });
  });
}
