/**
 * The running counts of the daily volume caps (migration 020). A reservation is one upsert whose update is
 * guarded by the cap: PostgreSQL locks the day's row for it, so of any number of concurrent reservations only
 * those that fit are counted; the others change nothing and the MID is passed over.
 */
import type { Sql } from './database.ts';
import type { CapLimits, VolumeHold } from '../domain/routing/caps.ts';

/** Counts a payment on a MID's day if it fits the cap; false when the cap is reached. */
export async function reserveVolume(sql: Sql, hold: VolumeHold, cap: CapLimits): Promise<boolean> {
  const rows = await sql.query<{ count: number }>(
    `INSERT INTO mid_daily_volume AS v (mid_id, day, currency, count, amount)
     SELECT $1, $2::date, $3, 1, $4::bigint
     WHERE ($5::integer IS NULL OR 1 <= $5::integer) AND ($6::bigint IS NULL OR $4::bigint <= $6::bigint)
     ON CONFLICT (mid_id, day, currency) DO UPDATE SET count = v.count + 1, amount = v.amount + EXCLUDED.amount
       WHERE ($5::integer IS NULL OR v.count + 1 <= $5::integer) AND ($6::bigint IS NULL OR v.amount + EXCLUDED.amount <= $6::bigint)
     RETURNING v.count`,
    [hold.midId, hold.day, hold.currency, hold.amount, cap.maxCount, cap.maxMinor === null ? null : cap.maxMinor.toString()],
  );
  return rows.length === 1;
}

/** Gives a reservation back (a declined or failed attempt); never below zero. */
export async function releaseVolume(sql: Sql, hold: VolumeHold): Promise<void> {
  await sql.query(
    `UPDATE mid_daily_volume SET count = GREATEST(count - 1, 0), amount = GREATEST(amount - $4::bigint, 0)
     WHERE mid_id = $1 AND day = $2::date AND currency = $3`,
    [hold.midId, hold.day, hold.currency, hold.amount],
  );
}

/** What the MIDs carried on one UTC day, per MID and currency (amounts in minor units). */
export async function dailyVolumeOf(sql: Sql, midIds: readonly string[], day: string): Promise<{ midId: string; currency: string; count: number; amount: bigint }[]> {
  if (midIds.length === 0) return [];
  const rows = await sql.query<{ mid_id: string; currency: string; count: number; amount: string | bigint }>(
    'SELECT mid_id, currency, count, amount FROM mid_daily_volume WHERE mid_id = ANY($1::text[]) AND day = $2::date ORDER BY currency',
    [midIds, day],
  );
  return rows.map((r) => ({ midId: r.mid_id, currency: r.currency, count: Number(r.count), amount: BigInt(r.amount) }));
}
