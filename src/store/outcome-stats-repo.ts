/**
 * Success-rate counters (migration 021), shared by every node. Recording decays the stored counts to the
 * outcome's instant and adds it in one upsert, so concurrent outcomes on several nodes all count.
 */
import type { Sql } from './database.ts';
import type { OutcomeCounts } from '../domain/routing/success-rate.ts';

export interface OutcomeRecord {
  midId: string;
  currency: string;
  brand: string;
  approved: boolean;
  at: Date;
  halfLifeMinutes: number;
}

export async function recordOutcome(sql: Sql, o: OutcomeRecord): Promise<void> {
  await sql.query(
    `INSERT INTO mid_outcome_stats AS s (mid_id, currency, brand, approved, total, updated_at)
     VALUES ($1, $2, $3, $4, 1, $5::timestamptz)
     ON CONFLICT (mid_id, currency, brand) DO UPDATE SET
       approved = s.approved * power(0.5, GREATEST(0, extract(epoch FROM EXCLUDED.updated_at - s.updated_at))::double precision / ($6::double precision * 60)) + EXCLUDED.approved,
       total = s.total * power(0.5, GREATEST(0, extract(epoch FROM EXCLUDED.updated_at - s.updated_at))::double precision / ($6::double precision * 60)) + 1,
       updated_at = GREATEST(s.updated_at, EXCLUDED.updated_at)`,
    [o.midId, o.currency, o.brand, o.approved ? 1 : 0, o.at.toISOString(), o.halfLifeMinutes],
  );
}

/** The counters of some MIDs for one currency and brand, by MID. */
export async function readOutcomeCounts(sql: Sql, midIds: readonly string[], currency: string, brand: string): Promise<Map<string, OutcomeCounts>> {
  if (midIds.length === 0) return new Map();
  const rows = await sql.query<{ mid_id: string; approved: number | string; total: number | string; updated_at: Date | string }>(
    'SELECT mid_id, approved, total, updated_at FROM mid_outcome_stats WHERE mid_id = ANY($1::text[]) AND currency = $2 AND brand = $3',
    [midIds, currency, brand],
  );
  return new Map(rows.map((r) => [r.mid_id, { approved: Number(r.approved), total: Number(r.total), updatedAt: new Date(r.updated_at) }]));
}
