/** Issue 31 items 6 and 7: statuses and 3-D Secure in words, and a callback's delivery state with its due time never in the past. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statusInWords, threeDsInWords, ABANDONED_AFTER_MS } from '../../src/domain/payment-timeline.ts';
import { deliveryOf, callbackEventOf } from '../../src/domain/callback-delivery.ts';

const now = new Date('2026-11-29T06:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const payment = (over: Partial<Parameters<typeof statusInWords>[0]>) => ({
  status: 'settled' as const, amount: 2000n, currency: 'EUR', capturedAmount: 2000n, refundedAmount: 0n, declineReason: null, createdAt: ago(60_000), updatedAt: ago(60_000), ...over,
});

describe('statuses in words', () => {
  it('says paid, partially refunded, authorized, declined with the reason', () => {
    assert.equal(statusInWords(payment({}), now).words, 'Paid');
    assert.deepEqual(statusInWords(payment({ refundedAmount: 500n }), now), { code: 'settled', words: 'Partially refunded', explanation: '5.00 EUR of 20.00 EUR refunded.' });
    assert.equal(statusInWords(payment({ status: 'pending', capturedAmount: 0n }), now).words, 'Authorized');
    assert.equal(statusInWords(payment({ status: 'decline', declineReason: 'Insufficient funds' }), now).explanation, 'Insufficient funds.');
  });

  it('calls a payment waiting for its payer for over an hour abandoned, but not one held for risk review', () => {
    assert.equal(statusInWords(payment({ status: '3ds', updatedAt: ago(ABANDONED_AFTER_MS - 1000) }), now).words, 'Waiting for 3-D Secure');
    assert.equal(statusInWords(payment({ status: '3ds', updatedAt: ago(ABANDONED_AFTER_MS + 1000) }), now).words, 'Abandoned at 3-D Secure');
    assert.equal(statusInWords(payment({ status: 'prepare', updatedAt: ago(2 * ABANDONED_AFTER_MS) }), now).words, 'Abandoned');
    assert.equal(statusInWords(payment({ status: 'prepare', updatedAt: ago(2 * ABANDONED_AFTER_MS) }), now, { review: { deadline: null } }).words, 'Held for risk review');
  });

  it('calls a Checkout session\'s payment abandoned once its session expired, not after a fixed hour', () => {
    const created = payment({ status: 'prepare', updatedAt: ago(3 * ABANDONED_AFTER_MS) });
    const long = statusInWords(created, now, { sessionExpiresAt: new Date(now.getTime() + 60_000) });
    assert.deepEqual(long, { code: 'prepare', words: 'Waiting for the payer', explanation: 'Created; the payer has not paid yet (the Checkout session expires at 2026-11-29T06:01:00.000Z).' });
    const short = statusInWords(payment({ status: 'prepare', updatedAt: ago(20 * 60_000) }), now, { sessionExpiresAt: ago(5 * 60_000) });
    assert.deepEqual(short, { code: 'prepare', words: 'Abandoned', explanation: 'The payer never finished paying: the Checkout session expired at 2026-11-29T05:55:00.000Z. No money moved.' });
    assert.equal(statusInWords(created, now, { sessionExpiresAt: now }).words, 'Abandoned', 'expired at this very instant');
    assert.equal(statusInWords(created, now, { review: { deadline: null }, sessionExpiresAt: ago(1000) }).words, 'Held for risk review');
  });

  it('explains 3-D Secure', () => {
    assert.equal(threeDsInWords({ threeDSServerTransID: 'a', dsTransID: 'b', acsTransID: 'c', eci: '05', transStatus: 'Y', protocolVersion: '2.2.0', authenticationFlow: 'Challenge' }),
      '3-D Secure 2.2.0, challenge (the payer confirmed at their bank): authenticated: the payer confirmed it (ECI 05)');
    assert.equal(threeDsInWords(null), null);
  });
});

describe('a callback\'s delivery state', () => {
  const base = { status: 'pending' as const, attempts: 0, nextAttemptAt: ago(60_000), lockedUntil: null, behind: null, blockedUntil: null };
  it('is due now, never in the past', () => {
    assert.deepEqual(deliveryOf(base, now), { state: 'due', dueAt: now });
  });
  it('waits behind an earlier callback, due no earlier than that one\'s next attempt', () => {
    const later = new Date(now.getTime() + 600_000);
    const d = deliveryOf({ ...base, behind: { id: 'x', attempts: 3, nextAttemptAt: later, lastError: 'HTTP 500' } }, now);
    assert.deepEqual(d, { state: 'waiting_behind', dueAt: later });
    const stuck = deliveryOf({ ...base, behind: { id: 'x', attempts: 3, nextAttemptAt: ago(5000), lastError: null } }, now);
    assert.deepEqual(stuck.dueAt, now, 'an earlier one due in the past: not before now');
  });
  it('waits for its URL\'s block, retries after a failure, is done once delivered or failed', () => {
    const until = new Date(now.getTime() + 900_000);
    assert.deepEqual(deliveryOf({ ...base, blockedUntil: until }, now), { state: 'blocked', dueAt: until });
    assert.deepEqual(deliveryOf({ ...base, blockedUntil: ago(1000) }, now), { state: 'due', dueAt: now }, 'a block that ended');
    assert.equal(deliveryOf({ ...base, attempts: 2, nextAttemptAt: until }, now).state, 'retrying');
    assert.equal(deliveryOf({ ...base, lockedUntil: until }, now).state, 'sending');
    assert.deepEqual(deliveryOf({ ...base, status: 'failed' }, now), { state: 'failed', dueAt: null });
  });
  it('names the event of Checkout, S2S and test callbacks', () => {
    assert.deepEqual(callbackEventOf({ type: 'refund', status: 'success' }), { type: 'refund', status: 'success' });
    assert.deepEqual(callbackEventOf({ action: 'CREDITVOID', status: 'SETTLED' }), { type: 'creditvoid', status: 'settled' });
    assert.deepEqual(callbackEventOf({}), { type: 'unknown', status: null });
  });
});
