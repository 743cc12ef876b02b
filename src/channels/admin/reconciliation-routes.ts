/**
 * Reconciliation for operators (issue 28), under /admin/v1/reconciliation: a MID's profile, the import of a
 * settlement report (the request body IS the file, text/csv, read as a stream: any size in constant memory),
 * batches with totals and flags, the bank credit, rows with filters, the exception actions, the exceptions as CSV
 * and the open exceptions per acquirer and day. Reads: reconciliation.read; writes: reconciliation.write.
 */
import type { FastifyInstance } from 'fastify';
import { pageSize, pageSizeText } from '../../domain/page-size.ts';
import { Type, type Static } from '@sinclair/typebox';
import { Readable } from 'node:stream';
import type { ServiceContext } from '../../services/context.ts';
import { importReport } from '../../services/reconciliation/import.ts';
import { importUpstreamReport } from '../../services/reconciliation/upstream.ts';
import {
  actOnRow, batchView, enterBankCredit, exceptionsCsv, findRows, getProfile, listBatches, putProfile, readBatch, readRow, unreconciledSummary,
  type ActionInput, type ProfileInput, type RowQuery,
} from '../../services/reconciliation/admin.ts';
import { RECORD_KINDS } from '../../domain/reconciliation/report.ts';
import { PROFILE_EXAMPLE } from '../../domain/reconciliation/layouts.ts';
import { DATE_FORMATS, DECIMAL_FORMATS } from '../../domain/reconciliation/report.ts';
import { ADMIN_TAG, actorOf, requirePermission } from './operator-auth.ts';
import { withErrors } from './errors.ts';
import { adminRoute } from './route-options.ts';

const Str = Type.String();
const NStr = Type.Union([Type.String(), Type.Null()]);
const Id = Type.Object({ id: Type.String({ maxLength: 64, description: 'The object\'s id.' }) });
const MidParams = Type.Object({ id: Type.String({ maxLength: 64, description: 'The MID\'s id.' }) });

const FeeRate = Type.Object({
  operation: Type.String({ maxLength: 20, description: 'sale, refund or chargeback.' }),
  method: Type.Optional(Type.String({ maxLength: 40, description: 'Card brand (visa, mastercard...); * any.' })),
  region: Type.Optional(Type.String({ maxLength: 20, description: 'domestic, intra_region, international; * any.' })),
  currency: Type.Optional(Type.String({ maxLength: 6 })),
  percent: Type.Optional(Type.String({ maxLength: 12 })),
  fixed: Type.Optional(Type.String({ maxLength: 40 })),
  min: Type.Optional(Type.String({ maxLength: 40 })),
  max: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
}, { additionalProperties: false });

const CsvProfileSchema = Type.Object({
  columns: Type.Object({
    reference: Type.String({ maxLength: 100, description: 'The acquirer\'s reference of the payment.' }),
    merchant_reference: Type.Optional(Type.String({ maxLength: 100, description: 'Our reference (the payment id we sent).' })),
    amount: Type.String({ maxLength: 100 }), currency: Type.String({ maxLength: 100 }), type: Type.String({ maxLength: 100 }),
    fee: Type.Optional(Type.String({ maxLength: 100 })), date: Type.String({ maxLength: 100 }),
    batch: Type.Optional(Type.String({ maxLength: 100 })), method: Type.Optional(Type.String({ maxLength: 100 })),
  }, { additionalProperties: false }),
  decimal: Type.String({ maxLength: 40, description: `One of ${DECIMAL_FORMATS.join(', ')}.` }),
  date_format: Type.String({ maxLength: 20, description: `One of ${DATE_FORMATS.join(', ')}.` }),
  time_zone: Type.Optional(Type.String({ maxLength: 10, description: 'Zone of dates written without one (UTC, CET...).' })),
  types: Type.Record(Type.String({ maxLength: 60 }), Type.String({ maxLength: 30 }), { description: `The type column's values -> ${RECORD_KINDS.join(', ')}.` }),
  separator: Type.Optional(Type.Union([Type.Literal(','), Type.Literal(';'), Type.Literal('\t'), Type.Literal('|')])),
}, { additionalProperties: false });

const ProfileBody = Type.Object({
  csv: Type.Optional(Type.Union([CsvProfileSchema, Type.Null()], { description: 'The CSV mapping profile of an acquirer without a built-in layout; null: none (Adyen\'s Settlement details report is recognised by its header).' })),
  buy_rates: Type.Optional(Type.Object({
    mode: Type.Optional(Type.String({ maxLength: 30, description: 'blended (the rate is the whole fee) or interchange_plus_plus (reported interchange and scheme fees, plus the rate).' })),
    rows: Type.Optional(Type.Array(FeeRate, { maxItems: 500 })),
  }, { additionalProperties: false })),
  settlement_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 90, description: 'Days after which a transaction no report carries is missing (default 3).' })),
  window_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 30, description: 'How far apart dates may be in a match by amount and currency (default 3).' })),
  reconcile_from: Type.Optional(Type.String({ maxLength: 40, description: 'Transactions from this instant are expected in reports (default: the first import).' })),
}, {
  additionalProperties: false,
  examples: [{ buy_rates: { mode: 'blended', rows: [{ operation: 'sale', method: 'visa', region: 'domestic', currency: 'EUR', percent: '1.2', fixed: '0.10' }] }, settlement_days: 3, window_days: 3, csv: PROFILE_EXAMPLE }],
});
const ProfileView = Type.Object({
  mid_id: Str, csv: Type.Union([Type.Unknown(), Type.Null()]),
  buy_rates: Type.Object({ mode: Str, rows: Type.Array(Type.Object({ operation: Str, method: Str, region: Str, currency: Str, percent: Str, fixed: Str, min: Str, max: NStr })) }),
  settlement_days: Type.Integer(), window_days: Type.Integer(), reconcile_from: Str, updated_at: Str,
});

const BatchView = Type.Object({
  id: Str, mid_id: Str, batch: Type.String({ description: 'The acquirer\'s batch (Batch Number), else the query\'s batch, else the file\'s digest.' }),
  layout: Type.String({ description: 'adyen_settlement_details, upstream_transactions (the platform-family upstream\'s lookups) or csv_profile.' }), file_name: NStr, digest: Type.String({ description: 'SHA-256 of the file.' }),
  live: Type.Boolean({ description: 'false: superseded by a corrected file.' }), superseded_by: NStr, rows: Type.Integer(), period_from: NStr, period_to: NStr,
  totals: Type.Array(Type.Object({ currency: Str, net: Str, fees: Str, payout: NStr, bank_credit: NStr, rows: Type.Integer() })),
  flagged: Type.Boolean({ description: 'The batch\'s net, its announced payout and the bank credit do not agree.' }), flags: Type.Array(Str),
  counts: Type.Record(Str, Type.Integer(), { description: 'Rows by outcome: matched, mismatched, unexpected, missing, booking (fees, payouts, corrections).' }),
  created_by: NStr, created_at: Str,
}, { examples: [{
  id: '0193…', mid_id: '7c1e…', batch: '42', layout: 'adyen_settlement_details', file_name: 'settlement_detail_report_batch_42.csv', digest: '9f86d0…', live: true, superseded_by: null, rows: 5,
  period_from: '2030-06-01T08:00:00.000Z', period_to: '2030-06-03T02:00:00.000Z', totals: [{ currency: 'EUR', net: '96.66', fees: '3.34', payout: '96.66', bank_credit: null, rows: 5 }],
  flagged: false, flags: [], counts: { matched: 3, unexpected: 1, booking: 1 }, created_by: 'ops@example.com', created_at: '2030-06-03T09:00:00.000Z',
}] });
const ImportAnswer = Type.Object({
  batch: BatchView,
  unchanged: Type.Boolean({ description: 'true: this very file was imported before (same digest); nothing changed.' }),
  superseded: Type.Union([Type.String(), Type.Null()], { description: 'The import of the same batch this corrected file replaced.' }),
});
const ImportQuery = Type.Object({
  mid_id: Type.String({ maxLength: 64, description: 'The MID whose acquirer produced the report.' }),
  file_name: Type.Optional(Type.String({ maxLength: 200 })),
  batch: Type.Optional(Type.String({ maxLength: 100, description: 'The acquirer\'s batch; default: the file\'s Batch Number column, else its digest. A file for a batch imported before supersedes it.' })),
});
const UpstreamBody = Type.Object({
  mid_id: Type.String({ maxLength: 64, description: 'An akurateco MID (a connector with a transaction lookup).' }),
  from: Type.String({ maxLength: 40, description: 'Payments created at or after this instant (ISO 8601).' }),
  to: Type.String({ maxLength: 40, description: 'Payments created before this instant; at most 31 days after from.' }),
}, { additionalProperties: false, examples: [{ mid_id: '7c1e…', from: '2030-06-01T00:00:00Z', to: '2030-06-02T00:00:00Z' }] });
const Limit = Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: pageSizeText(500, 100) }));
const limitOf = (text: string | undefined): number | undefined => pageSize(text, 500);
/** Issue 25 item 26: the MID's mode decides (its merchant's: a sandbox merchant's MIDs are test keys'). */
const Mode = Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('live')], { description: 'test: only test keys\' MIDs (a sandbox merchant\'s); live: only live keys\'. Absent: both.', examples: ['live'] }));
const BatchQuery = Type.Object({ mid_id: Type.Optional(Type.String({ maxLength: 64 })), mode: Mode, limit: Limit });
const BankCreditBody = Type.Object({ currency: Type.String({ maxLength: 6 }), amount: Type.String({ maxLength: 40, description: 'What the bank statement shows credited for the batch.' }) }, { additionalProperties: false, examples: [{ currency: 'EUR', amount: '96.66' }] });

const RowView = Type.Object({
  id: Str, batch_id: Str, mid_id: Str, line: Type.Union([Type.Integer(), Type.Null()], { description: 'Line in the file; null: a missing record (ours, in no report).' }),
  outcome: Type.String({ description: 'matched, mismatched, unexpected, missing, or booking.' }), kind: Type.String({ description: RECORD_KINDS.join(', ') }), type: Type.String({ description: 'The type as the report wrote it.' }),
  acquirer_ref: NStr, merchant_ref: NStr, modification_ref: NStr, currency: Str, amount: Str, net_currency: Str, net: Type.String({ description: 'Signed: a credit to us positive.' }),
  fee: Type.String({ description: 'Fees the acquirer withheld on the row.' }), expected_fee: Type.Union([Type.String(), Type.Null()], { description: 'What the MID\'s buy rates say it should have cost.' }),
  method: NStr, booked_at: Str, matched_by: Type.Union([Type.String(), Type.Null()], { description: 'acquirer_ref, merchant_ref or amount_date.' }), payment_id: NStr,
  differences: Type.Array(Type.Object({ field: Type.String({ description: 'amount, currency, type or fee.' }), ours: Str, theirs: Str })),
  resolution: Type.Union([Type.String(), Type.Null()], { description: 'accepted, linked, disputed, written_off, settled_later; null: open.' }), resolution_note: NStr, resolved_by: NStr, resolved_at: NStr,
}, { examples: [{
  id: '17', batch_id: '0193…', mid_id: '7c1e…', line: 3, outcome: 'mismatched', kind: 'settled', type: 'Settled', acquirer_ref: '8815893240000042', merchant_ref: '0193a1b2-…', modification_ref: '8815893240000043',
  currency: 'EUR', amount: '12.00', net_currency: 'EUR', net: '11.70', fee: '0.30', expected_fee: '0.30', method: 'visa', booked_at: '2030-06-02T08:00:00.000Z', matched_by: 'acquirer_ref', payment_id: '0193a1b2-…',
  differences: [{ field: 'amount', ours: '10.00', theirs: '12.00' }], resolution: null, resolution_note: null, resolved_by: null, resolved_at: null,
}] });
const RowsQuery = Type.Object({
  batch_id: Type.Optional(Type.String({ maxLength: 64 })), mid_id: Type.Optional(Type.String({ maxLength: 64 })),
  outcome: Type.Optional(Type.Union(['matched', 'mismatched', 'unexpected', 'missing', 'booking'].map((o) => Type.Literal(o)))),
  open: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'true: open exceptions only (mismatched, missing, unexpected; not resolved).' })),
  from: Type.Optional(Type.String({ maxLength: 40, description: 'Booked at or after.' })), to: Type.Optional(Type.String({ maxLength: 40, description: 'Booked before.' })),
  mode: Mode,
  after: Type.Optional(Type.String({ maxLength: 20, description: 'The page after this row id (the previous page\'s next).' })),
  limit: Limit,
});
type RowsQueryText = Static<typeof RowsQuery>;
const rowQuery = (q: RowsQueryText): RowQuery => {
  const { limit, ...rest } = q;
  const n = limitOf(limit);
  return { ...rest, ...(n ? { limit: n } : {}) };
};
const RowsAnswer = Type.Object({ rows: Type.Array(RowView), next: Type.Union([Type.String(), Type.Null()], { description: 'Pass as after for the next page; null: no more.' }) });
const ActionBody = Type.Object({
  action: Type.Union([Type.Literal('accept'), Type.Literal('link'), Type.Literal('dispute'), Type.Literal('write_off')], { description: 'accept the difference (posts the report\'s settlement and fee), link to a payment, open a dispute, write off.' }),
  note: Type.String({ minLength: 1, maxLength: 1000 }),
  payment_id: Type.Optional(Type.String({ maxLength: 64, description: 'link: the payment the row is; dispute: the payment (default the row\'s).' })),
}, { additionalProperties: false, examples: [{ action: 'accept', note: 'Adyen confirmed the surcharge (case 4711)' }, { action: 'link', note: 'Booked under the order\'s retry', payment_id: '0193a1b2-…' }] });
const SummaryView = Type.Array(Type.Object({ mid_id: Str, day: Type.String({ description: 'YYYY-MM-DD (UTC), the booking day.' }), currency: Str, outcome: Str, rows: Type.Integer(), amount: Str }), {
  examples: [[{ mid_id: '7c1e…', day: '2030-06-02', currency: 'EUR', outcome: 'unexpected', rows: 1, amount: '25.00' }]],
});
const SummaryQuery = Type.Object({ from: Type.Optional(Type.String({ maxLength: 40, description: 'Booked at or after (default: all).' })), mode: Mode });
const Csv = Type.String({ description: 'text/csv, streamed' });

export function registerAdminReconciliationRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  // The report is the request body, handed over as the stream it is (read line by line, never held whole).
  for (const type of ['text/csv', 'application/octet-stream']) {
    if (!app.hasContentTypeParser(type)) app.addContentTypeParser(type, (_req, payload, done) => done(null, payload));
  }

  app.get<{ Params: Static<typeof MidParams> }>('/reconciliation/mids/:id/profile', adminRoute('reconciliation.read', { summary: 'A MID\'s reconciliation profile: CSV mapping, contracted buy rates, settlement days, date window', params: MidParams, response: { 200: ProfileView } }), async (req) => getProfile(ctx, req.params.id));

  app.put<{ Params: Static<typeof MidParams>; Body: ProfileInput }>('/reconciliation/mids/:id/profile', adminRoute('reconciliation.write', { summary: 'Replace a MID\'s reconciliation profile (each problem named); audited', params: MidParams, body: ProfileBody, response: { 200: ProfileView } }), async (req) => putProfile(ctx, actorOf(req), req.params.id, req.body));

  app.post<{ Querystring: Static<typeof ImportQuery> }>('/reconciliation/imports', {
    onRequest: requirePermission('reconciliation.write'),
    schema: {
      ...ADMIN_TAG, summary: 'Import a settlement report (the body is the CSV file, streamed), match it and post the matched rows; the same file twice changes nothing, a corrected file supersedes; a file with problems imports nothing and names each line',
      querystring: ImportQuery, response: withErrors({ 200: ImportAnswer }),
    },
    config: { doc: {
      requestBody: { required: true, content: {
        'text/csv': { schema: { type: 'string' }, example: 'Company Account,Merchant Account,Psp Reference,Merchant Reference,Payment Method,Creation Date,TimeZone,Type,Modification Reference,Gross Currency,Gross Debit (GC),Gross Credit (GC),Exchange Rate,Net Currency,Net Debit (NC),Net Credit (NC),Commission (NC),Markup (NC),Scheme Fees (NC),Interchange (NC),Payment Method Variant,Modification Merchant Reference,Batch Number,Reserved4,Reserved5,Reserved6,Reserved7,Reserved8,Reserved9,Reserved10\nPortcullis,PortcullisECOM,8815893240000042,0193a1b2-…,visa,2030-06-02 10:00:00,CET,Settled,8815893240000043,EUR,,10.00,1,EUR,,9.70,,0.10,0.05,0.15,visaclassic,,42,,,,,,,\n' },
        'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
      } },
      answer: ImportAnswer, errors: ['adminUnauthorized', 'adminForbidden', 'notFound'],
      description: 'A problem answers 400 with one entry per line: `line 7: Gross Credit (GC) "1O.00" is not an amount in EUR.`, `line 9: duplicates line 4.`, `line 1: ... unknown layout.`, `line 12: currency SEK: the MID does not carry it.`',
    } },
  }, async (req) => {
    const body = req.body instanceof Readable ? req.body : Readable.from([]);
    const result = await importReport(ctx, actorOf(req), { midId: req.query.mid_id, ...(req.query.file_name ? { fileName: req.query.file_name } : {}), ...(req.query.batch ? { batch: req.query.batch } : {}), body });
    return { batch: batchView(result.import), unchanged: result.unchanged, superseded: result.superseded };
  });

  app.post<{ Body: Static<typeof UpstreamBody> }>('/reconciliation/upstream-reports', adminRoute('reconciliation.write', {
    summary: 'The platform-family upstream\'s report (akurateco MIDs): the gateway asks the upstream what it booked on each of the MID\'s payments created in [from, to) (GET_TRANS_DETAILS) and imports the answers as a report: matched, posted, idempotent and superseding like a file; the upstream\'s fee, where its answer carries one, is the sale\'s row\'s; its credit transactions (CREDIT2CARD payouts) are matched against our payouts; a payment whose lookup failed is a problem and nothing is imported',
    body: UpstreamBody, response: { 200: ImportAnswer },
  }), async (req) => {
    const result = await importUpstreamReport(ctx, actorOf(req), { midId: req.body.mid_id, from: new Date(req.body.from), to: new Date(req.body.to) });
    return { batch: batchView(result.import), unchanged: result.unchanged, superseded: result.superseded };
  });

  app.get<{ Querystring: Static<typeof BatchQuery> }>('/reconciliation/batches', adminRoute('reconciliation.read', { summary: 'Imported batches, newest first, with totals, flags and counts by outcome', querystring: BatchQuery, response: { 200: Type.Array(BatchView) } }), async (req) => listBatches(ctx, { ...(req.query.mid_id ? { midId: req.query.mid_id } : {}), ...(req.query.mode ? { mode: req.query.mode } : {}), ...(req.query.limit ? { limit: limitOf(req.query.limit)! } : {}) }));

  app.get<{ Params: Static<typeof Id> }>('/reconciliation/batches/:id', adminRoute('reconciliation.read', { summary: 'One batch: totals per currency (net, fees, announced payout, bank credit), flags, counts', params: Id, response: { 200: BatchView } }), async (req) => readBatch(ctx, req.params.id));

  app.post<{ Params: Static<typeof Id>; Body: Static<typeof BankCreditBody> }>('/reconciliation/batches/:id/bank-credit', adminRoute('reconciliation.write', { summary: 'Enter the bank credit received for a batch (checked against the announced payout: the batch is flagged when they differ); audited', params: Id, body: BankCreditBody, response: { 200: BatchView } }), async (req) => enterBankCredit(ctx, actorOf(req), req.params.id, req.body));

  app.get<{ Querystring: RowsQueryText }>('/reconciliation/rows', adminRoute('reconciliation.read', { summary: 'Report rows and missing records, by batch, MID, outcome, open exceptions, booking date; pages of up to 500', querystring: RowsQuery, response: { 200: RowsAnswer } }), async (req) => findRows(ctx, rowQuery(req.query)));

  app.get<{ Params: Static<typeof Id> }>('/reconciliation/rows/:id', adminRoute('reconciliation.read', { summary: 'One row: its outcome, differences, and the payment it matched', params: Id, response: { 200: RowView } }), async (req) => readRow(ctx, req.params.id));

  app.post<{ Params: Static<typeof Id>; Body: ActionInput }>('/reconciliation/rows/:id/actions', adminRoute('reconciliation.write', { summary: 'Resolve an open exception: accept the difference (with a note), link to a payment, open a dispute, write off; audited', params: Id, body: ActionBody, response: { 200: RowView } }), async (req) => actOnRow(ctx, actorOf(req), req.params.id, req.body));

  app.get<{ Querystring: RowsQueryText }>('/reconciliation/exceptions.csv', adminRoute('reconciliation.read', { summary: 'The exceptions (open ones unless open=false) as CSV, streamed', querystring: RowsQuery, produces: ['text/csv'], response: { 200: Csv } }), async (req, reply) => {
    const lines = exceptionsCsv(ctx, rowQuery(req.query));
    const first = await lines.next(); // validation problems answer 400 before the stream starts
    async function* all() { if (!first.done) yield first.value; yield* lines; }
    return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="reconciliation-exceptions.csv"').send(Readable.from(all()));
  });

  app.get<{ Querystring: Static<typeof SummaryQuery> }>('/reconciliation/summary', adminRoute('reconciliation.read', { summary: 'Open exceptions (unreconciled rows and their amounts) per acquirer MID, booking day, currency and outcome', querystring: SummaryQuery, response: { 200: SummaryView } }), async (req) => unreconciledSummary(ctx, req.query));
}
