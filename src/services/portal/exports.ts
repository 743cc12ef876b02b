/**
 * The portal's reports beside the payments export (issue 30): the merchant's refunds and disputes as CSV, for the
 * user's merchants (or the one named) and a creation window, streamed in keyset pages of 5,000 (constant memory),
 * every cell quoted and formulas neutralised (domain/csv.ts). Permission payments.export.
 */
import { lookups, type ServiceContext } from '../context.ts';
import { csvRow } from '../../domain/csv.ts';
import { formatAmount } from '../../domain/money.ts';
import { callbackLines, disputeLines, refundLines, type CallbackLine, type Cursor, type DisputeLine, type ExportWindow, type RefundLine } from '../../store/portal-exports-repo.ts';
import type { Sql } from '../../store/database.ts';
import type { MerchantPermission } from '../../domain/merchant-roles.ts';
import { callbackEventOf } from '../../domain/callback-delivery.ts';
import { csvOf, exportWindow } from '../exports.ts';
import { FEE_COLUMNS, feesCsv } from '../money/fee-lines.ts';
import { merchantOf, mustMay, type PortalUser } from './scope.ts';

export { FEE_COLUMNS };

export interface ExportQuery { merchant_id?: string; created_from?: string; created_to?: string }

export const REFUND_COLUMNS = ['id', 'payment_id', 'merchant_id', 'order_id', 'created_at', 'status', 'amount', 'currency', 'reason', 'initiated_by'] as const;
export const DISPUTE_COLUMNS = ['id', 'payment_id', 'merchant_id', 'order_id', 'created_at', 'stage', 'status', 'amount', 'currency', 'reason_code', 'category', 'due_at'] as const;

export const CALLBACK_COLUMNS = ['id', 'merchant_id', 'payment_id', 'created_at', 'event_type', 'event_status', 'url', 'status', 'attempts', 'last_error', 'delivered_at'] as const;
const callbackRow = (c: CallbackLine) => {
  const event = callbackEventOf((typeof c.fields === 'string' ? JSON.parse(c.fields) : c.fields) as Parameters<typeof callbackEventOf>[0]);
  return csvRow([c.id, c.merchant_id, c.payment_id, c.created_at, event.type, event.status, c.url, c.status, c.attempts, c.last_error, c.delivered_at]);
};
const refundRow = (r: RefundLine) => csvRow([r.id, r.payment_id, r.merchant_id, r.order_id, r.created_at, r.status, formatAmount(BigInt(r.amount), r.currency), r.currency, r.reason, r.initiated_by]);
const disputeRow = (d: DisputeLine) => csvRow([d.id, d.payment_id, d.merchant_id, d.order_id, d.created_at, d.stage, d.status, formatAmount(BigInt(d.amount), d.currency), d.currency, d.reason_code, d.category, d.due_at]);

function windowOf(user: PortalUser, q: ExportQuery): ExportWindow {
  return exportWindow(q.merchant_id !== undefined ? [merchantOf(user, q.merchant_id)] : user.merchantIds, q);
}

/**
 * One line export of the user's merchants as CSV, newest first: the role (the export's permission) and the window are
 * checked when it is called, before the header.
 */
function lineExport<T extends { created_at: string; id: string }>(
  permission: MerchantPermission,
  columns: readonly string[],
  lines: (sql: Sql, w: ExportWindow, limit: number, after?: Cursor) => Promise<T[]>,
  row: (line: T) => string,
): (ctx: ServiceContext, user: PortalUser, q: ExportQuery, pageSize?: number) => AsyncGenerator<string> {
  return (ctx, user, q, pageSize = 5000) => {
    mustMay(user, permission);
    const w = windowOf(user, q);
    return csvOf(columns, (limit, after) => lines(lookups(ctx), w, limit, after), row, pageSize);
  };
}

/** The refunds of the user's merchants as CSV, newest first. */
export const portalRefundsCsv = lineExport('payments.export', REFUND_COLUMNS, refundLines, refundRow);

/** The disputes of the user's merchants as CSV, newest first. */
export const portalDisputesCsv = lineExport('payments.export', DISPUTE_COLUMNS, disputeLines, disputeRow);

/** The callbacks of the user's merchants as CSV, newest first, with each one's event and delivery (callbacks.read). */
export const portalCallbacksCsv = lineExport('callbacks.read', CALLBACK_COLUMNS, callbackLines, callbackRow);

/** The fee lines of the user's merchants as CSV, newest first: each fee charged or given back (money.read). */
export function portalFeesCsv(ctx: ServiceContext, user: PortalUser, q: ExportQuery, pageSize = 5000): AsyncGenerator<string> {
  mustMay(user, 'money.read');
  return feesCsv(ctx, windowOf(user, q), pageSize);
}
