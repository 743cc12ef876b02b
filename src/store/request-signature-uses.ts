/** The request signatures merchants' servers have used (replay refusal, issue 25 item 5). */
import type { Sql } from './database.ts';

/**
 * Records a signature's use; false when it was already used (the primary key decides, so two racing requests on
 * two nodes cannot both win). The same statement deletes the rows whose window has closed.
 */
export async function claimRequestSignature(sql: Sql, use: { merchantId: string; signature: string; expiresAt: Date; now: Date }): Promise<boolean> {
  const rows = await sql.query<{ signature: string }>(
    `WITH pruned AS (DELETE FROM request_signature_uses WHERE expires_at < $4)
     INSERT INTO request_signature_uses (merchant_id, signature, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING signature`,
    [use.merchantId, use.signature, use.expiresAt.toISOString(), use.now.toISOString()],
  );
  return rows.length === 1;
}
