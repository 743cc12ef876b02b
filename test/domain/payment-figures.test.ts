/** The home figures' pure part (issue 31 item 5): periods of a date range and folding grouped counts. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { figurePeriods, foldFigures, type FigurePeriods } from '../../src/domain/payment-figures.ts';

describe('payment figures (domain)', () => {
  it('pairs a range with the same number of days just before, across month and leap-day ends', () => {
    assert.deepEqual(figurePeriods('2028-03-01', '2028-03-02'), { current: { from: '2028-03-01', until: '2028-03-03' }, previous: { from: '2028-02-28', until: '2028-03-01' }, days: 2 });
    assert.deepEqual(figurePeriods(undefined, '2030-01-30'), { current: { from: '2030-01-01', until: '2030-01-31' }, previous: { from: '2029-12-02', until: '2030-01-01' }, days: 30 });
  });

  it('names the field and the problem in words', () => {
    assert.deepEqual(figurePeriods('2030-02-30', '2030-03-01'), { field: 'from', problem: 'This value is not a valid date (YYYY-MM-DD).' });
    assert.deepEqual(figurePeriods('2030-01-02', '2030-01-01'), { field: 'to', problem: 'The last day comes before the first.' });
    assert.deepEqual(figurePeriods('2029-01-01', '2030-01-02'), { field: 'to', problem: 'A range may span at most 366 days.' });
    assert.deepEqual(figurePeriods(undefined, 'today'), { field: 'to', problem: 'This value is not a valid date (YYYY-MM-DD).' });
  });

  it('folds counts into totals, days side by side, groups and reasons; volume stays exact per currency', () => {
    const periods = figurePeriods('2030-01-03', '2030-01-04') as FigurePeriods;
    const f = foldFigures(periods, [
      { period: 'current', day: '2030-01-04', currency: 'EUR', outcome: 'approved', payments: 2, amountMinor: 1_000_000_000_000_001n },
      { period: 'current', day: '2030-01-04', currency: 'EUR', outcome: 'declined', payments: 1, amountMinor: 500n },
      { period: 'previous', day: '2030-01-02', currency: 'JPY', outcome: 'approved', payments: 1, amountMinor: 150n },
      { period: 'current', key: 'm1', currency: 'EUR', outcome: 'approved', payments: 2, amountMinor: 1_000_000_000_000_001n },
      { period: 'previous', reason: 'Do not honour', outcome: 'declined', payments: 4, amountMinor: 0n },
    ]);
    assert.deepEqual(f.totals.current, { payments: 3, approved: 2, declined: 1, approval_rate: 0.6667, volume: [{ currency: 'EUR', amount: '10000000000000.01', payments: 2 }] });
    assert.deepEqual(f.totals.previous.volume, [{ currency: 'JPY', amount: '150', payments: 1 }]);
    assert.deepEqual(f.daily.map((d) => [d.day, d.previous_day, d.current.payments, d.previous.payments]), [['2030-01-03', '2030-01-01', 0, 0], ['2030-01-04', '2030-01-02', 3, 1]]);
    assert.deepEqual(f.groups.map((g) => [g.key, g.current.approved, g.previous.approval_rate]), [['m1', 2, null]]);
    assert.deepEqual(f.declines, [{ reason: 'Do not honour', current: 0, previous: 4 }]);
  });
});
