/**
 * Step 10 of an attempt: what follows an applied outcome, as a list. Each consequence says whether it writes rows
 * of its own beside the outcome (`transactional`): the outcome is one group-committed statement unless one of them
 * does (`needsTransaction`). In order: the ledger's post, the session paid, the recurring chain, the daily-cap
 * share given back, the callback (its outbox row rides in the single statement when there is one), the operator's
 * own rows; after the write, the success-rate count.
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Sql } from '../../store/database.ts';
import type { Payment, TransactionType } from '../../domain/model/payment.ts';
import type { OutboxOf } from '../../store/payments-repo.ts';
import { markSessionPaid } from '../../store/sessions-repo.ts';
import type { ConnectorOutcome } from '../../connectors/types.ts';
import { callbackExpected, callbackFor, notify, type PaymentEvent } from '../callbacks/index.ts';
import type { RecurringWrite } from '../recurring/recurring-init.ts';
import type { OperatorWrite } from '../operator-write.ts';
import { noteOutcome, releaseHold } from './route.ts';
import { posted } from './post.ts';
import { paymentMoneyOf, type LedgerEntry } from '../../domain/ledger/postings.ts';
import { wantsMoney } from '../callbacks/fields.ts';
import type { OutcomePlan } from './outcome-plan.ts';
import { queueReceipt } from '../mail/receipts.ts';

export interface Consequence {
  /** Writes rows of its own, which must commit with the outcome: the outcome then takes a transaction. */
  transactional: boolean;
  /** Runs in the outcome's write (its transaction when there is one). */
  within?(sql: Sql, updated: Payment): Promise<void>;
  /** The row it adds to the outcome's single statement instead, when the outcome is one (the callback's outbox row). */
  outbox?: OutboxOf;
  /** The ledger entries the outcome's own statement writes (the post). */
  entries?: readonly LedgerEntry[];
  /** Runs once the outcome is written; its failure never undoes the outcome. */
  after?(updated: Payment): Promise<void>;
}

export const needsTransaction = (list: readonly Consequence[]): boolean => list.some((c) => c.transactional);

/** What the consequences of one card outcome are built from. */
export interface Applied {
  merchant: Merchant;
  payment: Payment;
  transId: string;
  plan: OutcomePlan;
  outcome: Exclude<ConnectorOutcome, { kind: 'pending' }>;
  recurring?: RecurringWrite;
  byOperator?: OperatorWrite;
  now: Date;
  /** What the outcome posts (post.ts postingEntries), computed before the write. */
  entries: readonly LedgerEntry[];
}

/** The consequences of a card outcome; those that do not apply to it are left out. */
export function consequencesOf(ctx: ServiceContext, a: Applied): Consequence[] {
  const list: (Consequence | undefined)[] = [
    posting(ctx, a), sessionPaid(a), recurringChain(a), capRelease(a), callback(a), receiptMail(a), operator(a), successRate(ctx, a),
  ];
  return list.filter((c): c is Consequence => c !== undefined);
}

/**
 * The post: its entries ride in the outcome's own statement, whichever way it is written, and so does the risk
 * engine's count of the outcome (outcome.ts sets it on the transaction's result, as post.ts countForRisk would).
 */
function posting(ctx: ServiceContext, a: Applied): Consequence {
  return {
    transactional: false, entries: a.entries,
    within: async (_sql, updated) => {
      posted(ctx, { payment: updated, transId: a.transId, outcome: a.outcome.kind });
    },
  };
}

/** A payment of a Checkout session marks it paid once it is final (settled, or authorized: pending). */
function sessionPaid(a: Applied): Consequence | undefined {
  if (!a.payment.sessionId) return undefined;
  return {
    transactional: true,
    async within(sql, updated) {
      if (a.plan.step === 'final' && updated.sessionId && (updated.status === 'settled' || updated.status === 'pending')) await markSessionPaid(sql, updated.sessionId, updated.id);
    },
  };
}

/** An approved payment that starts a recurring chain (or puts one on a schedule) writes the chain. */
function recurringChain(a: Applied): Consequence | undefined {
  const recurring = a.recurring;
  return recurring && { transactional: true, within: (sql, updated) => recurring.record(sql, updated, a.now) };
}

/** A declined attempt gives its daily-cap reservation back, in the write that declines it (so exactly once). */
function capRelease(a: Applied): Consequence | undefined {
  const hold = a.outcome.kind === 'declined' ? a.payment.details.volumeHold : undefined;
  return hold ? { transactional: true, within: (sql) => releaseHold(sql, hold) } : undefined;
}

/** The callback, where the channel sends one for this step and the payment has somewhere to send it. */
function callback(a: Applied): Consequence | undefined {
  const type = a.plan.notify?.type;
  if (!type || !callbackExpected(a.merchant, a.payment)) return undefined;
  const event = (updated: Payment): PaymentEvent => eventOf(updated, a, type);
  return {
    transactional: false,
    outbox: (updated) => callbackFor(a.merchant, updated, event(updated), a.now),
    within: (sql, updated) => notify(sql, a.merchant, updated, event(updated), a.now),
  };
}

/**
 * The e-mailed receipt of a payment this outcome settles, queued in the outcome's transaction (only where the
 * merchant turned it on and the payer gave an e-mail address: other payments keep their single statement).
 */
function receiptMail(a: Applied): Consequence | undefined {
  if (!a.merchant.settings.receiptEmail || !a.payment.payer.email || a.outcome.kind !== 'approved' || a.plan.step !== 'final') return undefined;
  return { transactional: true, within: (sql, updated) => queueReceipt(sql, a.merchant, updated, a.now) };
}

/** An operator's decision on a held outcome writes their own rows (the audit entry) with it. */
function operator(a: Applied): Consequence | undefined {
  const by = a.byOperator;
  return by && { transactional: true, within: (sql, updated) => by.within(sql, updated) };
}

/** A decided outcome counts towards its MID's success rate (when the merchant routes by it). */
function successRate(ctx: ServiceContext, a: Applied): Consequence | undefined {
  if (a.outcome.kind !== 'approved' && a.outcome.kind !== 'declined') return undefined;
  const approved = a.outcome.kind === 'approved';
  return { transactional: false, after: (updated) => noteOutcome(ctx, a.merchant, { midId: updated.midId, currency: updated.currency, brand: updated.details.brand, approved }) };
}

const eventOf = (updated: Payment, a: Applied, type: TransactionType): PaymentEvent => ({
  transId: a.transId, type, status: a.plan.txStatus, reason: updated.declineReason ?? undefined,
  // The optional fee field (off by default): an attempt's outcome is the payment's first money, so its entries are all.
  ...(wantsMoney(a.merchant.settings.callbackFields) ? { money: paymentMoneyOf(a.entries, updated.merchantId) } : {}),
});
