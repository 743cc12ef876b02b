/**
 * Payments for operators (issue 11): search, the whole story of one payment, capture, void and refund through
 * the merchant channels' follow-up engine, and the payments the re-check worker handed over because an
 * operation's answer was lost (a capture, refund, void, payout or retry whose outcome cannot be asked of the
 * connector, so it is never guessed), with the action that resolves them. Authenticated with an operator's
 * Bearer token; answers in D3 bodies. Card numbers appear as masks only.
 */
import { maskedToken, seesSessionTokens, type Role } from '../../domain/admin-roles.ts';
import { pageSize, pageSizeText } from '../../domain/page-size.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { ScoreView } from './routing-routes.ts';
import { findPaymentsNeedingOperator, needsOperatorOf } from '../../services/queries/payments.ts';
import type { Payment, Transaction } from '../../domain/model/payment.ts';
import { formatAmount } from '../../domain/money.ts';
import { GatewayError } from '../../domain/errors.ts';
import { s2sStatus } from '../../domain/payment-state.ts';
import { allowedActions } from '../../domain/operator-actions.ts';
import { apmOf, paymentMethodOf } from '../../services/apm/details.ts';
import { searchPage, MAX_PAGE, STATUS_NAMES, type SearchQuery } from '../../services/admin/payment-search.ts';
import { midOf, paymentDetail, type PaymentDetail } from '../../services/admin/payment-detail.ts';
import { operatorFollowUp, resolveInFlight, type OperatorAction } from '../../services/admin/payment-actions.ts';
import { refundMany, MAX_BULK_REFUND } from '../../services/admin/bulk-refund.ts';
import type { FollowUpResult } from '../../services/follow-ups.ts';
import { ADMIN_TAG as TAG, actorOf, requirePermission } from './operator-auth.ts';
import { ErrorBody, ErrorResponses, errorSchema } from './errors.ts';
import { CallbackView, presentCallback } from './callback-routes.ts';
import { EvaluationView } from './risk-routes.ts';
import { evaluationView } from '../../services/admin/risk.ts';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Amount = Type.String({ description: 'Decimal, in the currency\'s exponent', examples: ['10.00'] });
const choice = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(values.map((v) => Type.Literal(v)), { errorMessage: 'The value you selected is not a valid choice.', ...(description ? { description } : {}) });
const Conflict = { 409: errorSchema('Another operation of this payment is in flight, or it was resolved already', { http_code: 409, error_code: '100000', error_message: 'Previous operation on this payment is not completed.' }) };

// --- search ------------------------------------------------------------------------------------------------

const SearchQuerySchema = Type.Object({
  merchant_id: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(choice([...STATUS_NAMES.keys()], 'Checkout name (settled) or S2S name (SETTLED)')),
  order_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  payment_id: Type.Optional(Type.String({ maxLength: 64, description: 'The payment id (UUID)' })),
  trans_id: Type.Optional(Type.String({ maxLength: 64, description: 'The id of any transaction of the payment, or the payment id (S2S answers call it trans_id)' })),
  email: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Payer e-mail, case-insensitive, exact' })),
  card_first6: Type.Optional(Type.String({ pattern: '^[0-9]{6}$', description: 'First six digits of the card (BIN)' })),
  card_last4: Type.Optional(Type.String({ pattern: '^[0-9]{4}$', description: 'Last four digits of the card' })),
  amount_from: Type.Optional(Type.String({ maxLength: 32, description: 'Inclusive; a decimal in `currency`, which is then required' })),
  amount_to: Type.Optional(Type.String({ maxLength: 32, description: 'Inclusive; a decimal in `currency`, which is then required' })),
  currency: Type.Optional(Type.String({ maxLength: 6 })),
  method: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: '`card`, a wallet (`applepay`, `googlepay`), or an alternative method\'s key' })),
  channel: Type.Optional(choice(['checkout', 's2s_card', 's2s_apm'])),
  created_from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or date-time with zone; inclusive' })),
  created_to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or date-time with zone; exclusive' })),
  initiator: Type.Optional(choice(['cardholder', 'merchant'], 'Card-on-file initiator')),
  source: Type.Optional(choice(['ecommerce', 'recurring', 'unscheduled'], 'Card-on-file source')),
  sequence: Type.Optional(choice(['first', 'subsequent'], 'Card-on-file sequence')),
  needs_operator: Type.Optional(choice(['true', 'false'], 'true: only payments with an operation waiting for an operator')),
  mode: Type.Optional(choice(['test', 'live'], 'test: only payments made with a test key (a sandbox merchant\'s); live: only those made with a live key. Absent: both')),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: `Page size, 1 to ${MAX_PAGE} (default 50)` })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the page before' })),
}, { additionalProperties: false });

/** Which payment a row is, and whose: every payment row of this API starts with these. */
const PaymentKeys = { id: Type.String(), merchant_id: Type.String(), channel: Type.String() };
const paymentKeys = (p: Payment) => ({ id: p.id, merchant_id: p.merchantId, channel: p.channel });
const RefundedAmount = Type.String({ description: 'Includes a refund in flight: its amount stays reserved' });

export const PaymentSummary = Type.Object({
  ...PaymentKeys,
  operation: Type.String(),
  order_id: Type.String(),
  status: Type.String({ description: 'Checkout name (lower case)' }),
  s2s_status: Type.String({ description: 'S2S name (upper case)' }),
  amount: Amount,
  currency: Type.String(),
  captured_amount: Amount,
  refunded_amount: RefundedAmount,
  method: Type.String(),
  brand: Nullable(Type.String()),
  card: Nullable(Type.String({ description: 'Masked card number (first six and last four digits)' })),
  payer_email: Nullable(Type.String()),
  initiator: Nullable(Type.String()),
  source: Nullable(Type.String()),
  sequence: Nullable(Type.String()),
  pending_operation: Nullable(Type.String({ description: 'An operation in flight at the connector' })),
  needs_operator: Type.Boolean({ description: 'The operation in flight was handed to an operator (resolve it)' }),
  created_at: Type.String(),
  updated_at: Type.String(),
});
type PaymentSummary = Static<typeof PaymentSummary>;

export const SUMMARY_EXAMPLE: PaymentSummary = {
  id: 'b3e1c7a2-5d4f-4a8e-9c1b-2f6d8e0a4c35', merchant_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', channel: 's2s_card', operation: 'sale',
  order_id: 'ORDER-1042', status: 'settled', s2s_status: 'SETTLED', amount: '25.00', currency: 'EUR', captured_amount: '25.00', refunded_amount: '0.00',
  method: 'card', brand: 'visa', card: '411111****1111', payer_email: 'max@example.com', initiator: null, source: null, sequence: null,
  pending_operation: null, needs_operator: false, created_at: '2026-11-24T05:00:00.000Z', updated_at: '2026-11-24T05:00:01.000Z',
};

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export function summary(p: Payment): PaymentSummary {
  const cof = (p.details.cof ?? {}) as Record<string, unknown>;
  return {
    ...paymentKeys(p),
    operation: p.operation,
    order_id: p.orderId,
    status: p.status,
    s2s_status: s2sStatus(p.status),
    amount: formatAmount(p.amount, p.currency),
    currency: p.currency,
    captured_amount: formatAmount(p.capturedAmount, p.currency),
    refunded_amount: formatAmount(p.refundedAmount, p.currency),
    method: paymentMethodOf(p),
    brand: str(p.details.brand),
    card: str(p.details.cardMask),
    payer_email: str(p.payer.email),
    initiator: str(cof.initiator),
    source: str(cof.source),
    sequence: str(cof.sequence),
    pending_operation: p.pendingOperation,
    needs_operator: needsOperatorOf(p) !== undefined,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

// --- the needs-operator list ----------------------------------------------------------------------------------

const HeldView = Type.Object({
  reason: choice(['answer_lost', 'integrity'] as const, 'answer_lost: the acquirer\'s answer never came (the re-check handed it over); integrity: the acquirer answered about another amount, currency or reference than the payment\'s'),
  acquirer_outcome: Nullable(Type.String({ description: 'integrity: what the held answer said (approved or declined)' })),
  acquirer_reference: Nullable(Type.String({ description: 'integrity: the acquirer\'s reference in the held answer' })),
  mismatches: Type.Array(Type.Object({
    field: Type.String({ description: 'amount, currency or reference' }),
    expected: Type.String({ description: 'The payment\'s (amounts in major units of the payment\'s currency)' }),
    reported: Type.String({ description: 'The acquirer\'s' }),
  }), { description: 'integrity: each fact the acquirer reported otherwise; empty for answer_lost' }),
}, { description: 'Why the operation waits for an operator, and what to check with the acquirer' });

type HeldFlag = { reason?: string; outcome?: string; reference?: string | null; mismatches?: { field: string; expected: string; reported: string }[] };

/** Why a payment waits for an operator; amounts of the mismatches shown as decimals of the payment's currency. */
function heldView(p: Payment): Static<typeof HeldView> | null {
  const flag = needsOperatorOf(p) as (ReturnType<typeof needsOperatorOf> & HeldFlag) | undefined;
  if (!flag) return null;
  const decimal = (field: string, v: string) => (field === 'amount' && /^-?[0-9]+$/.test(v) ? formatAmount(BigInt(v), p.currency) : v);
  return {
    reason: flag.reason === 'integrity' ? 'integrity' : 'answer_lost',
    acquirer_outcome: flag.outcome ?? null,
    acquirer_reference: flag.reference ?? null,
    mismatches: (flag.mismatches ?? []).map((m) => ({ field: m.field, expected: decimal(m.field, m.expected), reported: decimal(m.field, m.reported) })),
  };
}

const NeedsOperatorPayment = Type.Object({
  ...PaymentKeys,
  order_id: Type.String(),
  operation: Type.String({ description: 'The operation left in flight (capture, refund, reversal, void, apm_payout, retry, ...)' }),
  since: Type.String({ description: 'When the operation started (ISO 8601)' }),
  status: Type.String({ description: 'The payment status, unchanged since before the operation' }),
  currency: Type.String(),
  amount: Amount,
  captured_amount: Amount,
  refunded_amount: RefundedAmount,
  held: HeldView,
});

function needsOperatorView(p: Payment): Static<typeof NeedsOperatorPayment> {
  const flag = needsOperatorOf(p);
  return {
    ...paymentKeys(p),
    order_id: p.orderId,
    operation: flag?.operation ?? p.pendingOperation ?? '',
    since: new Date(flag?.since ?? p.updatedAt).toISOString(),
    status: p.status,
    currency: p.currency,
    amount: formatAmount(p.amount, p.currency),
    captured_amount: formatAmount(p.capturedAmount, p.currency),
    refunded_amount: formatAmount(p.refundedAmount, p.currency),
    held: heldView(p)!,
  };
}

// --- one payment -------------------------------------------------------------------------------------------

const TransactionView = Type.Object({
  id: Type.String(),
  type: Type.String(),
  status: Type.String({ description: 'success, fail, waiting (in flight) or undefined' }),
  amount: Amount,
  created_at: Type.String(),
  reason: Nullable(Type.String({ description: 'The connector\'s decline reason' })),
  reference: Nullable(Type.String({ description: 'The connector\'s reference of this operation' })),
  initiated_by: Nullable(Type.Object({ kind: Type.String(), user_id: Nullable(Type.String()), name: Type.String() }, { description: 'Set when an operator started it; null: the merchant' })),
  resolved_by: Nullable(Type.Object({ kind: Type.String(), user_id: Nullable(Type.String()), name: Type.String() }, { description: 'The operator who settled or declined it after checking with the acquirer' })),
  resolution: Nullable(Type.String()),
  note: Nullable(Type.String()),
  reason_given: Nullable(Type.String({ description: 'Why the operator did it (a refund\'s reason), as given with the action; never sent to the merchant' })),
});

const Routing = Type.Object({
  mid_id: Type.String(),
  mid_name: Nullable(Type.String()),
  connector: Nullable(Type.String()),
  payment_mode: Nullable(Type.String({ description: 'The MID\'s current mode' })),
  recorded: Type.Boolean({ description: 'false: no routing decision was recorded for this payment; only the MID is known (see basis)' }),
  basis: Type.Union([Type.Literal('recorded'), Type.Literal('method'), Type.Literal('payment')], { description: 'Where the MID comes from: recorded = the routing decision recorded when the payment was routed; method = the alternative method\'s provider MID (methods are not routed by the rules); payment = the payment\'s MID, routed before decisions were recorded' }),
  intent: Nullable(Type.String()),
  rule: Nullable(Type.String({ description: 'Why this MID: highest_priority = the eligible MID of highest priority; routing_rule = the merchant\'s rule matched_rule' })),
  matched_rule: Nullable(Type.Object({ index: Type.Integer(), name: Type.String() })),
  share: Nullable(Type.Integer({ description: 'The share of a volume split the payment was drawn into' })),
  candidates: Type.Array(Type.String(), { description: 'Eligible MIDs in attempt order (cascading goes down this list)' }),
  skipped_rules: Type.Array(Type.Object({ index: Type.Integer(), name: Type.String() }), { description: 'Rules that matched but named no eligible MID, passed over' }),
  considered: Type.Array(Type.Object({
    mid_id: Type.String(), priority: Type.Integer(), eligible: Type.Boolean(),
    candidate: Type.Boolean({ description: 'Kept: in the attempt order (candidates). An eligible MID that is not a candidate was not named by the matched rule' }),
    reason: Nullable(Type.String({ description: 'Why not eligible (dropped): disabled, payment_mode, connector_unavailable, currency, amount, daily_cap (the MID\'s daily volume cap is reached or cannot take this amount)' })),
  })),
  scores: Type.Array(ScoreView, { description: 'A success-rate rule: each eligible MID\'s score when the payment was routed' }),
  explored: Nullable(Type.Boolean({ description: 'A success-rate rule: whether this payment explored (first MID drawn at random)' })),
  attempts: Type.Array(Type.Object({
    mid_id: Type.String(), trans_id: Type.String(),
    why: Type.String({ description: 'routed: the router\'s choice (an APM initiation or payout too); cascade: the next candidate after a retryable decline; scheduled: a schedule\'s charge; retry: a RETRY of a declined recurring charge' }),
    outcome: Nullable(Type.String({ description: 'pending (sent, no answer yet, or an answer held for an operator), challenge, redirect (waiting for the payer), approved, declined' })),
    code: Nullable(Type.String({ description: 'The unified decline code' })),
    retry: Nullable(Type.String({ description: 'The error table\'s retry decision for that code: no, later, other_mid' })),
    stop: Nullable(Type.String({ description: 'Why no further attempt: hard_decline, authenticated, not_retryable, no_more_candidates, max_attempts, integrity' })),
  }), { description: 'Every acquirer attempt of the payment, in the order made (one per MID tried and per RETRY; a scheduled charge, an APM initiation or payout has one). Before version 030 of the store, only recorded when a payment was tried on more than one MID or a decline stopped the cascade' }),
});

const AuditView = Type.Object({
  id: Type.String(), at: Type.String(), user_id: Nullable(Type.String()), user_name: Type.String(), action: Type.String(),
  object_type: Type.String({ description: 'payment, or callback for a resend of one of its callbacks' }), object_id: Type.String(),
  before: Type.Unknown(), after: Type.Unknown(), details: Type.Unknown(),
});

const AllowedActionView = Type.Object({
  action: choice(['capture', 'refund', 'void', 'resolve'] as const),
  max_amount: Nullable(Type.String({ description: 'The largest amount the action may take (a decimal in the payment\'s currency); null for resolve' })),
  partial: Type.Boolean({ description: 'false: exactly max_amount (a void, the reversal of a held authorization)' }),
});

/** The actions of a payment's state now; resolve while its operation waits for an operator. */
function allowedActionsView(p: Payment): Static<typeof AllowedActionView>[] {
  if (needsOperatorOf(p)) return [{ action: 'resolve', max_amount: null, partial: false }];
  return allowedActions(p).map((a) => ({ action: a.action, max_amount: formatAmount(a.maxAmount, p.currency), partial: a.partial }));
}

const PaymentDetailView = Type.Object({
  payment: Type.Intersect([PaymentSummary, Type.Object({
    description: Type.String(),
    auth: Type.Boolean({ description: 'true: an authorization (DMS)' }),
    decline_reason: Nullable(Type.String()),
    session_id: Nullable(Type.String({ description: 'The Checkout session (its id is the hosted-fields Token): masked (`abcd****wxyz`) for roles that may not act on payments.' })),
    callback_url: Nullable(Type.String()),
    card_details: Nullable(Type.Object({
      mask: Nullable(Type.String()), first6: Nullable(Type.String()), last4: Nullable(Type.String()), brand: Nullable(Type.String()), expiry: Nullable(Type.String({ description: 'MM/YYYY' })),
    })),
    payer: Type.Record(Type.String(), Type.String()),
    three_ds: Nullable(Type.Record(Type.String(), Type.Unknown())),
    connector: Type.Object({ reference: Nullable(Type.String()), rrn: Nullable(Type.String()), approval_code: Nullable(Type.String()) }),
    needs_operator_since: Nullable(Type.String()),
    held: Nullable(HeldView),
    allowed_actions: Type.Array(AllowedActionView, { description: 'The actions the payment\'s state allows now (the state table of domain/operator-actions.ts), whatever the caller\'s role; empty while an operation is in flight, except resolve when it waits for an operator' }),
  })]),
  transactions: Type.Array(TransactionView),
  callbacks: Type.Array(CallbackView),
  routing: Nullable(Routing),
  audit: Type.Array(AuditView),
  money: Type.Object({
    fee: Type.String({ description: 'Fees charged so far, net of fees given back (the ledger\'s).' }),
    net_amount: Type.String({ description: 'What the merchant is owed for the payment after its fees (captured - refunded - fee; a payout\'s is negative).' }),
    entries: Type.Array(Type.Object({
      ref: Type.String({ description: 'The cause: the transaction (or statement, payout, adjustment).' }), event: Type.String(), account: Type.String(), currency: Type.String(),
      amount: Type.String({ description: 'Signed: debit positive, credit negative.' }), created_at: Type.String(),
    })),
  }, { description: 'The payment\'s fee, net amount and ledger entries (issue 27; also GET /admin/v1/payments/{id}/ledger). docs/operators/money.md.' }),
  risk: Type.Union([EvaluationView, Type.Null()], { description: 'The risk screen\'s evaluation (rules matched, score, lists hit, velocity values seen, outcome, review), as GET /admin/v1/risk/payments/{id} answers it; null: never screened. docs/operators/risk.md.' }),
}, {
  examples: [{
    payment: {
      ...SUMMARY_EXAMPLE, status: 'settled', refunded_amount: '5.00', description: 'Order 1042', auth: false, decline_reason: null, session_id: null, callback_url: null,
      card_details: { mask: '411111****1111', first6: '411111', last4: '1111', brand: 'visa', expiry: '01/2038' },
      payer: { email: 'max@example.com', firstName: 'Max', lastName: 'Muster', ip: '203.0.113.7' }, three_ds: null,
      connector: { reference: 'sbx-8f2c', rrn: '123456789012', approval_code: '831000' }, needs_operator_since: null, held: null,
      allowed_actions: [{ action: 'refund', max_amount: '20.00', partial: true }],
    },
    transactions: [
      { id: '01a20bee-bba9-7675-9269-add200f5772e', type: 'sale', status: 'success', amount: '25.00', created_at: '2026-11-24T05:00:00.000Z', reason: null, reference: null, initiated_by: null, resolved_by: null, resolution: null, note: null, reason_given: null },
      { id: '01a20bf0-0c11-7d2a-8e3f-5a6b7c8d9e0f', type: 'refund', status: 'success', amount: '5.00', created_at: '2026-11-24T06:10:00.000Z', reason: null, reference: null, initiated_by: { kind: 'operator', user_id: '01a20bd0-1111-7222-8333-444455556666', name: 'ops@example.com' }, resolved_by: null, resolution: null, note: null, reason_given: 'Customer request: parcel returned' },
    ],
    callbacks: [],
    routing: { mid_id: '01a20bd0-aaaa-7bbb-8ccc-ddddeeeeffff', mid_name: 'EU acquiring', connector: 'sandbox-card', payment_mode: 'SMS/DMS', recorded: true, basis: 'recorded', intent: 'sale', rule: 'highest_priority', matched_rule: null, share: null, candidates: ['01a20bd0-aaaa-7bbb-8ccc-ddddeeeeffff'], skipped_rules: [], considered: [{ mid_id: '01a20bd0-aaaa-7bbb-8ccc-ddddeeeeffff', priority: 10, eligible: true, candidate: true, reason: null }], scores: [], explored: null, attempts: [] },
    audit: [{ id: '01a20bf0-0c12-7000-8000-000000000001', at: '2026-11-24T06:10:00.000Z', user_id: '01a20bd0-1111-7222-8333-444455556666', user_name: 'ops@example.com', action: 'payment.refund', object_type: 'payment', object_id: SUMMARY_EXAMPLE.id, before: { status: 'settled', refunded_amount: '0.00' }, after: { status: 'settled', refunded_amount: '5.00' }, details: { stage: 'requested', trans_id: '01a20bf0-0c11-7d2a-8e3f-5a6b7c8d9e0f' } }],
    money: { fee: '0.60', net_amount: '19.40', entries: [
      { ref: '01a20bf0-0c10-7d2a-8e3f-5a6b7c8d9e0f', event: 'sale', account: `merchant:${SUMMARY_EXAMPLE.merchant_id}:pending`, currency: 'EUR', amount: '-25.00', created_at: '2026-11-24T05:00:01.000Z' },
      { ref: '01a20bf0-0c10-7d2a-8e3f-5a6b7c8d9e0f', event: 'fee', account: `merchant:${SUMMARY_EXAMPLE.merchant_id}:fees`, currency: 'EUR', amount: '0.60', created_at: '2026-11-24T05:00:01.000Z' },
      { ref: '01a20bf0-0c11-7d2a-8e3f-5a6b7c8d9e0f', event: 'refund', account: `merchant:${SUMMARY_EXAMPLE.merchant_id}:pending`, currency: 'EUR', amount: '5.00', created_at: '2026-11-24T06:10:00.000Z' },
    ] },
    risk: { payment_id: SUMMARY_EXAMPLE.id, screened_at: '2026-11-24T05:00:00.000Z', action: 'allow', reason: 'no rule decided', score: 10, outcome: 'approved', review: null, review_deadline: null, device_id: null, evaluation: { action: 'allow', reason: 'no rule decided', score: 10, matched: [{ scope: 'merchant', index: 0, name: 'New e-mail domain', mode: 'active', action: 'score', points: 10 }], lists: [], failed: [], velocity: { 'declines:card:10:': '0' }, decided_by: null } },
  }],
});

const operatorRef = (v: unknown) => {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  return { kind: String(o.kind ?? 'operator'), user_id: str(o.user_id), name: String(o.name ?? '') };
};

function transactionView(t: Transaction, currency: string): Static<typeof TransactionView> {
  const d = t.details ?? {};
  return {
    id: t.id, type: t.type, status: t.status, amount: formatAmount(t.amount, currency), created_at: t.createdAt.toISOString(),
    reason: str(d.reason), reference: str(d.reference), initiated_by: operatorRef(d.initiatedBy), resolved_by: operatorRef(d.resolvedBy),
    resolution: str(d.resolution), note: str(d.note),
    reason_given: str((d.initiatedBy as Record<string, unknown> | undefined)?.reason),
  };
}

function routingView(d: PaymentDetail): Static<typeof Routing> | null {
  const midId = d.routing?.midId ?? midOf(d.payment);
  if (!midId) return null;
  const basis = d.routing !== undefined ? 'recorded' as const : apmOf(d.payment) ? 'method' as const : 'payment' as const;
  return {
    mid_id: midId, mid_name: d.mid?.name ?? null, connector: d.mid?.connector ?? null, payment_mode: d.mid?.paymentMode ?? null,
    recorded: d.routing !== undefined, basis, intent: d.routing?.intent ?? null, rule: d.routing?.rule ?? null,
    matched_rule: d.routing?.matchedRule ?? null, share: d.routing?.share ?? null, candidates: d.routing?.candidates ?? [midId],
    skipped_rules: d.routing?.skippedRules ?? [],
    considered: (d.routing?.considered ?? []).map((c) => ({
      mid_id: c.midId, priority: c.priority, eligible: c.eligible, candidate: (d.routing?.candidates ?? [midId]).includes(c.midId), reason: c.reason ?? null,
    })),
    scores: d.routing?.scores ?? [], explored: d.routing?.explored ?? null,
    attempts: d.attempts.map((a) => ({
      mid_id: a.midId ?? midId, trans_id: a.id, why: a.why, outcome: a.status, code: a.declineCode, retry: a.retry, stop: a.stop,
    })),
  };
}

function payerView(p: Payment): Record<string, string> {
  return Object.fromEntries(Object.entries(p.payer).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function detailView(d: PaymentDetail, role: Role, now: Date): Static<typeof PaymentDetailView> {
  const p = d.payment;
  const f6l4 = str(p.details.first6Last4);
  const flag = needsOperatorOf(p);
  return {
    payment: {
      ...summary(p),
      description: p.description,
      auth: p.auth,
      decline_reason: p.declineReason,
      session_id: p.sessionId === null || seesSessionTokens(role) ? p.sessionId : maskedToken(p.sessionId),
      callback_url: p.callbackUrl,
      card_details: p.details.cardMask || f6l4
        ? { mask: str(p.details.cardMask), first6: f6l4?.slice(0, 6) ?? null, last4: f6l4?.slice(-4) ?? null, brand: str(p.details.brand), expiry: str(p.details.cardExpiry) }
        : null,
      payer: payerView(p),
      three_ds: p.threeDs ? { ...p.threeDs } : null,
      connector: { reference: str(p.details.connectorRef), rrn: str(p.details.rrn), approval_code: str(p.details.approvalCode) },
      needs_operator_since: flag ? new Date(flag.since).toISOString() : null,
      held: heldView(p),
      allowed_actions: allowedActionsView(p),
    },
    transactions: d.transactions.map((t) => transactionView(t, p.currency)),
    callbacks: d.callbacks.map((c) => presentCallback(c, now)),
    routing: routingView(d),
    audit: d.audit.map((a) => ({
      id: a.id, at: a.at.toISOString(), user_id: a.userId, user_name: a.userName, action: a.action, object_type: a.objectType, object_id: a.objectId,
      before: a.before, after: a.after, details: a.details,
    })),
    money: { fee: d.money.fee, net_amount: d.money.net_amount, entries: d.money.entries },
    risk: d.risk ? evaluationView(d.risk) : null,
  };
}

// --- actions -------------------------------------------------------------------------------------------------

export const IdParams = Type.Object({ id: Type.String({ maxLength: 64, description: 'Payment id' }) });
export type IdParams = Static<typeof IdParams>;

/**
 * The body and answer of a payment action (capture, void, refund): the operators' here, the portal's users' in
 * channels/portal, each API describing the reason, the pending result and the example in its own words.
 */
export function actionSchemas(words: { reason: string; example: { amount: string; reason: string }; pending: string; payment: Partial<PaymentSummary> }) {
  const body = Type.Object({
    amount: Type.Optional(Type.String({ maxLength: 32, description: 'Decimal in the payment\'s currency; omitted: the whole remaining amount' })),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: words.reason })),
  }, { additionalProperties: false, examples: [words.example] });
  const result = Type.Object({
    result: Type.String({ description: `approved, declined, or pending (${words.pending})` }),
    reason: Nullable(Type.String()),
    trans_id: Type.String(),
    payment: PaymentSummary,
  }, { examples: [{ result: 'approved', reason: null, trans_id: '6f1e0d3c-7a2b-4c5d-8e9f-0a1b2c3d4e5f', payment: { ...SUMMARY_EXAMPLE, ...words.payment } }] });
  return { body, result };
}

/** A payment action's answer (actionSchemas' result). */
export const actionAnswer = (done: FollowUpResult) => ({
  result: done.outcome.kind,
  reason: done.outcome.kind === 'declined' ? done.outcome.reason : null,
  trans_id: done.transId,
  payment: summary(done.payment),
});

const { body: ActionBody, result: ActionResult } = actionSchemas({
  reason: 'Why (a refund\'s reason: customer request, duplicate, fraud, ...): kept on the transaction (reason_given) and in the audit log; never sent to the merchant',
  example: { amount: '5.00', reason: 'Customer request: parcel returned' },
  pending: 'the acquirer has not answered: the operation stays in flight',
  payment: { status: 'settled', refunded_amount: '5.00' },
});
type ActionBody = Static<typeof ActionBody>;

const BulkRefundBody = Type.Object({
  items: Type.Array(Type.Object({
    payment_id: Type.String({ maxLength: 64, description: 'Payment id' }),
    amount: Type.Optional(Type.String({ maxLength: 32, description: 'Decimal in the payment\'s currency; omitted: what is left to refund (a held authorization is reversed)' })),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Why, as for one refund: kept on the transaction (reason_given) and in the audit log; never sent to the merchant' })),
    idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The item\'s own key (the operator\'s keys): the same key with the same item replays the first answer (replayed: true) instead of refunding again' })),
  }, { additionalProperties: false }), { minItems: 1, maxItems: MAX_BULK_REFUND, description: `1 to ${MAX_BULK_REFUND} payments, each at most once` }),
}, {
  additionalProperties: false,
  examples: [{ items: [
    { payment_id: 'b3e1c7a2-5d4f-4e8a-9c1b-2f6d8e0a4c7e', reason: 'Customer request: parcel returned', idempotency_key: 'f47ac10b-58cc-4372-a567-0e02b2c3d479' },
    { payment_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', amount: '5.00', reason: 'Duplicate', idempotency_key: '9b2f6a3e-1d4c-4f8b-8a7e-3c5d2e1f0a9b' },
  ] }],
});
type BulkRefundBody = Static<typeof BulkRefundBody>;

const BulkRefundItemAnswer = Type.Union([
  Type.Object({
    payment_id: Type.String(), ok: Type.Literal(true, { description: 'The refund ran: its result says whether the acquirer approved it' }),
    result: Type.String({ description: 'approved, declined, or pending (the acquirer has not answered: the operation stays in flight)' }),
    reason: Nullable(Type.String()), trans_id: Type.String(), payment: PaymentSummary,
    replayed: Type.Boolean({ description: 'The first answer under this item\'s idempotency key, not a second refund' }),
  }),
  Type.Object({
    payment_id: Type.String(), ok: Type.Literal(false, { description: 'The refund was refused: the D3 error of POST /admin/v1/payments/{id}/refund' }),
    error: ErrorBody, replayed: Type.Boolean(),
  }),
]);

const ResolveBody = Type.Object({
  outcome: choice(['settled', 'declined'] as const, 'settled: the acquirer did carry the operation out; declined: it did not'),
  note: Type.String({ minLength: 1, maxLength: 1000, description: 'What was checked with the acquirer (kept in the audit log; never sent to the merchant)' }),
}, { additionalProperties: false, examples: [{ outcome: 'settled', note: 'Acquirer portal shows the refund as processed, ARN 74537605..' }] });
type ResolveBody = Static<typeof ResolveBody>;

const ACTION_TEXT: Readonly<Record<OperatorAction, { summary: string; description: string }>> = {
  capture: { summary: 'Capture a held authorization', description: 'In full, or once in part with `amount`.' },
  refund: { summary: 'Refund a settled payment, or reverse a held authorization', description: 'Several partial refunds up to the captured amount; the whole remainder without `amount`. A held authorization is reversed (whole amount only), as CREDITVOID does.' },
  void: { summary: 'Void a settled payment with nothing refunded', description: 'Same rules as the merchant\'s VOID.' },
};

/** Action routes accept a POST without a body as an empty one. */
async function emptyBodyAsObject(req: FastifyRequest) {
  req.body ??= {};
}

export function registerAdminPaymentRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const read = requirePermission('payments.read');
  const act = requirePermission('payments.act');

  app.get<{ Querystring: SearchQuery }>('/payments', {
    onRequest: read,
    schema: {
      ...TAG,
      summary: 'Search payments, newest first',
      description: 'Every filter narrows the search (AND). Paged by an opaque cursor: pass `next_cursor` as `cursor` for the next page; '
        + 'null on the last page. An unknown filter or a value that cannot be read is refused with 400, never ignored.',
      querystring: SearchQuerySchema,
      response: {
        200: Type.Object({ payments: Type.Array(PaymentSummary), next_cursor: Nullable(Type.String()) }, { examples: [{ payments: [SUMMARY_EXAMPLE], next_cursor: 'MjAyNi0xMS0yNFQwNTowMDowMC4wMDBafGIzZTFjN2Ey' }] }),
        ...ErrorResponses,
      },
    },
  }, async (req) => {
    const page = await searchPage(ctx, req.query);
    return { payments: page.payments.map(summary), next_cursor: page.nextCursor };
  });

  app.get<{ Querystring: { merchant_id?: string; mode?: 'test' | 'live'; limit?: string } }>('/payments/needs-operator', {
    onRequest: read,
    schema: {
      ...TAG,
      summary: 'Payments with an operation left in flight that an operator must resolve, longest waiting first',
      description: 'Resolve each with POST /admin/v1/payments/{id}/resolve once the acquirer has said whether it carried the operation out.',
      querystring: Type.Object({
        merchant_id: Type.Optional(Type.String({ maxLength: 64 })),
        mode: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('live')], { description: 'test: only test keys\' (sandbox merchants\') payments; live: only live keys\'. Absent: both.', examples: ['live'] })),
        limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: pageSizeText(1000, 100) })),
      }),
      response: { 200: Type.Object({ payments: Type.Array(NeedsOperatorPayment) }), ...ErrorResponses },
    },
  }, async (req) => {
    const limit = pageSize(req.query.limit, 1000) ?? 100;
    const payments = await findPaymentsNeedingOperator(ctx.db, { merchantId: req.query.merchant_id, ...(req.query.mode ? { mode: req.query.mode } : {}), limit });
    return { payments: payments.map(needsOperatorView) };
  });

  app.get<{ Params: IdParams }>('/payments/:id', {
    onRequest: read,
    schema: {
      ...TAG,
      summary: 'One payment with its transactions, callbacks and attempts, routing decision, 3-D Secure data and audit entries',
      description: 'The card appears masked only. The MID shown is the MID as it is now; the routing decision as it was recorded.',
      params: IdParams,
      response: { 200: PaymentDetailView, ...ErrorResponses },
    },
  }, async (req) => detailView(await paymentDetail(ctx, req.params.id), req.operator!.role, ctx.clock.now()));

  for (const action of ['capture', 'void', 'refund'] as const) {
    app.post<{ Params: IdParams; Body: ActionBody }>(`/payments/:id/${action}`, {
      onRequest: act,
      preValidation: emptyBodyAsObject,
      schema: {
        ...TAG,
        summary: ACTION_TEXT[action].summary,
        description: `${ACTION_TEXT[action].description} Runs through the same compare-and-set engine as the merchant channels: the merchant gets the same callback, `
          + 'racing requests cannot both move money (409 while one is in flight), and refunds never exceed the captured amount. '
          + 'Send an `Idempotency-Key` header so that a double click replays the first answer. The transaction names the operator; '
          + 'the action is in the audit log. Permission payments.act (admin, operator).',
        params: IdParams,
        ...(action === 'void' ? {} : { body: ActionBody }),
        response: { 200: ActionResult, ...ErrorResponses, ...Conflict },
      },
    }, async (req) => {
      const amount = action === 'void' ? undefined : req.body?.amount;
      const reason = action === 'void' ? undefined : req.body?.reason?.trim() || undefined;
      return actionAnswer(await operatorFollowUp(ctx, actorOf(req), req.params.id, action, amount, undefined, reason));
    });
  }

  app.post<{ Body: BulkRefundBody }>('/payments/refund', {
    onRequest: act,
    schema: {
      ...TAG,
      summary: 'Refund several payments: each item as POST /admin/v1/payments/{id}/refund, answered item by item',
      description: `Up to ${MAX_BULK_REFUND} payments (e.g. the rows ticked in the console), each with an optional amount (omitted: what is left) and reason. `
        + 'They run one after the other, each the same compare-and-set as one refund (the merchant gets each callback; a payment with an operation in '
        + 'flight is refused, never refunded twice), each audited. Every item is answered in the order given: `ok: true` with the refund\'s result '
        + '(approved, declined, pending), or `ok: false` with the D3 error the single route answers. Give each item an `idempotency_key` so that '
        + 'a retry of the request (or of one item) replays the first answers instead of refunding again. A payment listed twice answers 400. '
        + 'Permission payments.act (admin, operator).',
      body: BulkRefundBody,
      response: {
        200: Type.Object({ items: Type.Array(BulkRefundItemAnswer) }, { examples: [{ items: [
          { payment_id: SUMMARY_EXAMPLE.id, ok: true, result: 'approved', reason: null, trans_id: '6f1e0d3c-7a2b-4c5d-8e9f-0a1b2c3d4e5f', payment: { ...SUMMARY_EXAMPLE, status: 'refunded', refunded_amount: '25.00' }, replayed: false },
          { payment_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', ok: false, error: { http_code: 404, error_code: '100000', error_message: 'Not found.' }, replayed: false },
        ] }] }),
        ...ErrorResponses,
      },
    },
  }, async (req) => {
    const items = req.body.items;
    const seen = new Set<string>();
    items.forEach((item, i) => {
      if (seen.has(item.payment_id)) throw GatewayError.field(`items[${i}].payment_id`, 'This payment is listed twice: give it once, with the amount to refund.');
      seen.add(item.payment_id);
    });
    const answers = await refundMany(ctx, actorOf(req), items.map((i) => ({
      paymentId: i.payment_id, ...(i.amount !== undefined ? { amount: i.amount } : {}), ...(i.reason !== undefined ? { reason: i.reason } : {}),
      ...(i.idempotency_key !== undefined ? { idempotencyKey: i.idempotency_key } : {}),
    })), actionAnswer);
    return {
      items: answers.map((a) => (a.ok
        ? { payment_id: a.paymentId, ok: true as const, ...a.refund, replayed: a.replayed }
        : { payment_id: a.paymentId, ok: false as const, error: a.error, replayed: a.replayed })),
    };
  });

  app.post<{ Params: IdParams; Body: ResolveBody }>('/payments/:id/resolve', {
    onRequest: act,
    schema: {
      ...TAG,
      summary: 'Resolve an operation left in flight, after checking with the acquirer',
      description: 'Only for a payment on the needs-operator list. `settled` applies the operation as if the acquirer had approved it, '
        + '`declined` as if it had declined it (a reserved refund amount is released); the merchant gets the callback the outcome implies. '
        + 'A compare-and-set: a second resolve answers 409. Permission payments.act; audited with the note.',
      params: IdParams,
      body: ResolveBody,
      response: { 200: Type.Object({ trans_id: Type.String(), payment: PaymentSummary }), ...ErrorResponses, ...Conflict },
    },
  }, async (req) => {
    const { payment, transId } = await resolveInFlight(ctx, actorOf(req), req.params.id, req.body);
    return { trans_id: transId, payment: summary(payment) };
  });
}
