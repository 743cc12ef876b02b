/**
 * The figures an operator watches the gateway by (exported at /metrics): work waiting for a person, payments
 * whose connector call has not come back, and the callback outbox, each apart for test keys (sandbox merchants')
 * and live keys (issue 25, item 26: test traffic never hides or inflates live figures). One statement; the
 * payments and callbacks counted are those of the partial indexes (payments_in_flight, callbacks_due), joined to
 * the merchants (few), so a scrape costs little however large the tables are.
 */
import type { Sql } from './database.ts';
import { NEEDS_OPERATOR } from './payments-repo.ts';

/** A figure for each key mode. */
export interface ByMode {
  test: number;
  live: number;
}

export interface OperationalFigures {
  /** Operations handed to an operator (needs attention). */
  paymentsNeedingOperator: ByMode;
  /** Operations in flight at a connector that no operator has yet. */
  paymentsInFlight: ByMode;
  /** Callbacks not yet delivered (waiting for their next attempt). */
  callbacksPending: ByMode;
  /** Pending callbacks whose attempt is due since before `overdueBefore`: the dispatchers are behind. */
  callbacksOverdue: ByMode;
  /** Notification URLs blocked after repeated timeouts (a URL is no merchant's mode). */
  callbackUrlsBlocked: number;
}

export async function operationalFigures(sql: Sql, now: Date, overdueBefore: Date): Promise<OperationalFigures> {
  const needs = NEEDS_OPERATOR.replace(/details/g, 'p.details');
  const [row] = await sql.query<Record<string, string | number>>(
    `SELECT * FROM
       (SELECT count(*) FILTER (WHERE ${needs} AND m.sandbox) AS needing_operator_test, count(*) FILTER (WHERE ${needs} AND NOT m.sandbox) AS needing_operator_live,
               count(*) FILTER (WHERE NOT ${needs} AND m.sandbox) AS in_flight_test, count(*) FILTER (WHERE NOT ${needs} AND NOT m.sandbox) AS in_flight_live
        FROM payments p JOIN merchants m ON m.id = p.merchant_id WHERE p.pending_operation IS NOT NULL) AS pay,
       (SELECT count(*) FILTER (WHERE m.sandbox) AS callbacks_pending_test, count(*) FILTER (WHERE NOT m.sandbox) AS callbacks_pending_live,
               count(*) FILTER (WHERE m.sandbox AND c.next_attempt_at < $2) AS callbacks_overdue_test, count(*) FILTER (WHERE NOT m.sandbox AND c.next_attempt_at < $2) AS callbacks_overdue_live
        FROM callbacks c JOIN merchants m ON m.id = c.merchant_id WHERE c.status = 'pending') AS cb,
       (SELECT count(*) AS urls_blocked FROM callback_url_health WHERE blocked_until > $1) AS urls`,
    [now, overdueBefore],
  );
  const n = (key: string) => Number(row?.[key] ?? 0);
  const both = (key: string): ByMode => ({ test: n(`${key}_test`), live: n(`${key}_live`) });
  return {
    paymentsNeedingOperator: both('needing_operator'),
    paymentsInFlight: both('in_flight'),
    callbacksPending: both('callbacks_pending'),
    callbacksOverdue: both('callbacks_overdue'),
    callbackUrlsBlocked: n('urls_blocked'),
  };
}
