/**
 * The risk engine for operators (issue 26), under /admin/v1/risk. A scope is `platform` (the platform's rules and
 * lists, applied to every merchant first) or a merchant's id. Rule sets are saved whole as a new version
 * (validated whole: every problem named; a compare-and-set on the version read; audited); every version is kept
 * and can be restored. Lists: allow and block entries by card (fingerprint), BIN, e-mail, e-mail domain, IP or
 * CIDR, country and device, with a reason and an expiry; CSV import and export. A payment's risk evaluation. The
 * review queue: payments held for an operator, approved or declined with a note, one by one or in bulk.
 * Permissions: risk.read, risk.write.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import {
  addListEntries, listPaymentValues, backtest, MAX_BACKTEST_DAYS, exportListCsv, getListEntries, getRuleSet, getRuleSetVersions, importListCsv, paymentRisk, putRuleSet, removeListEntry, restoreRuleSet,
} from '../../services/admin/risk.ts';
import { RiskRuleSet } from '../../domain/risk/rules.ts';
import { getDisputeFeed, putDisputeFeed } from '../../services/risk/dispute-feed.ts';
import { decideReview, decideReviews, listReviews, MAX_REVIEW_PAGE, riskSummary, SUMMARY_RULES } from '../../services/risk/review.ts';
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
  q: Type.Optional(Type.String({ maxLength: 255, description: 'Search: entries whose value or reason holds this text (case-insensitive); a card number typed whole finds its fingerprint\'s entry.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});

export const EvaluationView = Type.Object({
  payment_id: Type.String(),
  screened_at: Type.String({ format: 'date-time' }),
  action: Type.String({ description: 'allow, block, review or require_3ds.' }),
  reason: Type.String(),
  score: Type.Integer(),
  outcome: Type.Union([Type.String(), Type.Null()], { description: 'The outcome counted for velocity: approved, declined; null while undecided.' }),
  review: Type.Union([Type.String(), Type.Null()], { description: 'A payment held for an operator\'s review: pending, approved, declined or expired; null: never held.' }),
  review_deadline: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When a pending review is declined if no operator decided.' }),
  device_id: Type.Union([Type.String(), Type.Null()], { description: 'The payer\'s device id the hosted page (Checkout card, APM or wallet form, hosted fields) posted with the payment: the `device` velocity and list key; null: none.' }),
  evaluation: Type.Object({}, { additionalProperties: true, description: 'Rules matched (active and shadow), lists hit, rules that failed, counter values read, what decided.' }),
}, { examples: [{ payment_id: '0190f3c1-8a4e-7c55-9a4e-1f2b3c4d5e6f', screened_at: '2030-01-15T10:00:00.000Z', action: 'block', reason: 'platform rule: Card testing: more than 10 cards from one IP in an hour', score: 0, outcome: 'declined', review: null, review_deadline: null, device_id: 'dGVzdC1kZXZpY2UtaWQtMQ', evaluation: { matched: [{ scope: 'platform', index: 1, name: 'Card testing: more than 10 cards from one IP in an hour', mode: 'active', action: 'block' }], lists: [], failed: [], velocity: { 'distinct_cards:ip:60:': '11' } } }] });

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
    kinds: Type.Array(Kind, { minItems: 1, uniqueItems: true, description: 'Which of the payment\'s values: card (its fingerprint), bin, email, email_domain, ip, country, device (the device id its hosted page posted).' }),
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

  // --- the fraud-dispute feed (issue 29): fraud chargebacks put their payment's values on a block list ----------
  const FeedKind = Type.Union([Type.Literal('card'), Type.Literal('email'), Type.Literal('device')]);
  const FeedScope = Type.Union([Type.Literal('platform'), Type.Literal('merchant')], { description: 'platform: the platform\'s block list (every merchant); merchant: the disputed payment\'s merchant\'s. A sandbox merchant\'s dispute always feeds its own.' });
  const FeedView = Type.Object({
    enabled: Type.Boolean(), kinds: Type.Array(FeedKind), scope: FeedScope,
    expires_days: Type.Union([Type.Integer(), Type.Null()], { description: 'Entries expire this many days after the chargeback; null: never.' }),
    version: Type.Integer({ description: '0: never saved (off).' }),
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]), updated_by: Type.Union([Type.String(), Type.Null()]),
  }, { examples: [{ enabled: true, kinds: ['card', 'email', 'device'], scope: 'platform', expires_days: 365, version: 2, updated_at: '2030-01-15T10:00:00.000Z', updated_by: 'Risk admin' }] });
  const FeedBody = Type.Object({
    version: Type.Integer({ minimum: 0, description: 'The version read: the save fails with 409 if another save came in between.' }),
    enabled: Type.Boolean(),
    kinds: Type.Array(FeedKind, { uniqueItems: true, maxItems: 3, description: 'What of the payment is listed: card (its fingerprint), email (the payer\'s), device (the device id its hosted page posted).' }),
    scope: FeedScope,
    expires_days: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()])),
  }, { additionalProperties: false, examples: [{ version: 0, enabled: true, kinds: ['card', 'email'], scope: 'platform', expires_days: 365 }] });
  const FeedConflict = { 409: errorSchema('The setting was saved by someone else since it was read', errorBody(new GatewayError('riskFeedChanged'))) };
  app.get('/risk/dispute-feed', {
    onRequest: read,
    schema: { ...ADMIN_TAG, summary: 'Whether fraud chargebacks put their payment\'s card, e-mail and device on a block list (off until saved)', response: responses({ 200: FeedView }) },
  }, async () => getDisputeFeed(ctx));
  app.put<{ Body: Static<typeof FeedBody> }>('/risk/dispute-feed', {
    onRequest: write,
    schema: { ...ADMIN_TAG, summary: 'Turn the fraud-dispute feed on or off, choose what it lists, where and for how long (compare-and-set on version; audited)', body: FeedBody, response: responses({ 200: FeedView, ...FeedConflict }) },
  }, async (req) => putDisputeFeed(ctx, actorOf(req), req.body));

  const PaymentParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
  app.get<{ Params: Static<typeof PaymentParams> }>('/payments/:id/risk', {
    onRequest: read,
    schema: { ...ADMIN_TAG, summary: 'A payment\'s risk evaluation: rules matched, score, lists hit, velocity values seen, outcome', params: PaymentParams, response: responses({ 200: EvaluationView }) },
  }, async (req) => paymentRisk(ctx, req.params.id));

  // --- the review queue (payments held for an operator before any acquirer call) ------------------------------
  const ReviewView = Type.Object({
    payment_id: Type.String(), merchant_id: Type.String(), order_id: Type.String(),
    amount: Type.String({ description: 'Decimal in the payment\'s currency.' }), currency: Type.String(),
    intent: Type.Union([Type.Literal('sale'), Type.Literal('auth')]), channel: Type.String(), payer_email: Type.Union([Type.String(), Type.Null()]),
    score: Type.Integer(), reason: Type.String({ description: 'Why the screen held it (the rule or the score).' }),
    screened_at: Type.String({ format: 'date-time' }), deadline: Type.String({ format: 'date-time', description: 'Declined by the review worker if still undecided then.' }),
  });
  const ReviewQuery = Type.Object({
    merchant_id: Type.Optional(Type.String({ maxLength: 64 })),
    after: Type.Optional(Type.String({ maxLength: 64, description: 'The last payment_id of the previous page.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_REVIEW_PAGE })),
  }, { additionalProperties: false });
  const ReviewExample = { payment_id: '0190f3c1-8a4e-7c55-9a4e-1f2b3c4d5e6f', merchant_id: '0190f3c1-0000-7000-8000-00000000a001', order_id: 'order-1042', amount: '950.00', currency: 'EUR', intent: 'sale', channel: 's2s_card', payer_email: 'max@example.com', score: 60, reason: 'merchant rule: Large first order', screened_at: '2030-01-15T10:00:00.000Z', deadline: '2030-01-16T10:00:00.000Z' };
  app.get<{ Querystring: Static<typeof ReviewQuery> }>('/risk/reviews', {
    onRequest: read,
    schema: { ...ADMIN_TAG, summary: 'The review queue: card payments held for an operator before any acquirer call, soonest deadline first', querystring: ReviewQuery,
      response: responses({ 200: Type.Object({ reviews: Type.Array(ReviewView) }, { examples: [{ reviews: [ReviewExample] }] }) }, [400]) },
  }, async (req) => listReviews(ctx, req.query));

  const Note = Type.String({ minLength: 1, maxLength: 1000, description: 'Why (kept with the review and in the audit log; never sent to the merchant or the payer).' });
  const DecideBody = Type.Object({ note: Note }, { additionalProperties: false, examples: [{ note: 'Customer known to the merchant; phone check done.' }] });
  const ReviewResultView = Type.Object({
    payment_id: Type.String(), decision: Type.Union([Type.Literal('approve'), Type.Literal('decline')]),
    status: Type.String({ description: 'The payment\'s status after the decision (an approval: as its acquirer answered).' }),
    result: Type.String({ description: 'approved, declined, processing (the acquirer has not answered yet), challenge or redirect (the payer is asked to authenticate: the merchant hears by callback).' }),
  }, { examples: [{ payment_id: ReviewExample.payment_id, decision: 'approve', status: 'settled', result: 'approved' }] });
  const ReviewParams = Type.Object({ id: Type.String({ maxLength: 64, description: 'The payment id' }) });
  const Conflict409 = { 409: errorSchema('The payment is not held for a review (decided meanwhile), or cannot go on', errorBody(new GatewayError('reviewNotPending'))) };
  for (const decision of ['approve', 'decline'] as const) {
    app.post<{ Params: Static<typeof ReviewParams>; Body: Static<typeof DecideBody> }>(`/risk/reviews/:id/${decision}`, {
      onRequest: write,
      schema: { ...ADMIN_TAG, summary: decision === 'approve'
        ? 'Approve a held payment: it goes on to its acquirer through the payment pipeline (one callback with its outcome); audited'
        : 'Decline a held payment: declined by risk management, one callback, no acquirer asked; audited',
      params: ReviewParams, body: DecideBody, response: { ...responses({ 200: ReviewResultView }), ...Conflict409 } },
    }, async (req) => decideReview(ctx, actorOf(req), req.params.id, decision, req.body.note));
  }

  const BulkBody = Type.Object({
    payment_ids: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 100, uniqueItems: true }),
    decision: Type.Union([Type.Literal('approve'), Type.Literal('decline')]),
    note: Note,
  }, { additionalProperties: false, examples: [{ payment_ids: [ReviewExample.payment_id], decision: 'decline', note: 'Card-testing pattern from one IP range.' }] });
  const BulkView = Type.Object({
    results: Type.Array(Type.Union([ReviewResultView, Type.Object({ payment_id: Type.String(), error: Type.String({ description: 'Why this one was not decided (the others are).' }) })])),
  }, { examples: [{ results: [{ payment_id: ReviewExample.payment_id, decision: 'decline', status: 'decline', result: 'declined' }] }] });
  app.post<{ Body: Static<typeof BulkBody> }>('/risk/reviews/decide', {
    onRequest: write,
    schema: { ...ADMIN_TAG, summary: 'Approve or decline several held payments with one note; each is decided on its own (audited), one failing does not stop the others', body: BulkBody, response: responses({ 200: BulkView }, [400]) },
  }, async (req) => decideReviews(ctx, actorOf(req), req.body.payment_ids, req.body.decision, req.body.note));

  const SummaryView = Type.Object({
    since: Type.String({ format: 'date-time' }),
    screened: Type.Integer({ description: 'Payments screened since then.' }),
    blocked: Type.Integer(), reviewed: Type.Integer({ description: 'Screened with the outcome review (held, or declined where no one could wait).' }),
    challenged: Type.Integer({ description: 'require_3ds.' }),
    shadow_matched: Type.Integer({ description: 'Payments a shadow rule matched (no effect).' }),
    reviews_pending: Type.Integer({ description: 'Of those, held payments still waiting for a decision.' }),
    rules: Type.Array(Type.Object({
      scope: Type.Union([Type.Literal('platform'), Type.Literal('merchant')]),
      merchant_id: Type.Union([Type.String(), Type.Null()], { description: 'The merchant whose rule it is; null for a platform rule.' }),
      rule: Type.String({ description: 'The rule\'s name.' }),
      blocked: Type.Integer({ description: 'Payments it blocked (it decided).' }),
      reviewed: Type.Integer({ description: 'Payments it sent to review.' }),
      challenged: Type.Integer({ description: 'Payments it asked 3-D Secure for.' }),
      shadow: Type.Integer({ description: 'Payments it matched in shadow mode (no effect).' }),
      failed: Type.Integer({ description: 'Payments it could not be evaluated on (skipped; see the log).' }),
    }), { description: `By rule, the ${SUMMARY_RULES} that did the most since then, most first (every node's screens: the stored evaluations).` }),
  }, { examples: [{ since: '2030-01-14T10:00:00.000Z', screened: 1240, blocked: 17, reviewed: 4, challenged: 30, shadow_matched: 55, reviews_pending: 2,
    rules: [{ scope: 'platform', merchant_id: null, rule: 'Card testing: more than 10 cards from one IP in an hour', blocked: 12, reviewed: 0, challenged: 0, shadow: 0, failed: 0 },
      { scope: 'merchant', merchant_id: '0190f3c1-0000-7000-8000-00000000a001', rule: 'Large and foreign', blocked: 0, reviewed: 0, challenged: 0, shadow: 55, failed: 0 }] }] });
  app.get<{ Querystring: { hours?: string } }>('/risk/summary', {
    onRequest: read,
    schema: { ...ADMIN_TAG, summary: 'The risk screen\'s figures of the last hours (the console home): screened, blocked, reviewed, challenged, shadow-matched, reviews waiting; by rule',
      querystring: Type.Object({ hours: Type.Optional(Type.String({ maxLength: 8, description: 'How far back, 1 to 744 hours (default 24).' })) }, { additionalProperties: false }),
      response: responses({ 200: SummaryView }, [400]) },
  }, async (req) => riskSummary(ctx, req.query.hours));
}
