/**
 * The merchant's money for operators (issue 27), under /admin/v1: fee schedule versions (money.read,
 * money.write), a merchant's money terms and balances, a payment's fee and ledger entries, manual adjustments
 * (money.adjust: admins only, with a reason, audited) and the ledger's self-check. Amounts are decimal strings
 * of their currency; entries are signed (a debit positive, a credit negative).
 */
import { IfMatchHeaders, PreconditionFailed, tagged, withEntityTag } from './conditional.ts';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import {
  adjustBalance, createFeeSchedule, getMoneyTerms, ledgerCheck, listFeeSchedules, putMoneyTerms,
  type AdjustmentInput, type MoneyTermsInput, type NewFeeSchedule,
} from '../../services/admin/money.ts';
import { merchantBalances, merchantPaymentFee, merchantStatement, merchantStatementCsv, merchantStatements, paymentLedgerOf } from '../../services/money/merchant-money.ts';
import { listMerchantStatements, markPaid, payoutsCsv, payoutsSepa, readStatement, statementCsv, type SepaExportInput } from '../../services/admin/statements.ts';
import { Readable } from 'node:stream';
import { ADMIN_TAG, actorOf, requirePermission } from './operator-auth.ts';
import { MerchantParams } from './config-schemas.ts';
import { FEE_COLUMNS, merchantFeesCsv } from '../../services/money/fee-lines.ts';
import { withErrors } from './errors.ts';
import { adminRoute } from './route-options.ts';

const Amount = Type.String({ maxLength: 40, description: 'A decimal amount of the row\'s currency (its exponent\'s digits at most).' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const FeeRow = Type.Object({
  operation: Type.String({ description: 'sale (also a capture), refund, payout or chargeback.', maxLength: 20 }),
  method: Type.Optional(Type.String({ maxLength: 40, description: 'A card brand (visa, mastercard, ...) or APM method key; * (default): any.' })),
  region: Type.Optional(Type.String({ maxLength: 20, description: 'domestic, intra_region or international (the card\'s issuer country, by the BIN table, against the merchant\'s country); * (default): any.' })),
  currency: Type.Optional(Type.String({ maxLength: 6, description: 'ISO 4217; * (default): any (then a percentage only).' })),
  percent: Type.Optional(Type.String({ maxLength: 12, description: 'Percentage of the amount, 0 to 100, at most 4 decimals.' })),
  fixed: Type.Optional(Amount),
  min: Type.Optional(Amount),
  max: Type.Optional(Nullable(Amount)),
}, { additionalProperties: false });

const NewScheduleBody = Type.Object({
  merchant_id: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'The merchant; absent or null: the platform\'s default.' })),
  effective_from: Type.String({ maxLength: 40, description: 'ISO 8601 instant from which payments are priced by this version (not in the past).' }),
  rows: Type.Array(FeeRow, { maxItems: 500 }),
}, {
  additionalProperties: false,
  examples: [{ merchant_id: null, effective_from: '2030-02-01T00:00:00Z', rows: [
    { operation: 'sale', currency: 'EUR', percent: '1.4', fixed: '0.25' },
    { operation: 'sale', region: 'international', percent: '2.9' },
    { operation: 'refund', currency: 'EUR', fixed: '0.15' },
  ] }],
});

const FeeRowView = Type.Object({
  operation: Type.String(), method: Type.String(), region: Type.String(), currency: Type.String(), percent: Type.String(),
  fixed: Type.String(), min: Type.String(), max: Type.Union([Type.String(), Type.Null()]),
});
const ScheduleView = Type.Object({
  id: Type.String(), merchant_id: Type.Union([Type.String(), Type.Null()]), effective_from: Type.String(), rows: Type.Array(FeeRowView),
  created_by: Type.Union([Type.String(), Type.Null()]), created_at: Type.String(),
});
const ScheduleQuery = Type.Object({ merchant_id: Type.Optional(Type.String({ maxLength: 64, description: 'Also this merchant\'s versions.' })) });

const TermsBody = Type.Object({
  country: Type.Optional(Type.Union([Type.String({ maxLength: 2 }), Type.Null()], { description: 'ISO 3166-1 alpha-2: a card issued here is domestic.' })),
  settlement_delay_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 90, description: 'T+N: days before captured money becomes available.' })),
  reserve_percent: Type.Optional(Type.String({ maxLength: 12, description: 'Share of each settled amount held back (rolling reserve).' })),
  reserve_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 365, description: 'Days a reserve is held before it is released.' })),
  settlement_frequency: Type.Optional(Type.String({ maxLength: 10, description: 'daily (default) or weekly.' })),
  settlement_cutoff_weekday: Type.Optional(Type.Integer({ description: 'Weekly: the ISO weekday (1 Monday ... 7 Sunday) whose UTC midnight ends a week\'s period (default 1: weeks run Monday to Sunday).' })),
  payout_account: Type.Optional(Type.Union([Type.Object({
    name: Type.Optional(Type.Union([Type.String({ maxLength: 140 }), Type.Null()], { description: 'The account holder (required with an IBAN).' })),
    iban: Type.Optional(Type.Union([Type.String({ maxLength: 50 }), Type.Null()], { description: 'Checked (ISO 13616 mod 97); spaces allowed.' })),
    bic: Type.Optional(Type.Union([Type.String({ maxLength: 15 }), Type.Null()], { description: '8 or 11 characters.' })),
  }, { additionalProperties: false }), Type.Null()], { description: 'Where the merchant is paid: the SEPA payout file\'s creditor.' })),
}, { additionalProperties: false, examples: [{ country: 'DE', settlement_delay_days: 2, settlement_frequency: 'weekly', settlement_cutoff_weekday: 1, reserve_percent: '10', reserve_days: 90, payout_account: { name: 'Muster Shop GmbH', iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX' } }] });
const TermsView = Type.Object({
  merchant_id: Type.String(), country: Type.Union([Type.String(), Type.Null()]), settlement_delay_days: Type.Integer(),
  settlement_frequency: Type.String({ description: 'daily or weekly' }), settlement_cutoff_weekday: Type.Integer({ description: 'ISO weekday ending a weekly period' }),
  reserve_percent: Type.String(), reserve_days: Type.Integer(),
  payout_account: Type.Object({ name: Type.Union([Type.String(), Type.Null()]), iban: Type.Union([Type.String(), Type.Null()]), bic: Type.Union([Type.String(), Type.Null()]) }),
});

export const BalanceView = Type.Object({
  currency: Type.String(),
  pending: Type.String({ description: 'Captured, not yet settled (owed to the merchant).' }),
  available: Type.String({ description: 'Settled and payable (negative: owed by the merchant, carried over).' }),
  reserve: Type.String({ description: 'Held back by the rolling reserve.' }),
  fees: Type.String({ description: 'Fees accrued, deducted at the next settlement.' }),
  total: Type.String({ description: 'pending - fees + available + reserve.' }),
});
const BalancesView = Type.Object({ merchant_id: Type.String(), balances: Type.Array(BalanceView) }, { examples: [{ merchant_id: '0b7f…', balances: [{ currency: 'EUR', pending: '120.00', available: '0.00', reserve: '0.00', fees: '3.48', total: '116.52' }] }] });

const EntryView = Type.Object({ ref: Type.String(), event: Type.String(), account: Type.String(), currency: Type.String(), amount: Type.String({ description: 'Signed: debit positive, credit negative.' }), created_at: Type.String() });
const PaymentLedgerView = Type.Object({
  payment_id: Type.String(), currency: Type.String(), fee: Type.String({ description: 'Fees charged, net of fees given back.' }),
  net_amount: Type.String({ description: 'What the merchant is owed for the payment after its fees.' }), entries: Type.Array(EntryView),
});
const PaymentParams = Type.Object({ id: Type.String({ maxLength: 1024, description: 'The payment\'s id.' }) });

const AdjustmentBody = Type.Object({
  currency: Type.String({ maxLength: 6 }),
  amount: Type.String({ maxLength: 40, description: 'Positive decimal amount.' }),
  direction: Type.Union([Type.Literal('credit'), Type.Literal('debit')], { description: 'credit: the merchant is owed more; debit: less.' }),
  reason: Type.String({ maxLength: 500 }),
}, { additionalProperties: false, examples: [{ currency: 'EUR', amount: '12.50', direction: 'credit', reason: 'Goodwill for the 3 March outage (ticket 4711)' }] });
const AdjustmentView = Type.Object({ id: Type.String(), balances: Type.Array(BalanceView) });

const CheckView = Type.Object({
  balanced: Type.Boolean({ description: 'Every running balance is the sum of its entries and every currency sums to zero.' }),
  mismatches: Type.Array(Type.Object({ account: Type.String(), currency: Type.String(), balance: Type.String(), sum: Type.String() })),
  currencies: Type.Array(Type.Object({ currency: Type.String(), sum: Type.String() })),
});

export const StatementView = Type.Object({
  id: Type.String(), merchant_id: Type.String(), currency: Type.String(), period_from: Type.String(), period_to: Type.String(),
  gross: Type.String({ description: 'Captured less refunded in the period (pending -> available).' }), fees: Type.String({ description: 'The period\'s fees, deducted.' }),
  reserve_held: Type.String(), reserve_release_at: Type.Union([Type.String(), Type.Null()]), reserve_released_at: Type.Union([Type.String(), Type.Null()]),
  net_payable: Type.String({ description: 'gross - fees - reserve_held; negative: carried over.' }),
  opening_available: Type.String({ description: 'The available balance before the statement\'s entries; negative: a balance carried over, made up by the next payouts first.' }),
  transactions: Type.Integer(), created_at: Type.String(),
  payout: Type.Union([Type.Object({ id: Type.String(), amount: Type.String(), bank_reference: Type.String(), paid_by: Type.Union([Type.String(), Type.Null()]), paid_at: Type.String() }), Type.Null()]),
}, { examples: [{
  id: '0193…', merchant_id: '0b7f…', currency: 'EUR', period_from: '2030-03-01T00:00:00.000Z', period_to: '2030-03-02T00:00:00.000Z', gross: '122.50', fees: '3.26',
  reserve_held: '12.25', reserve_release_at: '2030-05-31T00:00:00.000Z', reserve_released_at: null, net_payable: '106.99', opening_available: '0.00', transactions: 4, created_at: '2030-03-04T00:10:00.000Z', payout: null,
}] });
const LineView = Type.Object({ created_at: Type.String(), ref: Type.String(), payment_id: Type.Union([Type.String(), Type.Null()]), event: Type.String(), account: Type.String(), amount: Type.String({ description: 'Signed: debit positive.' }) });
export const StatementWithLines = Type.Composite([StatementView, Type.Object({ lines: Type.Array(LineView, { description: 'The first 500 lines; the CSV has all.' }) })]);
const StatementParams = Type.Object({ id: Type.String({ maxLength: 1024, description: 'The statement\'s id.' }) });
const StatementQuery = Type.Object({
  merchant_id: Type.Optional(Type.String({ maxLength: 64 })),
  unpaid: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'true: only statements not marked paid.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
});
const PaidBody = Type.Object({ bank_reference: Type.String({ maxLength: 140 }) }, { additionalProperties: false, examples: [{ bank_reference: 'SEPA-2030-03-04-000123' }] });
const Csv = Type.String({ description: 'text/csv, streamed' });
const SepaBody = Type.Object({
  debtor: Type.Object({
    name: Type.String({ maxLength: 140, description: 'The platform\'s account holder.' }),
    iban: Type.String({ maxLength: 50, description: 'The account the payouts are paid from.' }),
    bic: Type.String({ maxLength: 15 }),
  }, { additionalProperties: false }),
  execution_date: Type.Optional(Type.String({ maxLength: 10, description: 'YYYY-MM-DD, today or later; absent: today (UTC).' })),
}, { additionalProperties: false, examples: [{ debtor: { name: 'Portcullis Payments Ltd', iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX' }, execution_date: '2030-03-05' }] });

type Params = Static<typeof MerchantParams>;

const MerchantStatementParams = Type.Object({ id: MerchantParams.properties.id, statement_id: Type.String({ maxLength: 1024, description: 'The statement\'s id.' }) });
const MerchantPaymentParams = Type.Object({ id: MerchantParams.properties.id, payment_id: Type.String({ maxLength: 1024, description: 'The payment\'s id.' }) });
const MerchantStatementQuery = Type.Object({
  unpaid: StatementQuery.properties.unpaid,
  limit: StatementQuery.properties.limit,
});
const FeesQuery = Type.Object({
  created_from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or date-time with zone; inclusive', examples: ['2030-04-01'] })),
  created_to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or date-time with zone; exclusive', examples: ['2030-05-01'] })),
}, { additionalProperties: false });
const MERCHANT_SCOPED = 'Scoped to the merchant: another merchant\'s statement or payment is not found (404). services/money/merchant-money.ts, which the merchant portal mounts too.';

export function registerAdminMoneyRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Querystring: Static<typeof ScheduleQuery> }>('/money/fee-schedules', adminRoute('money.read', { summary: 'Fee schedule versions: the platform\'s default and, with merchant_id, the merchant\'s', querystring: ScheduleQuery, response: { 200: Type.Array(ScheduleView) } }), async (req) => listFeeSchedules(ctx, req.query.merchant_id));

  app.post<{ Body: NewFeeSchedule }>('/money/fee-schedules', {
    onRequest: requirePermission('money.write'),
    schema: {
      ...ADMIN_TAG, summary: 'A new fee schedule version from its effective date (validated: overlapping rows, negative percentages, min above max, currencies the merchant cannot take, each named); audited',
      body: NewScheduleBody, response: withErrors({ 201: ScheduleView }),
    },
  }, async (req, reply) => reply.code(201).send(await createFeeSchedule(ctx, actorOf(req), req.body)));

  app.get<{ Params: Params }>('/merchants/:id/money/terms', adminRoute('money.read', { summary: 'A merchant\'s money terms: country, settlement delay, rolling reserve (with their ETag)', params: MerchantParams, response: { 200: tagged(TermsView) } }), async (req, reply) => withEntityTag(reply, await getMoneyTerms(ctx, req.params.id)));

  app.put<{ Params: Params; Body: MoneyTermsInput; Headers: Static<typeof IfMatchHeaders> }>('/merchants/:id/money/terms', adminRoute('money.write', {
    summary: 'Replace a merchant\'s money terms (a field left out takes its default); audited. With If-Match, only over the terms read',
    params: MerchantParams, headers: IfMatchHeaders, body: TermsBody, response: { 200: tagged(TermsView), ...PreconditionFailed },
  }), async (req, reply) => withEntityTag(reply, await putMoneyTerms(ctx, actorOf(req), req.params.id, req.body, req.headers['if-match'])));

  app.get<{ Params: Params }>('/merchants/:id/balances', adminRoute('money.read', { summary: 'A merchant\'s balances per currency (running balances, O(1))', params: MerchantParams, response: { 200: BalancesView } }), async (req) => ({ merchant_id: req.params.id, balances: await merchantBalances(ctx, req.params.id) }));

  // --- the merchant's own reads, one merchant at a time (the merchant portal mounts the same service) ---

  app.get<{ Params: Params; Querystring: Static<typeof MerchantStatementQuery> }>('/merchants/:id/money/statements', adminRoute('money.read', { summary: 'A merchant\'s settlement statements, newest first', description: MERCHANT_SCOPED, params: MerchantParams, querystring: MerchantStatementQuery, response: { 200: Type.Array(StatementView) } }), async (req) => merchantStatements(ctx, req.params.id, { ...(req.query.unpaid === 'true' ? { unpaid: true } : {}), ...(req.query.limit ? { limit: req.query.limit } : {}) }));

  app.get<{ Params: Static<typeof MerchantStatementParams> }>('/merchants/:id/money/statements/:statement_id', adminRoute('money.read', { summary: 'One of a merchant\'s statements: totals, payout and its first lines', description: MERCHANT_SCOPED, params: MerchantStatementParams, response: { 200: StatementWithLines } }), async (req) => merchantStatement(ctx, req.params.id, req.params.statement_id));

  app.get<{ Params: Static<typeof MerchantStatementParams> }>('/merchants/:id/money/statements/:statement_id/csv', adminRoute('money.read', { summary: 'One of a merchant\'s statements as CSV (streamed)', description: MERCHANT_SCOPED, params: MerchantStatementParams, produces: ['text/csv'], response: { 200: Csv } }), async (req, reply) => {
    const { statement, rows } = await merchantStatementCsv(ctx, req.params.id, req.params.statement_id);
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="statement-${statement.id}.csv"`).send(Readable.from(rows));
  });

  app.get<{ Params: Params; Querystring: Static<typeof FeesQuery> }>('/merchants/:id/money/fees/csv', adminRoute('money.read', {
    summary: 'A merchant\'s fees as CSV: each fee charged (positive) or given back (negative) with its payment and the transaction it was charged on, newest first (streamed)',
    description: 'A creation window (created_from inclusive, created_to exclusive) narrows it. Every cell quoted, formulas neutralised. The merchant portal\'s GET /portal/v1/fees/export is the same export (services/money/fee-lines.ts).',
    params: MerchantParams, querystring: FeesQuery, produces: ['text/csv'], response: { 200: Type.String({ description: `text/csv, streamed: ${FEE_COLUMNS.join(', ')}` }) },
  }), async (req, reply) => {
    const rows = await merchantFeesCsv(ctx, req.params.id, req.query);
    return reply.type('text/csv; charset=utf-8').header('cache-control', 'no-store').header('content-disposition', `attachment; filename="fees-${req.params.id}-${ctx.clock.now().toISOString().slice(0, 10)}.csv"`).send(Readable.from(rows));
  });

  app.get<{ Params: Static<typeof MerchantPaymentParams> }>('/merchants/:id/money/payments/:payment_id', adminRoute('money.read', { summary: 'One of a merchant\'s payments: its fee, net amount and ledger entries', description: MERCHANT_SCOPED, params: MerchantPaymentParams, response: { 200: PaymentLedgerView } }), async (req) => merchantPaymentFee(ctx, req.params.id, req.params.payment_id));

  app.post<{ Params: Params; Body: AdjustmentInput }>('/merchants/:id/adjustments', {
    onRequest: requirePermission('money.adjust'),
    schema: {
      ...ADMIN_TAG, summary: 'A manual adjustment of a merchant\'s available balance (admins only; a reason; a currency the merchant has an account in); audited',
      params: MerchantParams, body: AdjustmentBody, response: withErrors({ 201: AdjustmentView }),
    },
  }, async (req, reply) => reply.code(201).send(await adjustBalance(ctx, actorOf(req), req.params.id, req.body)));

  app.get<{ Params: Static<typeof PaymentParams> }>('/payments/:id/ledger', adminRoute('money.read', { summary: 'A payment\'s fee, net amount and ledger entries', params: PaymentParams, response: { 200: PaymentLedgerView } }), async (req) => paymentLedgerOf(ctx, req.params.id));

  app.get<{ Querystring: Static<typeof StatementQuery> }>('/money/statements', adminRoute('money.read', { summary: 'Settlement statements, newest first (by merchant; unpaid only)', querystring: StatementQuery, response: { 200: Type.Array(StatementView) } }), async (req) => listMerchantStatements(ctx, { ...(req.query.merchant_id ? { merchantId: req.query.merchant_id } : {}), ...(req.query.unpaid === 'true' ? { unpaid: true } : {}), ...(req.query.limit ? { limit: req.query.limit } : {}) }));

  app.get<{ Params: Static<typeof StatementParams> }>('/money/statements/:id', adminRoute('money.read', { summary: 'A settlement statement: totals, net payable, its payout, and its lines', params: StatementParams, response: { 200: StatementWithLines } }), async (req) => readStatement(ctx, req.params.id));

  app.get<{ Params: Static<typeof StatementParams> }>('/money/statements/:id/csv', adminRoute('money.read', { summary: 'A settlement statement as CSV: every transaction, fee, reserve movement and adjustment, then the totals (streamed)', params: StatementParams, produces: ['text/csv'], response: { 200: Csv } }), async (req, reply) => {
    const { statement, rows } = await statementCsv(ctx, req.params.id);
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="statement-${statement.id}.csv"`).send(Readable.from(rows));
  });

  app.post<{ Params: Static<typeof StatementParams>; Body: Static<typeof PaidBody> }>('/money/statements/:id/paid', adminRoute('money.write', { summary: 'Mark a statement paid to the merchant with the bank\'s reference (posts the payout once); audited', params: StatementParams, body: PaidBody, response: { 200: StatementView } }), async (req) => markPaid(ctx, actorOf(req), req.params.id, req.body.bank_reference));

  app.get('/money/payouts/csv', adminRoute('money.read', { summary: 'The payouts due (unpaid statements with something payable) as CSV, one bank transfer a line', produces: ['text/csv'], response: { 200: Csv } }), async (_req, reply) => reply.type('text/csv; charset=utf-8').send(await payoutsCsv(ctx)));

  app.post<{ Body: SepaExportInput }>('/money/payouts/sepa', {
    onRequest: requirePermission('money.read'),
    schema: {
      ...ADMIN_TAG, summary: 'The euro payouts due as a SEPA credit transfer file (ISO 20022 pain.001.001.09)',
      description: 'One transfer per unpaid statement in EUR to the merchant\'s payout account (its terms), paying the statement\'s net up to the merchant\'s available balance, as the CSV does. Statements in other currencies and merchants without a payout IBAN are left out and counted in the x-payouts-skipped header. Nothing is marked paid: mark each statement paid with the bank\'s reference once the bank executed the file.',
      body: SepaBody, produces: ['application/xml'], response: withErrors({ 200: Type.String({ description: 'application/xml: a pain.001.001.09 Document' }) }),
    },
  }, async (req, reply) => {
    const { xml, transfers, skipped } = await payoutsSepa(ctx, req.body);
    return reply.type('application/xml; charset=utf-8').header('content-disposition', 'attachment; filename="payouts-pain.001.001.09.xml"')
      .header('x-payouts-transfers', String(transfers)).header('x-payouts-skipped', String(skipped)).send(xml);
  });

  app.get('/money/ledger-check', adminRoute('money.read', { summary: 'The ledger\'s self-check: running balances against the sums of their entries, each currency\'s sum', response: { 200: CheckView } }), async () => ledgerCheck(ctx));
}
