/**
 * The shared card service paths this issue reshaped, checked directly on both stores: authorizeCard still
 * claims a stored payment (the Checkout path), createAndAuthorize writes payment and transaction at once, and
 * an outcome lands in one statement or, with a callback to write, in one transaction.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { authorizeCard, createAndAuthorize } from '../../src/services/attempt/index.ts';
import { getPayment, insertPayment, listTransactions, type NewPayment } from '../../src/store/payments-repo.ts';
import { newId } from '../../src/domain/ids.ts';
import { CARD } from './support.ts';

for (const { kind, skip } of await storeKinds()) {
  describe(`shared card services (${kind})`, { skip }, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway(kind, { notificationUrl: 'http://127.0.0.1:9/never' });
    });
    after(() => gw.close());

    const merchant = async () => (await gw.gateway.ctx.merchants.byMerchantKey(gw.merchant.key))!;
    const newPayment = (m: { id: string }, channel: 'checkout' | 's2s_card'): NewPayment => ({
      id: newId(), merchantId: m.id, channel, operation: 'purchase', orderId: `o-${newId()}`, amount: 500n, currency: 'EUR',
      description: 'd', status: 'prepare', auth: false, now: new Date(),
    });
    const card = (expMonth: string) => ({ kind: 'card' as const, card: { pan: CARD, expMonth, expYear: '2038', cvv: '123' } });

    it('authorizeCard claims a stored payment, vaults the card and settles it', async () => {
      const { merchant: m, mids } = await merchant();
      const stored = await insertPayment(gw.store.db, newPayment(m, 'checkout'));
      const step = await authorizeCard(gw.gateway.ctx, { merchant: m, mids, payment: stored, source: card('01'), intent: 'sale', tokenize: true });
      assert.equal(step.kind, 'final');
      const payment = await getPayment(gw.store.db, stored.id);
      assert.equal(payment?.status, 'settled');
      assert.ok(payment?.vaultId, 'the card was vaulted');
      assert.match(payment?.cardToken ?? '', /^[0-9a-f]{64}$/);
      assert.deepEqual((await listTransactions(gw.store.db, stored.id)).map((t) => [t.type, t.status]), [['sale', 'success']]);
    });

    it('authorizeCard refuses a payment that is no longer in prepare', async () => {
      const { merchant: m, mids } = await merchant();
      const stored = await insertPayment(gw.store.db, newPayment(m, 'checkout'));
      await authorizeCard(gw.gateway.ctx, { merchant: m, mids, payment: stored, source: card('01'), intent: 'sale', tokenize: false });
      await assert.rejects(authorizeCard(gw.gateway.ctx, { merchant: m, mids, payment: stored, source: card('01'), intent: 'sale', tokenize: false }), /Session can not be paid/);
    });

    it('createAndAuthorize writes the payment claimed, with its transaction, and applies the outcome with its callback', async () => {
      const { merchant: m, mids } = await merchant();
      const p = newPayment(m, 's2s_card');
      const step = await createAndAuthorize(gw.gateway.ctx, { merchant: m, mids, payment: p, source: { kind: 'transient', card: card('02').card }, intent: 'sale', tokenize: false });
      assert.equal(step.payment.status, 'decline');
      const payment = await getPayment(gw.store.db, p.id);
      assert.equal(payment?.vaultId, null);
      assert.equal(payment?.pendingOperation, null);
      assert.deepEqual((await listTransactions(gw.store.db, p.id)).map((t) => [t.type, t.status]), [['sale', 'fail']]);
      const callbacks = await gw.store.db.query<{ fields: Record<string, string> }>('SELECT fields FROM callbacks WHERE payment_id = $1', [p.id]);
      assert.equal(callbacks.length, 1);
      assert.equal(callbacks[0]?.fields.result, 'DECLINED');
    });
  });
}
