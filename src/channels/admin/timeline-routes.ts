/**
 * A payment's timeline and its internal notes (issue 31 items 6 and 10): GET /admin/v1/payments/{id}/timeline tells
 * the payment's story in time order, grouped by attempt, with its status and 3-D Secure in words and the other tries
 * of its order; POST /admin/v1/payments/{id}/notes writes an operator's note (audited, never sent to the merchant).
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { addPaymentNote, paymentTimelineOf } from '../../services/admin/payment-timeline.ts';
import { formatAmount } from '../../domain/money.ts';
import { ADMIN_TAG as TAG, actorOf, requirePermission } from './operator-auth.ts';
import { ErrorResponses } from './errors.ts';
import { IdParams } from './payment-routes.ts';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

const StatusWords = Type.Object({
  code: Type.String({ description: 'The stored status (settled, decline, 3ds, ...)' }),
  words: Type.String({ description: 'In a few words: Paid, Partially refunded, Abandoned at 3-D Secure, Declined, ...' }),
  explanation: Type.String({ description: 'One sentence more' }),
});

const Step = Type.Object({
  at: Type.String(),
  kind: Type.Union(['created', 'risk', 'routing', 'three_ds', 'acquirer', 'money', 'callback', 'operator', 'note', 'dispute'].map((k) => Type.Literal(k))),
  attempt: Nullable(Type.Integer({ description: 'The attempt (its seq) the step belongs to; null: the payment\'s own step' })),
  text: Type.String({ description: 'What happened, in a sentence' }),
  outcome: Nullable(Type.String({ description: 'approved, declined, delivered, failed, waiting, ... where the step has one' })),
  by: Nullable(Type.String({ description: 'The operator or merchant user who did it; null: the gateway, the payer or the acquirer' })),
  risk: Type.Optional(Type.Object({
    action: Type.String({ description: 'What the screen decided: allow, block, review, require_3ds' }),
    reason: Type.String({ description: 'Why: the rule or list that decided, or the score' }),
    score: Type.Integer({ description: 'The score the score rules added up to (0-100)' }),
    rules: Type.Array(Type.Object({ scope: Type.String({ description: 'platform or merchant' }), name: Type.String(), mode: Type.String({ description: 'active or shadow' }), action: Type.String({ description: 'The rule\'s outcome: block, review, require_3ds, allow, score' }) }),
      { description: 'Every rule that matched, active and shadow, in evaluation order' }),
    lists: Type.Array(Type.Object({ scope: Type.String(), list: Type.String({ description: 'allow or block' }), kind: Type.String({ description: 'card, bin, email, email_domain, ip, country, device' }) }), { description: 'The list entries the payment hit' }),
    failed: Type.Array(Type.Object({ scope: Type.String(), name: Type.String() }), { description: 'Rules skipped because their evaluation failed' }),
  }, { description: 'Kind risk only: the risk screen\'s evaluation (GET /admin/v1/payments/{id}/risk has it whole, with the counter values read)' })),
});

const TimelineView = Type.Object({
  payment_id: Type.String(),
  order_id: Type.String(),
  status: StatusWords,
  three_ds: Nullable(Type.String({ description: 'The payment\'s 3-D Secure in words (version, flow, result, ECI)' })),
  order: Type.Array(Type.Object({
    payment_id: Type.String(), status: StatusWords, amount: Type.String(), currency: Type.String(), created_at: Type.String(),
    current: Type.Boolean({ description: 'The payment this timeline is of' }),
  }), { description: 'Every try of the payment\'s Hosted Checkout session (its order), first first; empty when it has no session' }),
  attempts: Type.Array(Type.Object({
    seq: Type.Integer(), mid_id: Nullable(Type.String()), mid_name: Nullable(Type.String()), connector: Nullable(Type.String()),
    why: Type.String(), status: Type.String(), started_at: Type.String(), finished_at: Nullable(Type.String()),
  }), { description: 'The attempts at acquirers, in order; each step names its attempt' }),
  steps: Type.Array(Step, { description: 'In time order' }),
}, {
  examples: [{
    payment_id: '01a20bee-bba9-7675-9269-add200f5772e', order_id: 'order-1042',
    status: { code: 'settled', words: 'Partially refunded', explanation: '5.00 EUR of 25.00 EUR refunded.' },
    three_ds: '3-D Secure 2.2.0, challenge (the payer confirmed at their bank): authenticated: the payer confirmed it (ECI 05)',
    order: [],
    attempts: [{ seq: 1, mid_id: '01a20bd0-aaaa-7bbb-8ccc-ddddeeeeffff', mid_name: 'EU acquiring', connector: 'sandbox-card', why: 'routed', status: 'approved', started_at: '2026-11-24T05:00:00.000Z', finished_at: '2026-11-24T05:00:01.000Z' }],
    steps: [
      { at: '2026-11-24T05:00:00.000Z', kind: 'created', attempt: null, text: 'Created: purchase of 25.00 EUR through checkout, order order-1042', outcome: null, by: null },
      { at: '2026-11-24T05:00:00.000Z', kind: 'risk', attempt: null, text: 'Risk screen: allow (no rule matched; score 10); rules matched: New e-mail domain (merchant, score)', outcome: 'allow', by: null,
        risk: { action: 'allow', reason: 'no rule matched', score: 10, rules: [{ scope: 'merchant', name: 'New e-mail domain', mode: 'active', action: 'score' }], lists: [], failed: [] } },
      { at: '2026-11-24T05:00:00.000Z', kind: 'routing', attempt: 1, text: 'Attempt 1: 25.00 EUR sent to EU acquiring (sandbox-card), the router\'s choice', outcome: null, by: null },
      { at: '2026-11-24T05:00:01.000Z', kind: 'acquirer', attempt: 1, text: 'Acquirer approved; reference SBX-1', outcome: 'approved', by: null },
      { at: '2026-11-24T06:10:00.000Z', kind: 'money', attempt: null, text: 'Refund of 5.00 EUR: approved; reason: Customer request', outcome: 'approved', by: 'ops@example.com' },
    ],
  }],
});

const NoteBody = Type.Object({ note: Type.String({ minLength: 1, maxLength: 2000, description: 'The note; kept for good in the audit log with who and when' }) },
  { additionalProperties: false, examples: [{ note: 'Payer called: the parcel came back damaged; refund agreed with the shop.' }] });
type NoteBody = Static<typeof NoteBody>;

export function registerAdminTimelineRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Params: IdParams }>('/payments/:id/timeline', {
    onRequest: requirePermission('payments.read'),
    schema: {
      ...TAG,
      summary: 'A payment\'s timeline: every step in time order, grouped by attempt, statuses in words',
      description: 'Creation, the risk screen, each attempt at an acquirer (MID, why, 3-D Secure, the acquirer\'s answer), captures, refunds and voids '
        + '(who asked and why), every callback delivery, operators\' actions and notes, and disputes; the other tries of the payment\'s Checkout session '
        + '(its order). Reads what GET /admin/v1/payments/{id} reads. Permission payments.read.',
      params: IdParams,
      response: { 200: TimelineView, ...ErrorResponses },
    },
  }, async (req) => {
    const t = await paymentTimelineOf(ctx, req.params.id);
    return {
      payment_id: t.payment.id, order_id: t.payment.orderId, status: t.status, three_ds: t.threeDs,
      order: t.order.map((o) => ({ payment_id: o.paymentId, status: o.status, amount: formatAmount(o.amount, o.currency), currency: o.currency, created_at: o.createdAt.toISOString(), current: o.current })),
      attempts: t.attempts.map((a) => ({
        seq: a.seq, mid_id: a.midId, mid_name: a.midName, connector: a.connector, why: a.why, status: a.status,
        started_at: a.createdAt.toISOString(), finished_at: a.finishedAt?.toISOString() ?? null,
      })),
      steps: t.steps.map((s) => ({ at: s.at.toISOString(), kind: s.kind, attempt: s.attempt, text: s.text, outcome: s.outcome, by: s.by, ...(s.risk ? { risk: s.risk } : {}) })),
    };
  });

  app.post<{ Params: IdParams; Body: NoteBody }>('/payments/:id/notes', {
    onRequest: requirePermission('payments.note'),
    schema: {
      ...TAG,
      summary: 'Write an internal note on a payment',
      description: 'For the operators only: kept in the audit log (payment.note) with who and when, shown in the payment\'s timeline and audit entries, '
        + 'never sent to the merchant nor shown in the merchant portal. Notes are not edited or deleted: write another. Permission payments.note (admin, operator, support).',
      params: IdParams,
      body: NoteBody,
      response: { 200: Type.Object({ payment_id: Type.String(), at: Type.String() }, { examples: [{ payment_id: '01a20bee-bba9-7675-9269-add200f5772e', at: '2026-11-24T06:12:00.000Z' }] }), ...ErrorResponses },
    },
  }, async (req) => {
    const { at } = await addPaymentNote(ctx, actorOf(req), req.params.id, req.body.note);
    return { payment_id: req.params.id, at: at.toISOString() };
  });
}
