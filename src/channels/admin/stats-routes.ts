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
import { paymentFigures } from '../../services/queries/payment-figures.ts';
import { FIGURE_GROUPINGS, MAX_FIGURE_DAYS, type FigureGrouping } from '../../domain/payment-figures.ts';
import { ADMIN_TAG, requirePermission } from './operator-auth.ts';
import { Timestamp } from './schemas.ts';
import { responses } from './errors.ts';

const Query = Type.Object({
  since: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601; default: today 00:00 UTC.' })),
  mode: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('live')], { description: 'test: only test keys\' (sandbox merchants\') payments and callbacks; live: only live keys\'. Absent: both.', examples: ['live'] })),
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

const DayParam = (description: string) => Type.Optional(Type.String({ maxLength: 10, description, examples: ['2026-11-28'] }));

const FiguresQuery = Type.Object({
  from: DayParam('First day (UTC, YYYY-MM-DD), included; default: 29 days before `to`.'),
  to: DayParam('Last day (UTC, YYYY-MM-DD), included; default: today.'),
  by: Type.Optional(Type.Union(FIGURE_GROUPINGS.map((g) => Type.Literal(g)), { description: 'What `groups` splits by; default merchant.' })),
  merchant_id: Type.Optional(Type.String({ maxLength: 100, description: 'Only this merchant\'s payments.' })),
  mode: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('live')], { description: 'test: only test keys\' (sandbox merchants\') payments; live: only live keys\'. Absent: both.', examples: ['live'] })),
}, { additionalProperties: false });
type FiguresQuery = Static<typeof FiguresQuery>;

const Totals = Type.Object({
  payments: Type.Integer({ description: 'Payments: a Hosted Checkout session\'s tries count once (its approved try, or its last).' }),
  approved: Type.Integer(),
  declined: Type.Integer(),
  approval_rate: Type.Union([Type.Number(), Type.Null()], { description: 'approved / (approved + declined) per payment, 0 to 1; null when none was decided.' }),
  volume: Type.Array(Type.Object({ currency: Type.String(), amount: Type.String({ description: 'Approved amount, decimal in the currency\'s exponent.' }), payments: Type.Integer() })),
});
const Beside = { current: Totals, previous: Totals };
const ZERO = { payments: 0, approved: 0, declined: 0, approval_rate: null, volume: [] };
const SOME = { payments: 3, approved: 2, declined: 1, approval_rate: 0.6667, volume: [{ currency: 'EUR', amount: '25.00', payments: 2 }] };

export const Figures = Type.Object({
  from: Type.String(), to: Type.String(), previous_from: Type.String(), previous_to: Type.String(),
  by: Type.Union(FIGURE_GROUPINGS.map((g) => Type.Literal(g))),
  totals: Type.Object(Beside),
  daily: Type.Array(Type.Object({ day: Type.String(), previous_day: Type.String({ description: 'The day of the previous period shown beside it.' }), ...Beside })),
  groups: Type.Array(Type.Object({ key: Type.String({ description: 'Merchant id, MID id or connector name; "" for payments refused before a MID was chosen.' }), name: Type.String(), ...Beside })),
  declines: Type.Array(Type.Object({ reason: Type.String({ description: 'The decline reason as the acquirer or the gateway gave it ("" when none).' }), current: Type.Integer(), previous: Type.Integer() })),
}, {
  description: `Figures of the days from..to (UTC) beside the same number of days just before, per day, per group and per decline reason. At most ${MAX_FIGURE_DAYS} days.`,
  examples: [{
    from: '2026-11-28', to: '2026-11-28', previous_from: '2026-11-27', previous_to: '2026-11-27', by: 'merchant',
    totals: { current: SOME, previous: ZERO },
    daily: [{ day: '2026-11-28', previous_day: '2026-11-27', current: SOME, previous: ZERO }],
    groups: [{ key: '01936f5e-8a4b-7c3d-9e2f-0a1b2c3d4e5f', name: 'Demo Shop', current: SOME, previous: ZERO }],
    declines: [{ reason: 'Insufficient funds', current: 1, previous: 0 }],
  }],
});

export function registerAdminStatsRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Querystring: FiguresQuery }>('/stats/figures', {
    onRequest: requirePermission('payments.read'),
    schema: {
      ...ADMIN_TAG, summary: 'Payment figures of a date range beside the previous period (the console\'s home charts)',
      description: 'Volume, payments, approval rate per payment (not per try) and declines by reason, per day and per merchant, MID or connector. Days that ended more than a day ago come from a daily rollup filled on first read.',
      querystring: FiguresQuery, response: responses({ 200: Figures }, [400]),
    },
  }, async (req) => paymentFigures(ctx.db, ctx.clock, {
    ...(req.query.from ? { from: req.query.from } : {}), ...(req.query.to ? { to: req.query.to } : {}),
    by: (req.query.by ?? 'merchant') as FigureGrouping, ...(req.query.merchant_id ? { merchantIds: [req.query.merchant_id] } : {}), ...(req.query.mode ? { mode: req.query.mode } : {}),
  }));

  app.get<{ Querystring: Query }>('/stats', {
    onRequest: requirePermission('payments.read'),
    schema: { ...ADMIN_TAG, summary: 'Figures per merchant since a moment (the console\'s home page)', querystring: Query, response: responses({ 200: Stats }, [400]) },
  }, async (req) => {
    const since = req.query.since ? new Date(req.query.since) : startOfUtcDay(ctx.clock.now());
    if (Number.isNaN(since.getTime())) throw GatewayError.field('since', 'This value is not a valid datetime.');
    const [figures, failing, names] = await Promise.all([paymentFiguresSince(ctx.db, since, req.query.mode), failingCallbacksSince(ctx.db, since, req.query.mode), merchantNames(ctx.db)]);
    return { since: since.toISOString(), merchants: summarize(figures, failing, names) };
  });
}
