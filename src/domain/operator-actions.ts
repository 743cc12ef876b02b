/**
 * Which money actions an operator may take on a payment now (issue 14), as one table read against the state
 * machine (payment-state.ts): an action is offered when the payment is in the action's status, the state table
 * has the action's transition from there, its guard holds and nothing else is in flight. The follow-up engine
 * (services/follow-ups.ts) enforces the same rules at the claim; this table only tells the console what to show.
 */
import { nextStatus, type PaymentEvent, type PaymentStatus } from './payment-state.ts';

export type OperatorActionName = 'capture' | 'refund' | 'void';

/** What the table reads of a payment (amounts in minor units). */
export interface ActionFacts {
  status: PaymentStatus;
  auth: boolean;
  amount: bigint;
  capturedAmount: bigint;
  refundedAmount: bigint;
  pendingOperation: string | null;
}

export interface AllowedAction {
  action: OperatorActionName;
  /** The transition of the state table it starts. */
  event: PaymentEvent;
  /** The largest amount it may take (minor units); partial: false means exactly this amount. */
  maxAmount: bigint;
  partial: boolean;
}

interface ActionRule {
  action: OperatorActionName;
  from: PaymentStatus;
  event: PaymentEvent;
  when: (p: ActionFacts) => boolean;
  max: (p: ActionFacts) => bigint;
  partial: boolean;
}

const remaining = (p: ActionFacts) => p.capturedAmount - p.refundedAmount;

/** One row per way an action can go; a refund of a held authorization is its reversal (whole amount only). */
const RULES: readonly ActionRule[] = [
  { action: 'capture', from: 'pending', event: 'captured', when: (p) => p.auth, max: (p) => p.amount, partial: true },
  { action: 'refund', from: 'pending', event: 'reversed', when: (p) => p.auth, max: (p) => p.amount, partial: false },
  { action: 'refund', from: 'settled', event: 'refunded_partially', when: (p) => remaining(p) > 0n, max: remaining, partial: true },
  { action: 'void', from: 'settled', event: 'voided', when: (p) => p.refundedAmount === 0n && p.capturedAmount > 0n, max: (p) => p.capturedAmount, partial: false },
];

export function allowedActions(p: ActionFacts): AllowedAction[] {
  if (p.pendingOperation) return [];
  return RULES
    .filter((r) => r.from === p.status && nextStatus(p.status, r.event) !== undefined && r.when(p))
    .map((r) => ({ action: r.action, event: r.event, maxAmount: r.max(p), partial: r.partial }));
}
