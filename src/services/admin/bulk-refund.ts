/**
 * Refunds of several payments in one request (issue 31 item 10: the console's multi-select refund). Each item is
 * the single operator refund (operatorFollowUp: the same compare-and-set, callback, audit entry and ledger
 * postings), run one after the other, and answered on its own: a refused or declined item does not hold back the
 * others. An item may carry an idempotency key (scoped to the operator): the same key with the same item replays
 * the first answer instead of refunding again; with another item it is refused; while the first still runs, 409.
 */
import { createHash } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import type { AuditActor } from '../../store/audit-repo.ts';
import { freeKey, keepAnswer, takeKey } from '../../store/idempotency-repo.ts';
import { operatorFollowUp } from './payment-actions.ts';
import type { FollowUpResult } from '../follow-ups.ts';
import { GatewayError, errorBody, type ErrorBody } from '../../domain/errors.ts';

/** The most payments one bulk refund takes. */
export const MAX_BULK_REFUND = 200;

export interface BulkRefundItem {
  paymentId: string;
  /** Decimal in the payment's currency; absent: what is left to refund. */
  amount?: string;
  reason?: string;
  idempotencyKey?: string;
}

export type BulkRefundAnswer<T> =
  | { paymentId: string; ok: true; refund: T; replayed: boolean }
  | { paymentId: string; ok: false; error: ErrorBody; replayed: boolean };

/**
 * A refusal (a 4xx: unknown payment, nothing left to refund, an amount above it, an operation in flight) means the
 * refund never reached the acquirer: its key is freed for the corrected item. A decline is a result, not a refusal.
 */
const neverRan = (err: GatewayError) => err.spec.http < 500;

const itemHash = (i: BulkRefundItem) => createHash('sha256').update(JSON.stringify([i.paymentId, i.amount ?? null, i.reason ?? null])).digest('hex');

/**
 * Runs each item's refund and answers each: `present` turns a refund's result into what the caller answers (and
 * what a replay answers later). A failure of ours (not a D3 refusal) stops the request: the items before it are
 * done and, under their keys, replay on a retry; its own key answers `idempotencyOutcomeUnknown`.
 */
export async function refundMany<T>(ctx: ServiceContext, actor: AuditActor, items: readonly BulkRefundItem[], present: (r: FollowUpResult) => T): Promise<BulkRefundAnswer<T>[]> {
  const scope = `operator:${actor.userId ?? 'system'}`;
  const answers: BulkRefundAnswer<T>[] = [];
  for (const item of items) {
    const key = item.idempotencyKey === undefined ? undefined : `bulk-refund:${item.idempotencyKey}`;
    const hash = itemHash(item);
    if (key) {
      const kept = await takeKey(ctx.db, scope, key, hash, ctx.clock.now());
      if (kept) {
        const refusal = kept.requestHash !== hash ? new GatewayError('idempotencyKeyReused')
          : kept.statusCode === null ? new GatewayError('operationInProgress')
            : kept.statusCode >= 500 ? new GatewayError('idempotencyOutcomeUnknown') : undefined;
        if (refusal) answers.push({ paymentId: item.paymentId, ok: false, error: errorBody(refusal), replayed: false });
        else answers.push({ ...(JSON.parse(kept.responseBody!) as BulkRefundAnswer<T>), replayed: true });
        continue;
      }
    }
    let answer: BulkRefundAnswer<T>;
    try {
      const done = await operatorFollowUp(ctx, actor, item.paymentId, 'refund', item.amount, undefined, item.reason?.trim() || undefined);
      answer = { paymentId: item.paymentId, ok: true, refund: present(done), replayed: false };
    } catch (err) {
      if (!(err instanceof GatewayError)) {
        if (key) await keepAnswer(ctx.db, scope, key, 500, '{}').catch(() => undefined);
        throw err;
      }
      answer = { paymentId: item.paymentId, ok: false, error: errorBody(err), replayed: false };
      if (key && neverRan(err)) {
        await freeKey(ctx.db, scope, key);
        answers.push(answer);
        continue;
      }
      if (key) await keepAnswer(ctx.db, scope, key, err.spec.http, JSON.stringify(answer));
      answers.push(answer);
      continue;
    }
    if (key) await keepAnswer(ctx.db, scope, key, 200, JSON.stringify(answer));
    answers.push(answer);
  }
  return answers;
}
