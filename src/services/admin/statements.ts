/**
 * Settlement statements and merchant payouts for operators (issue 27): list and read statements (every line: the
 * transactions, their fees, reserve movements, adjustments, and the statement's own entries), stream one as CSV
 * in constant memory (keyset pages), mark a statement paid with the bank's reference (posting the payout), and
 * export the payouts due as CSV.
 */
import type { ServiceContext } from '../context.ts';
import { GatewayError } from '../../domain/errors.ts';
import { isUuid, newId } from '../../domain/ids.ts';
import { formatAmount } from '../../domain/money.ts';
import { entriesOf } from '../../domain/ledger/postings.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { insertEntries } from '../../store/ledger-repo.ts';
import { getStatement, insertPayout, listStatements, STATEMENT_ACCOUNTS, statementLines, statementOwnLines, type Statement, type StatementLine } from '../../store/settlements-repo.ts';

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
    net_payable: formatAmount(s.net, c), transactions: s.transactions, created_at: s.createdAt.toISOString(),
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

const PAGE = 2_000;
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
    // Lines written directly (no view object per line): a statement may hold millions.
    const tail = `,${csvField(s.currency)}\n`;
    for await (const page of linesOf(ctx, s, PAGE)) {
      let chunk = '';
      for (const l of page) {
        chunk += `${l.createdAt.toISOString()},${csvField(l.ref)},${l.paymentId === null ? '' : csvField(l.paymentId)},${l.event},${l.account.slice(l.account.lastIndexOf(':') + 1)},${formatAmount(l.amount, s.currency)}${tail}`;
      }
      if (chunk) yield chunk;
    }
    const v = statementView(s);
    for (const [label, amount] of [['gross', v.gross], ['fees', v.fees], ['reserve_held', v.reserve_held], ['net_payable', v.net_payable]] as const) {
      yield csvLine(['', `total:${label}`, null, null, null, amount, s.currency]);
    }
  }
  return { statement: s, rows: rows() };
}

/**
 * Marks a statement paid to the merchant with the bank's reference: posts the payout (available -> bank) of its
 * net payable, once; a statement with nothing payable (a negative balance carries over) is refused.
 */
export async function markPaid(ctx: ServiceContext, actor: AuditActor, id: string, bankReference: string): Promise<StatementView> {
  const s = await statementOrNotFound(ctx, id);
  if (!bankReference || !/^[\x20-\x7e]{3,140}$/.test(bankReference)) throw GatewayError.field('bank_reference', 'should be the bank\'s reference (3 to 140 printable characters).');
  if (s.net <= 0n) throw GatewayError.field('net_payable', `nothing is payable (${formatAmount(s.net, s.currency)}): the balance carries over.`);
  const now = ctx.clock.now();
  const payoutId = newId();
  await ctx.db.transaction(async (tx) => {
    const recorded = await insertPayout(tx, { id: payoutId, statementId: s.id, merchantId: s.merchantId, currency: s.currency, amount: s.net, bankReference, paidBy: actor.name, paidAt: now });
    if (!recorded) throw GatewayError.field('statement', 'is paid already.');
    await insertEntries(tx, entriesOf([{ kind: 'merchant_payout', amount: s.net }], { merchantId: s.merchantId, currency: s.currency, ref: `payout:${payoutId}`, paymentId: null }), now);
    await appendAudit(tx, { actor, action: 'statement.paid', objectType: 'statement', objectId: s.id, details: { payoutId, amount: formatAmount(s.net, s.currency), currency: s.currency, bankReference } }, now);
  });
  return statementView(await statementOrNotFound(ctx, id));
}

/** The payouts due (statements not paid with something payable) as CSV: one bank transfer a line. */
export async function payoutsCsv(ctx: ServiceContext): Promise<string> {
  const due = (await listStatements(ctx.db, { unpaid: true, limit: 10_000 })).filter((s) => s.net > 0n);
  return csvLine(['statement_id', 'merchant_id', 'currency', 'amount', 'period_from', 'period_to'])
    + due.map((s) => csvLine([s.id, s.merchantId, s.currency, formatAmount(s.net, s.currency), s.periodFrom.toISOString(), s.periodTo.toISOString()])).join('');
}
