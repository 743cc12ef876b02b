/**
 * Payment attempts (migration 030): one row per acquirer attempt. They are opened and answered inside the
 * payment's own statements (payments-repo.ts: a data-modifying CTE beside the payment's, so no round trip is
 * added); this file holds the reads, the SQL those statements share, and the answer written alone on the rare
 * paths that have no statement to fold it into.
 */
import type { Sql } from './database.ts';
import type { AttemptOpening, AttemptResult, AttemptStatus, AttemptStop, AttemptWhy, PaymentAttempt } from '../domain/model/attempt.ts';

interface AttemptRow {
  id: string;
  payment_id: string;
  seq: number;
  mid_id: string | null;
  connector: string | null;
  why: AttemptWhy;
  status: AttemptStatus;
  decline_code: string | null;
  retry: string | null;
  stop: AttemptStop | null;
  acquirer_ref: string | null;
  amount: bigint;
  currency: string;
  created_at: Date;
  finished_at: Date | null;
}

const toAttempt = (r: AttemptRow): PaymentAttempt => ({
  id: r.id, paymentId: r.payment_id, seq: r.seq, midId: r.mid_id, connector: r.connector, why: r.why, status: r.status,
  declineCode: r.decline_code, retry: r.retry, stop: r.stop, acquirerRef: r.acquirer_ref, amount: BigInt(r.amount), currency: r.currency,
  createdAt: new Date(r.created_at), finishedAt: r.finished_at ? new Date(r.finished_at) : null,
});

/** A payment's attempts in the order they were made. */
export async function listAttempts(sql: Sql, paymentId: string): Promise<PaymentAttempt[]> {
  const rows = await sql.query<AttemptRow>('SELECT * FROM payment_attempts WHERE payment_id = $1 ORDER BY seq', [paymentId]);
  return rows.map(toAttempt);
}

/** The payment's current attempt: the last one made (`paymentId` is an SQL expression naming the payment). */
export const CURRENT_ATTEMPT = (paymentId: string): string =>
  `(SELECT max(m.seq) FROM payment_attempts m WHERE m.payment_id = ${paymentId})`;

/** The next attempt number of a payment (`paymentId` is an SQL expression naming the payment). */
export const NEXT_ATTEMPT_SEQ = (paymentId: string): string => `COALESCE(${CURRENT_ATTEMPT(paymentId)}, 0) + 1`;

/**
 * The SET list that writes an answer to an attempt, from SQL expressions of its values: a stop already written
 * stays when none is given, and so does the acquirer's reference; finishedAt null leaves the attempt open.
 */
export const ATTEMPT_RESULT_SET = (v: { status: string; code: string; retry: string; stop: string; ref: string; finishedAt: string }): string =>
  `status = ${v.status}, decline_code = ${v.code}, retry = ${v.retry}, stop = COALESCE(${v.stop}, stop), ` +
  `acquirer_ref = COALESCE(${v.ref}, acquirer_ref), finished_at = COALESCE(${v.finishedAt}, finished_at)`;

/**
 * Writes an answer to the payment's current attempt in a statement of its own: for the paths that change the
 * payment without a transaction update to fold it into (an APM payer's or recipient's step), never the SALE's.
 */
export async function answerCurrentAttempt(sql: Sql, paymentId: string, result: AttemptResult, now: Date): Promise<void> {
  await sql.query(
    `UPDATE payment_attempts SET ${ATTEMPT_RESULT_SET({ status: '$2', code: '$3', retry: '$4', stop: '$5', ref: '$6', finishedAt: '$7::timestamptz' })}
     WHERE payment_id = $1 AND seq = ${CURRENT_ATTEMPT('$1')}`,
    [paymentId, ...attemptResultParams(result, now)],
  );
}

/** An AttemptResult as the parameters of ATTEMPT_RESULT_SET, in its order (status, code, retry, stop, ref, finishedAt). */
export const attemptResultParams = (r: AttemptResult, now: Date): unknown[] =>
  [r.status, r.declineCode, r.retry, r.stop ?? null, r.acquirerRef, r.finished ? now : null];

/**
 * Opens an acquirer attempt for a transaction written earlier (a payment held for a risk review, approved): the
 * attempt takes the transaction's id, numbered after the payment's last.
 */
export async function openAttempt(sql: Sql, transId: string, paymentId: string, attempt: AttemptOpening, now: Date): Promise<void> {
  await sql.query(
    `INSERT INTO payment_attempts (id, payment_id, seq, mid_id, connector, why, status, amount, currency, created_at)
     SELECT $1, p.id, ${NEXT_ATTEMPT_SEQ('$2')}, $3, $4, $5, 'pending', p.amount, p.currency, $6 FROM payments p WHERE p.id = $2`,
    [transId, paymentId, attempt.midId, attempt.connector, attempt.why, now],
  );
}
