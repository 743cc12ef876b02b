/** Whether a declined attempt cascades (issue 15): decided by the unified error table, as a table test. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cascadeStop } from '../../src/domain/routing/cascade.ts';
import { DECLINES, type UnifiedCode } from '../../src/domain/declines.ts';
import type { ConnectorOutcome } from '../../src/connectors/types.ts';

const declined = (code?: UnifiedCode, threeDs = false): ConnectorOutcome => ({
  kind: 'declined', reason: 'x', ...(code ? { error: { code } } : {}),
  ...(threeDs ? { threeDs: { threeDSServerTransID: 't', dsTransID: 'd', acsTransID: 'a', eci: '05', transStatus: 'Y', protocolVersion: '2.2.0', authenticationFlow: 'Frictionless' as const } } : {}),
});

describe('cascade decision', () => {
  it('follows the error table: other_mid cascades, later is not retried now, no is a hard decline', () => {
    for (const [code, entry] of Object.entries(DECLINES) as [UnifiedCode, { retry: string }][]) {
      const expected = entry.retry === 'other_mid' ? undefined : entry.retry === 'no' ? 'hard_decline' : 'not_retryable';
      assert.equal(cascadeStop(declined(code), 1, 1, true), expected, code);
    }
  });

  it('a decline without a unified code, after 3-D Secure, or reporting another payment is final; attempts and candidates run out', () => {
    assert.equal(cascadeStop(declined(), 1, 1, true), 'hard_decline');
    assert.equal(cascadeStop(declined('do_not_honor', true), 1, 1, true), 'authenticated');
    assert.equal(cascadeStop(declined('do_not_honor'), 2, 1, true), 'max_attempts');
    assert.equal(cascadeStop(declined('do_not_honor'), 1, 0, true), 'max_attempts');
    assert.equal(cascadeStop(declined('do_not_honor'), 1, 1, false), 'no_more_candidates');
    const sent = { amount: 1000n, currency: 'EUR', reference: 'pay-1' };
    assert.equal(cascadeStop({ ...declined('do_not_honor'), reported: { amount: 1000n, currency: 'eur', reference: 'pay-1' } }, 1, 1, true, sent), undefined, 'the same payment reported');
    for (const reported of [{ amount: 999n }, { currency: 'USD' }, { reference: 'pay-2' }]) {
      assert.equal(cascadeStop({ ...declined('do_not_honor'), reported }, 1, 1, true, sent), 'integrity', JSON.stringify(reported, (_k, v) => (typeof v === 'bigint' ? `${v}` : v)));
      assert.equal(cascadeStop({ ...declined(), reported }, 1, 1, true, sent), 'integrity', 'before the error table');
    }
    for (const outcome of [{ kind: 'approved', reference: 'r' }, { kind: 'pending', reason: 'p' }, { kind: 'challenge', state: {}, threeDs: {} }] as ConnectorOutcome[]) {
      assert.equal(cascadeStop(outcome, 1, 1, true), undefined, outcome.kind);
    }
  });
});
