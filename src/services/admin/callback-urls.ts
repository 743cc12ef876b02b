/**
 * Callback URLs the dispatcher blocked after repeated timeouts (decisions D7), for operators (issue 14): the list
 * of those blocked now, and unblocking one, audited with the operator in the same transaction as the change.
 */
import type { ServiceContext } from '../context.ts';
import { listBlockedUrls, unblockUrlIn, type BlockedUrl } from '../../store/callbacks-repo.ts';
import { appendAudit, type AuditActor } from '../../store/audit-repo.ts';

export const MAX_BLOCKED_LISTED = 500;

export function blockedUrls(ctx: ServiceContext, limit = MAX_BLOCKED_LISTED): Promise<BlockedUrl[]> {
  return listBlockedUrls(ctx.db, ctx.clock.now(), Math.min(Math.max(limit, 1), MAX_BLOCKED_LISTED));
}

/** Lifts the block and the timeout count; false (nothing audited) when the URL had neither. */
export async function unblockCallbackUrl(ctx: ServiceContext, actor: AuditActor, url: string): Promise<boolean> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const before = await unblockUrlIn(tx, url, now);
    if (!before) return false;
    await appendAudit(tx, {
      actor, action: 'callback_url.unblock', objectType: 'callback_url', objectId: url,
      before: { blocked_until: before.blockedUntil?.toISOString() ?? null, timeouts: before.timeouts.length },
      after: { blocked_until: null, timeouts: 0 },
    }, now);
    return true;
  });
}
