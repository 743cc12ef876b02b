/**
 * The merchant portal's payments, callbacks, developer settings and audit log (issue 30). Every function takes
 * the signed-in PortalUser and checks, before anything else, that the role permits the action and that each
 * object belongs to one of the user's merchants (scope.ts): the channel adds nothing to the scope. Reads reuse the
 * operators' queries with the merchants filter set; refunds, captures and voids go through the same follow-up
 * engine (services/admin/payment-actions.ts), audited with the merchant user.
 */
import { lookups, type ServiceContext } from '../context.ts';
import { searchPayments } from '../../store/payment-search-repo.ts';
import { getPayment, listTransactions } from '../../store/payments-repo.ts';
import { getCallback, listCallbacks, type CallbackWithAttempts } from '../../store/callbacks-repo.ts';
import { listAudit, type AuditRecord } from '../../store/audit-repo.ts';
import { signingSecrets } from '../../store/signing-secrets-repo.ts';
import { parseSearch, encodeCursor, decodeCursor, type SearchQuery } from '../admin/payment-search.ts';
import { operatorFollowUp, type OperatorAction } from '../admin/payment-actions.ts';
import { resendNow } from '../admin/callback-resend.ts';
import { issueSigningSecret, rotateSigningSecret } from '../signing-secrets.ts';
import { appendAudit } from '../../store/audit-repo.ts';
import type { Payment, Transaction } from '../../domain/model/payment.ts';
import type { FollowUpResult } from '../follow-ups.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';
import { isUuid } from '../../domain/ids.ts';
import { inScope, merchantOf, mustMay, mustOwn, portalActor, type PortalUser } from './scope.ts';

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

export async function portalPayment(ctx: ServiceContext, user: PortalUser, id: string): Promise<{ payment: Payment; transactions: Transaction[]; callbacks: CallbackWithAttempts[] }> {
  mustMay(user, 'payments.read');
  const payment = await ownPayment(ctx, user, id);
  const [transactions, callbacks] = await Promise.all([listTransactions(ctx.db, payment.id), listCallbacks(ctx.db, { paymentId: payment.id, limit: 1000 })]);
  return { payment, transactions, callbacks };
}

/** Refund (full or partial), capture or void by a merchant user, through the merchants' own follow-up engine. */
export async function portalPaymentAction(ctx: ServiceContext, user: PortalUser, id: string, action: OperatorAction, amount?: string, reason?: string): Promise<FollowUpResult> {
  mustMay(user, 'payments.act');
  await ownPayment(ctx, user, id);
  const actor = reason ? { ...portalActor(user), name: `${portalActor(user).name} (${reason})` } : portalActor(user);
  return operatorFollowUp(ctx, actor, id, action, amount, { kind: 'merchant_user', merchantIds: user.merchantIds });
}

// --- export ---------------------------------------------------------------------------------------------------

/** The export's pages: keyset pages of the search, newest first, never more than one page in memory. */
export async function* portalPaymentPages(ctx: ServiceContext, user: PortalUser, q: SearchQuery, pageSize = 1000): AsyncGenerator<Payment[]> {
  mustMay(user, 'payments.export');
  const { search } = scopedSearch(user, { ...q, limit: undefined, cursor: undefined });
  let after: { createdAt: Date; id: string } | undefined;
  for (;;) {
    const rows = await searchPayments(lookups(ctx), search, pageSize, after);
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

export { decodeCursor };

// --- callbacks ------------------------------------------------------------------------------------------------

export async function portalCallbacks(ctx: ServiceContext, user: PortalUser, q: { merchant_id?: string; payment_id?: string; limit?: number }): Promise<CallbackWithAttempts[]> {
  mustMay(user, 'callbacks.read');
  if (q.payment_id !== undefined) await ownPayment(ctx, user, q.payment_id);
  const merchant = q.merchant_id === undefined ? undefined : (mustOwn(user, q.merchant_id), q.merchant_id);
  return listCallbacks(ctx.db, { ...(merchant ? { merchantId: merchant } : { merchantIds: user.merchantIds }), ...(q.payment_id ? { paymentId: q.payment_id } : {}), limit: q.limit ?? 100 });
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
}

export async function portalDevelopers(ctx: ServiceContext, user: PortalUser, merchantId?: string): Promise<DeveloperSettings> {
  mustMay(user, 'developers.read');
  const id = merchantOf(user, merchantId);
  const [row] = await ctx.db.query<{ id: string; name: string; merchant_key: string; sandbox: boolean; notification_url: string | null }>(
    'SELECT id, name, merchant_key, sandbox, notification_url FROM merchants WHERE id = $1', [id]);
  if (!row) throw new GatewayError('notFound');
  return { merchantId: row.id, name: row.name, merchantKey: row.merchant_key, sandbox: row.sandbox, notificationUrl: row.notification_url };
}

/** The current webhook signing secret, shown to a developer or owner; every reveal is in the audit log. */
export async function revealSigningSecret(ctx: ServiceContext, user: PortalUser, merchantId?: string): Promise<string> {
  mustMay(user, 'developers.secrets');
  const id = merchantOf(user, merchantId);
  const now = ctx.clock.now();
  // A merchant created since this node started may have none yet: it gets one now, as its first callback would.
  let secrets = await signingSecrets(ctx.db, ctx.keyring, id, now);
  if (!secrets?.length) {
    await issueSigningSecret(ctx, id);
    secrets = await signingSecrets(ctx.db, ctx.keyring, id, now);
  }
  const current = secrets?.[0];
  if (!current) throw new GatewayError('notFound');
  await appendAudit(ctx.db, { actor: portalActor(user), action: 'merchant.reveal_signing_secret', objectType: 'merchant', objectId: id, merchantId: id }, now);
  return current.expose();
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
