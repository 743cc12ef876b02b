/**
 * The portal's reports beside the payments export (issue 30): the merchant's refunds and disputes as CSV, for the
 * user's merchants (or the one named) and a creation window, streamed in keyset pages of 5,000 (constant memory),
 * every cell quoted and formulas neutralised (domain/csv.ts). Permission payments.export.
 */
import { lookups, type ServiceContext } from '../context.ts';
import { csvRow } from '../../domain/csv.ts';
import { formatAmount } from '../../domain/money.ts';
import { callbackLines, disputeLines, refundLines, type CallbackLine, type DisputeLine, type ExportWindow, type RefundLine } from '../../store/portal-exports-repo.ts';
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

/** The refunds of the user's merchants as CSV, newest first; the role and the window are checked before the header. */
export function portalRefundsCsv(ctx: ServiceContext, user: PortalUser, q: ExportQuery, pageSize = 5000): AsyncGenerator<string> {
  mustMay(user, 'payments.export');
  const w = windowOf(user, q);
  return csvOf(REFUND_COLUMNS, (limit, after) => refundLines(lookups(ctx), w, limit, after), refundRow, pageSize);
}

/** The disputes of the user's merchants as CSV, newest first. */
export function portalDisputesCsv(ctx: ServiceContext, user: PortalUser, q: ExportQuery, pageSize = 5000): AsyncGenerator<string> {
  mustMay(user, 'payments.export');
  const w = windowOf(user, q);
  return csvOf(DISPUTE_COLUMNS, (limit, after) => disputeLines(lookups(ctx), w, limit, after), disputeRow, pageSize);
}

/** The callbacks of the user's merchants as CSV, newest first, with each one's event and delivery (callbacks.read). */
export function portalCallbacksCsv(ctx: ServiceContext, user: PortalUser, q: ExportQuery, pageSize = 5000): AsyncGenerator<string> {
  mustMay(user, 'callbacks.read');
  const w = windowOf(user, q);
  return csvOf(CALLBACK_COLUMNS, (limit, after) => callbackLines(lookups(ctx), w, limit, after), callbackRow, pageSize);
}

/** The fee lines of the user's merchants as CSV, newest first: each fee charged or given back (money.read). */
export function portalFeesCsv(ctx: ServiceContext, user: PortalUser, q: ExportQuery, pageSize = 5000): AsyncGenerator<string> {
  mustMay(user, 'money.read');
  return feesCsv(ctx, windowOf(user, q), pageSize);
}
