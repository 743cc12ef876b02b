/**
 * What an approved payment adds to a recurring chain: an initiating payment (recurring_init) gets the
 * chain's recurring_token and recurring_init_trans_id; a payment naming a schedule puts the chain on it and
 * learns its first_recurring_date. Decided before the write that approves the payment (the card-on-file token
 * is a connector call, which never sits inside a transaction), written in that same transaction.
 */
import type { ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Payment, PaymentDetails } from '../../domain/model/payment.ts';
import { findActiveSubscription } from '../../store/schedules-repo.ts';
import { parseAmount } from '../../domain/money.ts';
import { scheduledAmount } from '../../domain/schedule-calendar.ts';
import { chargedAs } from '../../domain/operations.ts';
import { chainTerms, subscribe, type ChainTerms } from '../schedules/subscriptions.ts';
import { recurringToken } from './card-on-file.ts';

export interface RecurringWrite {
  /** Merged into the approved payment's details (and so into its callback and status lookups). */
  details: PaymentDetails;
  /** Writes the chain's subscription, if any, in the approving transaction. */
  record(sql: Sql, payment: Payment, now: Date): Promise<void>;
}

const NOTHING_TO_RECORD = async (): Promise<void> => undefined;

/** The schedule a payment puts its chain on: named with recurring_init, or by a recurring charge asking for it. */
function scheduleNamed(details: PaymentDetails): string | undefined {
  const named = typeof details.schedule_id === 'string' ? details.schedule_id : undefined;
  return named && (details.recurringInit === true || details.startSchedule === true) ? named : undefined;
}

/** What each payment of the chain charges: payment_schedule_amount after a trial, else this payment's amount. */
function chainAmount(payment: Payment): bigint {
  const text = payment.details.payment_schedule_amount;
  const parsed = typeof text === 'string' ? parseAmount(text, payment.currency) : undefined;
  return scheduledAmount(payment.amount, parsed?.ok ? parsed.money.minor : undefined);
}

async function chainIds(ctx: ServiceContext, merchant: Merchant, payment: Payment): Promise<PaymentDetails> {
  if (payment.details.recurringInit !== true) {
    return { recurring_init_trans_id: payment.details.recurring_init_trans_id, recurring_token: payment.details.recurring_token };
  }
  const mid = (await ctx.merchants.byMerchantKey(merchant.key))?.mids.find((m) => m.id === payment.midId);
  const { token, issuer } = await recurringToken(ctx, mid, payment);
  // The chain is named by the initiating payment's id: the trans_id an S2S merchant knows it by.
  return { recurring_init_trans_id: payment.id, recurring_token: token, recurringTokenIssuer: issuer };
}

/** The chain's terms on the schedule; a chain already on it keeps its own (and its first date). */
async function termsOnSchedule(ctx: ServiceContext, merchant: Merchant, payment: Payment, scheduleId: string, token: string): Promise<(ChainTerms & { existing: boolean }) | undefined> {
  const existing = await findActiveSubscription(ctx.db, scheduleId, token);
  if (existing) return { scheduleId, startedOn: existing.startedOn, firstDate: existing.firstDate, anchorDay: existing.anchorDay, nextDueDate: existing.nextDueDate, amount: existing.amount, existing: true };
  const amount = chainAmount(payment);
  const startDate = typeof payment.details.schedule_start_date === 'string' ? payment.details.schedule_start_date : undefined;
  const terms = amount > 0n ? await chainTerms(ctx, merchant.id, scheduleId, amount, startDate) : undefined;
  if (!terms) ctx.logger.warn({ paymentId: payment.id, scheduleId }, 'recurring chain not put on its schedule (schedule gone, or nothing to charge)');
  return terms && { ...terms, existing: false };
}

/** Undefined for a payment that neither starts a chain nor puts one on a schedule. */
export async function prepareRecurring(ctx: ServiceContext, merchant: Merchant, payment: Payment): Promise<RecurringWrite | undefined> {
  const scheduleId = scheduleNamed(payment.details);
  if (payment.details.recurringInit !== true && !scheduleId) return undefined;
  const ids = await chainIds(ctx, merchant, payment);
  const token = String(ids.recurring_token);
  const terms = scheduleId ? await termsOnSchedule(ctx, merchant, payment, scheduleId, token) : undefined;
  if (!terms) return { details: ids, record: NOTHING_TO_RECORD };
  return {
    details: { ...ids, first_recurring_date: terms.firstDate },
    record: async (sql, approved, now) => {
      if (terms.existing) return;
      await subscribe(sql, terms, {
        merchantId: merchant.id,
        initPaymentId: String(ids.recurring_init_trans_id),
        originPaymentId: approved.id,
        recurringToken: token,
        operation: chargedAs(approved.operation),
        currency: approved.currency,
      }, now);
    },
  };
}
