/**
 * The payment state machine (interface spec's States table, decisions D5, wire-reference 5.2) as one table.
 * Statuses are the Checkout (lower-case) names; the S2S names are derived from them.
 */

export const STATUSES = ['prepare', '3ds', 'redirect', 'pending', 'settled', 'decline', 'refund', 'reversal', 'void', 'chargeback'] as const;
export type PaymentStatus = (typeof STATUSES)[number];

export type PaymentEvent =
  | 'challenge_required' // 3DS challenge: the payer must visit the ACS
  | 'redirect_required' // the payer must visit a provider page
  | 'authorized' // funds held (auth / DMS)
  | 'sold' // funds taken (sale / SMS, or capture of a held authorization)
  | 'declined'
  | 'captured'
  | 'reversed' // a held authorization released, or a completed debit reversed
  | 'refunded_partially'
  | 'refunded_fully'
  | 'voided'
  | 'charged_back'
  // RETRY of a declined recurring charge that the acquirer now approves (wire-reference 5.2: a soft decline
  // retried "may change final status").
  | 'retried_sold'
  | 'retried_authorized';

/** from -> event -> to. Anything not listed is not allowed. */
const TRANSITIONS: Readonly<Record<PaymentStatus, Partial<Record<PaymentEvent, PaymentStatus>>>> = {
  prepare: { challenge_required: '3ds', redirect_required: 'redirect', authorized: 'pending', sold: 'settled', declined: 'decline' },
  // A further authentication step (native 3-D Secure 2: the device fingerprint, then the challenge) stays 3ds.
  '3ds': { challenge_required: '3ds', authorized: 'pending', sold: 'settled', declined: 'decline' },
  redirect: { authorized: 'pending', sold: 'settled', declined: 'decline' },
  pending: { captured: 'settled', reversed: 'reversal' },
  settled: { refunded_partially: 'settled', refunded_fully: 'refund', voided: 'void', charged_back: 'chargeback', reversed: 'reversal' },
  decline: { retried_sold: 'settled', retried_authorized: 'pending' },
  refund: { charged_back: 'chargeback' },
  reversal: {},
  void: {},
  chargeback: {},
};

export function nextStatus(from: PaymentStatus, event: PaymentEvent): PaymentStatus | undefined {
  return TRANSITIONS[from][event];
}

export function allowedEvents(from: PaymentStatus): PaymentEvent[] {
  return Object.keys(TRANSITIONS[from]) as PaymentEvent[];
}

/** A status in which the payer has nothing more to do and no connector answer is awaited. */
export function isFinal(status: PaymentStatus): boolean {
  return !['prepare', '3ds', 'redirect'].includes(status);
}

/** The S2S (upper-case) name of a status. */
const S2S_NAMES: Readonly<Record<PaymentStatus, string>> = {
  prepare: 'PREPARE', '3ds': '3DS', redirect: 'REDIRECT', pending: 'PENDING', settled: 'SETTLED', decline: 'DECLINED',
  refund: 'REFUND', reversal: 'REVERSAL', void: 'VOID', chargeback: 'CHARGEBACK',
};

export function s2sStatus(status: PaymentStatus): string {
  return S2S_NAMES[status];
}
