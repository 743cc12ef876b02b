/**
 * The integrity check of a connector's answer: the amount, currency and reference the acquirer reports must be
 * the ones we sent, or the outcome is not applied and the payment is held for an operator. Pure.
 */
export interface Expected {
  amount: bigint;
  currency: string;
  reference: string;
}

export interface ReportedFacts {
  amount?: bigint;
  currency?: string;
  /** Our payment id as the acquirer echoes it (its merchant reference, its order id). */
  reference?: string;
}

export interface Mismatch {
  field: 'amount' | 'currency' | 'reference';
  expected: string;
  reported: string;
}

/** Every reported fact that differs from what was sent (facts not reported are not checked). */
export function integrityMismatches(expected: Expected, reported: ReportedFacts | undefined): Mismatch[] {
  if (!reported) return [];
  const out: Mismatch[] = [];
  if (reported.amount !== undefined && reported.amount !== expected.amount) out.push({ field: 'amount', expected: expected.amount.toString(), reported: reported.amount.toString() });
  if (reported.currency !== undefined && reported.currency.toUpperCase() !== expected.currency.toUpperCase()) out.push({ field: 'currency', expected: expected.currency, reported: reported.currency });
  if (reported.reference !== undefined && reported.reference !== expected.reference) out.push({ field: 'reference', expected: expected.reference, reported: reported.reference });
  return out;
}
