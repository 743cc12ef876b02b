/**
 * The merchant's money for operators (issue 27): fee schedule versions (validated, audited), a merchant's money
 * terms, balances, a payment's fee and entries, manual adjustments (admin only, with a reason, audited), and the
 * ledger's self-check. Reads of balances are O(1) per account: the running balances kept with the entries.
 */
import type { ServiceContext } from '../context.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isUuid, newId } from '../../domain/ids.ts';
import { entityTag, ifMatchHolds } from '../../domain/entity-tags.ts';
import { formatAmount, parseAmount } from '../../domain/money.ts';
import { isCountryCode } from '../../domain/countries.ts';
import { feeRowView, parseFeeRows, type FeeRowInput } from '../../domain/ledger/fees.ts';
import { entriesOf, merchantBalances, type MerchantBalances } from '../../domain/ledger/postings.ts';
import { findMerchantById, listMids, lockMerchant } from '../../store/merchants-repo.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import {
  balanceMismatches, balancesOf, currencySums, feeSchedulesOf, insertEntries, insertFeeSchedule,
  moneyTermsOf, saveMoneyTerms, type MoneyTerms, type StoredFeeSchedule,
} from '../../store/ledger-repo.ts';
import { forgetBooks } from '../money/postings.ts';
import { SETTLEMENT_FREQUENCIES, type SettlementFrequency } from '../../domain/ledger/periods.ts';
import { isBic, isIban, normalIban } from '../../domain/ledger/sepa.ts';

export async function merchantOrNotFound(ctx: ServiceContext, merchantId: string) {
  const merchant = isUuid(merchantId) ? await findMerchantById(ctx.db, ctx.keyring, merchantId) : undefined;
  if (!merchant) throw new GatewayError('notFound');
  return merchant;
}

// --- fee schedules ------------------------------------------------------------------------------------------

export interface FeeScheduleView {
  id: string;
  merchant_id: string | null;
  effective_from: string;
  rows: Required<FeeRowInput>[];
  created_by: string | null;
  created_at: string;
}

const scheduleView = (s: StoredFeeSchedule): FeeScheduleView => ({
  id: s.id, merchant_id: s.merchantId, effective_from: s.effectiveFrom.toISOString(), rows: s.rows.map(feeRowView),
  created_by: s.createdBy, created_at: s.createdAt.toISOString(),
});

/** The versions of the platform's default schedule and, with a merchant, of that merchant's, oldest first. */
export async function listFeeSchedules(ctx: ServiceContext, merchantId?: string): Promise<FeeScheduleView[]> {
  if (merchantId !== undefined) await merchantOrNotFound(ctx, merchantId);
  return (await feeSchedulesOf(ctx.db, merchantId ?? null)).filter((s) => merchantId !== undefined || s.merchantId === null).map(scheduleView);
}

export interface NewFeeSchedule {
  merchant_id?: string | null;
  effective_from: string;
  rows: FeeRowInput[];
}

/** The currencies a merchant's MIDs take; undefined when one of them takes any. */
async function currenciesOf(ctx: ServiceContext, merchantId: string): Promise<Set<string> | undefined> {
  const mids = await listMids(ctx.db, merchantId);
  if (mids.some((m) => m.currencies === null)) return undefined;
  return new Set(mids.flatMap((m) => m.currencies ?? []));
}

/**
 * A new version: it applies to payments from its effective date, which may not lie in the past (a payment
 * posted already keeps its fee; every node takes the version up within BOOK_TTL_MS).
 */
export async function createFeeSchedule(ctx: ServiceContext, actor: AuditActor, input: NewFeeSchedule): Promise<FeeScheduleView> {
  const merchantId = input.merchant_id ?? null;
  if (merchantId !== null) await merchantOrNotFound(ctx, merchantId);
  const now = ctx.clock.now();
  const effectiveFrom = new Date(input.effective_from);
  const problems = [];
  if (Number.isNaN(effectiveFrom.getTime())) problems.push({ field: 'effective_from', message: 'should be an ISO 8601 instant.' });
  else if (effectiveFrom.getTime() < now.getTime() - 60_000) problems.push({ field: 'effective_from', message: 'should not lie in the past: payments already posted keep their fees.' });
  const parsed = parseFeeRows(input.rows, merchantId === null ? undefined : await currenciesOf(ctx, merchantId));
  if ('problems' in parsed) problems.push(...parsed.problems);
  if (problems.length > 0 || 'problems' in parsed) throw GatewayError.invalid(problems);
  const saved = await ctx.db.transaction(async (tx) => {
    const row = await insertFeeSchedule(tx, { id: newId(), merchantId, effectiveFrom, rows: parsed.rows, createdBy: actor.name }, now);
    if (!row) throw GatewayError.field('effective_from', 'a version from this instant exists already.');
    await appendAudit(tx, { actor, action: 'fee_schedule.create', objectType: merchantId ? 'merchant' : 'platform', objectId: merchantId ?? 'platform', after: scheduleView(row) }, now);
    return row;
  });
  forgetBooks(ctx);
  return scheduleView(saved);
}

// --- money terms --------------------------------------------------------------------------------------------

export interface PayoutAccountView {
  name: string | null;
  iban: string | null;
  bic: string | null;
}

export interface MoneyTermsView {
  merchant_id: string;
  country: string | null;
  settlement_delay_days: number;
  settlement_frequency: SettlementFrequency;
  settlement_cutoff_weekday: number;
  reserve_percent: string;
  reserve_days: number;
  payout_account: PayoutAccountView;
}

const termsView = (t: MoneyTerms): MoneyTermsView => ({
  merchant_id: t.merchantId, country: t.country, settlement_delay_days: t.settlementDelayDays,
  settlement_frequency: t.settlementFrequency, settlement_cutoff_weekday: t.settlementCutoffWeekday,
  payout_account: { ...t.payoutAccount },
  reserve_percent: feeRowView({ operation: 'sale', method: '*', region: '*', currency: '*', ratePpm: t.reservePpm, fixed: 0n, min: 0n, max: null }).percent,
  reserve_days: t.reserveDays,
});

export async function getMoneyTerms(ctx: ServiceContext, merchantId: string): Promise<MoneyTermsView> {
  await merchantOrNotFound(ctx, merchantId);
  return termsView(await moneyTermsOf(ctx.db, merchantId));
}

export interface MoneyTermsInput {
  country?: string | null;
  settlement_delay_days?: number;
  settlement_frequency?: string;
  settlement_cutoff_weekday?: number;
  reserve_percent?: string;
  reserve_days?: number;
  payout_account?: { name?: string | null; iban?: string | null; bic?: string | null } | null;
}

/**
 * Replaces a merchant's money terms as a whole (a field left out takes its default). With `ifMatch` (the request's
 * If-Match), only while the stored terms still have the tag it names (domain/entity-tags.ts).
 */
export async function putMoneyTerms(ctx: ServiceContext, actor: AuditActor, merchantId: string, input: MoneyTermsInput, ifMatch?: string): Promise<MoneyTermsView> {
  await merchantOrNotFound(ctx, merchantId);
  const problems = [];
  if (input.country != null && !isCountryCode(input.country)) problems.push({ field: 'country', message: 'should be an ISO 3166-1 alpha-2 code.' });
  const reserve = parseFeeRows([{ operation: 'sale', percent: input.reserve_percent ?? '0' }]);
  if ('problems' in reserve) problems.push({ field: 'reserve_percent', message: 'should be a decimal from 0 to 100 with at most 4 fraction digits.' });
  const frequency = input.settlement_frequency ?? 'daily';
  if (!(SETTLEMENT_FREQUENCIES as readonly string[]).includes(frequency)) problems.push({ field: 'settlement_frequency', message: `should be one of ${SETTLEMENT_FREQUENCIES.join(', ')}.` });
  const weekday = input.settlement_cutoff_weekday ?? 1;
  if (!Number.isInteger(weekday) || weekday < 1 || weekday > 7) problems.push({ field: 'settlement_cutoff_weekday', message: 'should be an ISO weekday, 1 (Monday) to 7 (Sunday).' });
  const account = input.payout_account ?? {};
  const iban = account.iban ? normalIban(account.iban) : null;
  const bic = account.bic ? account.bic.replace(/\s+/g, '').toUpperCase() : null;
  if (iban !== null && !isIban(iban)) problems.push({ field: 'payout_account.iban', message: 'should be an IBAN (its check digits are wrong or its shape is).' });
  if (bic !== null && !isBic(bic)) problems.push({ field: 'payout_account.bic', message: 'should be a BIC of 8 or 11 characters.' });
  if (iban !== null && !account.name?.trim()) problems.push({ field: 'payout_account.name', message: 'should name the account holder.' });
  if (problems.length > 0 || 'problems' in reserve) throw GatewayError.invalid(problems);
  const now = ctx.clock.now();
  const terms: MoneyTerms = {
    merchantId, country: input.country ?? null, settlementDelayDays: input.settlement_delay_days ?? 2,
    settlementFrequency: frequency as SettlementFrequency, settlementCutoffWeekday: weekday,
    reservePpm: reserve.rows[0]!.ratePpm, reserveDays: input.reserve_days ?? 0,
    payoutAccount: { name: account.name?.trim() || null, iban, bic },
  };
  await ctx.db.transaction(async (tx) => {
    // The merchant's row locked: saves of its terms are serialised, so the terms compared are the ones replaced.
    if (!(await lockMerchant(tx, merchantId))) throw new GatewayError('notFound');
    const before = await moneyTermsOf(tx, merchantId);
    if (ifMatch !== undefined && !ifMatchHolds(ifMatch, entityTag(termsView(before)))) throw new GatewayError('configurationChanged');
    await saveMoneyTerms(tx, terms, now);
    await appendAudit(tx, { actor, action: 'merchant.money_terms', objectType: 'merchant', objectId: merchantId, before: termsView(before), after: termsView(terms) }, now);
  });
  forgetBooks(ctx);
  return termsView(terms);
}

// --- balances, a payment's entries, adjustments ------------------------------------------------------------

export interface BalanceView {
  currency: string;
  pending: string;
  available: string;
  reserve: string;
  fees: string;
  total: string;
}

const balanceView = (currency: string, b: MerchantBalances): BalanceView => ({
  currency, pending: formatAmount(b.pending, currency), available: formatAmount(b.available, currency), reserve: formatAmount(b.reserve, currency),
  fees: formatAmount(b.fees, currency), total: formatAmount(b.total, currency),
});

/** A merchant's balances per currency, from the running balances of its four accounts. */
export async function merchantBalancesOf(ctx: ServiceContext, merchantId: string): Promise<BalanceView[]> {
  await merchantOrNotFound(ctx, merchantId);
  const rows = await balancesOf(ctx.db, `merchant:${merchantId}:`);
  const byCurrency = new Map<string, { pending: bigint; available: bigint; reserve: bigint; fees: bigint }>();
  for (const r of rows) {
    const sums = byCurrency.get(r.currency) ?? { pending: 0n, available: 0n, reserve: 0n, fees: 0n };
    const kind = r.account.slice(r.account.lastIndexOf(':') + 1) as keyof typeof sums;
    if (kind in sums) sums[kind] = r.balance;
    byCurrency.set(r.currency, sums);
  }
  return [...byCurrency].map(([currency, sums]) => balanceView(currency, merchantBalances(sums)));
}

export interface AdjustmentInput {
  currency: string;
  /** Positive: credited to the merchant's available balance; the direction says which way. */
  amount: string;
  direction: 'credit' | 'debit';
  reason: string;
}

/**
 * A manual adjustment of a merchant's available balance (admin only): a new pair of entries against the
 * platform's adjustments account, never a change to an entry; refused without a reason or in a currency the
 * merchant has no account in.
 */
export async function adjustBalance(ctx: ServiceContext, actor: AuditActor, merchantId: string, input: AdjustmentInput): Promise<{ id: string; balances: BalanceView[] }> {
  await merchantOrNotFound(ctx, merchantId);
  const problems = [];
  if (!input.reason || input.reason.trim().length < 3) problems.push({ field: 'reason', message: 'should say why (at least 3 characters).' });
  const parsed = parseAmount(input.amount, input.currency);
  if (!parsed.ok || parsed.money.minor === 0n) problems.push({ field: 'amount', message: `should be a positive amount in ${input.currency}.` });
  const accounts = await balancesOf(ctx.db, `merchant:${merchantId}:`);
  if (!accounts.some((a) => a.currency === input.currency)) problems.push({ field: 'currency', message: `the merchant has no account in ${input.currency}.` });
  if (problems.length > 0 || !parsed.ok) throw GatewayError.invalid(problems);
  const id = newId();
  const now = ctx.clock.now();
  const entries = entriesOf([{ kind: input.direction === 'credit' ? 'adjustment_credit' : 'adjustment_debit', amount: parsed.money.minor }], { merchantId, currency: input.currency, ref: `adjustment:${id}`, paymentId: null });
  await ctx.db.transaction(async (tx) => {
    await insertEntries(tx, entries, now);
    await appendAudit(tx, { actor, action: 'merchant.adjustment', objectType: 'merchant', objectId: merchantId, details: { id, currency: input.currency, amount: input.amount, direction: input.direction, reason: input.reason } }, now);
  });
  return { id, balances: await merchantBalancesOf(ctx, merchantId) };
}

/** The ledger's self-check: accounts whose running balance is not the sum of their entries, and each currency's sum. */
export async function ledgerCheck(ctx: ServiceContext): Promise<{ balanced: boolean; mismatches: { account: string; currency: string; balance: string; sum: string }[]; currencies: { currency: string; sum: string }[] }> {
  const mismatches = (await balanceMismatches(ctx.db)).map((m) => ({ account: m.account, currency: m.currency, balance: m.balance.toString(), sum: m.sum.toString() }));
  const currencies = [...await currencySums(ctx.db)].map(([currency, sum]) => ({ currency, sum: sum.toString() }));
  return { balanced: mismatches.length === 0 && currencies.every((c) => c.sum === '0'), mismatches, currencies };
}
