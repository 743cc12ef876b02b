/**
 * The portal's refunds and disputes as CSV (issue 30, reports), beside the payments export: GET
 * /portal/v1/refunds/export, /portal/v1/disputes/export, /portal/v1/callbacks/export and /portal/v1/fees/export, streamed page by page (services/portal/exports.ts).
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { CALLBACK_COLUMNS, DISPUTE_COLUMNS, FEE_COLUMNS, REFUND_COLUMNS, portalCallbacksCsv, portalDisputesCsv, portalFeesCsv, portalRefundsCsv } from '../../services/portal/exports.ts';
import { csvToXlsx, XLSX_CONTENT_TYPE } from '../../services/xlsx.ts';
import { userOf } from './auth.ts';
import { FORMAT_QUERY, PORTAL_TAG, portalResponses } from './errors.ts';

const { tags, security } = PORTAL_TAG;
const ExportQuery = Type.Object({
  merchant_id: Type.Optional(Type.String({ maxLength: 64, description: 'One of the user\'s merchants; absent: all of them.' })),
  created_from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or date-time with zone; inclusive' })),
  created_to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or date-time with zone; exclusive' })),
  format: FORMAT_QUERY,
}, { additionalProperties: false });
type ExportQuery = Static<typeof ExportQuery>;

/** An export's lines as the download asked: CSV, or the same rows as a one-sheet XLSX. */
export function sendExport(reply: FastifyReply, lines: AsyncIterable<string | Uint8Array>, fileName: string, format: 'csv' | 'xlsx' | undefined, sheetName: string) {
  reply.header('cache-control', 'no-store');
  if (format === 'xlsx') return reply.type(XLSX_CONTENT_TYPE).header('content-disposition', `attachment; filename="${fileName}.xlsx"`).send(csvToXlsx(lines, sheetName));
  return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${fileName}.csv"`).send(Readable.from(lines));
}

export function registerPortalExportRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const csv = (name: string, columns: readonly string[], what: string, make: typeof portalRefundsCsv, permission = 'payments.export') => {
    app.get<{ Querystring: ExportQuery }>(`/${name}/export`, {
      schema: {
        tags, security, summary: `The ${what} as CSV, newest first, streamed page by page (every cell quoted; formulas neutralised)`,
        description: `A creation window (created_from, created_to) and a shop (merchant_id) narrow it. Permission ${permission}.`,
        querystring: ExportQuery, produces: ['text/csv', XLSX_CONTENT_TYPE], response: portalResponses({ 200: Type.String({ description: `text/csv (or XLSX with format=xlsx): ${columns.join(', ')}` }) }),
      },
    }, async (req, reply) => {
      const { format, ...query } = req.query;
      const lines = make(ctx, userOf(req), query);
      return sendExport(reply, lines, `${name}-${ctx.clock.now().toISOString().slice(0, 10)}`, format, name);
    });
  };
  csv('refunds', REFUND_COLUMNS, 'merchant\'s refunds (each refund transaction of its payments, with its reason and who started it)', portalRefundsCsv);
  csv('callbacks', CALLBACK_COLUMNS, 'merchant\'s callbacks with each one\'s event, delivery status, attempts and last error', portalCallbacksCsv, 'callbacks.read');
  csv('fees', FEE_COLUMNS, 'merchant\'s fees: each fee charged (positive) or given back (negative, a void\'s or reversal\'s fee_refund) with its payment and the transaction it was charged on', portalFeesCsv, 'money.read');
  csv('disputes', DISPUTE_COLUMNS, 'merchant\'s disputes (chargebacks, retrievals, pre-arbitrations) with their stage, status and answer due', portalDisputesCsv);
}
