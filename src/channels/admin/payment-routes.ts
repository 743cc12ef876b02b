/**
 * The operator's side of payments: the ones the re-check worker handed over because an operation's answer was
 * lost (a capture, refund, void, payout or retry whose outcome cannot be asked of the connector, so it is never
 * guessed). Authenticated with an operator's Bearer token; answers in D3 bodies.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { findPaymentsNeedingOperator, needsOperatorOf, type Payment } from '../../store/payments-repo.ts';
import { formatAmount } from '../../domain/money.ts';
import { ADMIN_TAG as TAG, requirePermission } from './operator-auth.ts';

const ListQuery = Type.Object({
  merchant_id: Type.Optional(Type.String({ maxLength: 64 })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
});
type ListQuery = Static<typeof ListQuery>;

const Amount = Type.String({ description: 'Decimal, in the currency\'s exponent' });

const NeedsOperatorPayment = Type.Object({
  id: Type.String(),
  merchant_id: Type.String(),
  channel: Type.String(),
  order_id: Type.String(),
  operation: Type.String({ description: 'The operation left in flight (capture, refund, reversal, void, apm_payout, retry, ...)' }),
  since: Type.String({ description: 'When the operation started (ISO 8601)' }),
  status: Type.String({ description: 'The payment status, unchanged since before the operation' }),
  currency: Type.String(),
  amount: Amount,
  captured_amount: Amount,
  refunded_amount: Type.String({ description: 'Includes a refund in flight: its amount stays reserved' }),
});

const ListResponse = Type.Object({ payments: Type.Array(NeedsOperatorPayment) });

function present(p: Payment): Static<typeof NeedsOperatorPayment> {
  const flag = needsOperatorOf(p);
  return {
    id: p.id,
    merchant_id: p.merchantId,
    channel: p.channel,
    order_id: p.orderId,
    operation: flag?.operation ?? p.pendingOperation ?? '',
    since: new Date(flag?.since ?? p.updatedAt).toISOString(),
    status: p.status,
    currency: p.currency,
    amount: formatAmount(p.amount, p.currency),
    captured_amount: formatAmount(p.capturedAmount, p.currency),
    refunded_amount: formatAmount(p.refundedAmount, p.currency),
  };
}

export function registerAdminPaymentRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const onRequest = requirePermission(ctx, 'payments.read');

  app.get<{ Querystring: ListQuery }>('/admin/v1/payments/needs-operator', {
    onRequest,
    schema: { ...TAG, summary: 'Payments with an operation left in flight that an operator must resolve, longest waiting first', querystring: ListQuery, response: { 200: ListResponse } },
  }, async (req) => {
    const limit = Math.min(Math.max(req.query.limit ? Number(req.query.limit) : 100, 1), 1000);
    const payments = await findPaymentsNeedingOperator(ctx.db, { merchantId: req.query.merchant_id, limit });
    return { payments: payments.map(present) };
  });
}
