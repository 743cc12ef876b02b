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
