/**
 * The e-mailed receipt's retries (services/mail/receipts.ts): after a failed attempt the receipt waits the row's
 * delay, then is tried again; after the last attempt it is given up (status failed, its error kept and logged).
 */

/** The wait after failed attempt 1, 2, 3; a receipt is tried this many times plus one. */
export const RECEIPT_MAIL_RETRY_DELAYS_MS: readonly number[] = [60_000, 5 * 60_000, 30 * 60_000];

export const RECEIPT_MAIL_ATTEMPTS = RECEIPT_MAIL_RETRY_DELAYS_MS.length + 1;

/** When to try again after failed attempt number `attempt` (1 the first), or undefined: give up. */
export function nextReceiptAttempt(attempt: number, now: Date): Date | undefined {
  const delay = RECEIPT_MAIL_RETRY_DELAYS_MS[attempt - 1];
  return delay === undefined ? undefined : new Date(now.getTime() + delay);
}

/**
 * How long a claimed receipt stays with its sender. A sender that died after its claim (a crash, a kill) never
 * finishes it: past this the receipt mailer claims it again, the lost attempt counted. A send takes seconds; a
 * receipt sent twice after a crash is better than one never sent.
 */
export const RECEIPT_MAIL_SENDING_LEASE_MS = 10 * 60_000;
