/**
 * The receipts e-mailed to payers (issue 31 item 14). A row is claimed before its mail is sent: the insert that
 * finds the payment's row already there claims nothing, so a receipt goes out once however often its page shows.
 */
import type { Sql } from './database.ts';

/**
 * Queues the payment's receipt mail, in the transaction that settles the payment: the receipt page or the receipt
 * mailer claims it. Nothing when one was queued or sent before.
 */
export async function queueReceiptMail(sql: Sql, paymentId: string, recipient: string, now: Date): Promise<void> {
  await sql.query(
    `INSERT INTO receipt_mails (payment_id, recipient, status, created_at) VALUES ($1, $2, 'pending', $3)
     ON CONFLICT (payment_id) DO NOTHING`,
    [paymentId, recipient, now],
  );
}

/** Claims the payment's receipt mail (a queued one, or a new one); false when it was claimed before. */
export async function claimReceiptMail(sql: Sql, paymentId: string, recipient: string, now: Date): Promise<boolean> {
  const queued = await sql.query<{ payment_id: string }>(
    `UPDATE receipt_mails SET status = 'sending' WHERE payment_id = $1 AND status = 'pending' RETURNING payment_id`,
    [paymentId],
  );
  if (queued.length === 1) return true;
  const rows = await sql.query<{ payment_id: string }>(
    `INSERT INTO receipt_mails (payment_id, recipient, status, created_at) VALUES ($1, $2, 'sending', $3)
     ON CONFLICT (payment_id) DO NOTHING RETURNING payment_id`,
    [paymentId, recipient, now],
  );
  return rows.length === 1;
}

/** Claims up to `limit` queued receipt mails, oldest first (any number of mailers may run: each row goes to one). */
export async function claimQueuedReceiptMails(sql: Sql, limit: number): Promise<{ paymentId: string; recipient: string }[]> {
  const rows = await sql.query<{ payment_id: string; recipient: string }>(
    `UPDATE receipt_mails SET status = 'sending'
      WHERE payment_id IN (SELECT payment_id FROM receipt_mails WHERE status = 'pending' ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        AND status = 'pending'
      RETURNING payment_id, recipient`,
    [limit],
  );
  return rows.map((r) => ({ paymentId: r.payment_id, recipient: r.recipient }));
}

/** The claimed mail's outcome (compare-and-set: only a mail still being sent changes). */
export async function finishReceiptMail(sql: Sql, paymentId: string, status: 'sent' | 'failed', now: Date): Promise<void> {
  await sql.query(`UPDATE receipt_mails SET status = $2, sent_at = $3 WHERE payment_id = $1 AND status = 'sending'`, [paymentId, status, now]);
}

export async function receiptMailOf(sql: Sql, paymentId: string): Promise<{ recipient: string; status: string } | undefined> {
  const [row] = await sql.query<{ recipient: string; status: string }>(`SELECT recipient, status FROM receipt_mails WHERE payment_id = $1`, [paymentId]);
  return row;
}
