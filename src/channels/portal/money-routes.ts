/**
 * The merchant's money in the portal (issue 30): balances and the next payout (the home), settlement statements,
 * one with its first lines, and its CSV. The services (services/portal/money.ts) check money.read and keep every
 * read inside the user's merchants; the answers are the admin API's merchant-scoped views.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { portalMoney, portalStatement, portalStatementCsv, portalStatements } from '../../services/portal/money.ts';
import { BalanceView, StatementView, StatementWithLines } from '../admin/money-routes.ts';
import { userOf } from './auth.ts';
import { PORTAL_TAG, portalResponses } from './errors.ts';

const { tags, security } = PORTAL_TAG;
const MerchantQuery = Type.Optional(Type.String({ maxLength: 64, description: 'One of the user\'s merchants; absent: all of them.' }));

const PayoutView = Type.Object({
  currency: Type.String(),
  awaiting_payout: Type.String({ description: 'The next transfer: what the statements made and not paid yet pay (each its net payable, up to the available balance left; a negative balance carried over is made up first).' }),
  awaiting_statements: Type.Integer({ description: 'How many unpaid statements pay something.' }),
  awaiting_since: Type.Union([Type.String(), Type.Null()], { description: 'The end of the oldest unpaid statement\'s period; null: nothing awaits payout.' }),
});
const MoneyView = Type.Object({
  merchant_id: Type.String(),
  balances: Type.Array(BalanceView),
  payouts: Type.Array(PayoutView),
  settlement: Type.Object({
    frequency: Type.String({ description: 'daily or weekly' }),
    delay_days: Type.Integer({ description: 'T+N: days after a period\'s end before it is settled.' }),
    next_period_to: Type.String({ description: 'The next statement\'s period end: captures before it are in it.' }),
    next_statement_at: Type.String({ description: 'The earliest instant the next statement is made (its money moves from pending to available, then awaits payout).' }),
  }),
});
const MoneyList = Type.Object({ merchants: Type.Array(MoneyView) }, {
  examples: [{ merchants: [{
    merchant_id: '0b7f2c1e-5d4a-4f3b-9e8d-7c6b5a4f3e2d',
    balances: [{ currency: 'EUR', pending: '120.00', available: '48.90', reserve: '5.50', fees: '1.20', total: '173.20' }],
    payouts: [{ currency: 'EUR', awaiting_payout: '48.90', awaiting_statements: 1, awaiting_since: '2030-04-02T00:00:00.000Z' }],
    settlement: { frequency: 'daily', delay_days: 1, next_period_to: '2030-04-03T00:00:00.000Z', next_statement_at: '2030-04-04T00:10:00.000Z' },
  }] }],
});
const StatementsQuery = Type.Object({
  merchant_id: MerchantQuery,
  unpaid: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'true: only statements not paid out yet.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'At most this many (default 100).' })),
}, { additionalProperties: false });
const StatementParams = Type.Object({ id: Type.String({ maxLength: 64, description: 'The statement\'s id.' }) });
type StatementParams = Static<typeof StatementParams>;

export function registerPortalMoneyRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Querystring: { merchant_id?: string } }>('/money', {
    schema: {
      tags, security, summary: 'Balances per currency and the next payout of each of the user\'s merchants',
      description: 'Balances: pending (captured, not settled), available (settled, payable), reserve, fees accrued. Payouts: what the unpaid statements pay; settlement: when the next statement is made. Permission money.read.',
      querystring: Type.Object({ merchant_id: MerchantQuery }, { additionalProperties: false }), response: portalResponses({ 200: MoneyList }),
    },
  }, async (req) => ({ merchants: await portalMoney(ctx, userOf(req), req.query.merchant_id) }));

  app.get<{ Querystring: Static<typeof StatementsQuery> }>('/statements', {
    schema: { tags, security, summary: 'Settlement statements of the user\'s merchants, newest first (permission money.read)', querystring: StatementsQuery, response: portalResponses({ 200: Type.Object({ statements: Type.Array(StatementView) }) }) },
  }, async (req) => {
    const { merchant_id: merchantId, unpaid, limit } = req.query;
    return { statements: await portalStatements(ctx, userOf(req), { ...(merchantId !== undefined ? { merchant_id: merchantId } : {}), unpaid: unpaid === 'true', ...(limit !== undefined ? { limit } : {}) }) };
  });

  app.get<{ Params: StatementParams }>('/statements/:id', {
    schema: { tags, security, summary: 'One statement: totals, payout and its first 500 lines (permission money.read)', params: StatementParams, response: portalResponses({ 200: StatementWithLines }, [404]) },
  }, async (req) => portalStatement(ctx, userOf(req), req.params.id));

  app.get<{ Params: StatementParams }>('/statements/:id/csv', {
    schema: {
      tags, security, summary: 'One statement as CSV, every line then the totals (streamed; permission money.read)', params: StatementParams, produces: ['text/csv'],
      response: portalResponses({ 200: Type.String({ description: 'text/csv: created_at, ref, payment_id, event, account, amount, currency' }) }, [404]),
    },
  }, async (req, reply) => {
    const { statement, rows } = await portalStatementCsv(ctx, userOf(req), req.params.id);
    return reply.type('text/csv; charset=utf-8').header('cache-control', 'no-store')
      .header('content-disposition', `attachment; filename="statement-${statement.periodTo.toISOString().slice(0, 10)}-${statement.currency}.csv"`).send(Readable.from(rows));
  });
}
