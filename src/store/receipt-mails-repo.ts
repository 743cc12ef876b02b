/**
 * The receipts e-mailed to payers (issue 31 item 14). A row is claimed before its mail is sent: the insert that
 * finds the payment's row already there claims nothing, so a receipt goes out once however often its page shows.
 */
import type { Sql } from './database.ts';
import { RECEIPT_MAIL_SENDING_LEASE_MS } from '../domain/receipt-mail.ts';

/** Until when a claim made now holds (domain/receipt-mail.ts): the row's next_attempt_at while it is 'sending'. */
const leaseEnd = (now: Date) => new Date(now.getTime() + RECEIPT_MAIL_SENDING_LEASE_MS);

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

/** A claimed receipt mail: the attempts made before this one. */
export interface ClaimedReceiptMail {
  paymentId: string;
  recipient: string;
  attempts: number;
}

/**
 * Claims the payment's receipt mail (a queued one that is due, or a new one); undefined when it was claimed before
 * or waits for its next attempt.
 */
export async function claimReceiptMail(sql: Sql, paymentId: string, recipient: string, now: Date): Promise<ClaimedReceiptMail | undefined> {
  const queued = await sql.query<{ recipient: string; attempts: number }>(
    `UPDATE receipt_mails SET status = 'sending', next_attempt_at = $3
      WHERE payment_id = $1 AND status = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= $2)
      RETURNING recipient, attempts`,
    [paymentId, now, leaseEnd(now)],
  );
  if (queued[0]) return { paymentId, recipient: queued[0].recipient, attempts: queued[0].attempts };
  const rows = await sql.query<{ payment_id: string }>(
    `INSERT INTO receipt_mails (payment_id, recipient, status, created_at, next_attempt_at) VALUES ($1, $2, 'sending', $3, $4)
     ON CONFLICT (payment_id) DO NOTHING RETURNING payment_id`,
    [paymentId, recipient, now, leaseEnd(now)],
  );
  return rows.length === 1 ? { paymentId, recipient, attempts: 0 } : undefined;
}

/**
 * Claims up to `limit` receipt mails that are due, oldest first (any number of mailers may run: each row goes to one):
 * queued ones, and ones whose sender died after its claim (still 'sending' past the lease), that attempt counted.
 */
export async function claimQueuedReceiptMails(sql: Sql, limit: number, now: Date): Promise<ClaimedReceiptMail[]> {
  const rows = await sql.query<{ payment_id: string; recipient: string; attempts: number }>(
    `WITH due AS (
            SELECT payment_id FROM receipt_mails
             WHERE status = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= $2)
             ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED),
          abandoned AS (
            SELECT payment_id FROM receipt_mails
             WHERE status = 'sending' AND next_attempt_at <= $2
             ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     UPDATE receipt_mails SET status = 'sending', next_attempt_at = $3,
            attempts = attempts + CASE WHEN status = 'sending' THEN 1 ELSE 0 END
      WHERE (payment_id IN (SELECT payment_id FROM due) OR payment_id IN (SELECT payment_id FROM abandoned))
        AND (status = 'pending' OR (status = 'sending' AND next_attempt_at <= $2))
      RETURNING payment_id, recipient, attempts`,
    [limit, now, leaseEnd(now)],
  );
  return rows.map((r) => ({ paymentId: r.payment_id, recipient: r.recipient, attempts: r.attempts }));
}

/**
 * The claimed mail's attempt, counted (compare-and-set: only a mail still being sent changes): sent; failed for
 * good (`error` kept); or back to pending until `retryAt`, with its error.
 */
export async function finishReceiptMail(
  sql: Sql, paymentId: string,
  outcome: { status: 'sent' } | { status: 'failed'; error: string } | { status: 'retry'; error: string; retryAt: Date },
  now: Date,
): Promise<void> {
  if (outcome.status === 'retry') {
    await sql.query(
      `UPDATE receipt_mails SET status = 'pending', attempts = attempts + 1, next_attempt_at = $2, last_error = $3
        WHERE payment_id = $1 AND status = 'sending'`,
      [paymentId, outcome.retryAt, outcome.error.slice(0, 1000)],
    );
    return;
  }
  await sql.query(
    `UPDATE receipt_mails SET status = $2, sent_at = $3, attempts = attempts + 1, next_attempt_at = NULL, last_error = COALESCE($4, last_error)
      WHERE payment_id = $1 AND status = 'sending'`,
    [paymentId, outcome.status, now, outcome.status === 'failed' ? outcome.error.slice(0, 1000) : null],
  );
}

export async function receiptMailOf(sql: Sql, paymentId: string): Promise<{ recipient: string; status: string } | undefined> {
  const [row] = await sql.query<{ recipient: string; status: string }>(`SELECT recipient, status FROM receipt_mails WHERE payment_id = $1`, [paymentId]);
  return row;
}
