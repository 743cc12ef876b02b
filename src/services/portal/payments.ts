/**
 * The merchant portal's payments, callbacks, developer settings and audit log (issue 30). Every function takes
 * the signed-in PortalUser and checks, before anything else, that the role permits the action and that each
 * object belongs to one of the user's merchants (scope.ts): the channel adds nothing to the scope. Reads reuse the
 * operators' queries with the merchants filter set; refunds, captures and voids go through the same follow-up
 * engine (services/admin/payment-actions.ts), audited with the merchant user.
 */
import { lookups, type ServiceContext } from '../context.ts';
import { searchPaymentCsv, searchPaymentLines, searchPayments, type PaymentLine, type PaymentSearch } from '../../store/payment-search-repo.ts';
import { csvRow } from '../../domain/csv.ts';
import { EXPONENT_OVERRIDES, formatAmount } from '../../domain/money.ts';
import { getPayment, listTransactions } from '../../store/payments-repo.ts';
import { getCallback, listCallbacks, type CallbackWithAttempts } from '../../store/callbacks-repo.ts';
import { disputesOfPayment } from '../../store/disputes-repo.ts';
import type { Dispute } from '../../domain/disputes.ts';
import { listAudit, type AuditRecord } from '../../store/audit-repo.ts';
import { parseSearch, encodeCursor, decodeCursor, type SearchQuery } from '../admin/payment-search.ts';
import { operatorFollowUp, type OperatorAction } from '../admin/payment-actions.ts';
import { resendNow, sendTestCallback } from '../admin/callback-resend.ts';
import { currentSigningSecret, rotateSigningSecret } from '../signing-secrets.ts';
import type { Payment, Transaction } from '../../domain/model/payment.ts';
import type { FollowUpResult } from '../follow-ups.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';
import { isUuid } from '../../domain/ids.ts';
import { PORTAL_EDITABLE_SETTINGS, type PortalEditableSetting } from '../../domain/protocol-mapping.ts';
import { auditScope, inScope, merchantOf, mustMay, mustOwn, portalActor, type PortalUser } from './scope.ts';

// --- payments ---------------------------------------------------------------------------------------------------

/** The search narrowed to the user's merchants: `merchant_id`, when given, must be one of them. */
function scopedSearch(user: PortalUser, q: SearchQuery) {
  const parsed = parseSearch({ ...q, merchant_id: undefined, needs_operator: undefined });
  if (q.merchant_id !== undefined) {
    mustOwn(user, q.merchant_id);
    parsed.search.merchantId = q.merchant_id;
  } else {
    parsed.search.merchantIds = user.merchantIds;
  }
  return parsed;
}

export async function portalPayments(ctx: ServiceContext, user: PortalUser, q: SearchQuery): Promise<{ payments: Payment[]; nextCursor: string | null }> {
  mustMay(user, 'payments.read');
  const { search, limit, after } = scopedSearch(user, q);
  const rows = await searchPayments(lookups(ctx), search, limit + 1, after);
  const payments = rows.slice(0, limit);
  const last = payments[payments.length - 1];
  return { payments, nextCursor: rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null };
}

async function ownPayment(ctx: ServiceContext, user: PortalUser, id: string): Promise<Payment> {
  const payment = isUuid(id) ? await getPayment(ctx.db, id) : undefined;
  if (!payment || !inScope(user, payment.merchantId)) throw new GatewayError('notFound');
  return payment;
}

export async function portalPayment(ctx: ServiceContext, user: PortalUser, id: string): Promise<{ payment: Payment; transactions: Transaction[]; callbacks: CallbackWithAttempts[]; disputes: Dispute[] }> {
  mustMay(user, 'payments.read');
  const payment = await ownPayment(ctx, user, id);
  const [transactions, callbacks, disputes] = await Promise.all([
    listTransactions(ctx.db, payment.id), listCallbacks(ctx.db, { paymentId: payment.id, limit: 1000 }), disputesOfPayment(ctx.db, payment.id),
  ]);
  return { payment, transactions, callbacks, disputes };
}

/** Refund (full or partial), capture or void by a merchant user, through the merchants' own follow-up engine. */
export async function portalPaymentAction(ctx: ServiceContext, user: PortalUser, id: string, action: OperatorAction, amount?: string, reason?: string): Promise<FollowUpResult> {
  mustMay(user, 'payments.act');
  await ownPayment(ctx, user, id);
  // The reason is its own field, as the operators' refund reason: on the transaction (initiatedBy.reason) and in the
  // audit entry (details.reason_given), the user's name left as it is.
  return operatorFollowUp(ctx, portalActor(user), id, action, amount, { kind: 'merchant_user', merchantIds: user.merchantIds }, reason);
}

// --- export ---------------------------------------------------------------------------------------------------

/** The export's pages: keyset pages of the search, newest first, never more than one page in memory. */
export async function* portalPaymentPages(ctx: ServiceContext, user: PortalUser, q: SearchQuery, pageSize = 5000): AsyncGenerator<PaymentLine[]> {
  mustMay(user, 'payments.export');
  const { search } = scopedSearch(user, { ...q, limit: undefined, cursor: undefined });
  const ids = search.merchantIds;
  if (ids === undefined || ids.length <= 1) {
    yield* keysetPages(ctx, search, pageSize);
    return;
  }
  // A group's user: each merchant's payments are one range of its index (merchant_id, created_at, id), merged here
  // newest first; one `merchant_id = ANY(...)` would sort every matching row again for each page.
  yield* mergedPages(ids.map((merchantId) => keysetPages(ctx, { ...search, merchantIds: undefined, merchantId }, pageSize)), pageSize);
}

/** The export's columns, and one payment's line (every cell quoted, formulas neutralised: domain/csv.ts). */
export const EXPORT_COLUMNS = ['id', 'merchant_id', 'created_at', 'order_id', 'status', 'amount', 'currency', 'captured_amount', 'refunded_amount', 'method', 'card', 'payer_email'] as const;
export const exportLine = (p: PaymentLine): string => csvRow([
  p.id, p.merchant_id, p.created_at, p.order_id, p.status, formatAmount(BigInt(p.amount), p.currency), p.currency,
  formatAmount(BigInt(p.captured_amount), p.currency), formatAmount(BigInt(p.refunded_amount), p.currency), p.method, p.card, p.payer_email,
]);

/**
 * The export as CSV text, page by page after its header. One merchant's (the user's only one, or the one named):
 * each page's lines written by the database in one string (searchPaymentCsv), one index range each; a group's
 * user's: each shop's pages merged newest first, a line each. The role and the scope are checked before the header.
 */
export async function portalPaymentCsv(ctx: ServiceContext, user: PortalUser, q: SearchQuery, pageSize = 5000): Promise<AsyncGenerator<string>> {
  mustMay(user, 'payments.export');
  const { search } = scopedSearch(user, { ...q, limit: undefined, cursor: undefined });
  const ids = search.merchantIds;
  if (ids !== undefined && ids.length > 1) {
    const pages = portalPaymentPages(ctx, user, q, pageSize);
    return (async function* lines() {
      yield csvRow(EXPORT_COLUMNS);
      for await (const page of pages) yield page.map(exportLine).join('');
    })();
  }
  const db = lookups(ctx);
  return (async function* text() {
    yield csvRow(EXPORT_COLUMNS);
    let after: { createdAt: string; id: string } | undefined;
    for (;;) {
      const page = await searchPaymentCsv(db, search, pageSize, after, EXPONENT_OVERRIDES);
      if (page.text) yield page.text;
      if (page.lines < pageSize || !page.last) return;
      after = page.last;
    }
  })();
}

async function* keysetPages(ctx: ServiceContext, search: PaymentSearch, pageSize: number): AsyncGenerator<PaymentLine[]> {
  let after: { createdAt: string; id: string } | undefined;
  for (;;) {
    const rows = await searchPaymentLines(lookups(ctx), search, pageSize, after);
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.created_at, id: last.id };
  }
}

/** Newest first, as the search orders: created_at (ISO text of one width), then id, both descending. */
const newer = (a: PaymentLine, b: PaymentLine): boolean => a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id);

/** Merges streams each newest first into pages newest first, holding one page of each stream at most. */
export async function* mergedPages(streams: AsyncGenerator<PaymentLine[]>[], pageSize: number): AsyncGenerator<PaymentLine[]> {
  const heads = await Promise.all(streams.map(async (stream) => ({ stream, page: (await stream.next()).value ?? [], at: 0 })));
  let live = heads.filter((h) => h.page.length > 0);
  let out: PaymentLine[] = [];
  while (live.length > 0) {
    let best = live[0]!;
    for (const h of live) if (newer(h.page[h.at]!, best.page[best.at]!)) best = h;
    out.push(best.page[best.at++]!);
    if (out.length === pageSize) {
      yield out;
      out = [];
    }
    if (best.at === best.page.length) {
      const next = await best.stream.next();
      best.page = next.done ? [] : next.value;
      best.at = 0;
      if (best.page.length === 0) live = live.filter((h) => h !== best);
    }
  }
  if (out.length > 0) yield out;
}

export { decodeCursor };
export type { PaymentLine };

// --- callbacks ------------------------------------------------------------------------------------------------

export async function portalCallbacks(ctx: ServiceContext, user: PortalUser, q: { merchant_id?: string; payment_id?: string; limit?: number }): Promise<CallbackWithAttempts[]> {
  mustMay(user, 'callbacks.read');
  if (q.payment_id !== undefined) await ownPayment(ctx, user, q.payment_id);
  const merchant = q.merchant_id === undefined ? undefined : (mustOwn(user, q.merchant_id), q.merchant_id);
  return listCallbacks(ctx.db, { ...(merchant ? { merchantId: merchant } : { merchantIds: user.merchantIds }), ...(q.payment_id ? { paymentId: q.payment_id } : {}), limit: q.limit ?? 100 });
}

/** One of the user's merchants' callbacks with its deliveries (the developers screen follows a test send by it). */
export async function portalCallback(ctx: ServiceContext, user: PortalUser, id: string): Promise<CallbackWithAttempts> {
  mustMay(user, 'callbacks.read');
  const callback = isUuid(id) ? await getCallback(ctx.db, id) : undefined;
  if (!callback || !inScope(user, callback.merchantId)) throw new GatewayError('notFound');
  const [withAttempts] = await listCallbacks(ctx.db, { merchantId: callback.merchantId, id, limit: 1 });
  if (!withAttempts) throw new GatewayError('notFound');
  return withAttempts;
}

/**
 * "Send a test callback" (issue 30, developers): a signed `type=test` callback to the merchant's notification URL,
 * through the outbox as every callback (services/admin/callback-resend.ts sendTestCallback, the console's test send),
 * in the merchant's audit log with the user. Answers its id; its delivery is read with portalCallback.
 */
export async function portalSendTestCallback(ctx: ServiceContext, user: PortalUser, merchantId?: string): Promise<{ id: string; merchantId: string }> {
  mustMay(user, 'callbacks.resend');
  const id = merchantOf(user, merchantId);
  return { id: await sendTestCallback(ctx, portalActor(user), id, auditScope(user, id)), merchantId: id };
}

export async function portalResendCallback(ctx: ServiceContext, user: PortalUser, id: string) {
  mustMay(user, 'callbacks.resend');
  const callback = isUuid(id) ? await getCallback(ctx.db, id) : undefined;
  if (!callback || !inScope(user, callback.merchantId)) throw new GatewayError('notFound');
  return resendNow(ctx, portalActor(user), id);
}

// --- developers -----------------------------------------------------------------------------------------------

export interface DeveloperSettings {
  merchantId: string;
  name: string;
  merchantKey: string;
  sandbox: boolean;
  notificationUrl: string | null;
  allowedSourceAddresses: string[];
  /** Until when the previous hash password still verifies requests (after a rotation); null: none. */
  previousPasswordValidUntil: Date | null;
  /** Issue 30 item 3: Protocol Mapping's optional fields and the return parameters, and which of them the operator lets the merchant change. */
  callbackFields: string[];
  statusFields: string[];
  returnParams: string[];
  editableSettings: PortalEditableSetting[];
}

export async function portalDevelopers(ctx: ServiceContext, user: PortalUser, merchantId?: string): Promise<DeveloperSettings> {
  mustMay(user, 'developers.read');
  const id = merchantOf(user, merchantId);
  const [row] = await ctx.db.query<{
    id: string; name: string; merchant_key: string; sandbox: boolean; notification_url: string | null; sources: string[] | null; previous_until: Date | null;
    callback_fields: string[] | null; status_fields: string[] | null; return_params: string[] | null; editable: string[] | null;
  }>(
    `SELECT id, name, merchant_key, sandbox, notification_url, settings->'allowedSourceAddresses' AS sources, previous_password_expires_at AS previous_until,
            settings->'callbackFields' AS callback_fields, settings->'statusFields' AS status_fields, settings->'returnParams' AS return_params,
            settings->'portalEditableSettings' AS editable
       FROM merchants WHERE id = $1`, [id]);
  if (!row) throw new GatewayError('notFound');
  const until = row.previous_until ? new Date(row.previous_until) : null;
  return {
    merchantId: row.id, name: row.name, merchantKey: row.merchant_key, sandbox: row.sandbox, notificationUrl: row.notification_url,
    allowedSourceAddresses: row.sources ?? [], previousPasswordValidUntil: until && until > ctx.clock.now() ? until : null,
    callbackFields: row.callback_fields ?? [], statusFields: row.status_fields ?? [], returnParams: row.return_params ?? [],
    editableSettings: PORTAL_EDITABLE_SETTINGS.filter((name) => row.editable?.includes(name)),
  };
}

/** The current webhook signing secret, shown to a developer or owner; every reveal is in the audit log. */
export async function revealSigningSecret(ctx: ServiceContext, user: PortalUser, merchantId?: string): Promise<string> {
  mustMay(user, 'developers.secrets');
  const id = merchantOf(user, merchantId);
  const secret = await currentSigningSecret(ctx, id, portalActor(user), { merchantId: id });
  if (secret === undefined) throw new GatewayError('notFound');
  return secret;
}

export async function portalRotateSigningSecret(ctx: ServiceContext, user: PortalUser, merchantId?: string) {
  mustMay(user, 'developers.secrets');
  const id = merchantOf(user, merchantId);
  const rotated = await rotateSigningSecret(ctx, id, portalActor(user), { merchantId: id });
  ctx.signingKeys?.forget(id);
  return { merchantId: id, ...rotated };
}

// --- audit ----------------------------------------------------------------------------------------------------

export async function portalAudit(ctx: ServiceContext, user: PortalUser, q: { limit?: number; before?: readonly [string, string] }): Promise<AuditRecord[]> {
  mustMay(user, 'audit.read');
  const limit = q.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw GatewayError.field('limit', MESSAGES.notInRange(1, 200));
  return listAudit(ctx.db, { limit, merchantScope: { merchantIds: user.merchantIds, groupId: user.groupId }, ...(q.before ? { after: q.before } : {}) });
}
