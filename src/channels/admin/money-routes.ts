/**
 * The merchant's money for operators (issue 27), under /admin/v1: fee schedule versions (money.read,
 * money.write), a merchant's money terms and balances, a payment's fee and ledger entries, manual adjustments
 * (money.adjust: admins only, with a reason, audited) and the ledger's self-check. Amounts are decimal strings
 * of their currency; entries are signed (a debit positive, a credit negative).
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import {
  adjustBalance, createFeeSchedule, getMoneyTerms, ledgerCheck, listFeeSchedules, merchantBalancesOf, paymentLedger, putMoneyTerms,
  type AdjustmentInput, type MoneyTermsInput, type NewFeeSchedule,
} from '../../services/admin/money.ts';
import { listMerchantStatements, markPaid, payoutsCsv, readStatement, statementCsv } from '../../services/admin/statements.ts';
import { Readable } from 'node:stream';
import { ADMIN_TAG, actorOf, requirePermission } from './operator-auth.ts';
import { MerchantParams } from './config-schemas.ts';
import { withErrors } from './errors.ts';

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
}, { additionalProperties: false, examples: [{ country: 'DE', settlement_delay_days: 2, reserve_percent: '10', reserve_days: 90 }] });
const TermsView = Type.Object({ merchant_id: Type.String(), country: Type.Union([Type.String(), Type.Null()]), settlement_delay_days: Type.Integer(), reserve_percent: Type.String(), reserve_days: Type.Integer() });

const BalanceView = Type.Object({
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

const StatementView = Type.Object({
  id: Type.String(), merchant_id: Type.String(), currency: Type.String(), period_from: Type.String(), period_to: Type.String(),
  gross: Type.String({ description: 'Captured less refunded in the period (pending -> available).' }), fees: Type.String({ description: 'The period\'s fees, deducted.' }),
  reserve_held: Type.String(), reserve_release_at: Type.Union([Type.String(), Type.Null()]), reserve_released_at: Type.Union([Type.String(), Type.Null()]),
  net_payable: Type.String({ description: 'gross - fees - reserve_held; negative: carried over.' }), transactions: Type.Integer(), created_at: Type.String(),
  payout: Type.Union([Type.Object({ id: Type.String(), amount: Type.String(), bank_reference: Type.String(), paid_by: Type.Union([Type.String(), Type.Null()]), paid_at: Type.String() }), Type.Null()]),
}, { examples: [{
  id: '0193…', merchant_id: '0b7f…', currency: 'EUR', period_from: '2030-03-01T00:00:00.000Z', period_to: '2030-03-02T00:00:00.000Z', gross: '122.50', fees: '3.26',
  reserve_held: '12.25', reserve_release_at: '2030-05-31T00:00:00.000Z', reserve_released_at: null, net_payable: '106.99', transactions: 4, created_at: '2030-03-04T00:10:00.000Z', payout: null,
}] });
const LineView = Type.Object({ created_at: Type.String(), ref: Type.String(), payment_id: Type.Union([Type.String(), Type.Null()]), event: Type.String(), account: Type.String(), amount: Type.String({ description: 'Signed: debit positive.' }) });
const StatementWithLines = Type.Composite([StatementView, Type.Object({ lines: Type.Array(LineView, { description: 'The first 500 lines; the CSV has all.' }) })]);
const StatementParams = Type.Object({ id: Type.String({ maxLength: 1024, description: 'The statement\'s id.' }) });
const StatementQuery = Type.Object({
  merchant_id: Type.Optional(Type.String({ maxLength: 64 })),
  unpaid: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'true: only statements not marked paid.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
});
const PaidBody = Type.Object({ bank_reference: Type.String({ maxLength: 140 }) }, { additionalProperties: false, examples: [{ bank_reference: 'SEPA-2030-03-04-000123' }] });
const Csv = Type.String({ description: 'text/csv, streamed' });

type Params = Static<typeof MerchantParams>;

export function registerAdminMoneyRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Querystring: Static<typeof ScheduleQuery> }>('/money/fee-schedules', {
    onRequest: requirePermission('money.read'),
    schema: { ...ADMIN_TAG, summary: 'Fee schedule versions: the platform\'s default and, with merchant_id, the merchant\'s', querystring: ScheduleQuery, response: withErrors({ 200: Type.Array(ScheduleView) }) },
  }, async (req) => listFeeSchedules(ctx, req.query.merchant_id));

  app.post<{ Body: NewFeeSchedule }>('/money/fee-schedules', {
    onRequest: requirePermission('money.write'),
    schema: {
      ...ADMIN_TAG, summary: 'A new fee schedule version from its effective date (validated: overlapping rows, negative percentages, min above max, currencies the merchant cannot take, each named); audited',
      body: NewScheduleBody, response: withErrors({ 201: ScheduleView }),
    },
  }, async (req, reply) => reply.code(201).send(await createFeeSchedule(ctx, actorOf(req), req.body)));

  app.get<{ Params: Params }>('/merchants/:id/money/terms', {
    onRequest: requirePermission('money.read'),
    schema: { ...ADMIN_TAG, summary: 'A merchant\'s money terms: country, settlement delay, rolling reserve', params: MerchantParams, response: withErrors({ 200: TermsView }) },
  }, async (req) => getMoneyTerms(ctx, req.params.id));

  app.put<{ Params: Params; Body: MoneyTermsInput }>('/merchants/:id/money/terms', {
    onRequest: requirePermission('money.write'),
    schema: { ...ADMIN_TAG, summary: 'Replace a merchant\'s money terms; audited', params: MerchantParams, body: TermsBody, response: withErrors({ 200: TermsView }) },
  }, async (req) => putMoneyTerms(ctx, actorOf(req), req.params.id, req.body));

  app.get<{ Params: Params }>('/merchants/:id/balances', {
    onRequest: requirePermission('money.read'),
    schema: { ...ADMIN_TAG, summary: 'A merchant\'s balances per currency (running balances, O(1))', params: MerchantParams, response: withErrors({ 200: BalancesView }) },
  }, async (req) => ({ merchant_id: req.params.id, balances: await merchantBalancesOf(ctx, req.params.id) }));

  app.post<{ Params: Params; Body: AdjustmentInput }>('/merchants/:id/adjustments', {
    onRequest: requirePermission('money.adjust'),
    schema: {
      ...ADMIN_TAG, summary: 'A manual adjustment of a merchant\'s available balance (admins only; a reason; a currency the merchant has an account in); audited',
      params: MerchantParams, body: AdjustmentBody, response: withErrors({ 201: AdjustmentView }),
    },
  }, async (req, reply) => reply.code(201).send(await adjustBalance(ctx, actorOf(req), req.params.id, req.body)));

  app.get<{ Params: Static<typeof PaymentParams> }>('/payments/:id/ledger', {
    onRequest: requirePermission('money.read'),
    schema: { ...ADMIN_TAG, summary: 'A payment\'s fee, net amount and ledger entries', params: PaymentParams, response: withErrors({ 200: PaymentLedgerView }) },
  }, async (req) => paymentLedger(ctx, req.params.id));

  app.get<{ Querystring: Static<typeof StatementQuery> }>('/money/statements', {
    onRequest: requirePermission('money.read'),
    schema: { ...ADMIN_TAG, summary: 'Settlement statements, newest first (by merchant; unpaid only)', querystring: StatementQuery, response: withErrors({ 200: Type.Array(StatementView) }) },
  }, async (req) => listMerchantStatements(ctx, { ...(req.query.merchant_id ? { merchantId: req.query.merchant_id } : {}), ...(req.query.unpaid === 'true' ? { unpaid: true } : {}), ...(req.query.limit ? { limit: req.query.limit } : {}) }));

  app.get<{ Params: Static<typeof StatementParams> }>('/money/statements/:id', {
    onRequest: requirePermission('money.read'),
    schema: { ...ADMIN_TAG, summary: 'A settlement statement: totals, net payable, its payout, and its lines', params: StatementParams, response: withErrors({ 200: StatementWithLines }) },
  }, async (req) => readStatement(ctx, req.params.id));

  app.get<{ Params: Static<typeof StatementParams> }>('/money/statements/:id/csv', {
    onRequest: requirePermission('money.read'),
    schema: { ...ADMIN_TAG, summary: 'A settlement statement as CSV: every transaction, fee, reserve movement and adjustment, then the totals (streamed)', params: StatementParams, produces: ['text/csv'], response: withErrors({ 200: Csv }) },
  }, async (req, reply) => {
    const { statement, rows } = await statementCsv(ctx, req.params.id);
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="statement-${statement.id}.csv"`).send(Readable.from(rows));
  });

  app.post<{ Params: Static<typeof StatementParams>; Body: Static<typeof PaidBody> }>('/money/statements/:id/paid', {
    onRequest: requirePermission('money.write'),
    schema: { ...ADMIN_TAG, summary: 'Mark a statement paid to the merchant with the bank\'s reference (posts the payout once); audited', params: StatementParams, body: PaidBody, response: withErrors({ 200: StatementView }) },
  }, async (req) => markPaid(ctx, actorOf(req), req.params.id, req.body.bank_reference));

  app.get('/money/payouts/csv', {
    onRequest: requirePermission('money.read'),
    schema: { ...ADMIN_TAG, summary: 'The payouts due (unpaid statements with something payable) as CSV, one bank transfer a line', produces: ['text/csv'], response: withErrors({ 200: Csv }) },
  }, async (_req, reply) => reply.type('text/csv; charset=utf-8').send(await payoutsCsv(ctx)));

  app.get('/money/ledger-check', {
    onRequest: requirePermission('money.read'),
    schema: { ...ADMIN_TAG, summary: 'The ledger\'s self-check: running balances against the sums of their entries, each currency\'s sum', response: withErrors({ 200: CheckView }) },
  }, async () => ledgerCheck(ctx));
}
