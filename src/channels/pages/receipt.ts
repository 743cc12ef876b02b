/** The receipt a payer sees before returning to the merchant, from a paid (or pending) payment. */
import type { Merchant } from '../../store/merchants-repo.ts';
import type { Payment } from '../../store/payments-repo.ts';
import type { Translator } from '../../web/i18n.ts';
import type { ReceiptView } from '../../web/views.ts';

/** Seconds the receipt stays before the page moves on by itself (a Continue button goes at once). */
export const RECEIPT_SECONDS = 8;

export function receiptOf(t: Translator, merchant: Merchant, payment: Payment, method: string, pending = false): ReceiptView {
  const mask = payment.details.cardMask;
  return {
    merchantName: merchant.name,
    amount: t.money(payment.amount, payment.currency),
    method,
    ...(typeof mask === 'string' && mask ? { maskedCard: mask } : {}),
    date: t.dateTime(payment.updatedAt),
    orderNumber: payment.orderId,
    reference: payment.id,
    pending,
    seconds: RECEIPT_SECONDS,
  };
}
