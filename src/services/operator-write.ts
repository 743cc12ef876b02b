/**
 * What an operator's decision on a held outcome adds to the engine's own write of that outcome (card
 * authorizations, APM initiations): the payment version they read (nothing may have changed since), their record
 * on the transaction, and their own rows (the audit entry) in the same database transaction.
 */
import type { Sql } from '../store/database.ts';
import type { Payment } from '../domain/model/payment.ts';

/** Hands a payment nothing can account for to an operator (compare-and-set on its updated_at): the re-check worker's last resort. */
export { flagForOperator } from '../store/payments-repo.ts';

export interface OperatorWrite {
  version: number;
  txDetails: Record<string, unknown>;
  within(tx: Sql, updated: Payment): Promise<void>;
}

/** The decision itself: carried out or not, with the acquirer's reference the held answer had. */
export interface OperatorDecision {
  settled: boolean;
  reference?: string;
  reason: string;
}
