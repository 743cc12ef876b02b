/**
 * Disputes and chargebacks for operators (issue 29), under /admin/v1: enter a dispute on a payment from a bank
 * letter, move it by an event of the transition table (docs/disputes.md), read one with its history, list them
 * and the acquirer notices that matched no payment. Reads need payments.read, writes payments.act; writes are
 * audited. A chargeback above what remains captured answers 208010.
 */
import type { FastifyInstance } from 'fastify';
import { pageSize, pageSizeText } from '../../domain/page-size.ts';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { clearMerchantThreshold, readMerchantThresholdView, readThresholdView, setMerchantThreshold, setThreshold, type ThresholdInput } from '../../services/disputes/admin.ts';
import { actOnDispute, disputeRatios, findDisputes, openDispute, readDispute, unmatchedNotices, type DisputeInput } from '../../services/disputes/admin.ts';
import { DISPUTE_EVENTS, DISPUTE_STAGES, DISPUTE_STATUSES } from '../../domain/disputes.ts';
import { raiseSandboxChargeback, type SandboxChargebackInput } from '../../services/disputes/sandbox.ts';
import { addEvidence, disputesDueSoon, evidenceFile, evidenceOf, submitDefence, type EvidenceInput } from '../../services/disputes/defence.ts';
import { EVIDENCE_LIMITS } from '../../domain/disputes.ts';
import { importDisputeFile, type DisputeImportInput } from '../../services/disputes/import.ts';
import { DISPUTE_PROFILE_EXAMPLE } from '../../domain/dispute-file.ts';
import { DATE_FORMATS, DECIMAL_FORMATS } from '../../domain/reconciliation/report.ts';
import { ADMIN_TAG, actorOf, requirePermission } from './operator-auth.ts';
import { errorSchema, withErrors } from './errors.ts';
import { errorBody, GatewayError } from '../../domain/errors.ts';

export const NOT_ALLOWED = { 409: errorSchema('The event does not apply to the dispute in its stage and status (the transition table).', errorBody(new GatewayError('disputeEventNotAllowed'))) };

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const DisputeView = Type.Object({
  id: Type.String(), payment_id: Type.String(), merchant_id: Type.String(),
  source: Type.String({ description: 'operator, adyen or akurateco (the connector whose notices opened it).' }), external_ref: Nullable(Type.String({ description: 'The acquirer\'s reference of the dispute.' })),
  amount: Type.String(), currency: Type.String(), reason_code: Nullable(Type.String()),
  category: Type.String({ description: 'fraud, authorization, processing_error or consumer_dispute (from the scheme reason code).' }),
  stage: Type.String({ description: 'inquiry, first_chargeback, second_chargeback or arbitration.' }),
  status: Type.String({ description: DISPUTE_STATUSES.join(', ') }),
  due_at: Nullable(Type.String({ description: 'The acquirer\'s deadline for the next answer.' })), bank_date: Nullable(Type.String()),
  created_at: Type.String(), updated_at: Type.String(),
}, { examples: [{
  id: '0193a1…', payment_id: '0193a0…', merchant_id: '0b7f…', source: 'operator', external_ref: null, amount: '25.00', currency: 'EUR', reason_code: '10.4',
  category: 'fraud', stage: 'first_chargeback', status: 'evidence_required', due_at: '2030-03-20T00:00:00.000Z', bank_date: '2030-03-01', created_at: '2030-03-02T10:00:00.000Z', updated_at: '2030-03-02T10:00:00.000Z',
}] });
export const HistoryView = Type.Object({
  event: Type.String(), actor: Type.String(), from_stage: Nullable(Type.String()), from_status: Nullable(Type.String()), to_stage: Type.String(), to_status: Type.String(),
  money: Type.String({ description: 'debit (the merchant charged the amount and the chargeback fee), credit (the amount given back) or none.' }),
  details: Type.Record(Type.String(), Type.Unknown()), created_at: Type.String(),
});
export const DisputeWithHistory = Type.Composite([DisputeView, Type.Object({
  deadline: Type.String({ description: 'none (no deadline, or closed), later, due_soon (within 3 days) or overdue, on the merchant\'s clock (a sandbox test clock moves it).' }),
  history: Type.Array(HistoryView),
})]);

const EventBody = Type.Object({
  event: Type.String({ maxLength: 40, description: `One of ${DISPUTE_EVENTS.join(', ')}.` }),
  amount: Type.Optional(Type.String({ maxLength: 40, description: 'Decimal amount of the payment\'s currency; absent: the dispute\'s, or for a new one all that remains captured.' })),
  reason_code: Type.Optional(Type.String({ maxLength: 20, description: 'The scheme\'s reason code (Visa 10.4, Mastercard 4837, ...).' })),
  due_at: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601: the acquirer\'s deadline.' })),
  bank_date: Type.Optional(Type.String({ maxLength: 10, description: 'YYYY-MM-DD: when the issuer raised it (the callback\'s bank_date).' })),
  note: Type.Optional(Type.String({ maxLength: 1000, description: 'Kept in the history.' })),
}, { additionalProperties: false, examples: [{ event: 'chargeback', amount: '25.00', reason_code: '10.4', due_at: '2030-03-20T00:00:00Z', bank_date: '2030-03-01', note: 'Letter ref 2030/114' }] });

const UnmatchedView = Type.Object({
  id: Type.String(), source: Type.String({ description: 'adyen, akurateco or csv_import.' }), event: Type.String({ description: 'The acquirer\'s own event code.' }),
  payment_ref: Nullable(Type.String({ description: 'The payment reference the notice named.' })),
  mid_id: Nullable(Type.String({ description: 'The MID the notice came for: its notification endpoint\'s (/connectors/{connector}/{midId}/notify), or the MID the file was imported for. Null on notices kept before it was recorded.' })),
  mid_name: Nullable(Type.String({ description: 'That MID\'s name.' })),
  mode: Type.Union([Type.Literal('test'), Type.Literal('live'), Type.Null()], { description: 'That MID\'s mode, its merchant\'s: test for a sandbox merchant (test keys), else live. Null without a MID.' }),
  payload: Type.Record(Type.String(), Type.Unknown(), { description: 'The notice as received (without its signature), with why it matched nothing and, where checked, signature: verified or unverifiable.' }),
  received_at: Type.String(),
}, { examples: [{
  id: '0193a2…', source: 'adyen', event: 'CHARGEBACK', payment_ref: 'ORDER-7731', mid_id: '5c1e…', mid_name: 'EU acquiring', mode: 'live',
  payload: { pspReference: '9915555555555555', why: 'no payment of this MID' }, received_at: '2030-03-02T10:00:00.000Z',
}] });
const UnmatchedQuery = Type.Object({
  mid_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only the notices that came for this MID (a MID\'s id; anything else: 400 on mid_id).' })),
  mode: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('live')], {
    description: 'test: only notices for sandbox merchants\' (test keys\') MIDs; live: only for live merchants\' MIDs. Notices kept without a MID have neither mode. Absent: all.',
  })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: pageSizeText(500, 100) })),
}, { examples: [{ mode: 'live', limit: '50' }, { mid_id: '5c1e…' }] });

/** Issue 25 item 26: test keys' work apart from live keys'. */
const ModeQuery = Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('live')], { description: 'test: only sandbox merchants\' (test keys\') disputes; live: only live merchants\'. Absent: both.' }));
const RatioQuery = Type.Object({ month: Type.String({ maxLength: 7, description: 'YYYY-MM (UTC).' }), mode: ModeQuery });
const RatiosView = Type.Object({
  month: Type.String(), threshold_percent: Type.String(), threshold_min_count: Type.Integer(),
  rows: Type.Array(Type.Object({
    merchant_id: Type.String(), mid_id: Nullable(Type.String()), currency: Type.String(), settled_count: Type.Integer(), settled_amount: Type.String(),
    dispute_count: Type.Integer(), dispute_amount: Type.String(), dispute_ratio: Type.String({ description: 'Percent of the settled count, two decimals.' }),
    fraud_count: Type.Integer(), fraud_amount: Type.String(), fraud_ratio: Type.String(),
    threshold_percent: Type.String({ description: 'The threshold this row is compared against: the merchant\'s own, else the platform\'s.' }), threshold_min_count: Type.Integer(),
    over_threshold: Type.Boolean(),
  })),
}, { examples: [{ month: '2030-03', threshold_percent: '0.90', threshold_min_count: 100, rows: [{
  merchant_id: '0b7f…', mid_id: '5c1e…', currency: 'EUR', settled_count: 4, settled_amount: '100.00', dispute_count: 1, dispute_amount: '25.00', dispute_ratio: '25.00',
  fraud_count: 1, fraud_amount: '25.00', fraud_ratio: '25.00', threshold_percent: '0.90', threshold_min_count: 100, over_threshold: false,
}] }] });

const Days = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: 120, description }));
const SandboxChargebackBody = Type.Object({
  amount: Type.Optional(Type.String({ maxLength: 40, description: 'Decimal amount of the payment\'s currency; absent: all that remains captured.' })),
  reason_code: Type.Optional(Type.String({ maxLength: 20, description: 'The scheme\'s reason code (default 13.1; 10.x is fraud).' })),
  notice_days: Days('Days from the notice of chargeback to the chargeback, on the merchant\'s test clock (default 1; 0: at once).'),
  defence_days: Days('Days the merchant has to defend after the chargeback: its deadline (default 7).'),
  review_days: Days('Days from the deadline to the decision on a defended chargeback (default 7).'),
  outcome: Type.Optional(Type.Union([Type.Literal('won'), Type.Literal('lost')], { description: 'The decision on a defended chargeback (default won).' })),
}, { additionalProperties: false, examples: [{ amount: '25.00', reason_code: '10.4', notice_days: 0, defence_days: 7, outcome: 'won' }] });
const SandboxChargebackView = Type.Composite([DisputeView, Type.Object({
  timeline: Type.Array(Type.Object({ event: Type.String(), at: Type.String({ description: 'On the merchant\'s test clock.' }), due_at: Nullable(Type.String({ description: 'The deadline the step sets.' })) })),
})]);
const SANDBOX_ONLY = { 403: errorSchema('The payment\'s merchant is not a sandbox merchant (or the role does not permit this action).', errorBody(new GatewayError('sandboxDisputeLiveMerchant'))) };

export const EvidenceBody = Type.Object({
  file_name: Type.Optional(Type.String({ maxLength: 200, description: 'The file\'s name, kept for the operator (its type is told by its content).' })),
  content_base64: Type.Optional(Type.String({ maxLength: Math.ceil(EVIDENCE_LIMITS.fileBytes / 3) * 4 + 1024, description: `A PDF, PNG or JPEG file in base64, at most ${EVIDENCE_LIMITS.fileBytes / 1048576} MB (${EVIDENCE_LIMITS.totalBytes / 1048576} MB and ${EVIDENCE_LIMITS.items} pieces per dispute).` })),
  text: Type.Optional(Type.String({ maxLength: EVIDENCE_LIMITS.textChars + 100, description: 'Or a text (the defence letter), instead of a file.' })),
}, { additionalProperties: false, examples: [{ file_name: 'delivery-proof.pdf', content_base64: 'JVBERi0xLjQKJcfs...' }, { text: 'The goods were delivered on 2030-02-20, signed for by the cardholder.' }] });
export const EvidenceView = Type.Object({
  id: Type.String(), kind: Type.String({ description: 'file or text' }), file_name: Nullable(Type.String()), content_type: Type.String({ description: 'application/pdf, image/png, image/jpeg (by the magic bytes) or text/plain' }),
  size: Type.Integer(), sha256: Type.String(), created_by: Type.String(), created_at: Type.String(), submitted_at: Nullable(Type.String({ description: 'The submission that carried it.' })),
});
export const SubmitBody = Type.Object({ note: Type.Optional(Type.String({ maxLength: 1000 })) }, { additionalProperties: false, examples: [{ note: 'sent through the acquirer portal, case 4471' }] });
export const SubmissionView = Type.Composite([DisputeView, Type.Object({
  submission: Type.Object({
    method: Type.String({ description: 'acquirer (through the connector\'s dispute port) or manual (no port: sent by hand, recorded)' }),
    reference: Nullable(Type.String()), evidence: Type.Array(Type.String(), { description: 'The evidence ids it carried.' }),
  }),
})]);
const DueQuery = Type.Object({
  within_days: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: 'Deadlines passing within this many days (default 3); overdue ones are always listed.' })),
  mode: ModeQuery,
}, { examples: [{ within_days: '3', mode: 'live' }] });
const DueView = Type.Composite([DisputeView, Type.Object({ deadline: Type.String({ description: 'due_soon or overdue (later: beyond the alert window)' }) })]);
const EvidenceParams = Type.Object({ id: Type.String({ maxLength: 1024 }), evidenceId: Type.String({ maxLength: 1024 }) });

const MAX_FILE_CHARS = 2 * 1024 * 1024;
const Col = Type.String({ minLength: 1, maxLength: 100 });
const DisputeProfile = Type.Object({
  columns: Type.Object({
    payment_reference: Col, dispute_reference: Col, event: Col, amount: Col, currency: Col,
    reason_code: Type.Optional(Col), due_date: Type.Optional(Col), bank_date: Type.Optional(Col),
  }, { additionalProperties: false, description: 'The header\'s column holding each field (payment_reference: our payment id).' }),
  events: Type.Record(Type.String({ maxLength: 60 }), Type.String({ maxLength: 40 }), { description: `The file's value of the event column -> one of ${DISPUTE_EVENTS.join(', ')}.` }),
  decimal: Type.String({ description: `One of ${DECIMAL_FORMATS.join(', ')}.` }),
  date_format: Type.String({ description: `One of ${DATE_FORMATS.join(', ')}.` }),
  time_zone: Type.Optional(Type.String({ maxLength: 10 })),
  separator: Type.Optional(Type.Union([Type.Literal(','), Type.Literal(';'), Type.Literal('\t'), Type.Literal('|')])),
}, { additionalProperties: false });
const ImportBody = Type.Object({
  mid_id: Type.String({ maxLength: 64, description: 'The MID whose acquirer sent the file.' }),
  file_name: Type.Optional(Type.String({ maxLength: 200 })),
  profile: DisputeProfile,
  content: Type.String({ maxLength: MAX_FILE_CHARS, description: 'The CSV file, as text (header first).' }),
}, { additionalProperties: false, examples: [{
  mid_id: '5c1e…', file_name: 'disputes-2030-03-02.csv', profile: DISPUTE_PROFILE_EXAMPLE,
  content: 'Merchant Ref,Case ID,Stage,Amount,Currency,Reason,Respond By,Raised\n0193a0…,CASE-1,CB1,25.00,EUR,10.4,2030-03-20,2030-02-27\n',
}] });
const ImportView = Type.Object({
  mid_id: Type.String(), file_name: Nullable(Type.String()), sha256: Type.String(), rows: Type.Integer(),
  applied: Type.Integer({ description: 'Rows that changed a dispute.' }), unchanged: Type.Integer({ description: 'Rows imported before, or that the dispute has moved past.' }),
  unmatched: Type.Integer({ description: 'Rows for no payment of the MID, or refused (kept, GET /disputes/unmatched).' }),
});

const ThresholdBody = Type.Object({
  ratio_percent: Type.String({ maxLength: 10, description: 'Disputes per settled transaction, percent, two decimals at most (Visa VDMP 0.90, Mastercard ECM 1.50).' }),
  min_count: Type.Integer({ minimum: 0, description: 'The least chargebacks in the month for the ratio to count (VDMP and ECM: 100).' }),
}, { additionalProperties: false, examples: [{ ratio_percent: '1.50', min_count: 100 }] });
const ThresholdView = Type.Object({ ratio_percent: Type.String(), min_count: Type.Integer(), default: Type.Boolean({ description: 'true: no operator threshold, the default (VDMP).' }) });

const MerchantThresholdView = Type.Object({
  merchant_id: Type.String(), ratio_percent: Type.String(), min_count: Type.Integer(),
  source: Type.String({ description: 'merchant (its own), platform (the operator\'s platform-wide one) or default (Visa VDMP).' }),
}, { examples: [{ merchant_id: '0b7f…', ratio_percent: '0.65', min_count: 75, source: 'merchant' }] });

const IdParams = Type.Object({ id: Type.String({ maxLength: 1024 }) });
const ListQuery = Type.Object({
  merchant_id: Type.Optional(Type.String({ maxLength: 64 })),
  payment_id: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(Type.Union(DISPUTE_STATUSES.map((v) => Type.Literal(v)))),
  stage: Type.Optional(Type.Union(DISPUTE_STAGES.map((v) => Type.Literal(v)))),
  mode: ModeQuery,
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: pageSizeText(500, 100) })),
});
type Id = Static<typeof IdParams>;

export function registerAdminDisputeRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<{ Params: Id; Body: DisputeInput }>('/payments/:id/disputes', {
    onRequest: requirePermission('payments.act'),
    schema: {
      ...ADMIN_TAG, summary: 'Enter a dispute on a payment (request_for_information, notification_of_chargeback or chargeback); a chargeback debits the merchant, turns the payment to chargeback and calls the merchant back; audited',
      params: IdParams, body: EventBody, response: { ...withErrors({ 201: DisputeView }), ...NOT_ALLOWED },
    },
  }, async (req, reply) => reply.code(201).send(await openDispute(ctx, actorOf(req), req.params.id, req.body)));

  app.post<{ Params: Id; Body: DisputeInput }>('/disputes/:id/events', {
    onRequest: requirePermission('payments.act'),
    schema: {
      ...ADMIN_TAG, summary: 'Move a dispute by an event of the transition table (information_supplied, won, lost, accept, second_chargeback, ...); 409 when it does not apply; audited',
      params: IdParams, body: EventBody, response: { ...withErrors({ 200: DisputeView }), ...NOT_ALLOWED },
    },
  }, async (req) => actOnDispute(ctx, actorOf(req), req.params.id, req.body));

  app.post<{ Params: Id; Body: SandboxChargebackInput }>('/sandbox/payments/:id/chargeback', {
    onRequest: requirePermission('payments.act'),
    schema: {
      ...ADMIN_TAG,
      summary: 'Sandbox: raise a chargeback on a sandbox merchant\'s payment: a notice now, then on the merchant\'s test clock the chargeback (deadline set), the end of the defence period (lost if not defended) and the decision; audited',
      params: IdParams, body: SandboxChargebackBody, response: { ...withErrors({ 201: SandboxChargebackView }), ...SANDBOX_ONLY },
    },
  }, async (req, reply) => reply.code(201).send(await raiseSandboxChargeback(ctx, actorOf(req), req.params.id, req.body)));

  app.post<{ Params: Id; Body: EvidenceInput }>('/disputes/:id/evidence', {
    onRequest: requirePermission('payments.act'),
    bodyLimit: Math.ceil(EVIDENCE_LIMITS.fileBytes / 3) * 4 + 64 * 1024,
    schema: {
      ...ADMIN_TAG, summary: 'Add evidence to a live dispute: a PDF, PNG or JPEG file (type told by its magic bytes, size limits) or a text; audited',
      params: IdParams, body: EvidenceBody, response: { ...withErrors({ 201: EvidenceView }), ...NOT_ALLOWED },
    },
  }, async (req, reply) => reply.code(201).send(await addEvidence(ctx, actorOf(req), req.params.id, req.body)));

  app.get<{ Params: Id }>('/disputes/:id/evidence', {
    onRequest: requirePermission('payments.read'),
    schema: { ...ADMIN_TAG, summary: 'A dispute\'s evidence (without the files\' content)', params: IdParams, response: withErrors({ 200: Type.Array(EvidenceView) }) },
  }, async (req) => evidenceOf(ctx, req.params.id));

  app.get<{ Params: Static<typeof EvidenceParams> }>('/disputes/:id/evidence/:evidenceId', {
    onRequest: requirePermission('payments.read'),
    schema: {
      ...ADMIN_TAG, summary: 'One piece of evidence, as uploaded (an attachment of its type)', params: EvidenceParams, produces: ['application/pdf', 'image/png', 'image/jpeg', 'text/plain'],
      response: withErrors({ 200: Type.String({ format: 'binary', description: 'The file (application/pdf, image/png, image/jpeg) or the text (text/plain).' }) }),
    },
  }, async (req, reply) => {
    const file = await evidenceFile(ctx, req.params.id, req.params.evidenceId);
    return reply.type(file.contentType).header('content-disposition', `attachment; filename="${file.fileName}"`).header('x-content-type-options', 'nosniff').send(file.content);
  });

  app.post<{ Params: Id; Body: { note?: string } }>('/disputes/:id/submit', {
    onRequest: requirePermission('payments.act'),
    schema: {
      ...ADMIN_TAG, summary: 'Submit the defence (the evidence not yet submitted): through the acquirer\'s dispute port, or recorded as sent by hand; moves the dispute by information_supplied; audited',
      params: IdParams, body: SubmitBody, response: { ...withErrors({ 200: SubmissionView }), ...NOT_ALLOWED },
    },
  }, async (req) => submitDefence(ctx, actorOf(req), req.params.id, req.body ?? {}));

  app.post<{ Body: DisputeImportInput }>('/disputes/imports', {
    onRequest: requirePermission('payments.act'),
    bodyLimit: MAX_FILE_CHARS * 2 + 64 * 1024,
    schema: {
      ...ADMIN_TAG, summary: 'Import an acquirer\'s daily dispute file (CSV) with its mapping profile: read whole first, a file with problems imports nothing (400, one entry per line); rows applied as the acquirer\'s notices; the same file twice changes nothing; audited',
      body: ImportBody, response: withErrors({ 200: ImportView }),
    },
  }, async (req) => importDisputeFile(ctx, actorOf(req), req.body));

  app.get('/disputes/threshold', {
    onRequest: requirePermission('payments.read'),
    schema: { ...ADMIN_TAG, summary: 'The dispute monitoring threshold in force (the operator\'s, or Visa VDMP\'s default)', response: withErrors({ 200: ThresholdView }) },
  }, async () => readThresholdView(ctx));

  app.put<{ Body: ThresholdInput }>('/disputes/threshold', {
    onRequest: requirePermission('payments.act'),
    schema: { ...ADMIN_TAG, summary: 'Set the dispute monitoring threshold (ratios and /metrics compare against it); audited', body: ThresholdBody, response: withErrors({ 200: ThresholdView }) },
  }, async (req) => setThreshold(ctx, actorOf(req), req.body));

  // A merchant's own threshold: read, set, back to the platform's (one path, three methods).
  const merchantThreshold: { method: 'GET' | 'PUT' | 'DELETE'; act: boolean; summary: string; run: (req: { params: Id; body: unknown }, actor: () => ReturnType<typeof actorOf>) => Promise<unknown> }[] = [
    { method: 'GET', act: false, summary: 'A merchant\'s dispute monitoring threshold in force: its own, else the platform\'s, else the default', run: (req) => readMerchantThresholdView(ctx, req.params.id) },
    {
      method: 'PUT', act: true, summary: 'Set a merchant\'s own dispute monitoring threshold (its ratios and /metrics gauges compare against it instead of the platform\'s); audited',
      run: (req, actor) => setMerchantThreshold(ctx, actor(), req.params.id, req.body as ThresholdInput),
    },
    { method: 'DELETE', act: true, summary: 'Remove a merchant\'s own dispute monitoring threshold (the platform\'s applies again); audited', run: (req, actor) => clearMerchantThreshold(ctx, actor(), req.params.id) },
  ];
  for (const r of merchantThreshold) {
    app.route<{ Params: Id; Body: unknown }>({
      method: r.method, url: '/merchants/:id/dispute-threshold', onRequest: requirePermission(r.act ? 'payments.act' : 'payments.read'),
      schema: { ...ADMIN_TAG, summary: r.summary, params: IdParams, ...(r.method === 'PUT' ? { body: ThresholdBody } : {}), response: withErrors({ 200: MerchantThresholdView }) },
      handler: async (req) => r.run(req, () => actorOf(req)),
    });
  }

  app.get<{ Querystring: Static<typeof DueQuery> }>('/disputes/due', {
    onRequest: requirePermission('payments.read'),
    schema: { ...ADMIN_TAG, summary: 'Live disputes whose deadline passes soon (or has passed), soonest first (test or live keys\' with mode)', querystring: DueQuery, response: withErrors({ 200: Type.Array(DueView) }) },
  }, async (req) => disputesDueSoon(ctx, req.query.within_days === undefined ? undefined : Number(req.query.within_days), undefined, req.query.mode));

  app.get<{ Querystring: Static<typeof ListQuery> }>('/disputes', {
    onRequest: requirePermission('payments.read'),
    schema: { ...ADMIN_TAG, summary: 'Disputes, newest first (by merchant, payment, status, stage, test or live)', querystring: ListQuery, response: withErrors({ 200: Type.Array(DisputeView) }) },
  }, async (req) => {
    const q = req.query;
    return findDisputes(ctx, {
      ...(q.merchant_id ? { merchantId: q.merchant_id } : {}), ...(q.payment_id ? { paymentId: q.payment_id } : {}), ...(q.status ? { status: q.status } : {}), ...(q.stage ? { stage: q.stage } : {}), ...(q.mode ? { mode: q.mode } : {}),
      ...(q.limit ? { limit: pageSize(q.limit, 500)! } : {}),
    });
  });

  app.get<{ Querystring: Static<typeof UnmatchedQuery> }>('/disputes/unmatched', {
    onRequest: requirePermission('payments.read'),
    schema: {
      ...ADMIN_TAG, summary: 'Acquirer dispute notices that named no known payment (kept, never dropped), newest first, each with the MID it came for and that MID\'s mode (by MID, test or live)',
      querystring: UnmatchedQuery, response: withErrors({ 200: Type.Array(UnmatchedView) }),
    },
  }, async (req) => {
    const q = req.query;
    return unmatchedNotices(ctx, { ...(q.mid_id !== undefined ? { midId: q.mid_id } : {}), ...(q.mode ? { mode: q.mode } : {}), ...(q.limit ? { limit: pageSize(q.limit, 500)! } : {}) });
  });

  app.get<{ Querystring: Static<typeof RatioQuery> }>('/disputes/ratios', {
    onRequest: requirePermission('payments.read'),
    schema: {
      ...ADMIN_TAG, summary: 'A month\'s dispute and fraud-dispute ratios per merchant, MID and currency: chargebacks raised in the month against payments captured in it (count and amount), flagged against the default threshold (Visa VDMP: 0.9 % and 100 disputes)',
      querystring: RatioQuery, response: withErrors({ 200: RatiosView }),
    },
  }, async (req) => disputeRatios(ctx, req.query.month, req.query.mode));

  app.get<{ Params: Id }>('/disputes/:id', {
    onRequest: requirePermission('payments.read'),
    schema: { ...ADMIN_TAG, summary: 'A dispute with the history of every change', params: IdParams, response: withErrors({ 200: DisputeWithHistory }) },
  }, async (req) => readDispute(ctx, req.params.id));
}
