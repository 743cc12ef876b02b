/**
 * Property tests of the reconciliation matcher (issue 28): for any set of recorded transactions and a report made
 * from them with any of the deliberate differences (a wrong amount, a missing row, an unknown row, rows shuffled,
 * references dropped), every row gets exactly one outcome, no record is taken twice, a faithful row matches, a
 * row with a changed amount is mismatched naming the amount, a dropped row's record is missing, an unknown row is
 * unexpected.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { matchRows, missingOf, type OurRecord } from '../../src/domain/reconciliation/matcher.ts';
import type { RecordKind, ReportRow } from '../../src/domain/reconciliation/report.ts';

const DAY = 86_400_000;
const T0 = Date.UTC(2030, 5, 1);
const KINDS: RecordKind[] = ['settled', 'refunded', 'chargeback'];

const recordArb = fc.record({
  kind: fc.constantFrom(...KINDS),
  currency: fc.constantFrom('EUR', 'USD', 'JPY'),
  amount: fc.bigInt({ min: 1n, max: 10_000_000n }),
  dayOffset: fc.integer({ min: 0, max: 20 }),
  hasRef: fc.boolean(),
});

type Plan = { keep: boolean; amountDelta: bigint; dropAcq: boolean; dropMerchant: boolean };
const planArb: fc.Arbitrary<Plan> = fc.record({
  keep: fc.integer({ min: 0, max: 9 }).map((n) => n < 8),
  amountDelta: fc.oneof({ weight: 4, arbitrary: fc.constant(0n) }, { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 500n }) }),
  dropAcq: fc.boolean(),
  dropMerchant: fc.boolean(),
});

function build(specs: { kind: RecordKind; currency: string; amount: bigint; dayOffset: number; hasRef: boolean }[]): OurRecord[] {
  return specs.map((s, i) => ({
    key: `tx-${i}|${s.kind}`, paymentId: `pay-${i}`, kind: s.kind, acquirerRef: s.hasRef ? `PSP${String(i).padStart(13, '0')}` : null,
    currency: s.currency, amount: s.amount, at: new Date(T0 + s.dayOffset * DAY + i * 1000), method: 'visa', region: 'domestic',
  }));
}

function rowOf(r: OurRecord, line: number, plan: Plan): ReportRow {
  return {
    line, kind: r.kind, rawType: r.kind, acquirerRef: plan.dropAcq ? null : r.acquirerRef, merchantRef: plan.dropMerchant ? null : r.paymentId,
    modificationRef: null, currency: r.currency, amount: r.amount + plan.amountDelta, netCurrency: r.currency, net: r.amount, fee: 0n,
    interchange: 0n, schemeFee: 0n, method: 'visa', bookedAt: new Date(r.at.getTime() + DAY), batch: '1',
  };
}

describe('reconciliation matcher (properties)', () => {
  it('one outcome per row, a record taken once, faithful rows matched, changed amounts named, dropped rows missing, unknown rows unexpected', () => {
    fc.assert(fc.property(
      fc.array(recordArb, { minLength: 1, maxLength: 40 }).chain((specs) => fc.tuple(fc.constant(specs), fc.array(planArb, { minLength: specs.length, maxLength: specs.length }), fc.integer({ min: 0, max: 3 }), fc.integer())),
      ([specs, plans, unknown, seed]) => {
        const records = build(specs);
        const rows: ReportRow[] = [];
        const expected = new Map<number, { rec: OurRecord; plan: Plan }>();
        records.forEach((rec, i) => {
          const plan = plans[i]!;
          if (!plan.keep) return;
          const line = rows.length + 2;
          rows.push(rowOf(rec, line, plan));
          expected.set(line, { rec, plan });
        });
        // Unknown rows: references nobody has, amounts no record has (above every record's).
        const unknownLines = new Set<number>();
        for (let u = 0; u < unknown; u++) {
          const line = rows.length + 2;
          unknownLines.add(line);
          rows.push({ ...rowOf(records[0]!, line, { keep: true, amountDelta: 0n, dropAcq: false, dropMerchant: false }), acquirerRef: `UNKNOWN${u}`, merchantRef: `nobody-${u}`, amount: 20_000_000n + BigInt(u) });
        }
        // Shuffle the file's order (lines keep their numbers).
        const shuffled = [...rows].sort((a, b) => ((a.line * 7919 + seed) % 104729) - ((b.line * 7919 + seed) % 104729));
        const results = matchRows(shuffled, records, { windowMs: 3 * DAY });

        assert.equal(results.length, rows.length, 'one result per row');
        assert.equal(new Set(results.map((r) => r.line)).size, rows.length, 'each row once');
        const takenKeys = results.filter((r) => r.record).map((r) => r.record!.key);
        assert.equal(new Set(takenKeys).size, takenKeys.length, 'no record taken twice');

        for (const res of results) {
          if (unknownLines.has(res.line)) { assert.equal(res.outcome, 'unexpected', `line ${res.line}`); continue; }
          const { rec, plan } = expected.get(res.line)!;
          const identifiable = (!plan.dropAcq && rec.acquirerRef !== null) || !plan.dropMerchant;
          if (identifiable && plan.amountDelta === 0n) {
            assert.equal(res.outcome, 'matched', `line ${res.line}`);
            assert.equal(res.record!.key, rec.key);
          }
          if (identifiable && plan.amountDelta !== 0n) {
            assert.equal(res.outcome, 'mismatched');
            assert.equal(res.record!.key, rec.key, 'the row with the wrong amount takes its own record');
            const diff = res.differences.find((d) => d.field === 'amount');
            assert.ok(diff, 'the amount is named');
            assert.equal(diff.delta, plan.amountDelta);
          }
          if (res.outcome === 'matched') assert.deepEqual(res.differences, []);
        }
        // Records no row names are missing once due (all are due a year later).
        const took = new Set(takenKeys);
        const missing = missingOf(records, took, new Date(T0 + 400 * DAY), 3 * DAY);
        for (const [i, rec] of records.entries()) {
          if (!plans[i]!.keep) assert.ok(missing.some((m) => m.key === rec.key) || took.has(rec.key), `the dropped ${rec.key} is missing (or taken by an unidentifiable row of its amount)`);
        }
        assert.equal(missing.length + took.size, records.length, 'every record is taken or missing');
        // Nothing is missing before it is due.
        assert.deepEqual(missingOf(records, took, new Date(T0 - DAY), 3 * DAY), []);
      },
    ), { numRuns: 300 });
  });

  it('the amount-and-date tier keeps to its window and takes the nearest', () => {
    const records = build([
      { kind: 'settled', currency: 'EUR', amount: 1000n, dayOffset: 0, hasRef: false },
      { kind: 'settled', currency: 'EUR', amount: 1000n, dayOffset: 2, hasRef: false },
    ]);
    const row = (line: number, day: number): ReportRow => ({ ...rowOf(records[0]!, line, { keep: true, amountDelta: 0n, dropAcq: true, dropMerchant: true }), bookedAt: new Date(T0 + day * DAY) });
    const near = matchRows([row(2, 2)], records, { windowMs: DAY });
    assert.equal(near[0]!.record!.key, records[1]!.key, 'the nearest in time');
    assert.equal(near[0]!.by, 'amount_date');
    assert.equal(matchRows([row(2, 9)], records, { windowMs: DAY })[0]!.outcome, 'unexpected', 'outside the window');
  });
});
