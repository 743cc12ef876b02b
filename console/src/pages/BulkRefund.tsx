/**
 * Refund several payments at once (issue 31 item 10): the ticked payments of the list, each refunded in full of
 * what is left, in one request to POST /admin/v1/payments/refund with one reason; the gateway refunds them one by
 * one and the screen says what happened to each (refunded, declined by the acquirer, refused and why). Each item
 * carries an idempotency key kept until the request answers, so that pressing Refund again after a lost answer
 * replays the refunds already made instead of making them twice.
 */
import { useRef, useState } from 'react';
import { ApiError, call, type Payment } from '../api/client';
import { ConfirmButton } from '../ui';
import { RefundReason } from './PaymentTimeline';
import { fill, useT } from '../i18n';

export interface RefundOutcome { orderId: string; text: string; ok: boolean }

export function BulkRefund({ picked, done }: { picked: Payment[]; done: (outcomes: RefundOutcome[]) => void }) {
  const t = useT();
  const [reason, setReason] = useState('');
  const keys = useRef(new Map<string, string>());
  const keyOf = (paymentId: string) => {
    const key = keys.current.get(`${paymentId} ${reason}`) ?? crypto.randomUUID();
    keys.current.set(`${paymentId} ${reason}`, key);
    return key;
  };
  return (
    <ConfirmButton label={fill(t('pay.bulk.button'), { n: picked.length })} confirmLabel={t('pay.refund')} danger disabled={picked.length === 0}
      title={fill(t('pay.bulk.title'), { n: picked.length })}
      action={async () => {
        const orderOf = new Map(picked.map((p) => [p.id, p.order_id]));
        let answer;
        try {
          answer = await call('post', '/admin/v1/payments/refund', {
            body: { items: picked.map((p) => ({ payment_id: p.id, ...(reason ? { reason } : {}), idempotency_key: keyOf(p.id) })) },
          });
        } catch (err) {
          done(picked.map((p) => ({ orderId: p.order_id, ok: false, text: fill(t('pay.bulk.refused'), { message: err instanceof ApiError ? err.message : String(err) }) })));
          return;
        }
        keys.current.clear();
        done(answer.items.map((r) => {
          const orderId = orderOf.get(r.payment_id) ?? r.payment_id;
          if (!r.ok) return { orderId, ok: false, text: fill(t('pay.bulk.refused'), { message: `${r.error.error_message}${r.error.errors?.length ? ` (${r.error.errors.map((e) => e.error_message).join('; ')})` : ''}` }) };
          return { orderId, ok: r.result === 'approved', text: r.result === 'approved' ? t('pay.bulk.refunded') : `${r.result}${r.reason ? `: ${r.reason}` : ''}` };
        }));
      }}>
      <p>{t('pay.bulk.explain')}</p>
      <RefundReason value={reason} onChange={setReason} />
    </ConfirmButton>
  );
}
