/** Idempotency-Key: same key and body replay the stored answer; another body is refused. */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { checkoutHash } from '../support/merchant.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`Idempotency-Key (${kind})`, { skip }, () => {
    let t: TestGateway;
    before(async () => {
      t = await startTestGateway(kind);
    });
    after(() => t?.close());

    const body = (number: string) => {
      const order = { number, amount: '5.00', currency: 'USD', description: 'Idempotent order' };
      return {
        merchant_key: t.merchant.key, operation: 'purchase', order,
        success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/no',
        hash: checkoutHash(t.merchant.password, order.number, order.amount, order.currency, order.description),
      };
    };

    it('replays the first answer for a repeated request, and opens one session only', async () => {
      const first = await t.postJson('/api/v1/session', body('idem-1'), { 'idempotency-key': 'k-1' });
      const second = await t.postJson('/api/v1/session', body('idem-1'), { 'idempotency-key': 'k-1' });
      assert.equal(first.status, 200);
      assert.deepEqual(second.body, first.body);
      const rows = await t.store.db.query('SELECT id FROM sessions WHERE order_number = $1', ['idem-1']);
      assert.equal(rows.length, 1);
    });

    it('refuses the same key with another body', async () => {
      await t.postJson('/api/v1/session', body('idem-2'), { 'idempotency-key': 'k-2' });
      const other = await t.postJson('/api/v1/session', body('idem-3'), { 'idempotency-key': 'k-2' });
      assert.equal(other.status, 422);
      assert.equal(other.body.error_code, '100000');
    });

    it('keeps keys per merchant', async () => {
      const m2 = await t.addMerchant();
      const order = { number: 'idem-4', amount: '5.00', currency: 'USD', description: 'Idempotent order' };
      const mine = await t.postJson('/api/v1/session', body('idem-4'), { 'idempotency-key': 'shared' });
      const theirs = await t.postJson('/api/v1/session', { ...body('idem-4'), merchant_key: m2.key, hash: checkoutHash(m2.password, order.number, order.amount, order.currency, order.description) }, { 'idempotency-key': 'shared' });
      assert.equal(mine.status, 200);
      assert.equal(theirs.status, 200);
      assert.notEqual(mine.body.redirect_url, theirs.body.redirect_url);
    });
  });
}
