/**
 * "Resend now" of a callback by an operator (issue 11), audited with the operator in the same transaction.
 * A callback still retrying becomes due at once in place (no second row, so the merchant never gets two events
 * for one change); a failed or delivered one is sent again from the start with the same event id.
 */
import type { ServiceContext } from '../context.ts';
import { getCallback, resendCallbackNow, type ResendNowResult } from '../../store/callbacks-repo.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';
import { isUuid } from '../../domain/ids.ts';
import { GatewayError } from '../../domain/errors.ts';

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
