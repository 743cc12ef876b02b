/**
 * Scheduled reports in the portal (issue 30): the user's subscriptions (GET, POST /portal/v1/report-subscriptions,
 * DELETE /portal/v1/report-subscriptions/{id}) and the reports made for them (GET /portal/v1/reports, GET
 * /portal/v1/reports/{id}/download, streamed chunk by chunk). services/portal/reports.ts checks the role (the kind's
 * export permission) and keeps everything to the user's own subscriptions and merchants.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import {
  MAX_SUBSCRIPTIONS, portalReportDownload, portalReports, portalReportSubscriptions, portalSubscribeReport, portalUnsubscribeReport,
  type Report, type ReportSubscription,
} from '../../services/portal/reports.ts';
import { DEFAULT_KEEP_DAYS, MAX_KEEP_DAYS, REPORT_CADENCES, REPORT_DELIVERIES, REPORT_KINDS, REPORT_PERMISSION } from '../../domain/reports.ts';
import { userOf } from './auth.ts';
import { FORMAT_QUERY, PORTAL_TAG, portalResponses } from './errors.ts';
import { sendExport } from './export-routes.ts';
import { XLSX_CONTENT_TYPE } from '../../services/xlsx.ts';

const { tags, security } = PORTAL_TAG;
const literals = (values: readonly string[], description: string) => Type.Union(values.map((v) => Type.Literal(v)), { description });
const KIND_PERMISSIONS = Object.entries(REPORT_PERMISSION).map(([k, p]) => `${k}: ${p}`).join('; ');

const SubscriptionBody = Type.Object({
  kind: literals(REPORT_KINDS, `What the report holds: the same lines as its export (${KIND_PERMISSIONS}).`),
  cadence: literals(REPORT_CADENCES, 'daily: each UTC day; weekly: Monday to Sunday; monthly: each calendar month. A period\'s report is made 10 minutes after its end.'),
  delivery: literals(REPORT_DELIVERIES, 'email: a link to the report is e-mailed to the user; download: listed for download only.'),
  keep_days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_KEEP_DAYS, description: `How many days each report is kept for download (default ${DEFAULT_KEEP_DAYS}).` })),
  merchant_id: Type.Optional(Type.String({ maxLength: 64, description: 'One of the user\'s merchants; absent: all of them (a group\'s user).' })),
  saved_view_id: Type.Optional(Type.String({ maxLength: 64, description: 'Payments only: one of the user\'s saved views, whose filters the report keeps (copied now).' })),
  query: Type.Optional(Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: 200 }), { description: 'Payments only: the payments search\'s filters (GET /portal/v1/payments); the period replaces created_from and created_to.' })),
}, {
  additionalProperties: false,
  examples: [{ kind: 'payments', cadence: 'daily', delivery: 'email', keep_days: 30, query: { status: 'settled' } }, { kind: 'fees', cadence: 'monthly', delivery: 'download', keep_days: 90 }],
});
const SubscriptionView = Type.Object({
  id: Type.String(), kind: Type.String(), cadence: Type.String(), delivery: Type.String(), keep_days: Type.Integer(),
  merchant_id: Type.Union([Type.String(), Type.Null()]), saved_view_id: Type.Union([Type.String(), Type.Null()]),
  query: Type.Record(Type.String(), Type.String()),
  next_period_to: Type.String({ description: 'The end of the next period reported; its report is made shortly after.' }),
  created_at: Type.String(),
});
const SubscriptionList = Type.Object({ subscriptions: Type.Array(SubscriptionView) }, {
  examples: [{ subscriptions: [{ id: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', kind: 'payments', cadence: 'daily', delivery: 'email', keep_days: 30, merchant_id: null, saved_view_id: null, query: { status: 'settled' }, next_period_to: '2026-11-30T00:00:00.000Z', created_at: '2026-11-29T08:00:00.000Z' }] }],
});
const ReportView = Type.Object({
  id: Type.String(), subscription_id: Type.String(), kind: Type.String(), cadence: Type.String(),
  merchant_ids: Type.Array(Type.String()),
  period_from: Type.String({ description: 'Inclusive.' }), period_to: Type.String({ description: 'Exclusive.' }),
  lines: Type.Integer({ description: 'CSV lines after the header.' }), bytes: Type.Integer({ description: 'Size of the CSV.' }),
  mail: Type.String({ description: 'none (download only), due, sending, sent, failed' }),
  created_at: Type.String(), expires_at: Type.String({ description: 'When it is deleted.' }),
});
const ReportList = Type.Object({ reports: Type.Array(ReportView) }, {
  examples: [{ reports: [{ id: '0193a1b2-0000-7e5f-8a9b-0c1d2e3f4a5b', subscription_id: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', kind: 'payments', cadence: 'daily', merchant_ids: ['0b7f2c1e-5d4a-4f3b-9e8d-7c6b5a4f3e2d'], period_from: '2026-11-28T00:00:00.000Z', period_to: '2026-11-29T00:00:00.000Z', lines: 412, bytes: 98304, mail: 'sent', created_at: '2026-11-29T00:10:02.000Z', expires_at: '2026-12-29T00:10:02.000Z' }] }],
});
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

const presentSubscription = (s: ReportSubscription) => ({
  id: s.id, kind: s.kind, cadence: s.cadence, delivery: s.delivery, keep_days: s.keepDays, merchant_id: s.merchantId, saved_view_id: s.savedViewId,
  query: s.query, next_period_to: s.nextPeriodTo.toISOString(), created_at: s.createdAt.toISOString(),
});
const presentReport = (r: Report) => ({
  id: r.id, subscription_id: r.subscriptionId, kind: r.kind, cadence: r.cadence, merchant_ids: r.merchantIds, period_from: r.periodFrom.toISOString(),
  period_to: r.periodTo.toISOString(), lines: r.lines, bytes: r.bytes, mail: r.mailState, created_at: r.createdAt.toISOString(), expires_at: r.expiresAt.toISOString(),
});

export function registerPortalReportRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/report-subscriptions', {
    schema: { tags, security, summary: 'The user\'s scheduled reports (permission payments.read)', response: portalResponses({ 200: SubscriptionList }, []) },
  }, async (req) => ({ subscriptions: (await portalReportSubscriptions(ctx, userOf(req))).map(presentSubscription) }));

  app.post<{ Body: Static<typeof SubscriptionBody> }>('/report-subscriptions', {
    schema: {
      tags, security, summary: 'Subscribe a scheduled report (the user\'s own): a kind, a cadence, e-mail or download, kept N days',
      description: `The role must permit the kind's export (${KIND_PERMISSIONS}); merchant_id and saved_view_id must be the user's. The first report covers the first whole period after now. ${MAX_SUBSCRIPTIONS} at most per user. Audited.`,
      body: SubscriptionBody, response: portalResponses({ 201: SubscriptionView }, [400, 404]),
    },
  }, async (req, reply) => reply.code(201).send(presentSubscription(await portalSubscribeReport(ctx, userOf(req), req.body))));

  app.delete<{ Params: Static<typeof IdParams> }>('/report-subscriptions/:id', {
    schema: { tags, security, summary: 'Delete one of the user\'s scheduled reports and the reports kept for it; audited', params: IdParams, response: portalResponses({ 204: Type.Null({ description: 'Deleted' }) }, [404]) },
  }, async (req, reply) => {
    await portalUnsubscribeReport(ctx, userOf(req), req.params.id);
    return reply.code(204).send();
  });

  app.get('/reports', {
    schema: { tags, security, summary: 'The reports made for the user\'s subscriptions, newest first, until each expires (permission payments.read)', response: portalResponses({ 200: ReportList }, []) },
  }, async (req) => ({ reports: (await portalReports(ctx, userOf(req))).map(presentReport) }));

  app.get<{ Params: Static<typeof IdParams>; Querystring: { format?: 'csv' | 'xlsx' } }>('/reports/:id/download', {
    schema: {
      tags, security, summary: 'One of the user\'s reports as CSV (or XLSX), streamed (the kind\'s permission; another user\'s or an expired report is not found)',
      params: IdParams, querystring: Type.Object({ format: FORMAT_QUERY }, { additionalProperties: false }), produces: ['text/csv', XLSX_CONTENT_TYPE],
      response: portalResponses({ 200: Type.String({ description: 'text/csv (or XLSX with format=xlsx): the columns of the kind\'s export' }) }, [404]),
    },
  }, async (req, reply) => {
    const { report, text } = await portalReportDownload(ctx, userOf(req), req.params.id);
    return sendExport(reply, text, `${report.kind}-${report.cadence}-${report.periodFrom.toISOString().slice(0, 10)}`, req.query.format, report.kind);
  });
}
