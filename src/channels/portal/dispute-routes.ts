/**
 * The merchant defends its disputes in the portal (issue 29 item 5), under /portal/v1/disputes: list them, read one
 * with its history and evidence, upload evidence (files and the defence text, the operators' limits), submit the
 * defence, or accept the dispute. Reads need payments.read, the defence disputes.write; services/portal/disputes.ts
 * scopes every call to the user's merchants and calls the operators' dispute services; writes are audited in the
 * merchant's own log. The answers are the admin API's dispute views.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { portalAcceptDispute, portalAddEvidence, portalDispute, portalDisputes, portalEvidenceFile, portalSubmitDefence } from '../../services/portal/disputes.ts';
import type { EvidenceInput } from '../../services/disputes/defence.ts';
import { DISPUTE_STAGES, DISPUTE_STATUSES, EVIDENCE_LIMITS } from '../../domain/disputes.ts';
import { DisputeView, DisputeWithHistory, EvidenceBody, EvidenceView, NOT_ALLOWED, SubmissionView, SubmitBody } from '../admin/dispute-routes.ts';
import { userOf } from './auth.ts';
import { PORTAL_TAG, portalResponses } from './errors.ts';

const { tags, security } = PORTAL_TAG;

const Deadline = Type.String({ description: 'none (no deadline, or closed), later, due_soon (within 3 days) or overdue, on the merchant\'s clock.' });
const ListedDispute = Type.Composite([DisputeView, Type.Object({ deadline: Deadline })]);
const DisputeList = Type.Object({ disputes: Type.Array(ListedDispute) }, {
  examples: [{ disputes: [{
    id: '0193a1…', payment_id: '0193a0…', merchant_id: '0b7f…', source: 'operator', external_ref: null, amount: '25.00', currency: 'EUR', reason_code: '13.1',
    category: 'consumer_dispute', stage: 'first_chargeback', status: 'evidence_required', due_at: '2030-03-20T00:00:00.000Z', bank_date: '2030-03-01',
    created_at: '2030-03-02T10:00:00.000Z', updated_at: '2030-03-02T10:00:00.000Z', deadline: 'due_soon',
  }] }],
});
const DisputeDetail = Type.Composite([DisputeWithHistory, Type.Object({ evidence: Type.Array(EvidenceView, { description: 'The evidence uploaded (without the files\' content), submitted_at set once a submission carried it.' }) })]);
const ListQuery = Type.Object({
  merchant_id: Type.Optional(Type.String({ maxLength: 64, description: 'One of the user\'s merchants; absent: all of them.' })),
  status: Type.Optional(Type.String({ maxLength: 40, description: DISPUTE_STATUSES.join(', ') })),
  stage: Type.Optional(Type.String({ maxLength: 40, description: DISPUTE_STAGES.join(', ') })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'At most this many (default 100).' })),
}, { additionalProperties: false });
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const EvidenceParams = Type.Object({ id: Type.String({ maxLength: 64 }), evidenceId: Type.String({ maxLength: 64 }) });
const AcceptBody = Type.Object({ note: Type.Optional(Type.String({ maxLength: 1000, description: 'Why (kept in the dispute\'s history and the audit log).' })) }, { additionalProperties: false, examples: [{ note: 'refunded the customer by bank transfer' }] });
type Id = Static<typeof IdParams>;

export function registerPortalDisputeRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Querystring: Static<typeof ListQuery> }>('/disputes', {
    schema: {
      tags, security, summary: 'The disputes of the user\'s merchants, newest first, with their stage, status, reason and deadline (permission payments.read)',
      querystring: ListQuery, response: portalResponses({ 200: DisputeList }),
    },
  }, async (req) => {
    const q = req.query;
    return { disputes: await portalDisputes(ctx, userOf(req), { ...(q.merchant_id !== undefined ? { merchant_id: q.merchant_id } : {}), ...(q.status !== undefined ? { status: q.status } : {}), ...(q.stage !== undefined ? { stage: q.stage } : {}), ...(q.limit !== undefined ? { limit: q.limit } : {}) }) };
  });

  app.get<{ Params: Id }>('/disputes/:id', {
    schema: { tags, security, summary: 'One dispute with its deadline, the history of every change and its evidence (permission payments.read)', params: IdParams, response: portalResponses({ 200: DisputeDetail }, [404]) },
  }, async (req) => portalDispute(ctx, userOf(req), req.params.id));

  app.get<{ Params: Static<typeof EvidenceParams> }>('/disputes/:id/evidence/:evidenceId', {
    schema: {
      tags, security, summary: 'One piece of evidence as uploaded, an attachment of its type (permission payments.read)', params: EvidenceParams, produces: ['application/pdf', 'image/png', 'image/jpeg', 'text/plain'],
      response: portalResponses({ 200: Type.String({ format: 'binary', description: 'The file (application/pdf, image/png, image/jpeg) or the text (text/plain).' }) }, [404]),
    },
  }, async (req, reply) => {
    const file = await portalEvidenceFile(ctx, userOf(req), req.params.id, req.params.evidenceId);
    return reply.type(file.contentType).header('content-disposition', `attachment; filename="${file.fileName}"`).header('x-content-type-options', 'nosniff').send(file.content);
  });

  app.post<{ Params: Id; Body: EvidenceInput }>('/disputes/:id/evidence', {
    bodyLimit: Math.ceil(EVIDENCE_LIMITS.fileBytes / 3) * 4 + 64 * 1024,
    schema: {
      tags, security,
      summary: `Add evidence to a live dispute: a PDF, PNG or JPEG file (told by its content; at most ${EVIDENCE_LIMITS.fileBytes / 1048576} MB, ${EVIDENCE_LIMITS.totalBytes / 1048576} MB and ${EVIDENCE_LIMITS.items} pieces per dispute) or the defence text; audited (permission disputes.write)`,
      params: IdParams, body: EvidenceBody, response: { ...portalResponses({ 201: EvidenceView }), ...NOT_ALLOWED },
    },
  }, async (req, reply) => reply.code(201).send(await portalAddEvidence(ctx, userOf(req), req.params.id, req.body)));

  app.post<{ Params: Id; Body: { note?: string } }>('/disputes/:id/submit', {
    schema: {
      tags, security,
      summary: 'Submit the defence (the evidence not submitted yet): through the acquirer\'s dispute service where the gateway has one, otherwise recorded for the payment provider to send; the dispute moves to evidence_submitted; audited (permission disputes.write)',
      params: IdParams, body: SubmitBody, response: { ...portalResponses({ 200: SubmissionView }), ...NOT_ALLOWED },
    },
  }, async (req) => portalSubmitDefence(ctx, userOf(req), req.params.id, req.body ?? {}));

  app.post<{ Params: Id; Body: Static<typeof AcceptBody> }>('/disputes/:id/accept', {
    schema: {
      tags, security, summary: 'Accept the dispute instead of defending it: the chargeback stands (status accepted); audited (permission disputes.write)',
      params: IdParams, body: AcceptBody, response: { ...portalResponses({ 200: DisputeView }), ...NOT_ALLOWED },
    },
  }, async (req) => portalAcceptDispute(ctx, userOf(req), req.params.id, req.body ?? {}));
}
