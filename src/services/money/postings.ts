/**
 * What a payment's change posts to the ledger (issue 27): its gross money events (domain/ledger/postings.ts,
 * derived from the row before and after), each priced by the merchant's fee schedule in force on the payment's
 * date, as balanced entries. The post step (services/attempt/post.ts) and the follow-ups call it; the caller
 * writes the entries with the change itself.
 *
 * Fee schedules and money terms are read once per merchant and kept BOOK_TTL_MS per node (the SALE pays no read
 * for them): a new schedule version takes effect on other nodes within that time, so admins date versions ahead.
 */
import type { ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { isPayout } from '../../domain/operations.ts';
import { quoteFee, scheduleInForce, type FeeSchedule } from '../../domain/ledger/fees.ts';
import { cardRegion } from '../../domain/ledger/regions.ts';
import {
  accountName, entriesOf, FEE_OPERATION_OF, GIVES_FEES_BACK, moneyEventsOf,
  type LedgerEntry, type MoneyEvent, type MoneyState,
} from '../../domain/ledger/postings.ts';
import { feeSchedulesOf, feesChargedOf, moneyTermsOf, type MoneyTerms } from '../../store/ledger-repo.ts';

export type { MoneyState } from '../../domain/ledger/postings.ts';

/** Before an attempt's outcome a payment has moved no money. */
export const NOTHING_MOVED: MoneyState = { status: 'prepare', capturedAmount: 0n, refundedAmount: 0n };

export const BOOK_TTL_MS = 5_000;

interface Book {
  schedules: readonly FeeSchedule[];
  terms: MoneyTerms;
  loadedAt: number;
}

const books = new WeakMap<object, Map<string, Book | Promise<Book>>>();

function booksOf(ctx: ServiceContext): Map<string, Book | Promise<Book>> {
  let map = books.get(ctx.db);
  if (!map) books.set(ctx.db, (map = new Map()));
  return map;
}

/**
 * The merchant's fee schedules and terms, from this node's copy while it is fresh; read through `sql`, the
 * caller's transaction when it has one (an embedded store has one connection: a read beside the transaction
 * would wait for it).
 */
export function bookOf(ctx: ServiceContext, sql: Sql, merchantId: string): Book | Promise<Book> {
  const map = booksOf(ctx);
  const held = map.get(merchantId);
  if (held && !(held instanceof Promise) && performance.now() - held.loadedAt < BOOK_TTL_MS) return held;
  // A load in flight is shared by callers outside transactions only: one inside a transaction that waited for a
  // load queued behind that very transaction (one connection) would wait for ever.
  if (held instanceof Promise && sql === ctx.db) return held;
  const loading = Promise.all([feeSchedulesOf(sql, merchantId), moneyTermsOf(sql, merchantId)]).then(
    ([schedules, terms]) => {
      const book = { schedules, terms, loadedAt: performance.now() };
      map.set(merchantId, book);
      return book;
    },
    (err) => {
      map.delete(merchantId);
      throw err;
    },
  );
  map.set(merchantId, loading);
  return loading;
}

/** Forgets this node's copies (after an admin change, so this node applies it at once). */
export function forgetBooks(ctx: ServiceContext): void {
  books.delete(ctx.db);
}

/** A payment's change: the row as it was (money-wise) and as it is, and the transaction that caused it. */
export interface PaymentChange {
  before: MoneyState;
  after: Payment;
  transId: string;
}

/** The acquirer account a payment posts to: its MID, or its APM connector. */
export const acquirerOf = (p: Payment): string | undefined => p.midId ?? p.details.connectorName ?? undefined;

/** The balanced entries of a payment's change; none when it moved no money. */
export async function entriesOfChange(ctx: ServiceContext, sql: Sql, change: PaymentChange): Promise<LedgerEntry[]> {
  const { after } = change;
  const gross = moneyEventsOf(change.before, after, isPayout(after.operation));
  if (gross.length === 0 || ctx.ledgerOff) return [];
  const book = await bookOf(ctx, sql, after.merchantId);
  const schedule = scheduleInForce(book.schedules, after.merchantId, after.createdAt);
  const parties = { merchantId: after.merchantId, acquirer: acquirerOf(after) };
  const events: MoneyEvent[] = [];
  for (const e of gross) {
    events.push(e);
    const operation = FEE_OPERATION_OF[e.kind];
    if (operation) {
      const fee = quoteFee(schedule, { operation, method: after.details.brand, region: regionOf(ctx, after, book.terms), currency: after.currency, amount: e.amount }).fee;
      events.push({ kind: 'fee', amount: fee });
    }
    if (GIVES_FEES_BACK.has(e.kind)) {
      const charged = await feesChargedOf(sql, after.id, accountName('merchant_fees', parties));
      if (charged > 0n) events.push({ kind: 'fee_refund', amount: charged });
    }
  }
  return entriesOf(events, { merchantId: parties.merchantId, acquirer: parties.acquirer, currency: after.currency, ref: change.transId, paymentId: after.id });
}

/** The card region of a payment: its issuer's country (the BIN table) against the merchant's. */
export function regionOf(ctx: ServiceContext, p: Payment, terms: MoneyTerms) {
  const digits = (p.details.first6Last4 ?? p.details.cardMask ?? '').slice(0, 6);
  const issuer = /^\d{6}$/.test(digits) ? ctx.binTable?.lookup(digits)?.country : undefined;
  return cardRegion(issuer, terms.country ?? undefined);
}
