/** The nouns the attempt's steps share. */
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Payment, PayerInfo, PaymentDetails } from '../../domain/model/payment.ts';
import type { NewTransaction, PaymentPatch } from '../../store/payments-repo.ts';
import type { Sql } from '../../store/database.ts';
import type { Intent, Operation } from '../../domain/operations.ts';
import type { CardSource } from './source.ts';
import type { AttemptOpening } from '../../domain/model/attempt.ts';

export interface AuthorizeInput {
  merchant: Merchant;
  mids: readonly Mid[];
  /** A payment in status prepare with no operation in flight. */
  payment: Payment;
  source: CardSource;
  intent: Intent;
  /** Issue a card_token for the card (req_token, or always for a debit). */
  tokenize: boolean;
  payer?: PayerInfo;
  details?: PaymentDetails;
}

/** Where an attempt stands after a step: waiting for its payer, decided, or in flight. */
export type PaymentStep =
  | { kind: 'challenge'; payment: Payment }
  | { kind: 'redirect'; payment: Payment }
  | { kind: 'final'; payment: Payment; transId: string }
  | { kind: 'processing'; payment: Payment };

/** How the first write of an authorization lands: claiming a stored payment, or creating it already claimed. */
export interface AuthorizationWrite {
  /** What the step needs of the payment before it is written. */
  subject: { id: string; channel: string; operation: Operation; amount: bigint; currency: string; payer: PayerInfo; cardToken: string | null; details?: PaymentDetails; customData?: Record<string, unknown> | null; sessionId?: string | null };
  /** The write is one statement, atomic without a transaction of its own when nothing is vaulted with it. */
  single: boolean;
  /** `attempt`: the acquirer attempt the transaction opens (none when a refusal asks no acquirer). */
  write(sql: Sql, patch: PaymentPatch, transaction: NewTransaction, attempt: AttemptOpening | undefined): Promise<Payment | undefined>;
}
