/**
 * Which counters a payment keeps (issue 24): those some running rule reads, per kind of row, and the screen's
 * statement parameter writing only those (risk-repo.ts screenParam), the outcome's dimensions named in its keys.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_COUNTED, countedMeasures } from '../../src/domain/risk/velocity.ts';
import { CARD_TESTING_DEFAULTS } from '../../src/domain/risk/defaults.ts';
import { velocityConditions } from '../../src/domain/risk/rules.ts';
import { screenParam, type ScreenRecord } from '../../src/store/risk-repo.ts';

const record = (counted?: ScreenRecord['counted']): ScreenRecord => ({
  paymentId: 'p1', merchantId: 'm1', card: 'c'.repeat(32), amount: 199n, currency: 'USD', count: true, review: null, now: new Date('2030-01-15T10:00:30Z'),
  keys: { merchant: 'm1', card: 'c'.repeat(32), email: 'e'.repeat(32), ip: 'i'.repeat(32) },
  evaluation: { action: 'allow', score: 0, reason: '', matched: [], failed: [], velocity: {}, lists: [] } as unknown as ScreenRecord['evaluation'],
  ...(counted ? { counted } : {}),
});

describe('counters kept', () => {
  it('the platform defaults read declines per card and distinct cards per IP, e-mail, session and device', () => {
    assert.deepEqual(countedMeasures(velocityConditions([CARD_TESTING_DEFAULTS], { merchantId: 'm', sandbox: false })), {
      attempts: [], outcomes: ['card'], members: ['device', 'email', 'ip', 'session'],
    });
  });

  it('attempts and amount are screen counters, approvals and declines outcome counters; distinct cards by card is no member', () => {
    assert.deepEqual(countedMeasures([
      { by: 'ip', measure: 'amount' }, { by: 'email', measure: 'attempts' }, { by: 'merchant', measure: 'approvals' },
      { by: 'card', measure: 'distinct_cards' }, { by: 'merchant', measure: 'distinct_cards' },
    ]), { attempts: ['email', 'ip'], outcomes: ['merchant'], members: ['merchant'] });
  });

  it('the screen writes only the counted rows; without CountedMeasures every dimension, as before', () => {
    const counted = screenParam([record({ attempts: [], outcomes: ['card'], members: ['email', 'ip'] })]);
    // No counter rows: the statement leaves the counters' CTE out (screenCtes).
    assert.deepEqual(counted.parts, { counters: false, members: true });
    const only = JSON.parse(counted.json);
    assert.deepEqual(only.c, []);
    assert.deepEqual(only.m.map((m: unknown[]) => [m[0], m[2]]), [['email', 1], ['email', 60], ['ip', 1], ['ip', 60]]);
    assert.deepEqual(only.e[0][6], { merchant: 'm1', card: 'c'.repeat(32), email: 'e'.repeat(32), ip: 'i'.repeat(32), count: true, outcomes: ['card'] });
    const everything = screenParam([record()]);
    assert.deepEqual(everything.parts, { counters: true, members: true });
    const all = JSON.parse(everything.json);
    assert.equal(all.c.length, 8, 'four dimensions, two grains');
    assert.equal(all.m.length, 6, 'e-mail, IP and merchant, two grains');
    assert.deepEqual(all.e[0][6], { merchant: 'm1', card: 'c'.repeat(32), email: 'e'.repeat(32), ip: 'i'.repeat(32), count: true });
    // The shard (column 4) is drawn per statement.
    const withoutShard = (rows: unknown[][]) => rows.map((c) => [...c.slice(0, 4), ...c.slice(5)]);
    assert.deepEqual(withoutShard(JSON.parse(screenParam([record(ALL_COUNTED)]).json).c), withoutShard(all.c));
  });
});
