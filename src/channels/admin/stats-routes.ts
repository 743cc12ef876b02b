/**
 * `GET /admin/v1/stats` (issue 14): the console's home page figures per merchant since a moment (default: the
 * start of today, UTC; the console sends the operator's own midnight): payments, approval rate (approved among
 * those the acquirer decided), approved volume per currency, callbacks failing.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { formatAmount } from '../../domain/money.ts';
import { GatewayError } from '../../domain/errors.ts';
import { failingCallbacksSince, merchantNames, paymentFiguresSince, type CurrencyFigures } from '../../services/queries/stats.ts';
import { ADMIN_TAG, requirePermission } from './operator-auth.ts';
import { Timestamp } from './schemas.ts';
import { responses } from './errors.ts';

const Query = Type.Object({
  since: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601; default: today 00:00 UTC.' })),
}, { additionalProperties: false });
type Query = Static<typeof Query>;

const MerchantFigures = Type.Object({
  merchant_id: Type.String(),
  merchant_name: Type.String(),
  payments: Type.Integer(),
  approved: Type.Integer(),
  declined: Type.Integer(),
  approval_rate: Type.Union([Type.Number(), Type.Null()], { description: 'approved / (approved + declined), 0 to 1; null when none was decided.' }),
  volume: Type.Array(Type.Object({ currency: Type.String(), amount: Type.String({ description: 'Approved amount, decimal in the currency\'s exponent.' }), payments: Type.Integer() })),
  callbacks_failing: Type.Integer({ description: 'Callbacks created since then that failed or are retrying after a failed attempt.' }),
});

const Stats = Type.Object({
  since: Timestamp,
  merchants: Type.Array(MerchantFigures),
}, {
  description: 'Figures per merchant with any activity since `since`, most payments first.',
  examples: [{ since: '2026-11-24T00:00:00.000Z', merchants: [{ merchant_id: '01936f5e-8a4b-7c3d-9e2f-0a1b2c3d4e5f', merchant_name: 'Shop', payments: 12, approved: 9, declined: 2, approval_rate: 0.8182, volume: [{ currency: 'EUR', amount: '310.50', payments: 9 }], callbacks_failing: 1 }] }],
});

function startOfUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

function summarize(figures: CurrencyFigures[], failing: Map<string, number>, names: Map<string, string>) {
  const byMerchant = new Map<string, CurrencyFigures[]>();
  for (const f of figures) byMerchant.set(f.merchantId, [...(byMerchant.get(f.merchantId) ?? []), f]);
  for (const id of failing.keys()) if (!byMerchant.has(id)) byMerchant.set(id, []);
  return [...byMerchant.entries()].map(([id, rows]) => {
    const sum = (pick: (f: CurrencyFigures) => number) => rows.reduce((n, f) => n + pick(f), 0);
    const approved = sum((f) => f.approved);
    const declined = sum((f) => f.declined);
    return {
      merchant_id: id, merchant_name: names.get(id) ?? id, payments: sum((f) => f.payments), approved, declined,
      approval_rate: approved + declined === 0 ? null : Math.round((approved / (approved + declined)) * 10_000) / 10_000,
      volume: rows.filter((f) => f.approved > 0).map((f) => ({ currency: f.currency, amount: formatAmount(f.approvedMinor, f.currency), payments: f.approved })),
      callbacks_failing: failing.get(id) ?? 0,
    };
  }).sort((a, b) => b.payments - a.payments || a.merchant_name.localeCompare(b.merchant_name));
}

export function registerAdminStatsRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Querystring: Query }>('/stats', {
    onRequest: requirePermission('payments.read'),
    schema: { ...ADMIN_TAG, summary: 'Figures per merchant since a moment (the console\'s home page)', querystring: Query, response: responses({ 200: Stats }, [400]) },
  }, async (req) => {
    const since = req.query.since ? new Date(req.query.since) : startOfUtcDay(ctx.clock.now());
    if (Number.isNaN(since.getTime())) throw GatewayError.field('since', 'This value is not a valid datetime.');
    const [figures, failing, names] = await Promise.all([paymentFiguresSince(ctx.db, since), failingCallbacksSince(ctx.db, since), merchantNames(ctx.db)]);
    return { since: since.toISOString(), merchants: summarize(figures, failing, names) };
  });
}
