/**
 * "Resend now" of a callback by an operator (issue 11), audited with the operator in the same transaction.
 * A callback still retrying becomes due at once in place (no second row, so the merchant never gets two events
 * for one change); a failed or delivered one is sent again from the start with the same event id.
 */
import type { ServiceContext } from '../context.ts';
import { enqueueCallback, getCallback, listCallbacks, resendCallbackNow, type CallbackFilter, type ResendNowResult } from '../../store/callbacks-repo.ts';
import { findMerchantById } from '../../store/merchants-repo.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { isUuid, newId } from '../../domain/ids.ts';
import { ERRORS, GatewayError } from '../../domain/errors.ts';

export async function resendNow(ctx: ServiceContext, actor: AuditActor, id: string): Promise<ResendNowResult> {
  const callback = isUuid(id) ? await getCallback(ctx.db, id) : undefined;
  if (!callback) throw new GatewayError('notFound');
  const now = ctx.clock.now();
  const result = await ctx.db.transaction(async (tx) => {
    const result = await resendCallbackNow(tx, id, now);
    if (result && result !== 'sending') {
      await appendAudit(tx, {
        actor, action: 'callback.resend', objectType: 'callback', objectId: id,
        before: { status: callback.status, attempts: callback.attempts }, details: { result, payment_id: callback.paymentId, merchant_id: callback.merchantId },
      }, now);
    }
    return result;
  });
  if (!result) throw new GatewayError('notFound');
  return result;
}

/** The most callbacks one bulk resend sends. */
export const MAX_BULK_RESEND = 500;

export interface BulkResendResult {
  resent: string[];
  dueNow: string[];
  sending: string[];
  notFound: string[];
  /** A filter matched more than MAX_BULK_RESEND: the newest were sent; send again for the rest. */
  more: boolean;
}

/**
 * Resend now for several callbacks (issue 31 items 7 and 10): the ids the operator ticked, or every callback a
 * filter matches (newest first, up to MAX_BULK_RESEND). Each one as resendNow does, audited one by one, so a
 * callback that cannot be sent does not hold back the others.
 */
export async function resendMany(ctx: ServiceContext, actor: AuditActor, what: { ids: readonly string[] } | { filter: CallbackFilter }): Promise<BulkResendResult> {
  let ids: string[];
  let more = false;
  if ('ids' in what) {
    ids = [...new Set(what.ids)];
  } else {
    const rows = await listCallbacks(ctx.db, { ...what.filter, limit: MAX_BULK_RESEND + 1 });
    more = rows.length > MAX_BULK_RESEND;
    ids = rows.slice(0, MAX_BULK_RESEND).map((r) => r.id);
  }
  const out: BulkResendResult = { resent: [], dueNow: [], sending: [], notFound: [], more };
  for (const id of ids) {
    try {
      const result = await resendNow(ctx, actor, id);
      (result === 'resent' ? out.resent : result === 'due_now' ? out.dueNow : out.sending).push(id);
    } catch (err) {
      if (err instanceof GatewayError && err.spec === ERRORS.notFound) out.notFound.push(id);
      else throw err;
    }
  }
  return out;
}

/**
 * A test send (issue 31 item 7): a `type=test` callback to the merchant's notification URL, through the outbox
 * like any other (so it is signed with the merchant's webhook secret, retried, and listed with its attempts).
 * Not tied to a payment. Audited (callback.test; `auditScope`: also in the merchant's own log, for the portal). The
 * merchant must have a notification URL.
 */
export async function sendTestCallback(ctx: ServiceContext, actor: AuditActor, merchantId: string, auditScope: { merchantId?: string; merchantGroupId?: string } = {}): Promise<string> {
  const merchant = merchantId.length <= 64 ? await findMerchantById(ctx.db, ctx.keyring, merchantId) : undefined;
  if (!merchant) throw new GatewayError('notFound');
  if (!merchant.notificationUrl) throw GatewayError.field('notification_url', 'The merchant has no notification URL: set one on its Settings first.');
  const now = ctx.clock.now();
  const id = newId();
  await ctx.db.transaction(async (tx) => {
    await enqueueCallback(tx, {
      id, merchantId, paymentId: null, url: merchant.notificationUrl!, protocol: 'checkout',
      fields: { type: 'test', status: 'success', callback_id: id, date: now.toISOString() }, now,
    });
    await appendAudit(tx, { actor, action: 'callback.test', objectType: 'callback', objectId: id, details: { merchant_id: merchantId, url: merchant.notificationUrl }, ...auditScope }, now);
  });
  return id;
}
