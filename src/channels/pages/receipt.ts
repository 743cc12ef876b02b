/** What the payer pages show of a payment: the receipt before returning to the merchant, the method's name. */
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Payment } from '../../domain/model/payment.ts';
import type { Translator } from '../../web/i18n.ts';
import { findMethod } from '../../domain/methods/catalog.ts';
import { shortReference } from '../../domain/ids.ts';
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
    reference: shortReference(payment.id),
    pending,
    seconds: RECEIPT_SECONDS,
  };
}

/** A method by the name a payer knows, in the page's language where the catalogs have it (brands keep theirs). */
export function methodName(t: Translator, key: string): string {
  return t.has(`methodName.${key}`) ? t.t(`methodName.${key}`) : (findMethod(key)?.label ?? key);
}

/** The e-mailed receipt's text (services/mail/receipts.ts sends it): the receipt's lines, label and value. */
export function receiptMailText(t: Translator, r: ReceiptView): { subject: string; text: string } {
  const lines: [string, string | undefined][] = [
    [t.t('details.merchant'), r.merchantName],
    [t.t('details.amount'), r.amount],
    [t.t('details.method'), r.method],
    [t.t('details.card'), r.maskedCard],
    [t.t('details.date'), r.date],
    [t.t('details.order'), r.orderNumber],
    [t.t('details.reference'), r.reference],
  ];
  const body = lines.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => `${k}: ${v}`).join('\n');
  return {
    subject: t.t('mail.receiptSubject', { merchant: r.merchantName, order: r.orderNumber }),
    text: `${t.t('mail.receiptIntro', { merchant: r.merchantName })}\n\n${body}\n\n${t.t('mail.receiptFooter')}\n`,
  };
}
