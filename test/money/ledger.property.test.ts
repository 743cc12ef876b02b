/**
 * Property tests of the ledger's pure rules (issue 27): for any sequence of payments, captures, partial refunds,
 * voids, reversals, chargebacks and payouts, priced by any versioned fee schedule, every currency's entries sum to
 * zero, the running balances equal the sum of their entries, and each fee matches the schedule in force on the
 * payment's date as an oracle written independently prices it (remainder compared with half the divisor; the
 * version picked by sorting).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ANY, FEE_OPERATIONS, parseFeeRows, quoteFee, scheduleInForce, type FeeRow, type FeeSchedule } from '../../src/domain/ledger/fees.ts';
import { applyEntries, balanceKey, entriesOf, FEE_OPERATION_OF, GIVES_FEES_BACK, moneyEventsOf, type LedgerEntry, type MoneyEvent, type MoneyState } from '../../src/domain/ledger/postings.ts';
import { cardRegion, CARD_REGIONS, type CardRegion } from '../../src/domain/ledger/regions.ts';

// --- the oracle -------------------------------------------------------------------------------------------

function oracleFee(row: FeeRow, amount: bigint): bigint {
  const n = amount * row.ratePpm;
  let q = n / 1_000_000n;
  if ((n % 1_000_000n) * 2n >= 1_000_000n) q += 1n;
  let fee = q + row.fixed;
  if (fee < row.min) fee = row.min;
  if (row.max !== null && fee > row.max) fee = row.max;
  return fee;
}

function oracleSchedule(all: readonly FeeSchedule[], merchantId: string, at: Date): FeeSchedule | undefined {
  const inForce = (owner: string | null) => all.filter((s) => s.merchantId === owner && s.effectiveFrom <= at).sort((a, b) => b.effectiveFrom.getTime() - a.effectiveFrom.getTime())[0];
  return inForce(merchantId) ?? inForce(null);
}

function oracleRow(rows: readonly FeeRow[], f: { operation: string; method: string; region: string; currency: string }): FeeRow | undefined {
  // Try every key from the most specific pattern down (method, then region, then currency exactness).
  for (const m of [f.method, ANY]) for (const r of [f.region, ANY]) for (const c of [f.currency, ANY]) {
    const row = rows.find((x) => x.operation === f.operation && x.method === m && x.region === r && x.currency === c);
    if (row) return row;
  }
  return undefined;
}

// --- generators -------------------------------------------------------------------------------------------

const CURRENCIES = ['EUR', 'USD', 'JPY'];
const METHODS = ['visa', 'mastercard'];
const MERCHANTS = ['m1', 'm2'];

const rowArb: fc.Arbitrary<FeeRow> = fc.record({
  operation: fc.constantFrom(...FEE_OPERATIONS),
  method: fc.constantFrom(ANY, ...METHODS),
  region: fc.constantFrom<FeeRow['region']>(ANY, ...CARD_REGIONS),
  currency: fc.constantFrom(ANY, ...CURRENCIES),
  ratePpm: fc.bigInt(0n, 100_000n),
  fixed: fc.bigInt(0n, 500n),
  min: fc.bigInt(0n, 300n),
  span: fc.option(fc.bigInt(0n, 5_000n)),
}).map(({ span, ...r }) => (r.currency === ANY ? { ...r, fixed: 0n, min: 0n, max: null } : { ...r, max: span === null ? null : r.min + span }));

/** Rows with distinct keys (validation refuses overlaps). */
const rowsArb = fc.uniqueArray(rowArb, { selector: (r) => `${r.operation}|${r.method}|${r.region}|${r.currency}`, maxLength: 12 });

const scheduleArb = (i: number) => fc.record({
  merchantId: fc.constantFrom<string | null>(null, ...MERCHANTS),
  day: fc.integer({ min: 0, max: 30 }),
  rows: rowsArb,
}).map(({ merchantId, day, rows }): FeeSchedule => ({ id: `s${i}`, merchantId, effectiveFrom: new Date(Date.UTC(2030, 0, 1 + day, i)), rows }));

const schedulesArb: fc.Arbitrary<FeeSchedule[]> = fc.integer({ min: 0, max: 6 }).chain((n) => (n === 0 ? fc.constant<FeeSchedule[]>([]) : fc.tuple(...Array.from({ length: n }, (_, i) => scheduleArb(i)))));

type Step = { kind: 'capture' | 'refund' | 'void' | 'reverse' | 'chargeback'; part: number };

const paymentArb = fc.record({
  merchantId: fc.constantFrom(...MERCHANTS),
  currency: fc.constantFrom(...CURRENCIES),
  method: fc.constantFrom(...METHODS),
  region: fc.constantFrom<CardRegion>(...CARD_REGIONS),
  amount: fc.bigInt(1n, 10_000_000n),
  day: fc.integer({ min: 0, max: 40 }),
  start: fc.constantFrom('sale', 'auth', 'payout', 'decline'),
  steps: fc.array(fc.record({ kind: fc.constantFrom<Step['kind']>('capture', 'refund', 'void', 'reverse', 'chargeback'), part: fc.integer({ min: 1, max: 100 }) }), { maxLength: 6 }),
});

// --- a model of the gateway's payments, posting as the post step does -------------------------------------

/** The next state of a payment for a step, as the state table allows it (or undefined: refused). */
function stepOf(s: MoneyState, amount: bigint, step: Step): MoneyState | undefined {
  const part = (of: bigint) => (of * BigInt(step.part) + 99n) / 100n;
  switch (step.kind) {
    case 'capture': return s.status === 'pending' ? { ...s, status: 'settled', capturedAmount: part(amount) } : undefined;
    case 'refund': {
      if (s.status !== 'settled') return undefined;
      const refundedAmount = s.refundedAmount + part(s.capturedAmount - s.refundedAmount);
      return { ...s, refundedAmount, status: refundedAmount >= s.capturedAmount ? 'refund' : 'settled' };
    }
    case 'void': return s.status === 'settled' && s.refundedAmount === 0n ? { ...s, status: 'void' } : undefined;
    case 'reverse': return s.status === 'pending' || (s.status === 'settled' && s.refundedAmount === 0n) ? { ...s, status: 'reversal' } : undefined;
    case 'chargeback': return s.status === 'settled' || s.status === 'refund' ? { ...s, status: 'chargeback' } : undefined;
  }
}

describe('ledger rules (property)', () => {
  it('any sequence of payments and follow-ups: each currency sums to zero, balances are the sums, fees as the schedule in force', () => {
    fc.assert(fc.property(schedulesArb, fc.array(paymentArb, { minLength: 1, maxLength: 8 }), (schedules, payments) => {
      const entries: LedgerEntry[] = [];
      const running = new Map<string, bigint>();
      const expectedFees = new Map<string, bigint>();
      payments.forEach((p, i) => {
        const at = new Date(Date.UTC(2030, 0, 1 + p.day, 12));
        const schedule = scheduleInForce(schedules, p.merchantId, at);
        assert.equal(schedule?.id, oracleSchedule(schedules, p.merchantId, at)?.id, 'the version in force');
        const paymentId = `p${i}`;
        let state: MoneyState = { status: 'prepare', capturedAmount: 0n, refundedAmount: 0n };
        let feesCharged = 0n;
        const move = (next: MoneyState, ref: string, payout: boolean) => {
          const gross = moneyEventsOf(state, next, payout);
          const events: MoneyEvent[] = [];
          for (const e of gross) {
            events.push(e);
            const operation = FEE_OPERATION_OF[e.kind];
            if (operation) {
              const facts = { operation, method: p.method, region: p.region, currency: p.currency, amount: e.amount };
              const fee = quoteFee(schedule, facts).fee;
              const row = schedule && oracleRow(schedule.rows, facts);
              const expected = row ? oracleFee(row, e.amount) : 0n;
              assert.equal(fee, expected, `fee of ${e.kind} ${e.amount}`);
              expectedFees.set(paymentId, (expectedFees.get(paymentId) ?? 0n) + expected);
              events.push({ kind: 'fee', amount: fee });
              feesCharged += fee;
            }
            if (GIVES_FEES_BACK.has(e.kind)) {
              events.push({ kind: 'fee_refund', amount: feesCharged });
              expectedFees.set(paymentId, (expectedFees.get(paymentId) ?? 0n) - feesCharged);
              feesCharged = 0n;
            }
          }
          const posted = entriesOf(events, { merchantId: p.merchantId, acquirer: 'mid1', currency: p.currency, ref, paymentId });
          entries.push(...posted);
          applyEntries(running, posted);
          state = next;
        };
        if (p.start === 'decline') return move({ ...state, status: 'decline' }, `${paymentId}/t0`, false);
        if (p.start === 'auth') move({ ...state, status: 'pending' }, `${paymentId}/t0`, false);
        else move({ ...state, status: 'settled', capturedAmount: p.amount }, `${paymentId}/t0`, p.start === 'payout');
        p.steps.forEach((step, j) => {
          if (p.start === 'payout') return; // a payout takes no follow-ups
          const next = stepOf(state, p.amount, step);
          if (next) move(next, `${paymentId}/t${j + 1}`, false);
        });
      });
      // Every currency sums to zero.
      const byCurrency = new Map<string, bigint>();
      for (const e of entries) byCurrency.set(e.currency, (byCurrency.get(e.currency) ?? 0n) + e.amount);
      for (const [currency, sum] of byCurrency) assert.equal(sum, 0n, `${currency} sums to zero`);
      // Running balances equal the sums of their entries, recomputed from scratch.
      const sums = new Map<string, bigint>();
      for (const e of entries) sums.set(balanceKey(e.account, e.currency), (sums.get(balanceKey(e.account, e.currency)) ?? 0n) + e.amount);
      assert.deepEqual([...running].sort(), [...sums].sort());
      // Each payment's fee entries are its fees as the oracle prices them.
      for (const [paymentId, fee] of expectedFees) {
        const posted = entries.filter((e) => e.paymentId === paymentId && e.account.endsWith(':fees')).reduce((s, e) => s + e.amount, 0n);
        assert.equal(posted, fee, `${paymentId}'s fees`);
      }
    }), { numRuns: 300 });
  });

  it('a fee is between its row\'s minimum and maximum, and rounds half up', () => {
    fc.assert(fc.property(rowArb, fc.bigInt(0n, 10n ** 12n), (row, amount) => {
      const fee = quoteFee({ id: 's', merchantId: null, effectiveFrom: new Date(0), rows: [row] }, { operation: row.operation, method: row.method === ANY ? 'visa' : row.method, region: row.region === ANY ? 'domestic' : row.region, currency: row.currency === ANY ? 'EUR' : row.currency, amount }).fee;
      assert.equal(fee, oracleFee(row, amount));
      assert.ok(fee >= row.min);
      if (row.max !== null) assert.ok(fee <= row.max);
    }));
    // The written rule on its edges: 2.5 % of 10 is 0.25 -> 0; of 20 is 0.5 -> 1 (half up); of 60 is 1.5 -> 2.
    const row: FeeRow = { operation: 'sale', method: ANY, region: ANY, currency: ANY, ratePpm: 25_000n, fixed: 0n, min: 0n, max: null };
    const fee = (amount: bigint) => quoteFee({ id: 's', merchantId: null, effectiveFrom: new Date(0), rows: [row] }, { operation: 'sale', method: 'visa', region: 'domestic', currency: 'EUR', amount }).fee;
    assert.deepEqual([fee(10n), fee(20n), fee(60n)], [0n, 1n, 2n]);
  });

  it('refuses overlapping rows, negative percentages, a minimum above the maximum and a currency the merchant cannot take, naming each', () => {
    const result = parseFeeRows([
      { operation: 'sale', method: 'visa', currency: 'EUR', percent: '1.5' },
      { operation: 'sale', method: 'visa', currency: 'EUR', percent: '2' },
      { operation: 'refund', percent: '-1' },
      { operation: 'sale', currency: 'USD', min: '5.00', max: '1.00' },
      { operation: 'sale', currency: 'GBP', percent: '1' },
      { operation: 'sale', percent: '1', fixed: '0.25' },
    ], new Set(['EUR', 'USD']));
    assert.ok('problems' in result);
    const fields = result.problems.map((p) => p.field);
    assert.deepEqual(fields, ['rows[1].operation', 'rows[2].percent', 'rows[3].min', 'rows[4].currency', 'rows[5].fixed']);
    assert.match(result.problems[0]!.message, /overlaps rows\[0\]/);
  });

  it('card regions: domestic, intra-region, international', () => {
    assert.equal(cardRegion('DE', 'DE'), 'domestic');
    assert.equal(cardRegion('FR', 'DE'), 'intra_region');
    assert.equal(cardRegion('GB', 'DE'), 'intra_region');
    assert.equal(cardRegion('US', 'DE'), 'international');
    assert.equal(cardRegion(undefined, 'DE'), 'international');
  });
});
