import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { insertMerchant, insertMid } from '../../src/store/merchants-repo.ts';
import { getPayment, insertPaymentWithTransaction, type NewPayment } from '../../src/store/payments-repo.ts';
import { openTestStore, storeKinds, type TestStore } from '../support/stores.ts';
import { TEST_KEYRING } from '../support/keyring.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`merchants and MIDs, the parents of every payment, on ${kind}`, { skip }, () => {
    let store: TestStore;
    const merchantId = randomUUID();
    const midId = randomUUID();

    before(async () => {
      store = await openTestStore(kind);
      await insertMerchant(store.db, TEST_KEYRING, { id: merchantId, name: 'Kept', key: `key-${merchantId}`, password: 'secret', sandbox: true });
      await insertMid(store.db, { id: midId, merchantId, name: 'Sandbox', connector: 'sandbox-card', paymentMode: 'SMS/DMS' });
    });
    after(() => store.dispose());

    // Their rows are not locked by foreign key checks (migration 006), so the database itself keeps them.
    it('refuses to delete a merchant or a MID, even one no payment names', async () => {
      await assert.rejects(store.db.query('DELETE FROM merchants WHERE id = $1', [merchantId]), { code: '23001' });
      await assert.rejects(store.db.query('DELETE FROM mids WHERE id = $1', [midId]), { code: '23001' });
      await assert.rejects(store.db.query('DELETE FROM merchants WHERE id = $1', [randomUUID()]), { code: '23001' });
      assert.equal((await store.db.query('SELECT 1 FROM merchants WHERE id = $1', [merchantId])).length, 1);
    });

    it('refuses to change their ids, and allows every other change', async () => {
      await assert.rejects(store.db.query('UPDATE merchants SET id = $2 WHERE id = $1', [merchantId, randomUUID()]), { code: '23001' });
      await assert.rejects(store.db.query('UPDATE mids SET id = $2 WHERE id = $1', [midId, randomUUID()]), { code: '23001' });
      await store.db.query('UPDATE merchants SET name = $2, id = id WHERE id = $1', [merchantId, 'Renamed']);
      const [row] = await store.db.query<{ name: string }>('SELECT name FROM merchants WHERE id = $1', [merchantId]);
      assert.equal(row?.name, 'Renamed');
    });

    // Transactions name their payment without a foreign key check (migration 007): payments are kept instead.
    it('refuses to delete a payment or change its id, so no transaction loses its payment', async () => {
      const id = randomUUID();
      const now = new Date('2030-01-15T10:00:00.000Z');
      await insertPaymentWithTransaction(store.db, {
        id, merchantId, midId, channel: 's2s_card', operation: 'purchase', orderId: 'o-kept', amount: 100n, currency: 'USD',
        description: 'Kept', status: 'prepare', auth: false, now,
      }, { id: randomUUID(), paymentId: id, type: 'sale', status: 'waiting', amount: 100n, now });
      await assert.rejects(store.db.query('DELETE FROM payments WHERE id = $1', [id]), { code: '23001', message: /payments rows are never deleted .*transactions refer to them/ });
      await assert.rejects(store.db.query('UPDATE payments SET id = $2 WHERE id = $1', [id, randomUUID()]), { code: '23001' });
      await store.db.query("UPDATE payments SET status = 'settled', id = id WHERE id = $1", [id]);
      const [row] = await store.db.query<{ status: string; transactions: number }>(
        'SELECT p.status, (SELECT count(*)::int FROM transactions t WHERE t.payment_id = p.id) AS transactions FROM payments p WHERE p.id = $1', [id]);
      assert.deepEqual(row, { status: 'settled', transactions: 1 });
    });

    it('answers an inserted payment exactly as the database reads it back', async () => {
      const payment: NewPayment = {
        id: randomUUID(), merchantId, midId, channel: 's2s_card', operation: 'purchase', orderId: 'o-1', amount: 1999n, currency: 'USD',
        description: 'Read back', status: 'prepare', auth: false, pendingOperation: 'authorize',
        payer: { email: 'doe@example.com', firstName: 'John', phone: undefined }, customData: { b: 1, a: [true, null] },
        details: { cardMask: '411111******1111', browser: undefined }, now: new Date('2030-01-15T10:00:00.123Z'),
      };
      const inserted = await insertPaymentWithTransaction(store.db, payment, { id: randomUUID(), paymentId: payment.id, type: 'sale', status: 'waiting', amount: 1999n, now: payment.now });
      assert.deepEqual(inserted, await getPayment(store.db, payment.id));
    });
  });
}
