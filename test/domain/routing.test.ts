/** The routing decision recorded with a card payment: the choice of eligibleMids, every MID accounted for. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { eligibleMids, explainRouting, type Intent, type PaymentMode, type RoutableMid } from '../../src/domain/routing.ts';

const mid = fc.record({
  id: fc.uuid(),
  paymentMode: fc.constantFrom<PaymentMode>('SMS', 'DMS', 'SMS/DMS'),
  enabled: fc.boolean(),
  priority: fc.integer({ min: -5, max: 5 }),
  connector: fc.constantFrom('sandbox-card', 'gone'),
});
const intent = fc.constantFrom<Intent>('sale', 'auth', 'payout');
const available = new Set(['sandbox-card']);

describe('routing decision', () => {
  it('names the MID eligibleMids picks and every MID once, eligible ones first by priority, the others with why not', () => {
    fc.assert(fc.property(fc.uniqueArray(mid, { selector: (m) => m.id, maxLength: 6 }), intent, (mids: RoutableMid[], i) => {
      const eligible = eligibleMids(mids, i, available);
      fc.pre(eligible.length > 0);
      const decision = explainRouting(mids, i, eligible[0]!, available);
      assert.equal(decision.midId, eligible[0]!.id);
      assert.equal(decision.intent, i);
      assert.deepEqual(decision.considered.map((c) => c.midId).sort(), mids.map((m) => m.id).sort());
      assert.deepEqual(decision.considered.filter((c) => c.eligible).map((c) => c.midId), eligible.map((m) => m.id));
      for (const c of decision.considered.filter((x) => !x.eligible)) {
        const m = mids.find((x) => x.id === c.midId)!;
        const modeFits = i === 'payout' || m.paymentMode === 'SMS/DMS' || m.paymentMode === (i === 'sale' ? 'SMS' : 'DMS');
        const expected = !m.enabled ? 'disabled' : !modeFits ? 'payment_mode' : 'connector_unavailable';
        assert.equal(c.reason, expected, JSON.stringify(m));
      }
    }));
  });

  it('gives the reason of a further rule (a MID\'s limits) and keeps its MIDs out of the eligible ones', () => {
    const mids: RoutableMid[] = [
      { id: 'eur-only', paymentMode: 'SMS', enabled: true, priority: 9, connector: 'sandbox-card' },
      { id: 'any', paymentMode: 'SMS', enabled: true, priority: 1, connector: 'sandbox-card' },
    ];
    const limits = { reason: 'limits', allows: (m: RoutableMid) => m.id !== 'eur-only' };
    assert.deepEqual(explainRouting(mids, 'sale', mids[1]!, available, [limits]).considered, [
      { midId: 'any', priority: 1, eligible: true },
      { midId: 'eur-only', priority: 9, eligible: false, reason: 'limits' },
    ]);
  });

  it('explains a DMS-only MID skipped for a sale', () => {
    const mids: RoutableMid[] = [
      { id: 'dms', paymentMode: 'DMS', enabled: true, priority: 9, connector: 'sandbox-card' },
      { id: 'off', paymentMode: 'SMS', enabled: false, priority: 5, connector: 'sandbox-card' },
      { id: 'sms', paymentMode: 'SMS', enabled: true, priority: 1, connector: 'sandbox-card' },
    ];
    assert.deepEqual(explainRouting(mids, 'sale', mids[2]!, available), {
      intent: 'sale', midId: 'sms', rule: 'highest_priority',
      considered: [
        { midId: 'sms', priority: 1, eligible: true },
        { midId: 'dms', priority: 9, eligible: false, reason: 'payment_mode' },
        { midId: 'off', priority: 5, eligible: false, reason: 'disabled' },
      ],
    });
  });
});
