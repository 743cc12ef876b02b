/**
 * The state machine against decisions D5 and wire-reference 5.2. The expected table below is written from
 * those documents, not copied from the code: every (status, event) pair not in it must be refused.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  STATUSES,
  allowedEvents,
  isFinal,
  nextStatus,
  s2sStatus,
  type PaymentEvent,
  type PaymentStatus,
} from '../../src/domain/payment-state.ts';

const EVENTS: PaymentEvent[] = [
  'challenge_required', 'redirect_required', 'authorized', 'sold', 'declined', 'captured', 'reversed',
  'refunded_partially', 'refunded_fully', 'voided', 'charged_back', 'retried_sold', 'retried_authorized',
];

/** [from, event, to], one row per allowed transition. */
const EXPECTED: readonly [PaymentStatus, PaymentEvent, PaymentStatus][] = [
  // new payment: SALE / AUTH outcomes (5.2 "new")
  ['prepare', 'sold', 'settled'],
  ['prepare', 'authorized', 'pending'],
  ['prepare', 'declined', 'decline'],
  ['prepare', 'challenge_required', '3ds'],
  ['prepare', 'redirect_required', 'redirect'],
  // RETRY of a declined recurring charge (5.2: a soft decline retried may change the final status)
  ['decline', 'retried_sold', 'settled'],
  ['decline', 'retried_authorized', 'pending'],
  // payer back from the ACS or the provider page: SETTLED or DECLINED (PENDING if auth)
  // native 3-D Secure 2: after the device fingerprint the ACS may still ask for a challenge
  ['3ds', 'challenge_required', '3ds'],
  ['3ds', 'sold', 'settled'],
  ['3ds', 'authorized', 'pending'],
  ['3ds', 'declined', 'decline'],
  ['redirect', 'sold', 'settled'],
  ['redirect', 'authorized', 'pending'],
  ['redirect', 'declined', 'decline'],
  // held authorization: CAPTURE (full or one partial) -> SETTLED; CREDITVOID -> REVERSAL
  ['pending', 'captured', 'settled'],
  ['pending', 'reversed', 'reversal'],
  // settled: partial refund stays, full refund -> REFUND, VOID, chargeback, debit reversal
  ['settled', 'refunded_partially', 'settled'],
  ['settled', 'refunded_fully', 'refund'],
  ['settled', 'voided', 'void'],
  ['settled', 'charged_back', 'chargeback'],
  ['settled', 'reversed', 'reversal'],
  // a refunded payment can still be charged back
  ['refund', 'charged_back', 'chargeback'],
];

const expectedNext = (from: PaymentStatus, event: PaymentEvent): PaymentStatus | undefined =>
  EXPECTED.find(([f, e]) => f === from && e === event)?.[2];

const TERMINAL: PaymentStatus[] = ['refund', 'reversal', 'void', 'chargeback'];

describe('payment state: the whole table', () => {
  for (const from of STATUSES) {
    for (const event of EVENTS) {
      const to = expectedNext(from, event);
      it(`${from} --${event}--> ${to ?? '(refused)'}`, () => assert.equal(nextStatus(from, event), to));
    }
  }

  it('allowedEvents lists exactly the events with a transition', () => {
    for (const from of STATUSES) {
      const expected = EVENTS.filter((e) => expectedNext(from, e) !== undefined).sort();
      assert.deepEqual([...allowedEvents(from)].sort(), expected, from);
    }
  });
});

describe('payment state: the rules of D5 and wire-reference 5.2', () => {
  const from = (event: PaymentEvent) => STATUSES.filter((s) => nextStatus(s, event) !== undefined);

  it('VOID only from settled (not from a held authorization: "Void is not allowed.")', () => {
    assert.deepEqual(from('voided'), ['settled']);
    assert.equal(nextStatus('pending', 'voided'), undefined);
  });

  it('capture only from pending, and a captured authorization is settled', () => {
    assert.deepEqual(from('captured'), ['pending']);
    assert.equal(nextStatus('pending', 'captured'), 'settled');
  });

  it('a second capture is refused: settled has no capture', () => {
    assert.equal(nextStatus(nextStatus('pending', 'captured')!, 'captured'), undefined);
  });

  it('reversal from pending (CREDITVOID of a held authorization) and from a settled debit', () => {
    assert.equal(nextStatus('pending', 'reversed'), 'reversal');
    assert.deepEqual(from('reversed'), ['pending', 'settled']);
  });

  it('a partial refund keeps settled, as many times as asked; a full refund gives refund', () => {
    let status: PaymentStatus = 'settled';
    for (let i = 0; i < 5; i++) status = nextStatus(status, 'refunded_partially')!;
    assert.equal(status, 'settled');
    assert.equal(nextStatus(status, 'refunded_fully'), 'refund');
    assert.deepEqual(from('refunded_partially'), ['settled']);
    assert.deepEqual(from('refunded_fully'), ['settled']);
  });

  it('a pending authorization cannot be refunded as a refund (it is reversed instead)', () => {
    assert.equal(nextStatus('pending', 'refunded_fully'), undefined);
    assert.equal(nextStatus('pending', 'refunded_partially'), undefined);
  });

  it('terminal states have no exits, except refund -> chargeback', () => {
    for (const status of TERMINAL) {
      const exits = allowedEvents(status);
      assert.deepEqual(exits, status === 'refund' ? ['charged_back'] : [], status);
    }
  });

  it('a declined capture or void is no transition: the payment stays as it was', () => {
    // Declines of follow-ups are not events of the payment; only a new payment can be declined.
    assert.deepEqual(from('declined'), ['prepare', '3ds', 'redirect']);
  });

  it('isFinal is false exactly while the payer or a connector is still awaited', () => {
    for (const status of STATUSES) assert.equal(isFinal(status), !['prepare', '3ds', 'redirect'].includes(status), status);
  });

  it('names every status in S2S upper case', () => {
    const expected: Record<PaymentStatus, string> = {
      prepare: 'PREPARE', '3ds': '3DS', redirect: 'REDIRECT', pending: 'PENDING', settled: 'SETTLED',
      decline: 'DECLINED', refund: 'REFUND', reversal: 'REVERSAL', void: 'VOID', chargeback: 'CHARGEBACK',
    };
    for (const status of STATUSES) assert.equal(s2sStatus(status), expected[status]);
  });
});

describe('payment state: properties', () => {
  const events = fc.array(fc.constantFrom(...EVENTS), { maxLength: 30 });

  /** Applies events from prepare; refused events leave the status unchanged, as a failed CAS would. */
  function walk(sequence: readonly PaymentEvent[]): { from: PaymentStatus; event: PaymentEvent; to: PaymentStatus }[] {
    const steps: { from: PaymentStatus; event: PaymentEvent; to: PaymentStatus }[] = [];
    let status: PaymentStatus = 'prepare';
    for (const event of sequence) {
      const to = nextStatus(status, event);
      if (to === undefined) continue;
      steps.push({ from: status, event, to });
      status = to;
    }
    return steps;
  }

  it('property: every step taken from prepare is a row of the expected table', () => {
    fc.assert(fc.property(events, (sequence) => walk(sequence).every((s) => expectedNext(s.from, s.event) === s.to)));
  });

  it('property: once a final status is reached, every later status is final', () => {
    fc.assert(
      fc.property(events, (sequence) => {
        let seenFinal = false;
        for (const step of walk(sequence)) {
          if (seenFinal && !isFinal(step.to)) return false;
          seenFinal ||= isFinal(step.to);
        }
        return true;
      }),
    );
  });

  it('property: once a terminal status is reached, only refund -> chargeback can follow', () => {
    fc.assert(
      fc.property(events, (sequence) => {
        const steps = walk(sequence);
        const firstTerminal = steps.findIndex((s) => TERMINAL.includes(s.to));
        if (firstTerminal < 0) return true;
        return steps.slice(firstTerminal + 1).every((s) => s.from === 'refund' && s.to === 'chargeback');
      }),
    );
  });

  it('property: no status is ever reached that is not in STATUSES', () => {
    fc.assert(fc.property(events, (sequence) => walk(sequence).every((s) => (STATUSES as readonly string[]).includes(s.to))));
  });
});
