/**
 * The e-mailed receipt (issue 31 item 14): when the merchant turned it on (settings receipt_email), a paid payment's
 * receipt goes to the payer's e-mail address once, with what the receipt page shows (shop, amount, method, masked
 * card, date, order number, short reference). Plain text, through the mail port (SMTP, or the sandbox outbox in
 * development); the payer pages write its text (channels/pages/receipt.ts).
 *
 * It goes when the payment succeeds, whichever channel (Hosted Checkout, S2S, an alternative method) and whether or
 * not the payer sees a receipt page: the write that settles the payment queues it (queueReceipt, in its own
 * transaction), and the receipt page (mailReceipt, in the page's language) or the receipt mailer (sendQueuedReceipts,
 * in the session's language) claims and sends it, whichever comes first. The claim is a compare-and-set on the
 * payment's one row: exactly one send at a time. A failure of the mail port is logged and the receipt tried again
 * later, a few times (domain/receipt-mail.ts), then given up with its reason logged and kept; the payer's page never
 * waits.
 */
import type { ServiceContext } from '../context.ts';
import type { Sql } from '../../store/database.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { claimQueuedReceiptMails, claimReceiptMail, finishReceiptMail, queueReceiptMail, type ClaimedReceiptMail } from '../../store/receipt-mails-repo.ts';
import { nextReceiptAttempt } from '../../domain/receipt-mail.ts';
import { getPayment } from '../../store/payments-repo.ts';
import { findMerchantById } from '../../store/merchants-repo.ts';
import { getSession } from '../../store/sessions-repo.ts';

/** The payer's address when this payment's receipt is to be mailed: the merchant wants it, the payment is paid. */
export function receiptRecipient(merchant: Merchant, payment: Payment): string | undefined {
  const to = payment.payer.email;
  return merchant.settings.receiptEmail && to && payment.status === 'settled' ? to : undefined;
}

/** Queues the receipt of a payment that just settled, in the write that settles it (nothing when not wanted). */
export async function queueReceipt(sql: Sql, merchant: Merchant, payment: Payment, now: Date): Promise<void> {
  const to = receiptRecipient(merchant, payment);
  if (to) await queueReceiptMail(sql, payment.id, to, now);
}

/**
 * One attempt at the claimed receipt. A failure of the mail port puts it back in the queue until its next attempt
 * (domain/receipt-mail.ts), where the receipt mailer takes it; after the last attempt it is given up, with the
 * reason logged and kept on the row.
 */
async function send(ctx: ServiceContext, claimed: ClaimedReceiptMail, mail: { subject: string; text: string }): Promise<void> {
  const { paymentId, recipient } = claimed;
  try {
    await ctx.mail!.send({ to: recipient, ...mail });
  } catch (err) {
    const error = (err as Error).message || String(err);
    const attempt = claimed.attempts + 1;
    const now = ctx.clock.now();
    const retryAt = nextReceiptAttempt(attempt, now);
    if (retryAt) {
      ctx.logger.warn({ err: error, paymentId, attempt, retryAt }, 'the receipt e-mail was not sent; it is tried again');
      await finishReceiptMail(ctx.db, paymentId, { status: 'retry', error, retryAt }, now);
    } else {
      ctx.logger.error({ err: error, paymentId, attempts: attempt }, `the receipt e-mail was given up after ${attempt} attempts: ${error}`);
      await finishReceiptMail(ctx.db, paymentId, { status: 'failed', error }, now);
    }
    return;
  }
  await finishReceiptMail(ctx.db, paymentId, { status: 'sent' }, ctx.clock.now());
}

/** The receipt page's send: claims the receipt (queued or not) and sends it in the page's words; never throws. */
export async function mailReceipt(ctx: ServiceContext, merchant: Merchant, payment: Payment, mail: { subject: string; text: string }): Promise<void> {
  const to = receiptRecipient(merchant, payment);
  if (!to || !ctx.mail) return;
  try {
    const claimed = await claimReceiptMail(ctx.db, payment.id, to, ctx.clock.now());
    if (claimed) await send(ctx, claimed, mail);
  } catch (err) {
    ctx.logger.warn({ err: (err as Error).message, paymentId: payment.id }, 'the receipt e-mail could not be recorded');
  }
}

/** The receipt mailer's pass: claims queued receipts (up to `limit`) and sends each; answers how many it claimed. */
export async function sendQueuedReceipts(ctx: ServiceContext, limit = 50): Promise<number> {
  if (!ctx.mail || !ctx.receiptText) return 0;
  const claimed = await claimQueuedReceiptMails(ctx.db, limit, ctx.clock.now());
  for (const mail of claimed) {
    const payment = await getPayment(ctx.db, mail.paymentId);
    const merchant = payment && await findMerchantById(ctx.db, ctx.keyring, payment.merchantId);
    if (!payment || !merchant) {
      ctx.logger.error({ paymentId: mail.paymentId }, 'the receipt e-mail was given up: its payment or merchant is gone');
      await finishReceiptMail(ctx.db, mail.paymentId, { status: 'failed', error: 'the payment or its merchant is gone' }, ctx.clock.now());
      continue;
    }
    const session = payment.sessionId ? await getSession(ctx.db, payment.sessionId) : undefined;
    await send(ctx, mail, ctx.receiptText(merchant, payment, session?.request.locale));
  }
  return claimed.length;
}
