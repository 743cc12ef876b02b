/**
 * Settlement and the rolling reserve (issue 27). Once a day's captures are T+N days old, a statement per merchant
 * and currency moves them from pending to available, deducting the period's fees and holding the merchant's
 * reserve share; the reserve is released after its days. Both run in any number of nodes at once: a statement
 * locks the merchant's pending balance, re-reads where the last statement ended and is unique per period end;
 * a release is a compare-and-set on its statement. Each writes its entries in its own transaction.
 *
 * A period ends at a UTC midnight at least SETTLE_AFTER_MS in the past (weekly: the cut-off day's), so a payment
 * committing around midnight has long been written when its day is settled (its entries carry the instant of its
 * change): domain/ledger/periods.ts. The statement records the available balance it opened with, so a negative
 * balance carried over shows, and payouts make it up first (payableOf).
 */
import type { ServiceContext } from '../context.ts';
import { newId } from '../../domain/ids.ts';
import { percentOf } from '../../domain/ledger/fees.ts';
import { accountName, entriesOf, type MoneyEvent } from '../../domain/ledger/postings.ts';
import { DAY_MS, periodEndFor } from '../../domain/ledger/periods.ts';
import { insertEntries, moneyTermsOf, type MoneyTerms } from '../../store/ledger-repo.ts';
import {
  claimDueReserves, insertStatement, lastPeriodEnd, lockMerchantAccounts, pendingAccounts, periodSums, type Statement,
} from '../../store/settlements-repo.ts';

export { SETTLE_AFTER_MS, periodEndFor } from '../../domain/ledger/periods.ts';

/** A merchant's settlement schedule from its terms. */
export const scheduleOf = (terms: MoneyTerms) => ({ frequency: terms.settlementFrequency, cutoffWeekday: terms.settlementCutoffWeekday, delayDays: terms.settlementDelayDays });

/** Settles one merchant's currency up to its period end; undefined when nothing is due (or another node did it). */
export async function settleMerchant(ctx: ServiceContext, merchantId: string, currency: string): Promise<Statement | undefined> {
  const now = ctx.clock.now();
  const terms = await moneyTermsOf(ctx.db, merchantId);
  const to = periodEndFor(now, scheduleOf(terms));
  const parties = { merchantId };
  const accounts = { pending: accountName('merchant_pending', parties), fees: accountName('merchant_fees', parties) };
  const available = accountName('merchant_available', parties);
  return ctx.db.transaction(async (tx) => {
    // The merchant's balances locked in account order, the order every posting upserts them in (no deadlock with a
    // sale or a dispute posting to fees and pending meanwhile); the available balance is the one the statement opens with.
    const locked = await lockMerchantAccounts(tx, merchantId, currency);
    if (!locked.has(accounts.pending)) return undefined;
    const from = await lastPeriodEnd(tx, merchantId, currency);
    if (from && from.getTime() >= to.getTime()) return undefined;
    const sums = await periodSums(tx, accounts, currency, from, to);
    if (sums.causes === 0) return undefined;
    const gross = -sums.pending;
    const reserve = gross > 0n ? percentOf(gross, terms.reservePpm) : 0n;
    const openingAvailable = -(locked.get(available) ?? 0n);
    const statement = await insertStatement(tx, {
      openingAvailable,
      id: newId(), merchantId, currency, periodFrom: from ?? new Date(0), periodTo: to, gross, fees: sums.fees, reserveHeld: reserve,
      reserveReleaseAt: reserve > 0n ? new Date(to.getTime() + terms.reserveDays * DAY_MS) : null, net: gross - sums.fees - reserve, transactions: sums.causes, createdAt: now,
    });
    if (!statement) return undefined;
    const events: MoneyEvent[] = [
      gross >= 0n ? { kind: 'settlement', amount: gross } : { kind: 'settlement_return', amount: -gross },
      { kind: 'settlement_fees', amount: sums.fees > 0n ? sums.fees : 0n },
      { kind: 'reserve_hold', amount: reserve },
    ];
    await insertEntries(tx, entriesOf(events, { ...parties, currency, ref: `statement:${statement.id}`, paymentId: null }), now);
    return statement;
  });
}

/** Releases the reserves that are due, each once; answers how many. */
export async function releaseReserves(ctx: ServiceContext, limit = 100): Promise<number> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const due = await claimDueReserves(tx, now, limit);
    for (const s of due) {
      await insertEntries(tx, entriesOf([{ kind: 'reserve_release', amount: s.reserveHeld }], { merchantId: s.merchantId, currency: s.currency, ref: `reserve:${s.id}`, paymentId: null }), now);
    }
    return due.length;
  });
}

/** One pass of the settlement worker: every merchant's due statements, then the due reserve releases. */
export async function settleAll(ctx: ServiceContext): Promise<{ statements: Statement[]; released: number }> {
  const statements: Statement[] = [];
  for (const { merchantId, currency } of await pendingAccounts(ctx.db)) {
    const made = await settleMerchant(ctx, merchantId, currency);
    if (made) statements.push(made);
  }
  return { statements, released: await releaseReserves(ctx) };
}
