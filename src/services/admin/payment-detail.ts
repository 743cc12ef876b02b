/**
 * Everything an operator needs to see of one payment (issue 11): the payment, its transactions, the callbacks
 * with their delivery attempts, the routing decision and the acquirer attempts, and what operators did to it (the audit log).
 */
import { apmOf } from '../apm/details.ts';
import type { ServiceContext } from '../context.ts';
import { getPayment, listTransactions } from '../../store/payments-repo.ts';
import { listAttempts } from '../../store/attempts-repo.ts';
import type { PaymentAttempt } from '../../domain/model/attempt.ts';
import type { Payment, Transaction } from '../../domain/model/payment.ts';
import type { Mid } from '../../domain/model/mid.ts';
import { listCallbacks, type CallbackWithAttempts } from '../../store/callbacks-repo.ts';
import { listMids } from '../../store/merchants-repo.ts';
import { auditEntriesOfPayment, type AuditRecord } from '../../store/payment-audit-repo.ts';
import type { RoutingDecision } from '../../domain/routing/route.ts';
import { GatewayError } from '../../domain/errors.ts';
import { entriesOfPayment } from '../../store/ledger-repo.ts';
import { paymentMoneyView, type PaymentMoneyView } from '../money/merchant-money.ts';
import { evaluationOf, type StoredEvaluation } from '../../store/risk-repo.ts';

export interface PaymentDetail {
  payment: Payment;
  transactions: Transaction[];
  callbacks: CallbackWithAttempts[];
  /** The MID that carried the payment, if any (it may have been changed since: this is its current state). */
  mid: Mid | undefined;
  /** As recorded when the payment was routed; undefined for payments routed before it was recorded. */
  routing: RoutingDecision | undefined;
  /** Every acquirer attempt, in the order made (payment_attempts). */
  attempts: PaymentAttempt[];
  /** What operators did to the payment and to its callbacks. */
  audit: AuditRecord[];
  /** Its fee, net amount and ledger entries (issue 27), as GET /admin/v1/payments/{id}/ledger shows them. */
  money: PaymentMoneyView;
  /** Its risk screen's evaluation (issue 26); undefined for a payment never screened. */
  risk: StoredEvaluation | undefined;
}

export async function paymentDetail(ctx: ServiceContext, id: string): Promise<PaymentDetail> {
  const payment = await getPayment(ctx.db, id);
  if (!payment) throw new GatewayError('notFound');
  const [transactions, attempts, callbacks, mids, entries, risk] = await Promise.all([
    listTransactions(ctx.db, payment.id),
    listAttempts(ctx.db, payment.id),
    listCallbacks(ctx.db, { paymentId: payment.id, limit: 1000 }),
    midOf(payment) ? listMids(ctx.db, payment.merchantId) : Promise.resolve([]),
    entriesOfPayment(ctx.db, payment.id),
    evaluationOf(ctx.db, payment.id),
  ]);
  const audit = await auditEntriesOfPayment(ctx.db, payment.id, callbacks.map((c) => c.id));
  const routing = payment.details.routing as RoutingDecision | undefined;
  return { payment, transactions, callbacks: callbacks.reverse(), mid: mids.find((m) => m.id === midOf(payment)), routing, attempts, audit, money: paymentMoneyView(payment, entries), risk };
}

/**
 * The MID that carried the payment: an alternative method's provider MID when the method has one (a QR payment of a
 * Checkout session keeps the session's card MID in mid_id, which never saw it: issue 31 item 8), else the payment's.
 */
export function midOf(payment: Payment): string | null {
  return apmOf(payment)?.midId ?? payment.midId;
}
