/**
 * Settlement statements and merchant payouts for operators (issue 27): list and read statements (every line: the
 * transactions, their fees, reserve movements, adjustments, and the statement's own entries), stream one as CSV
 * in constant memory (keyset pages), mark a statement paid with the bank's reference (posting the payout), and
 * export the payouts due as CSV.
 */
import type { ServiceContext } from '../context.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isUuid, newId } from '../../domain/ids.ts';
import { exponentOf, formatAmount } from '../../domain/money.ts';
import { accountName, entriesOf } from '../../domain/ledger/postings.ts';
import { payableOf } from '../../domain/ledger/periods.ts';
import { isBic, isIban, painXml, SEPA_CURRENCY, type SepaTransfer } from '../../domain/ledger/sepa.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { insertEntries, moneyTermsOfMany } from '../../store/ledger-repo.ts';
import { balanceForUpdate, balancesOfAccounts, getStatement, insertPayout, listStatements, statementCsvPage, type CsvPage, STATEMENT_ACCOUNTS, statementLines, statementOwnLines, type Statement, type StatementLine } from '../../store/settlements-repo.ts';

export interface StatementView {
  id: string;
  merchant_id: string;
  currency: string;
  period_from: string;
  period_to: string;
  gross: string;
  fees: string;
  reserve_held: string;
  reserve_release_at: string | null;
  reserve_released_at: string | null;
  net_payable: string;
  opening_available: string;
  transactions: number;
  created_at: string;
  payout: { id: string; amount: string; bank_reference: string; paid_by: string | null; paid_at: string } | null;
}

export const statementView = (s: Statement): StatementView => {
  const c = s.currency;
  return {
    id: s.id, merchant_id: s.merchantId, currency: c, period_from: s.periodFrom.toISOString(), period_to: s.periodTo.toISOString(),
    gross: formatAmount(s.gross, c), fees: formatAmount(s.fees, c), reserve_held: formatAmount(s.reserveHeld, c),
    reserve_release_at: s.reserveReleaseAt?.toISOString() ?? null, reserve_released_at: s.reserveReleasedAt?.toISOString() ?? null,
    net_payable: formatAmount(s.net, c), opening_available: formatAmount(s.openingAvailable, c), transactions: s.transactions, created_at: s.createdAt.toISOString(),
    payout: s.payout && { id: s.payout.id, amount: formatAmount(s.payout.amount, c), bank_reference: s.payout.bankReference, paid_by: s.payout.paidBy, paid_at: s.payout.paidAt.toISOString() },
  };
};

export interface LineView {
  created_at: string;
  ref: string;
  payment_id: string | null;
  event: string;
  account: string;
  amount: string;
}

const lineView = (l: StatementLine, currency: string): LineView => ({
  created_at: l.createdAt.toISOString(), ref: l.ref, payment_id: l.paymentId, event: l.event, account: l.account.slice(l.account.lastIndexOf(':') + 1), amount: formatAmount(l.amount, currency),
});

async function statementOrNotFound(ctx: ServiceContext, id: string): Promise<Statement> {
  const s = isUuid(id) ? await getStatement(ctx.db, id) : undefined;
  if (!s) throw new GatewayError('notFound');
  return s;
}

export async function listMerchantStatements(ctx: ServiceContext, filter: { merchantId?: string; unpaid?: boolean; limit?: number }): Promise<StatementView[]> {
  return (await listStatements(ctx.db, { ...filter, limit: Math.min(filter.limit ?? 100, 500) })).map(statementView);
}

/** A statement's lines, account by account and page by page (keyset), then its own entries. */
async function* linesOf(ctx: ServiceContext, s: Statement, page: number): AsyncGenerator<StatementLine[]> {
  for (const kind of STATEMENT_ACCOUNTS) {
    let after: StatementLine | undefined;
    for (;;) {
      const lines = await statementLines(ctx.db, s, kind, after, page);
      if (lines.length > 0) yield lines;
      if (lines.length < page) break;
      after = lines[lines.length - 1];
    }
  }
  yield await statementOwnLines(ctx.db, s);
}

/** A statement and its first `limit` lines (the CSV has them all). */
export async function readStatement(ctx: ServiceContext, id: string, limit = 500): Promise<StatementView & { lines: LineView[] }> {
  const s = await statementOrNotFound(ctx, id);
  const lines: LineView[] = [];
  for await (const page of linesOf(ctx, s, limit)) {
    for (const l of page) if (lines.length < limit) lines.push(lineView(l, s.currency));
    if (lines.length >= limit) break;
  }
  return { ...statementView(s), lines };
}

/** Lines per page of the CSV: each page is one string the database writes (bench/statement.ts measured it). */
export const CSV_PAGE = 10_000;
const csvField = (v: string | null) => (v === null ? '' : /[",\n\r]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
const csvLine = (fields: (string | null)[]) => `${fields.map(csvField).join(',')}\n`;

/**
 * A statement as CSV, page by page (constant memory whatever its size): a header, every line (account by
 * account: pending, fees, available, reserve; then the statement's own entries), then the totals.
 * The statement is checked before the first byte, so an unknown one is a D3 404.
 */
export async function statementCsv(ctx: ServiceContext, id: string): Promise<{ statement: Statement; rows: AsyncGenerator<string> }> {
  const s = await statementOrNotFound(ctx, id);
  async function* rows(): AsyncGenerator<string> {
    yield csvLine(['created_at', 'ref', 'payment_id', 'event', 'account', 'amount', 'currency']);
    // Each page's lines written by the database as one string (no object per line: a statement may hold millions).
    const exponent = exponentOf(s.currency);
    for (const kind of STATEMENT_ACCOUNTS) {
      let after: CsvPage['last'];
      for (;;) {
        const page = await statementCsvPage(ctx.db, s, kind, exponent, after, CSV_PAGE);
        if (page.text) yield page.text;
        if (page.lines < CSV_PAGE) break;
        after = page.last;
      }
    }
    const tail = `,${csvField(s.currency)}\n`;
    for (const l of await statementOwnLines(ctx.db, s)) {
      yield `${l.createdAt.toISOString()},${csvField(l.ref)},${l.paymentId === null ? '' : csvField(l.paymentId)},${l.event},${l.account.slice(l.account.lastIndexOf(':') + 1)},${formatAmount(l.amount, s.currency)}${tail}`;
    }
    const v = statementView(s);
    for (const [label, amount] of [['gross', v.gross], ['fees', v.fees], ['reserve_held', v.reserve_held], ['net_payable', v.net_payable]] as const) {
      yield csvLine(['', `total:${label}`, null, null, null, amount, s.currency]);
    }
  }
  return { statement: s, rows: rows() };
}

/**
 * Marks a statement paid to the merchant with the bank's reference: posts the payout (available -> bank) of what
 * it pays, once: its net payable, but never more than the merchant's available balance, so a negative balance
 * carried over is made up first (domain/ledger/periods.ts payableOf); nothing payable is refused (it carries over).
 */
export async function markPaid(ctx: ServiceContext, actor: AuditActor, id: string, bankReference: string): Promise<StatementView> {
  const s = await statementOrNotFound(ctx, id);
  if (!bankReference || !/^[\x20-\x7e]{3,140}$/.test(bankReference)) throw GatewayError.field('bank_reference', 'should be the bank\'s reference (3 to 140 printable characters).');
  if (s.net <= 0n) throw GatewayError.field('net_payable', `nothing is payable (${formatAmount(s.net, s.currency)}): the balance carries over.`);
  const now = ctx.clock.now();
  const payoutId = newId();
  await ctx.db.transaction(async (tx) => {
    const available = -(await balanceForUpdate(tx, accountName('merchant_available', { merchantId: s.merchantId }), s.currency));
    const amount = payableOf(s.net, available);
    if (amount === 0n) throw GatewayError.field('net_payable', `nothing is payable: the available balance is ${formatAmount(available, s.currency)} (a negative balance carries over).`);
    const recorded = await insertPayout(tx, { id: payoutId, statementId: s.id, merchantId: s.merchantId, currency: s.currency, amount, bankReference, paidBy: actor.name, paidAt: now });
    if (!recorded) throw GatewayError.field('statement', 'is paid already.');
    await insertEntries(tx, entriesOf([{ kind: 'merchant_payout', amount }], { merchantId: s.merchantId, currency: s.currency, ref: `payout:${payoutId}`, paymentId: null }), now);
    await appendAudit(tx, { actor, action: 'statement.paid', objectType: 'statement', objectId: s.id, details: { payoutId, amount: formatAmount(amount, s.currency), currency: s.currency, bankReference } }, now);
  });
  return statementView(await statementOrNotFound(ctx, id));
}

/** A transfer due: an unpaid statement and what it pays (its net, up to the available balance). */
export interface PayoutDue {
  statement: Statement;
  amount: bigint;
}

/**
 * The payouts due: unpaid statements, oldest first per merchant and currency, each paying its net up to what is
 * left of the merchant's available balance (a negative balance carried over is made up first); those that pay
 * nothing are left out (they carry over). `merchantId`: one merchant's only.
 */
export async function payoutsDue(ctx: ServiceContext, merchantId?: string): Promise<PayoutDue[]> {
  const unpaid = (await listStatements(ctx.db, { unpaid: true, limit: 10_000, ...(merchantId !== undefined ? { merchantId } : {}) })).filter((s) => s.net > 0n).reverse();
  const keys = [...new Map(unpaid.map((s) => [`${s.merchantId} ${s.currency}`, { account: accountName('merchant_available', { merchantId: s.merchantId }), currency: s.currency }])).values()];
  const balances = await balancesOfAccounts(ctx.db, keys);
  const left = new Map<string, bigint>();
  const due: PayoutDue[] = [];
  for (const s of unpaid) {
    const key = `${accountName('merchant_available', { merchantId: s.merchantId })} ${s.currency}`;
    const available = left.get(key) ?? -(balances.get(key) ?? 0n);
    const amount = payableOf(s.net, available);
    left.set(key, available - amount);
    if (amount > 0n) due.push({ statement: s, amount });
  }
  return due;
}

/** The payouts due as CSV: one bank transfer a line (with the merchant's payout account when it has one). */
export async function payoutsCsv(ctx: ServiceContext): Promise<string> {
  const due = await payoutsDue(ctx);
  const terms = await moneyTermsOfMany(ctx.db, [...new Set(due.map((d) => d.statement.merchantId))]);
  return csvLine(['statement_id', 'merchant_id', 'currency', 'amount', 'period_from', 'period_to', 'account_name', 'iban', 'bic'])
    + due.map(({ statement: s, amount }) => {
      const account = terms.get(s.merchantId)!.payoutAccount;
      return csvLine([s.id, s.merchantId, s.currency, formatAmount(amount, s.currency), s.periodFrom.toISOString(), s.periodTo.toISOString(), account.name, account.iban, account.bic]);
    }).join('');
}

export interface SepaExportInput {
  debtor: { name: string; iban: string; bic: string };
  /** YYYY-MM-DD; absent: today (UTC). */
  execution_date?: string;
}

/**
 * The euro payouts due as a SEPA credit transfer file (pain.001.001.09), one transfer per statement to the
 * merchant's payout account. Statements in other currencies, and merchants without a payout IBAN, are left out
 * and counted (`skipped`): the CSV lists every payout due.
 */
export async function payoutsSepa(ctx: ServiceContext, input: SepaExportInput): Promise<{ xml: string; transfers: number; skipped: number }> {
  const problems = [];
  if (!input.debtor?.name?.trim()) problems.push({ field: 'debtor.name', message: 'should name the platform\'s account holder.' });
  if (!isIban(input.debtor?.iban ?? '')) problems.push({ field: 'debtor.iban', message: 'should be an IBAN (its check digits are wrong or its shape is).' });
  if (!isBic((input.debtor?.bic ?? '').replace(/\s+/g, ''))) problems.push({ field: 'debtor.bic', message: 'should be a BIC of 8 or 11 characters.' });
  const now = ctx.clock.now();
  const executionDate = input.execution_date ?? now.toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(executionDate) || Number.isNaN(Date.parse(`${executionDate}T00:00:00Z`)) || executionDate < now.toISOString().slice(0, 10)) {
    problems.push({ field: 'execution_date', message: 'should be a date (YYYY-MM-DD), today or later.' });
  }
  if (problems.length > 0) throw GatewayError.invalid(problems);
  const due = await payoutsDue(ctx);
  const terms = await moneyTermsOfMany(ctx.db, [...new Set(due.map((d) => d.statement.merchantId))]);
  const transfers: SepaTransfer[] = [];
  for (const { statement: s, amount } of due) {
    const account = terms.get(s.merchantId)!.payoutAccount;
    if (s.currency !== SEPA_CURRENCY || !account.iban) continue;
    transfers.push({
      endToEndId: s.id.replaceAll('-', ''), amount, creditor: { name: account.name ?? s.merchantId, iban: account.iban, bic: account.bic },
      remittance: `Settlement ${s.periodFrom.toISOString().slice(0, 10)} to ${s.periodTo.toISOString().slice(0, 10)} statement ${s.id}`,
    });
  }
  const xml = painXml({
    messageId: `PAYOUTS-${now.toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-${newId().replaceAll('-', '').slice(0, 8)}`,
    createdAt: now, executionDate, debtor: { name: input.debtor.name, iban: input.debtor.iban, bic: input.debtor.bic.replace(/\s+/g, '') }, transfers,
  });
  return { xml, transfers: transfers.length, skipped: due.length - transfers.length };
}
