/** Figures for the console's home page (issue 14): per merchant since a moment, from payments and callbacks. */
import type { Sql } from './database.ts';
import { merchantOfMode, type KeyMode } from './key-mode.ts';

/** Statuses a payment reaches only once the acquirer approved it. */
export const APPROVED_STATUSES = ['pending', 'settled', 'refund', 'reversal', 'void', 'chargeback'] as const;

export interface CurrencyFigures {
  merchantId: string;
  currency: string;
  payments: number;
  approved: number;
  declined: number;
  /** Sum of the approved payments' amounts, in minor units. */
  approvedMinor: bigint;
}

/**
 * Per merchant and currency since `since`: a Hosted Checkout session's tries count as one payment (its approved
 * try, or its last), so a payer's decline followed by an approval is one approved payment (issue 31 item 5).
 * Payouts (credit) are not payments here. `mode`: test or live keys' merchants only (issue 25 item 26).
 */
export async function paymentFiguresSince(sql: Sql, since: Date, mode?: KeyMode): Promise<CurrencyFigures[]> {
  const rows = await sql.query<{ merchant_id: string; currency: string; payments: bigint | number; approved: bigint | number; declined: bigint | number; volume: bigint | number | string }>(
    `SELECT merchant_id, currency, count(*) AS payments,
            count(*) FILTER (WHERE status = ANY($2)) AS approved,
            count(*) FILTER (WHERE status = 'decline') AS declined,
            coalesce(sum(amount) FILTER (WHERE status = ANY($2)), 0)::bigint AS volume
       FROM (SELECT DISTINCT ON (coalesce(session_id, id)) merchant_id, currency, status, amount
               FROM payments WHERE created_at >= $1 AND operation <> 'credit' AND ${merchantOfMode('merchant_id', mode)}
              ORDER BY coalesce(session_id, id), (status = ANY($2)) DESC, created_at DESC, seq DESC) p
      GROUP BY merchant_id, currency`,
    [since, APPROVED_STATUSES],
  );
  return rows.map((r) => ({
    merchantId: r.merchant_id, currency: r.currency, payments: Number(r.payments), approved: Number(r.approved),
    declined: Number(r.declined), approvedMinor: BigInt(r.volume),
  }));
}

/** Callbacks created since `since` that failed for good or are retrying after a failed attempt, per merchant (of `mode`). */
export async function failingCallbacksSince(sql: Sql, since: Date, mode?: KeyMode): Promise<Map<string, number>> {
  const rows = await sql.query<{ merchant_id: string; n: bigint | number }>(
    `SELECT merchant_id, count(*) AS n FROM callbacks
      WHERE created_at >= $1 AND (status = 'failed' OR (status = 'pending' AND attempts > 0)) AND ${merchantOfMode('merchant_id', mode)}
      GROUP BY merchant_id`,
    [since],
  );
  return new Map(rows.map((r) => [r.merchant_id, Number(r.n)]));
}

export async function merchantNames(sql: Sql): Promise<Map<string, string>> {
  const rows = await sql.query<{ id: string; name: string }>('SELECT id, name FROM merchants');
  return new Map(rows.map((r) => [r.id, r.name]));
}
