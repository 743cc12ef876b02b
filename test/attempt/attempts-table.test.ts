/**
 * One row per acquirer attempt (issue 24, payment_attempts): written with the payment's own statements on every
 * card path, read by the admin payment view. Over HTTP on both stores: a cascade (first MID declines, the second
 * approves), a plain sale, a hard decline, a 3-D Secure step completed later, concurrent sales sharing the
 * group-committed statements; and migration 030's backfill of the lists the payments' JSON used to hold.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds, openTestStore } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { adminCall, merchantWith, tokenFor } from '../admin/config-support.ts';
import { sale } from '../s2s-card/support.ts';
import { newId } from '../../src/domain/ids.ts';
import { migrate } from '../../src/store/migrate.ts';
import { insertMerchant, insertMid } from '../../src/store/merchants-repo.ts';
import { insertPayment, insertTransaction } from '../../src/store/payments-repo.ts';
import { TEST_KEYRING } from '../support/keyring.ts';

interface Row { id: string; seq: number; mid_id: string; connector: string; why: string; status: string; decline_code: string | null; retry: string | null; stop: string | null; acquirer_ref: string | null; amount: string; currency: string; finished: boolean }

for (const { kind, skip } of await storeKinds()) {
  describe(`payment attempts (${kind})`, { skip }, () => {
    let t: TestGateway;
    let viewer: string;
    const ADMIN = `admin-${kind}-token`;

    before(async () => {
      t = await startTestGateway(kind, { adminToken: ADMIN });
      viewer = await tokenFor(t, 'viewer');
    });
    after(async () => t?.close());

    const rowsOf = (paymentId: string) => t.store.db.query<Row>(
      `SELECT id, seq, mid_id, connector, why, status, decline_code, retry, stop, acquirer_ref, amount::text AS amount, currency, finished_at IS NOT NULL AS finished
       FROM payment_attempts WHERE payment_id = $1 ORDER BY seq`, [paymentId]);
    const detail = async (id: string) => {
      const res = await adminCall(t.baseUrl, 'GET', `/admin/v1/payments/${id}`, viewer);
      assert.equal(res.status, 200, res.text);
      return res.body;
    };

    it('a cascaded payment has two attempt rows in order, with their outcomes, and the admin view shows them', async () => {
      const [a, b] = [newId(), newId()];
      const m = await merchantWith(t, [{ id: a, priority: 30, decline: 'do_not_honor' }, { id: b, priority: 20 }]);
      const res = await sale(t, { order_amount: '12.34' }, m);
      assert.equal(res.body.status, 'SETTLED', res.text);
      const rows = await rowsOf(res.body.trans_id);
      assert.deepEqual(rows.map((r) => [r.seq, r.mid_id, r.connector, r.why, r.status, r.decline_code, r.retry, r.stop, r.finished]), [
        [1, a, 'sandbox-card', 'routed', 'declined', 'do_not_honor', 'other_mid', null, true],
        [2, b, 'sandbox-card', 'cascade', 'approved', null, null, null, true],
      ]);
      assert.deepEqual(rows.map((r) => [r.amount, r.currency]), [['1234', 'USD'], ['1234', 'USD']]);
      assert.ok(rows[1]!.acquirer_ref, 'the approving acquirer\'s reference');
      const v = await detail(res.body.trans_id);
      // Each attempt is its own transaction: the declined one failed, the approving one succeeded.
      assert.deepEqual(rows.map((r) => v.transactions.find((x: { id: string }) => x.id === r.id)?.status), ['fail', 'success']);
      assert.deepEqual(v.routing.attempts, [
        { mid_id: a, trans_id: rows[0]!.id, why: 'routed', outcome: 'declined', code: 'do_not_honor', retry: 'other_mid', stop: null },
        { mid_id: b, trans_id: rows[1]!.id, why: 'cascade', outcome: 'approved', code: null, retry: null, stop: null },
      ]);
      const [stored] = await t.store.db.query<{ attempts: unknown }>(`SELECT details->'routing'->'attempts' AS attempts FROM payments WHERE id = $1`, [res.body.trans_id]);
      assert.equal(stored!.attempts, null, 'no list inside the payment\'s JSON any more');
    });

    it('a plain sale has one attempt; a hard decline records why the cascade stopped', async () => {
      const [a, b] = [newId(), newId()];
      const ok = await sale(t, {}, await merchantWith(t, [{ id: a, priority: 30 }, { id: b, priority: 20 }]));
      assert.equal(ok.body.status, 'SETTLED', ok.text);
      assert.deepEqual((await rowsOf(ok.body.trans_id)).map((r) => [r.mid_id, r.why, r.status, r.finished]), [[a, 'routed', 'approved', true]]);
      const [c, d] = [newId(), newId()];
      const hard = await sale(t, {}, await merchantWith(t, [{ id: c, priority: 30, decline: 'lost_or_stolen' }, { id: d, priority: 20 }]));
      assert.equal(hard.body.status, 'DECLINED', hard.text);
      assert.deepEqual((await rowsOf(hard.body.trans_id)).map((r) => [r.mid_id, r.status, r.decline_code, r.retry, r.stop]), [[c, 'declined', 'lost_or_stolen', 'no', 'hard_decline']]);
      assert.deepEqual((await detail(hard.body.trans_id)).routing.attempts.map((x: { stop: string }) => x.stop), ['hard_decline']);
    });

    it('a 3-D Secure step keeps its attempt open until the payer completes it', async () => {
      const res = await sale(t, { card_exp_month: '05' });
      assert.equal(res.body.status, '3DS', res.text);
      const id = res.body.trans_id;
      assert.deepEqual((await rowsOf(id)).map((r) => [r.status, r.finished]), [['challenge', false]]);
      const acs = await fetch(`${t.baseUrl}/sandbox/acs/${id}/complete`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=submit' });
      await acs.arrayBuffer();
      const rows = await rowsOf(id);
      assert.deepEqual(rows.map((r) => [r.seq, r.why, r.status, r.finished]), [[1, 'routed', 'approved', true]], 'the completion continues the same attempt');
    });

    it('opens an attempt without a foreign key check on its payment (migration 032, as transactions: 007)', async () => {
      const keys = await t.store.db.query(`SELECT conname FROM pg_constraint WHERE conrelid = 'payment_attempts'::regclass AND contype = 'f'`);
      assert.deepEqual(keys, []);
    });

    it('concurrent sales, written by the group-committed statements, each get exactly their own attempt', async () => {
      const m = await merchantWith(t, [{ id: newId(), priority: 10 }]);
      const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => sale(t, { order_amount: `${i + 1}.00` }, m)));
      for (const [i, res] of answers.entries()) {
        assert.equal(res.body.status, 'SETTLED', res.text);
        const rows = await rowsOf(res.body.trans_id);
        assert.deepEqual(rows.map((r) => [r.seq, r.status, r.amount, r.finished]), [[1, 'approved', String((i + 1) * 100), true]]);
      }
    });
  });

  describe(`migration 030 backfill (${kind})`, { skip }, () => {
    it('moves details.routing.attempts into rows, in order, and out of the JSON', async () => {
      const store = await openTestStore(kind);
      try {
        const db = store.db;
        // The store as it was before 030: the attempts of a cascaded payment in its JSON, another routed once.
        await db.query('DROP TABLE payment_attempts');
        await db.query('DELETE FROM schema_migrations WHERE version = 30');
        const [merchant, a, b, cascaded, single, t1, t2, t3] = [newId(), newId(), newId(), newId(), newId(), newId(), newId(), newId()];
        const at = new Date('2026-11-20T10:00:00Z');
        await insertMerchant(db, TEST_KEYRING, { id: merchant, name: 'Old Shop', key: `k-${merchant}`, password: 'p', sandbox: true });
        for (const id of [a, b]) await insertMid(db, { id, merchantId: merchant, name: id, connector: 'sandbox-card', paymentMode: 'SMS/DMS', cardOnFileSupport: false, settings: {}, sealedCredentials: null });
        const list = [
          { midId: a, transId: t1, why: 'routed', outcome: 'declined', code: 'do_not_honor', retry: 'other_mid' },
          { midId: b, transId: t2, why: 'cascade', outcome: 'approved' },
        ];
        const payment = (id: string, routing: Record<string, unknown>) => insertPayment(db, {
          id, merchantId: merchant, channel: 's2s_card', operation: 'purchase', orderId: id, amount: 500n, currency: 'USD', description: 'old', status: 'settled', auth: false,
          midId: b, details: { routing: { intent: 'sale', midId: b, rule: 'highest_priority', considered: [], ...routing } }, now: at,
        });
        await payment(cascaded, { attempts: list });
        await payment(single, {});
        await insertTransaction(db, { id: t1, paymentId: cascaded, type: 'sale', status: 'fail', amount: 500n, now: at });
        await insertTransaction(db, { id: t2, paymentId: cascaded, type: 'sale', status: 'success', amount: 500n, now: new Date(at.getTime() + 1000) });
        await insertTransaction(db, { id: t3, paymentId: single, type: 'sale', status: 'success', amount: 500n, now: at });

        assert.deepEqual(await migrate(db), [30]);
        const rows = await db.query<{ id: string; payment_id: string; seq: number; mid_id: string; connector: string; why: string; status: string; decline_code: string | null; retry: string | null; amount: string; currency: string; created_at: Date; finished: boolean }>(
          'SELECT *, amount::text AS amount, finished_at IS NOT NULL AS finished FROM payment_attempts ORDER BY payment_id, seq');
        assert.deepEqual(rows.map((r) => [r.id, r.payment_id, r.seq, r.mid_id, r.connector, r.why, r.status, r.decline_code, r.retry, r.amount, r.currency, r.finished]), [
          [t1, cascaded, 1, a, 'sandbox-card', 'routed', 'declined', 'do_not_honor', 'other_mid', '500', 'USD', true],
          [t2, cascaded, 2, b, 'sandbox-card', 'cascade', 'approved', null, null, '500', 'USD', true],
        ], 'only the recorded lists: a payment routed once had none');
        assert.equal(new Date(rows[1]!.created_at).getTime(), at.getTime() + 1000, 'dated by its transaction');
        const details = await db.query<{ id: string; routing: Record<string, unknown> }>(`SELECT id, details->'routing' AS routing FROM payments ORDER BY id`);
        for (const d of details) {
          assert.equal('attempts' in d.routing, false, d.id);
          assert.equal(d.routing.midId, b, 'the rest of the decision stays');
        }
      } finally {
        await store.dispose();
      }
    });
  });
}
