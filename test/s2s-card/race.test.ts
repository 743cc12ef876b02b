/**
 * Races on both stores: 100 concurrent CAPTURE, VOID and CREDITVOID requests on one authorization leave
 * exactly what the state machine allows, and captured plus refunded never exceed what was authorized,
 * in the payment row and in its transactions alike.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { getPayment, listTransactions } from '../../src/store/payments-repo.ts';
import type { Transaction } from '../../src/domain/model/payment.ts';
import { nextStatus, type PaymentStatus } from '../../src/domain/payment-state.ts';
import { followUp, sale } from './support.ts';

/** Error codes a follow-up may meet in a race, each a catalog entry the spec allows. */
const RACE_ERRORS = new Set([
  'Previous operation on this payment is not completed.',
  'Not acceptable to request the capture for payment not in pending status.',
  'Not acceptable to request the refund for payment not in settled or pending status.',
  'Not acceptable to request the refund for amount bigger than payment amount.',
  'Not acceptable to request the reversal for partial amount.',
  'Void is not allowed.',
]);

type Answer = { status: number; body: any; text: string };

/** Replays the successful transactions through the state table, as the store must have applied them. */
function replay(start: PaymentStatus, transactions: readonly Transaction[], captured: bigint): PaymentStatus {
  let status = start;
  let refunded = 0n;
  for (const t of transactions.filter((t) => t.status === 'success' && t.type !== 'auth' && t.type !== 'sale')) {
    const event = t.type === 'capture' ? 'captured' : t.type === 'reversal' ? 'reversed' : t.type === 'void' ? 'voided'
      : (refunded += t.amount) >= captured ? 'refunded_fully' : 'refunded_partially';
    const next = nextStatus(status, event);
    assert.ok(next, `${status} -${event}-> is not in the state table`);
    status = next;
  }
  return status;
}

function checkAnswers(answers: readonly Answer[]): void {
  for (const a of answers) {
    assert.ok(a.status < 500, a.text);
    if (a.status === 200) continue;
    assert.equal(a.body.result, 'ERROR', a.text);
    assert.ok(RACE_ERRORS.has(a.body.error_message), a.text);
  }
}

/** "CAPTURE SUCCESS x1, ..." for a look at what a run did. */
const tally = (answers: readonly Answer[]) => {
  const counts = new Map<string, number>();
  for (const a of answers) {
    const key = a.status === 200 ? `${a.body.action} ${a.body.result}` : a.body.error_message;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return Object.fromEntries(counts);
};

const sum = (ts: readonly Transaction[], type: string) => ts.filter((t) => t.type === type && t.status === 'success').reduce((s, t) => s + t.amount, 0n);

for (const { kind, skip } of await storeKinds()) {
  describe(`S2S CARD races (${kind})`, { skip }, () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway(kind);
    });
    after(() => gw.close());

    it('100 concurrent CAPTURE, VOID and CREDITVOID on one authorization', async () => {
      const id = (await sale(gw, { auth: 'Y', order_amount: '10.00' })).body.trans_id as string;
      const requests: Record<number, () => Promise<Answer>> = {
        0: () => followUp(gw, 'CAPTURE', id),
        1: () => followUp(gw, 'CAPTURE', id, { amount: '6.00' }),
        2: () => followUp(gw, 'VOID', id),
        3: () => followUp(gw, 'CREDITVOID', id, { amount: '3.00' }),
        4: () => followUp(gw, 'CREDITVOID', id),
      };
      const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => requests[i % 5]!()));
      checkAnswers(answers);
      if (process.env.RACE_DEBUG) console.log(tally(answers));

      const payment = await getPayment(gw.store.db, id);
      const transactions = await listTransactions(gw.store.db, id);
      assert.ok(payment);
      assert.equal(payment.pendingOperation, null, 'no operation left in flight');
      assert.equal(transactions.filter((t) => t.status === 'waiting').length, 0);
      // The row and the transactions tell the same story, within the authorized amount.
      assert.ok(transactions.filter((t) => t.type === 'capture' && t.status === 'success').length <= 1, 'one capture at most');
      assert.equal(sum(transactions, 'capture'), payment.capturedAmount);
      assert.equal(sum(transactions, 'refund'), payment.refundedAmount);
      assert.ok(payment.capturedAmount + payment.refundedAmount <= 2n * payment.amount);
      assert.ok(payment.capturedAmount <= payment.amount, 'captured within the authorization');
      assert.ok(payment.refundedAmount <= payment.capturedAmount, 'refunded within the captured amount');
      const reversed = sum(transactions, 'reversal') > 0n;
      assert.ok(!(reversed && payment.capturedAmount > 0n), 'a released authorization was never captured');
      assert.ok(!(sum(transactions, 'void') > 0n && payment.refundedAmount > 0n), 'a voided payment was never refunded');
      assert.equal(replay('pending', transactions, payment.capturedAmount), payment.status);
      // Each success answered maps to exactly one successful transaction.
      const ok = (action: string) => answers.filter((a) => a.body.action === action && ['SUCCESS', 'ACCEPTED'].includes(a.body.result)).length;
      assert.equal(ok('CAPTURE'), transactions.filter((t) => t.type === 'capture' && t.status === 'success').length);
      assert.equal(ok('VOID'), transactions.filter((t) => t.type === 'void' && t.status === 'success').length);
      assert.equal(ok('CREDITVOID'), transactions.filter((t) => ['refund', 'reversal'].includes(t.type) && t.status === 'success').length);
      assert.ok(answers.some((a) => a.status === 200), 'at least one request went through');
    });

    it('100 concurrent partial CREDITVOIDs never refund more than was captured', async () => {
      const id = (await sale(gw, { order_amount: '10.00' })).body.trans_id as string;
      const answers = await Promise.all(Array.from({ length: 100 }, () => followUp(gw, 'CREDITVOID', id, { amount: '0.30' })));
      checkAnswers(answers);
      const payment = await getPayment(gw.store.db, id);
      const transactions = await listTransactions(gw.store.db, id);
      assert.ok(payment && payment.refundedAmount <= payment.capturedAmount);
      assert.equal(sum(transactions, 'refund'), payment.refundedAmount);
      assert.equal(payment.refundedAmount, 30n * BigInt(answers.filter((a) => a.body.result === 'ACCEPTED').length));
      assert.equal(replay('settled', transactions, payment.capturedAmount), payment.status);
      assert.equal(payment.status, 'settled', '33 refunds of 0.30 leave 0.10 of 10.00');
    });
  });
}
