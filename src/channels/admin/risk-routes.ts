/**
 * The risk engine for operators (issue 26), under /admin/v1/risk. A scope is `platform` (the platform's rules and
 * lists, applied to every merchant first) or a merchant's id. Rule sets are saved whole as a new version
 * (validated whole: every problem named; a compare-and-set on the version read; audited); every version is kept
 * and can be restored. Lists: allow and block entries by card (fingerprint), BIN, e-mail, e-mail domain, IP or
 * CIDR, country and device, with a reason and an expiry; CSV import and export. A payment's risk evaluation.
 * Permissions: risk.read, risk.write.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import {
  addListEntries, listPaymentValues, backtest, MAX_BACKTEST_DAYS, exportListCsv, getListEntries, getRuleSet, getRuleSetVersions, importListCsv, paymentRisk, putRuleSet, removeListEntry, restoreRuleSet,
} from '../../services/admin/risk.ts';
import { RiskRuleSet } from '../../domain/risk/rules.ts';
import { ADMIN_TAG, actorOf, requirePermission } from './operator-auth.ts';
import { errorSchema, responses } from './errors.ts';
import { errorBody, GatewayError } from '../../domain/errors.ts';

const Scope = Type.String({ maxLength: 64, description: '`platform`, or a merchant\'s id (a UUID).' });
const ScopeParams = Type.Object({ scope: Scope });
const Kind = Type.Union([Type.Literal('card'), Type.Literal('bin'), Type.Literal('email'), Type.Literal('email_domain'), Type.Literal('ip'), Type.Literal('country'), Type.Literal('device')]);
const List = Type.Union([Type.Literal('allow'), Type.Literal('block')]);

const RuleSetView = Type.Object({
  scope: Scope,
  version: Type.Integer({ description: '0: never saved (the platform\'s card-testing defaults, or a merchant without rules).' }),
  rules: RiskRuleSet,
  updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  updated_by: Type.Union([Type.String(), Type.Null()]),
});

const PutBody = Type.Object({
  version: Type.Integer({ minimum: 0, description: 'The version read: the save fails with 409 if another save came in between.' }),
  rules: Type.Unknown({ description: 'The whole rule set, as GET answers it (RiskRuleSet): validated whole, every problem named (unknown field, wrong type, window out of range, a rule after a catch-all).' }),
  note: Type.Optional(Type.String({ maxLength: 500 })),
}, {
  additionalProperties: false,
  examples: [{ version: 3, note: 'stricter card testing', rules: { rules: [{ name: 'Card testing: declines per card', mode: 'active', when: { velocity: [{ measure: 'declines', by: 'card', window_minutes: 10, more_than: 3 }] }, then: { action: 'block' } }] } }],
});

const VersionView = Type.Object({ version: Type.Integer(), rules: RiskRuleSet, created_at: Type.String({ format: 'date-time' }), created_by: Type.Union([Type.String(), Type.Null()]), note: Type.Union([Type.String(), Type.Null()]) });

const EntryInput = Type.Object({
  list: List,
  kind: Kind,
  value: Type.String({ minLength: 1, maxLength: 255, description: 'card: a card number (kept as its fingerprint only) or a fingerprint; bin: 6 to 8 digits; ip: an address or a CIDR block; country: ISO 3166-1 alpha-2.' }),
  reason: Type.String({ minLength: 1, maxLength: 255 }),
  expires_at: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()], { description: 'An ISO 8601 date-time in the future: after it the entry no longer matches; absent or null: never expires.' })),
}, { additionalProperties: false });
const EntryView = Type.Object({
  id: Type.String(), list: List, kind: Kind, value: Type.String(), reason: Type.String(),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]), created_at: Type.String({ format: 'date-time' }), created_by: Type.Union([Type.String(), Type.Null()]),
});
const ListQuery = Type.Object({
  list: Type.Optional(List), kind: Type.Optional(Kind),
  after: Type.Optional(Type.String({ maxLength: 64, description: 'The last id of the previous page.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});

const EvaluationView = Type.Object({
  payment_id: Type.String(),
  screened_at: Type.String({ format: 'date-time' }),
  action: Type.String({ description: 'allow, block, review or require_3ds.' }),
  reason: Type.String(),
  score: Type.Integer(),
  outcome: Type.Union([Type.String(), Type.Null()], { description: 'The outcome counted for velocity: approved, declined; null while undecided.' }),
  review: Type.Union([Type.String(), Type.Null()]),
  evaluation: Type.Object({}, { additionalProperties: true, description: 'Rules matched (active and shadow), lists hit, rules that failed, counter values read, what decided.' }),
}, { examples: [{ payment_id: '0190f3c1-8a4e-7c55-9a4e-1f2b3c4d5e6f', screened_at: '2030-01-15T10:00:00.000Z', action: 'block', reason: 'platform rule: Card testing: more than 10 cards from one IP in an hour', score: 0, outcome: 'declined', review: null, evaluation: { matched: [{ scope: 'platform', index: 1, name: 'Card testing: more than 10 cards from one IP in an hour', mode: 'active', action: 'block' }], lists: [], failed: [], velocity: { 'distinct_cards:ip:60:': '11' } } }] });

const Conflict = { 409: errorSchema('The rule set was saved by someone else since it was read', errorBody(new GatewayError('riskRulesChanged'))) };

type ScopeP = Static<typeof ScopeParams>;

export function registerAdminRiskRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const read = requirePermission('risk.read');
  const write = requirePermission('risk.write');

  app.get<{ Params: ScopeP }>('/risk/rules/:scope', {
    onRequest: read,
    schema: { ...ADMIN_TAG, summary: 'A scope\'s risk rule set, current version', params: ScopeParams, response: responses({ 200: RuleSetView }) },
  }, async (req) => getRuleSet(ctx, req.params.scope));

  app.put<{ Params: ScopeP; Body: Static<typeof PutBody> }>('/risk/rules/:scope', {
    onRequest: write,
    schema: { ...ADMIN_TAG, summary: 'Save a scope\'s risk rule set whole as its next version (validated, compare-and-set on version, audited)', params: ScopeParams, body: PutBody, response: responses({ 200: RuleSetView, ...Conflict }) },
  }, async (req) => putRuleSet(ctx, actorOf(req), req.params.scope, req.body));

  app.get<{ Params: ScopeP }>('/risk/rules/:scope/versions', {
    onRequest: read,
    schema: { ...ADMIN_TAG, summary: 'A scope\'s saved rule set versions, newest first', params: ScopeParams, response: responses({ 200: Type.Array(VersionView) }) },
  }, async (req) => getRuleSetVersions(ctx, req.params.scope));

  const VersionParams = Type.Object({ scope: Scope, version: Type.String({ pattern: '^\\d{1,9}$', description: 'A saved version (0: the platform\'s defaults).' }) });
  app.post<{ Params: Static<typeof VersionParams> }>('/risk/rules/:scope/versions/:version/restore', {
    onRequest: write,
    schema: { ...ADMIN_TAG, summary: 'Save an earlier version\'s rules again as the newest version (platform version 0: the defaults); audited', params: VersionParams, response: responses({ 200: RuleSetView, ...Conflict }) },
  }, async (req) => restoreRuleSet(ctx, actorOf(req), req.params.scope, Number(req.params.version)));

  app.get<{ Params: ScopeP; Querystring: Static<typeof ListQuery> }>('/risk/lists/:scope', {
    onRequest: read,
    schema: { ...ADMIN_TAG, summary: 'A scope\'s allow and block list entries, oldest first (page with after)', params: ScopeParams, querystring: ListQuery, response: responses({ 200: Type.Array(EntryView) }) },
  }, async (req) => getListEntries(ctx, req.params.scope, req.query));

  const AddBody = Type.Object({ entries: Type.Array(EntryInput, { minItems: 1, maxItems: 1000 }) }, { additionalProperties: false, examples: [{ entries: [{ list: 'block', kind: 'ip', value: '203.0.113.0/24', reason: 'card testing', expires_at: '2030-02-01T00:00:00Z' }, { list: 'block', kind: 'email_domain', value: 'mailinator.com', reason: 'disposable' }] }] });
  app.post<{ Params: ScopeP; Body: Static<typeof AddBody> }>('/risk/lists/:scope', {
    onRequest: write,
    schema: { ...ADMIN_TAG, summary: 'Add list entries (one listed already takes the new reason and expiry); audited', params: ScopeParams, body: AddBody, response: responses({ 200: Type.Array(EntryView) }) },
  }, async (req) => addListEntries(ctx, actorOf(req), req.params.scope, req.body.entries as never));

  const FromPaymentBody = Type.Object({
    payment_id: Type.String({ maxLength: 64 }),
    list: List,
    kinds: Type.Array(Kind, { minItems: 1, uniqueItems: true, description: 'Which of the payment\'s values: card (its fingerprint), bin, email, email_domain, ip, country.' }),
    reason: Type.String({ minLength: 1, maxLength: 255 }),
    expires_at: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
  }, { additionalProperties: false, examples: [{ payment_id: '0190f3c1-8a4e-7c55-9a4e-1f2b3c4d5e6f', list: 'block', kinds: ['card', 'email', 'ip'], reason: 'chargeback: fraud' }] });
  app.post<{ Params: ScopeP; Body: Static<typeof FromPaymentBody> }>('/risk/lists/:scope/from-payment', {
    onRequest: write,
    schema: { ...ADMIN_TAG, summary: 'List a payment\'s values (card fingerprint, e-mail, IP, ...) in one action; audited', params: ScopeParams, body: FromPaymentBody, response: responses({ 200: Type.Array(EntryView) }) },
  }, async (req) => listPaymentValues(ctx, actorOf(req), req.params.scope, req.body));

  const EntryParams = Type.Object({ scope: Scope, id: Type.String({ maxLength: 64 }) });
  app.delete<{ Params: Static<typeof EntryParams> }>('/risk/lists/:scope/:id', {
    onRequest: write,
    schema: { ...ADMIN_TAG, summary: 'Remove a list entry; audited', params: EntryParams, response: responses({ 204: Type.Null() }) },
  }, async (req, reply) => {
    await removeListEntry(ctx, actorOf(req), req.params.scope, req.params.id);
    return reply.code(204).send();
  });

  app.get<{ Params: ScopeP }>('/risk/lists/:scope/export', {
    onRequest: read,
    schema: { ...ADMIN_TAG, summary: 'Every list entry of a scope as CSV: list,kind,value,reason,expires_at', params: ScopeParams, response: responses({ 200: Type.String({ description: 'text/csv', examples: ['list,kind,value,reason,expires_at\nblock,ip,203.0.113.0/24,card testing,2030-02-01T00:00:00.000Z\n'] }) }) },
  }, async (req, reply) => reply.type('text/csv; charset=utf-8').send(await exportListCsv(ctx, req.params.scope)));

  const ImportBody = Type.Object({ csv: Type.String({ maxLength: 2_000_000, description: 'The export\'s columns (list,kind,value,reason,expires_at); the header line is optional. Every line is checked before any is saved.' }) }, { additionalProperties: false, examples: [{ csv: 'block,email,payer@example.com,chargebacks,\nallow,ip,192.0.2.10,office,' }] });
  app.post<{ Params: ScopeP; Body: Static<typeof ImportBody> }>('/risk/lists/:scope/import', {
    onRequest: write,
    schema: { ...ADMIN_TAG, summary: 'Import list entries from CSV; audited', params: ScopeParams, body: ImportBody, response: responses({ 200: Type.Object({ imported: Type.Integer() }) }) },
  }, async (req) => importListCsv(ctx, actorOf(req), req.params.scope, req.body.csv));

  const BacktestBody = Type.Object({
    rules: Type.Unknown({ description: 'The draft rule set (RiskRuleSet), validated as a save is.' }),
    days: Type.Integer({ minimum: 1, maximum: MAX_BACKTEST_DAYS, description: 'How far back: the payments created in the last this many days.' }),
  }, { additionalProperties: false, examples: [{ days: 30, rules: { rules: [{ name: 'Large foreign', mode: 'active', when: { amount: { min: '500.00' }, country_mismatch: ['card_ip'] }, then: { action: 'block' } }] } }] });
  const Example = Type.Object({ payment_id: Type.String(), amount: Type.String(), currency: Type.String(), status: Type.String(), reason: Type.String() });
  const Volume = Type.Record(Type.String(), Type.String(), { description: 'Per currency, decimal amounts.' });
  const BacktestView = Type.Object({
    scope: Scope, days: Type.Integer(), payments: Type.Integer({ description: 'Payments replayed.' }),
    counts: Type.Object({ allow: Type.Integer(), block: Type.Integer(), review: Type.Integer(), require_3ds: Type.Integer() }),
    examples: Type.Object({ block: Type.Array(Example), review: Type.Array(Example), require_3ds: Type.Array(Example) }, { description: 'Up to 10 payments per outcome, oldest first.' }),
    lost_approved: Type.Object({ count: Type.Integer(), volume: Volume }, { description: 'Approved payments the draft would have blocked.' }),
    reviewed_approved: Type.Object({ count: Type.Integer(), volume: Volume }, { description: 'Approved payments the draft would have held for review.' }),
    not_replayable: Type.Record(Type.String(), Type.Integer(), { description: 'Per rule name: payments on which a velocity condition could not be replayed (a counter their screen did not read); the rule was skipped for them.' }),
  });
  app.post<{ Params: ScopeP; Body: Static<typeof BacktestBody> }>('/risk/rules/:scope/backtest', {
    onRequest: read,
    schema: { ...ADMIN_TAG, summary: 'Run a draft rule set over the scope\'s payments of the last days: would-block, review, allow, examples, approved volume lost (nothing is written)', params: ScopeParams, body: BacktestBody, response: responses({ 200: BacktestView }) },
  }, async (req) => backtest(ctx, req.params.scope, req.body));

  const PaymentParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
  app.get<{ Params: Static<typeof PaymentParams> }>('/payments/:id/risk', {
    onRequest: read,
    schema: { ...ADMIN_TAG, summary: 'A payment\'s risk evaluation: rules matched, score, lists hit, velocity values seen, outcome', params: PaymentParams, response: responses({ 200: EvaluationView }) },
  }, async (req) => paymentRisk(ctx, req.params.id));
}
