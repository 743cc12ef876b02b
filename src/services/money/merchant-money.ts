/**
 * The merchant's own money, read as the merchant may see it (issue 27 item 6, "merchant-facing reads"): its
 * balances per currency, its settlement statements (list, one with its first lines, the CSV), and each of its
 * payments' fee and net amount. Every read is scoped to one merchant: a statement or payment of another merchant
 * is not found (a D3 404, never a hint that it exists). The admin API mounts it under
 * /admin/v1/merchants/{id}/money/...; the merchant portal mounts the same functions under its own sign-in.
 *
 * Also the one place a payment's fee and net amount are read from the ledger (the optional Protocol Mapping
 * field `fee` of callbacks and status answers, the admin payment detail).
 */
import type { ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isUuid } from '../../domain/ids.ts';
import { formatAmount } from '../../domain/money.ts';
import { paymentMoneyOf, type PaymentMoney } from '../../domain/ledger/postings.ts';
import { entriesOfPayment, entriesOfPayments, type StoredEntry } from '../../store/ledger-repo.ts';
import { getPayment } from '../../store/payments-repo.ts';
import { getStatement, type Statement } from '../../store/settlements-repo.ts';
import { merchantBalancesOf, type BalanceView } from '../admin/money.ts';
import { listMerchantStatements, payoutsDue, readStatement, statementCsv, type LineView, type StatementView } from '../admin/statements.ts';
import { moneyTermsOf } from '../../store/ledger-repo.ts';
import { nextSettlement } from '../../domain/ledger/periods.ts';
import { scheduleOf } from './settlement.ts';

/** A payment's fee and net amount so far, from its entries (read through `sql`: a transaction sees its own). */
export async function paymentMoney(sql: Sql, payment: Pick<Payment, 'id' | 'merchantId'>): Promise<PaymentMoney> {
  return paymentMoneyOf(await entriesOfPayment(sql, payment.id), payment.merchantId);
}

/** The fee and net amount of each payment (one read), for status answers listing several. */
export async function paymentsMoney(ctx: ServiceContext, payments: readonly Pick<Payment, 'id' | 'merchantId'>[]): Promise<Map<string, PaymentMoney>> {
  const byPayment = new Map<string, StoredEntry[]>();
  for (const e of await entriesOfPayments(ctx.db, payments.map((p) => p.id))) {
    const list = byPayment.get(e.paymentId!) ?? [];
    list.push(e);
    byPayment.set(e.paymentId!, list);
  }
  return new Map(payments.map((p) => [p.id, paymentMoneyOf(byPayment.get(p.id) ?? [], p.merchantId)]));
}

/** The fee and net amount of payments whose merchant enabled the field; an empty map costs no read. */
export async function moneyWhenEnabled(ctx: ServiceContext, enabled: readonly string[] | undefined, payments: readonly Pick<Payment, 'id' | 'merchantId'>[]): Promise<Map<string, PaymentMoney>> {
  return enabled?.includes('fee') && payments.length > 0 ? paymentsMoney(ctx, payments) : new Map();
}

export interface PaymentMoneyView {
  payment_id: string;
  currency: string;
  /** The fees charged so far, net of fees given back. */
  fee: string;
  /** What the merchant is owed for the payment after its fees. */
  net_amount: string;
  entries: { ref: string; event: string; account: string; currency: string; amount: string; created_at: string }[];
}

export const paymentMoneyView = (payment: Pick<Payment, 'id' | 'merchantId' | 'currency'>, entries: readonly StoredEntry[]): PaymentMoneyView => {
  const money = paymentMoneyOf(entries, payment.merchantId);
  const c = payment.currency;
  return {
    payment_id: payment.id, currency: c, fee: formatAmount(money.fee, c), net_amount: formatAmount(money.net, c),
    entries: entries.map((e) => ({ ref: e.ref, event: e.event, account: e.account, currency: e.currency, amount: formatAmount(e.amount, e.currency), created_at: e.createdAt.toISOString() })),
  };
};

/** A payment's fee, net amount and entries; `merchantId`: only when the payment is that merchant's. */
export async function paymentLedgerOf(ctx: ServiceContext, paymentId: string, merchantId?: string): Promise<PaymentMoneyView> {
  const payment = isUuid(paymentId) ? await getPayment(ctx.db, paymentId) : undefined;
  if (!payment || (merchantId !== undefined && payment.merchantId !== merchantId)) throw new GatewayError('notFound');
  return paymentMoneyView(payment, await entriesOfPayment(ctx.db, payment.id));
}

// --- one merchant's reads ------------------------------------------------------------------------------------

/** The merchant's balances per currency (O(1): the running balances). */
export const merchantBalances = (ctx: ServiceContext, merchantId: string): Promise<BalanceView[]> => merchantBalancesOf(ctx, merchantId);

/** A currency's payouts: what the statements made and not paid yet will pay, and when the next statement comes. */
export interface PayoutOutlookView {
  currency: string;
  /** What the unpaid statements pay (each its net, up to the available balance left): the next transfer's amount. */
  awaiting_payout: string;
  /** How many unpaid statements pay something. */
  awaiting_statements: number;
  /** The end of the oldest unpaid statement's period (null: none awaits). */
  awaiting_since: string | null;
}

export interface MerchantMoneyView {
  merchant_id: string;
  balances: BalanceView[];
  payouts: PayoutOutlookView[];
  settlement: {
    frequency: string;
    delay_days: number;
    /** The next statement's period end (captures before it are in it) and the earliest instant it is made. */
    next_period_to: string;
    next_statement_at: string;
  };
}

/**
 * The merchant's money at a glance (the portal's home: balance and next payout): its balances per currency, the
 * payout its unpaid statements make (as the operators' payout file computes it), and when its next statement is
 * made by its settlement terms (domain/ledger/periods.ts nextSettlement).
 */
export async function merchantMoneyOverview(ctx: ServiceContext, merchantId: string): Promise<MerchantMoneyView> {
  const [balances, due, terms] = await Promise.all([merchantBalances(ctx, merchantId), payoutsDue(ctx, merchantId), moneyTermsOf(ctx.db, merchantId)]);
  const currencies = [...new Set([...balances.map((b) => b.currency), ...due.map((d) => d.statement.currency)])].sort();
  const payouts = currencies.map((currency): PayoutOutlookView => {
    const mine = due.filter((d) => d.statement.currency === currency);
    const amount = mine.reduce((sum, d) => sum + d.amount, 0n);
    return {
      currency, awaiting_payout: formatAmount(amount, currency), awaiting_statements: mine.length,
      awaiting_since: mine[0]?.statement.periodTo.toISOString() ?? null,
    };
  });
  const schedule = scheduleOf(terms);
  const next = nextSettlement(ctx.clock.now(), schedule);
  return {
    merchant_id: merchantId, balances, payouts,
    settlement: { frequency: schedule.frequency, delay_days: schedule.delayDays, next_period_to: next.periodEnd.toISOString(), next_statement_at: next.at.toISOString() },
  };
}

/** The merchant's statements, newest first. */
export function merchantStatements(ctx: ServiceContext, merchantId: string, filter: { unpaid?: boolean; limit?: number } = {}): Promise<StatementView[]> {
  return listMerchantStatements(ctx, { ...filter, merchantId });
}

async function ownStatement(ctx: ServiceContext, merchantId: string, id: string): Promise<Statement> {
  const s = isUuid(id) ? await getStatement(ctx.db, id) : undefined;
  if (!s || s.merchantId !== merchantId) throw new GatewayError('notFound');
  return s;
}

/** One of the merchant's statements with its first lines. */
export async function merchantStatement(ctx: ServiceContext, merchantId: string, id: string): Promise<StatementView & { lines: LineView[] }> {
  await ownStatement(ctx, merchantId, id);
  return readStatement(ctx, id);
}

/** One of the merchant's statements as CSV (streamed, constant memory). */
export async function merchantStatementCsv(ctx: ServiceContext, merchantId: string, id: string): ReturnType<typeof statementCsv> {
  await ownStatement(ctx, merchantId, id);
  return statementCsv(ctx, id);
}

/** One of the merchant's payments' fee, net amount and entries. */
export const merchantPaymentFee = (ctx: ServiceContext, merchantId: string, paymentId: string): Promise<PaymentMoneyView> => paymentLedgerOf(ctx, paymentId, merchantId);
