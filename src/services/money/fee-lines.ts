/**
 * The fees export (issue 30, reports): a merchant's fee lines from the ledger (docs/operators/money.md), one line a
 * fee charged (event fee, positive) or given back (fee_refund, negative) on its merchant's fees account, with the
 * payment, its order id and the transaction it was charged on (the signed fee written as a plain number, not
 * neutralised as text: domain/csv.ts CsvNumber); newest first, streamed in keyset pages. The
 * merchant portal mounts it for the user's merchants (services/portal/exports.ts), the admin API for any merchant.
 */
import { lookups, type ServiceContext } from '../context.ts';
import { CsvNumber, csvRow } from '../../domain/csv.ts';
import { formatAmount } from '../../domain/money.ts';
import { feeLines, type ExportWindow, type FeeLine } from '../../store/portal-exports-repo.ts';
import { csvOf, exportWindow, type WindowQuery } from '../exports.ts';
import { merchantOrNotFound } from '../admin/money.ts';

export const FEE_COLUMNS = ['created_at', 'merchant_id', 'payment_id', 'order_id', 'transaction_id', 'transaction_type', 'transaction_amount', 'event', 'fee', 'currency'] as const;

const feeRow = (f: FeeLine) => csvRow([
  f.created_at, f.merchant_id, f.payment_id, f.order_id, f.transaction_id, f.transaction_type,
  f.transaction_amount === null ? null : formatAmount(BigInt(f.transaction_amount), f.currency), f.event, new CsvNumber(formatAmount(BigInt(f.amount), f.currency)), f.currency,
]);

/** The window's fee lines as CSV (the caller has checked who may read the window's merchants). */
export const feesCsv = (ctx: ServiceContext, w: ExportWindow, pageSize = 5000): AsyncGenerator<string> =>
  csvOf(FEE_COLUMNS, (limit, after) => feeLines(lookups(ctx), w, limit, after), feeRow, pageSize);

/** One merchant's fee lines as CSV (the admin API); an unknown merchant is not found, checked before the header. */
export async function merchantFeesCsv(ctx: ServiceContext, merchantId: string, q: WindowQuery): Promise<AsyncGenerator<string>> {
  const w = exportWindow([merchantId], q);
  await merchantOrNotFound(ctx, merchantId);
  return feesCsv(ctx, w);
}
