/** The nouns the attempt's steps share, and the state they pass along (index.ts STEPS). */
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Payment, PayerInfo, PaymentDetails } from '../../domain/model/payment.ts';
import type { NewTransaction, PaymentPatch } from '../../store/payments-repo.ts';
import type { Sql } from '../../store/database.ts';
import type { Intent, Operation } from '../../domain/operations.ts';
import type { CardSource } from './source.ts';
import type { ServiceContext } from '../context.ts';
import type { RoutingDecision } from '../../domain/routing/route.ts';
import type { RoutingConfig } from '../../domain/routing/rules.ts';
import type { VolumeHold } from '../../domain/routing/caps.ts';
import type { VaultedCard } from '../../store/card-vault.ts';
import type { AuthorizeRequest, CardConnector, ConnectorOutcome } from '../../connectors/types.ts';
import type { AttemptStop } from '../../domain/model/attempt.ts';
import type { AttemptOpening } from '../../domain/model/attempt.ts';
import type { ScreenRecord } from '../../store/risk-repo.ts';

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
  /**
   * `attempt`: the acquirer attempt the transaction opens (none when a refusal asks no acquirer); `screened`: the
   * risk screen's record, written with it (in the same statement, or the same transaction).
   */
  write(sql: Sql, patch: PaymentPatch, transaction: NewTransaction, attempt: AttemptOpening | undefined, screened: ScreenRecord | undefined): Promise<Payment | undefined>;
}

export interface CardRoute {
  /** Eligible MIDs in attempt order; never empty. */
  candidates: Mid[];
  decision: RoutingDecision;
  /** The rules and cascading limit this payment was routed by. */
  config: RoutingConfig;
}

/** A candidate that will carry an attempt, with what it reserved of its daily cap. */
export interface TakenCandidate {
  index: number;
  mid: Mid;
  hold?: VolumeHold;
}

/** A routed attempt: the candidates in order, and the one taken with its daily-cap share reserved. */
export interface Routed {
  route: CardRoute;
  taken: TakenCandidate;
}

/** A recorded attempt: the payment claimed on its MID with its first transaction, and the card it keeps. */
export interface Recorded {
  claimed: Payment;
  card: VaultedCard | undefined;
  connector: CardConnector;
  transId: string;
}

/**
 * One attempt on its way through the steps (index.ts STEPS): what it came with, and what each step added. A step
 * reads the parts of the steps before it (`reached`) and adds its own.
 */
export interface AttemptState {
  readonly input: Omit<AuthorizeInput, 'payment'>;
  readonly target: AuthorizationWrite;
  /** screen.ts: a decline known before any connector call (the screen's block or unheld review, a refused wallet token). */
  refusal?: ConnectorOutcome;
  /** screen.ts: the screen holds the attempt for an operator's review before its acquirer call (hold.ts). */
  review?: boolean;
  /** screen.ts: the screen asks the acquirer for a 3-D Secure challenge (require_3ds). */
  challenge?: boolean;
  /**
   * screen.ts: the screen's record (evaluation, counters), until it is written: by the record step in the payment's
   * own first write, or alone by index.ts when the attempt ends before that write commits.
   */
  screened?: ScreenRecord;
  /** route.ts: the candidates, and the MID taken with its daily-cap share reserved. */
  routed?: Routed;
  /** record.ts: the payment claimed on that MID, its transaction, the card it keeps. */
  recorded?: Recorded;
  /** request.ts: the acquirer's request, and the PAN it carries (a cascade keeps it from live MIDs if a test card). */
  sent?: { request: AuthorizeRequest; pan: string };
  /** call.ts, then cascade.ts: the last answer, on the payment as it stands; `refused` when no connector was asked. */
  answer?: { payment: Payment; transId: string; outcome: ConnectorOutcome; refused: boolean; stop?: AttemptStop };
}

/** A step of the attempt: it adds its part to the state, or answers where the attempt stands to end it there. */
export type Step = (ctx: ServiceContext, state: AttemptState) => Promise<PaymentStep | void>;

/** The part an earlier step added; missing, the table runs its steps out of order (a bug, never a payment's fault). */
export function reached<K extends 'routed' | 'recorded' | 'sent' | 'answer'>(state: AttemptState, part: K): NonNullable<AttemptState[K]> {
  const value = state[part];
  if (value === undefined) throw new Error(`attempt step out of order: no ${part} yet`);
  return value as NonNullable<AttemptState[K]>;
}
