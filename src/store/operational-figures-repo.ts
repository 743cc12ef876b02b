/**
 * The figures an operator watches the gateway by (exported at /metrics): work waiting for a person, payments
 * whose connector call has not come back, and the callback outbox. One statement; every count reads a partial
 * index (payments_in_flight, callbacks_due), so a scrape costs little however large the tables are.
 */
import type { Sql } from './database.ts';
import { NEEDS_OPERATOR } from './payments-repo.ts';

export interface OperationalFigures {
  /** Operations handed to an operator (needs attention). */
  paymentsNeedingOperator: number;
  /** Operations in flight at a connector that no operator has yet. */
  paymentsInFlight: number;
  /** Callbacks not yet delivered (waiting for their next attempt). */
  callbacksPending: number;
  /** Pending callbacks whose attempt is due since before `overdueBefore`: the dispatchers are behind. */
  callbacksOverdue: number;
  /** Notification URLs blocked after repeated timeouts. */
  callbackUrlsBlocked: number;
}

export async function operationalFigures(sql: Sql, now: Date, overdueBefore: Date): Promise<OperationalFigures> {
  const [row] = await sql.query<Record<string, string | number>>(
    `SELECT
       (SELECT count(*) FROM payments WHERE pending_operation IS NOT NULL AND ${NEEDS_OPERATOR}) AS needing_operator,
       (SELECT count(*) FROM payments WHERE pending_operation IS NOT NULL AND NOT ${NEEDS_OPERATOR}) AS in_flight,
       (SELECT count(*) FROM callbacks WHERE status = 'pending') AS callbacks_pending,
       (SELECT count(*) FROM callbacks WHERE status = 'pending' AND next_attempt_at < $2) AS callbacks_overdue,
       (SELECT count(*) FROM callback_url_health WHERE blocked_until > $1) AS urls_blocked`,
    [now, overdueBefore],
  );
  const n = (key: string) => Number(row?.[key] ?? 0);
  return {
    paymentsNeedingOperator: n('needing_operator'),
    paymentsInFlight: n('in_flight'),
    callbacksPending: n('callbacks_pending'),
    callbacksOverdue: n('callbacks_overdue'),
    callbackUrlsBlocked: n('urls_blocked'),
  };
}
