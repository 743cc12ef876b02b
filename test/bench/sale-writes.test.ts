/**
 * The bench's "SALE's writes alone" (bench/sale-writes.ts): a real SALE's two store writes, recorded from the
 * payment-writes channel and replayed with fresh ids, write what the SALE wrote, as new payments of their own.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { sale } from '../s2s-card/support.ts';
import { recordSaleWrites, saleWritesReplay } from '../../bench/sale-writes.ts';

/** The rows a payment has in each table its SALE writes. */
async function rowsOf(gw: TestGateway, paymentId: string) {
  const count = async (table: string) => Number((await gw.store.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table} WHERE payment_id = $1`, [paymentId]))[0]?.n);
  const [payment] = await gw.store.db.query<{ status: string; amount: string; pending_operation: string | null }>('SELECT status, amount::text, pending_operation FROM payments WHERE id = $1', [paymentId]);
  return {
    payment,
    transactions: await count('transactions'),
    attempts: await count('payment_attempts'),
    riskEvaluations: await count('risk_evaluations'),
    ledgerEntries: await count('ledger_entries'),
  };
}

for (const { kind, skip } of await storeKinds()) {
  describe(`the SALE's writes replayed alone (${kind})`, { skip }, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway(kind);
    });
    after(async () => {
      await gw.close();
    });

    it('records a SALE\'s insert and update and replays them as new settled payments with the same rows', async () => {
      const recording = recordSaleWrites();
      const res = await sale(gw);
      const recorded = recording.stop();
      assert.equal(res.body.status, 'SETTLED', res.text);
      assert.equal(recorded.insert[1].id, res.body.trans_id);
      const original = await rowsOf(gw, res.body.trans_id);

      const replay = saleWritesReplay(gw.store.db, recorded);
      const before = (await gw.store.db.query<{ id: string }>('SELECT id FROM payments')).map((r) => r.id);
      assert.deepEqual(await Promise.all([replay(), replay()]), ['settled', 'settled']);
      const added = (await gw.store.db.query<{ id: string }>('SELECT id FROM payments')).map((r) => r.id).filter((id) => !before.includes(id));
      assert.equal(added.length, 2);
      for (const id of added) assert.deepEqual(await rowsOf(gw, id), original);
      // The SALE's own payment is left as it was.
      assert.deepEqual(await rowsOf(gw, res.body.trans_id), original);
    });

    it('says so when no SALE was written while recording', () => {
      assert.throws(() => recordSaleWrites().stop(), /no SALE was written while recording/);
    });
  });
}
