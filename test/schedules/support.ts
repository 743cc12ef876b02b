/**
 * For the runner tests: chains put on a schedule through the real requests, and the exactly-once invariant
 * read back from the store: every payment number of every chain claimed once, with one payment, one final
 * outcome and one callback; the connector asked to charge each payment at most once.
 */
import assert from 'node:assert/strict';
import type { TestGateway, TestMerchant } from '../support/gateway.ts';
import type { Sql } from '../../src/store/database.ts';
import { initSale, newSchedule } from '../recurring/support.ts';

export interface Seeded {
  scheduleId: string;
  tokens: string[];
}

/** `n` chains on one schedule whose first payment is due today (schedule_start_date = today). */
export async function seedChains(gw: TestGateway, n: number, today: string, schedule: Record<string, string>, m: TestMerchant = gw.merchant): Promise<Seeded> {
  const scheduleId = await newSchedule(gw, schedule, m);
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await initSale(gw, { schedule_id: scheduleId, schedule_start_date: today }, m);
    if (res.body?.result !== 'SUCCESS') throw new Error(`init: ${res.text}`);
    tokens.push(res.body.recurring_token);
  }
  return { scheduleId, tokens };
}

export interface Ledger {
  /** Charge rows (subscription, seq) with a payment. */
  charges: { subscriptionId: string; seq: number; paymentId: string; status: string; pending: string | null; claimedBy: string | null; reason: string | null; callbacks: number }[];
  /** Chains and how many payment numbers each has claimed. */
  chains: { id: string; nextSeq: number }[];
}

/** A charge whose outcome is written: out of prepare (only claimed, or in flight), no operation in flight. */
export const resolved = (c: Ledger['charges'][number]): boolean => c.status !== 'prepare' && c.pending === null;

export async function ledger(db: Sql, scheduleId: string): Promise<Ledger> {
  const charges = await db.query<{ subscription_id: string; seq: number; payment_id: string; status: string; pending_operation: string | null; claimed_by: string | null; decline_reason: string | null; callbacks: string }>(
    `SELECT c.subscription_id, c.seq, c.payment_id, p.status, p.pending_operation, c.claimed_by, p.decline_reason,
       (SELECT count(*) FROM callbacks cb WHERE cb.payment_id = p.id)::text AS callbacks
     FROM schedule_charges c JOIN schedule_subscriptions s ON s.id = c.subscription_id JOIN payments p ON p.id = c.payment_id
     WHERE s.schedule_id = $1 ORDER BY c.subscription_id, c.seq`,
    [scheduleId],
  );
  const chains = await db.query<{ id: string; next_seq: number }>('SELECT id, next_seq FROM schedule_subscriptions WHERE schedule_id = $1', [scheduleId]);
  return {
    charges: charges.map((r) => ({ subscriptionId: r.subscription_id, seq: r.seq, paymentId: r.payment_id, status: r.status, pending: r.pending_operation, claimedBy: r.claimed_by, reason: r.decline_reason, callbacks: Number(r.callbacks) })),
    chains: chains.map((r) => ({ id: r.id, nextSeq: r.next_seq })),
  };
}

/**
 * No payment charged twice, none missed: each chain has payment numbers 1..(next_seq - 1), each once, each with
 * a final outcome and exactly one callback; the connector was asked at most once per payment, and exactly the
 * payments it was asked about are settled.
 */
export function assertExactlyOnce(l: Ledger, calls: readonly string[], paymentsPerChain: number): void {
  const perPayment = new Map<string, number>();
  for (const id of calls) perPayment.set(id, (perPayment.get(id) ?? 0) + 1);
  const twice = [...perPayment].filter(([, n]) => n > 1);
  assert.deepEqual(twice, [], 'no payment charged twice');
  for (const chain of l.chains) {
    const seqs = l.charges.filter((c) => c.subscriptionId === chain.id).map((c) => c.seq);
    assert.deepEqual(seqs, Array.from({ length: paymentsPerChain }, (_, i) => i + 1), `chain ${chain.id}: every payment number once`);
    assert.equal(chain.nextSeq, paymentsPerChain + 1);
  }
  for (const c of l.charges) {
    assert.ok(resolved(c), `payment ${c.paymentId} has a final outcome`);
    assert.equal(c.callbacks, 1, `payment ${c.paymentId} is reported once`);
    assert.equal(c.status === 'settled', perPayment.has(c.paymentId), `payment ${c.paymentId} is settled exactly when it was charged`);
  }
}
