/** The wallet tokens a merchant's payments have taken (replay refusal). */
import type { Sql } from './database.ts';

/** Records the token's use; false when it was already used (the primary key decides, so two racing requests cannot both win). */
export async function claimWalletToken(sql: Sql, use: { merchantId: string; wallet: string; messageId: string; expiresAt: Date }): Promise<boolean> {
  const rows = await sql.query<{ message_id: string }>(
    `INSERT INTO wallet_token_uses (merchant_id, wallet, message_id, expires_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING RETURNING message_id`,
    [use.merchantId, use.wallet, use.messageId, use.expiresAt.toISOString()],
  );
  return rows.length === 1;
}

/**
 * Deletes up to `limit` uses whose token expired before `before`: such a token is refused as expired whatever the
 * table says, so its row no longer guards anything. One statement; any number of pruners may run.
 */
export async function pruneWalletTokenUses(sql: Sql, before: Date, limit = 10_000): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM wallet_token_uses WHERE ctid IN (SELECT ctid FROM wallet_token_uses WHERE expires_at < $1 LIMIT $2) RETURNING 1`,
    [before.toISOString(), limit],
  );
  return rows.length;
}
