/**
 * A payment's timeline (issue 31 item 6): every step of its story in time order, in words an operator reads:
 * creation, the risk screen, each attempt at an acquirer (which MID, why, 3-D Secure, the acquirer's answer),
 * captures, refunds and voids with who asked and why, each callback delivery, operators' actions and notes, disputes.
 * Pure: the service reads the rows (services/admin/payment-timeline.ts) and hands them in with now.
 */
import type { Payment, Transaction, ThreeDsAttributes } from './model/payment.ts';
import type { PaymentAttempt } from './model/attempt.ts';
import { DECLINES, isUnifiedCode } from './declines.ts';
import { formatAmount } from './money.ts';
import { callbackEventOf } from './callback-delivery.ts';
import type { FormFields } from './form-encoding.ts';

/**
 * A payment still waiting for its payer this long after its last change is called abandoned: a payer sent to 3-D
 * Secure or a provider's page, or an S2S payment never finished. A Checkout session's payment waits instead until
 * its session expires (`session_expiry`, 1 to 720 minutes), as the payer may pay until then.
 */
export const ABANDONED_AFTER_MS = 60 * 60_000;

export type StepKind = 'created' | 'risk' | 'routing' | 'three_ds' | 'acquirer' | 'money' | 'callback' | 'operator' | 'note' | 'dispute';

export interface TimelineStep {
  at: Date;
  kind: StepKind;
  /** The attempt (its seq) the step belongs to; null for the payment's own steps. */
  attempt: number | null;
  /** What happened, in a sentence. */
  text: string;
  /** Its outcome in a word where it has one (approved, declined, delivered, failed, ...). */
  outcome: string | null;
  /** Who: an operator or merchant user; null for the gateway, the payer or the acquirer. */
  by: string | null;
  /** The risk step's evaluation (kind risk only): what it decided, the score, the rules matched, the lists hit. */
  risk?: TimelineRisk;
}

/** What the risk screen's step shows of its evaluation (domain/risk/evaluate.ts RiskEvaluation). */
export interface TimelineRisk {
  action: string;
  reason: string;
  score: number;
  /** Every rule that matched, active and shadow, in evaluation order. */
  rules: readonly { scope: string; name: string; mode: string; action: string }[];
  lists: readonly { scope: string; list: string; kind: string }[];
  /** Rules skipped because their evaluation failed. */
  failed: readonly { scope: string; name: string }[];
}

export interface TimelineInput {
  payment: Payment;
  transactions: readonly Transaction[];
  attempts: readonly PaymentAttempt[];
  callbacks: readonly { id: string; createdAt: Date; url: string; fields: FormFields; attemptLog: readonly { attemptedAt: Date; httpStatus: number | null; outcome: string; error: string | null; durationMs: number }[] }[];
  audit: readonly { at: Date; userName: string; action: string; details: unknown }[];
  risk: (TimelineRisk & { createdAt: Date }) | undefined;
  disputes: readonly { createdAt: Date; stage: string; status: string; amount: bigint; currency: string; reasonCode: string | null }[];
  /** MID names by id. */
  midNames: ReadonlyMap<string, string>;
}

// --- statuses in words ---------------------------------------------------------------------------------------

export interface StatusInWords {
  /** The stored status (settled, decline, ...). */
  code: string;
  /** A few words: "Partially refunded", "Abandoned at 3-D Secure", ... */
  words: string;
  /** One sentence more. */
  explanation: string;
}

export interface StatusContext {
  /** Set while the risk screen holds the payment for an operator's review (it waits in prepare, up to its deadline). */
  review?: { deadline: Date | null };
  /** When the payment's Checkout session expires (a payment opened by a session waits for its payer until then). */
  sessionExpiresAt?: Date;
}

export function statusInWords(
  p: Pick<Payment, 'status' | 'amount' | 'currency' | 'capturedAmount' | 'refundedAmount' | 'declineReason' | 'createdAt' | 'updatedAt'>,
  now: Date,
  { review, sessionExpiresAt }: StatusContext = {},
): StatusInWords {
  const money = (minor: bigint) => `${formatAmount(minor, p.currency)} ${p.currency}`;
  const stale = now.getTime() - p.updatedAt.getTime() > ABANDONED_AFTER_MS;
  const expired = sessionExpiresAt !== undefined && now.getTime() >= sessionExpiresAt.getTime();
  const say = (words: string, explanation: string): StatusInWords => ({ code: p.status, words, explanation });
  switch (p.status) {
    case 'prepare':
      if (review) return say('Held for risk review', `The risk screen holds it until an operator approves or declines it${review.deadline ? ` (declined by itself at ${review.deadline.toISOString()})` : ''}; no acquirer was asked yet.`);
      if (sessionExpiresAt) {
        return expired
          ? say('Abandoned', `The payer never finished paying: the Checkout session expired at ${sessionExpiresAt.toISOString()}. No money moved.`)
          : say('Waiting for the payer', `Created; the payer has not paid yet (the Checkout session expires at ${sessionExpiresAt.toISOString()}).`);
      }
      return stale
        ? say('Abandoned', 'The payer never finished paying: nothing happened for over an hour. No money moved.')
        : say('Waiting for the payer', 'Created; the payer has not paid yet.');
    case '3ds':
      return stale
        ? say('Abandoned at 3-D Secure', 'The payer was sent to their bank to confirm the payment and never came back. No money moved.')
        : say('Waiting for 3-D Secure', 'The payer\'s bank asks the payer to confirm the payment (a 3-D Secure challenge).');
    case 'redirect':
      return stale
        ? say('Abandoned at the provider', 'The payer was sent to the payment provider\'s page and never came back. No money moved.')
        : say('Waiting for the payer at the provider', 'The payer is on the payment provider\'s page.');
    case 'pending':
      return p.capturedAmount > 0n
        ? say('Partially captured', `${money(p.capturedAmount)} of ${money(p.amount)} captured.`)
        : say('Authorized', `${money(p.amount)} held on the payer's card, not captured yet.`);
    case 'settled':
      return p.refundedAmount > 0n
        ? say('Partially refunded', `${money(p.refundedAmount)} of ${money(p.capturedAmount > 0n ? p.capturedAmount : p.amount)} refunded.`)
        : say('Paid', `${money(p.capturedAmount > 0n ? p.capturedAmount : p.amount)} taken.`);
    case 'decline':
      return say('Declined', p.declineReason ? `${p.declineReason}.`.replace(/\.\.$/, '.') : 'The payment was declined.');
    case 'refund':
      return say('Refunded', `${money(p.refundedAmount)} refunded in full.`);
    case 'reversal':
      return say('Reversed', 'The held amount was released to the payer; nothing was taken.');
    case 'void':
      return say('Voided', 'Cancelled before it was settled; nothing was taken.');
    case 'chargeback':
      return say('Charged back', 'The payer\'s bank took the money back.');
  }
}

// --- 3-D Secure in words -------------------------------------------------------------------------------------

const TRANS_STATUS: Record<string, string> = {
  Y: 'authenticated: the payer confirmed it',
  A: 'attempted: the bank could not check the payer but vouches for the attempt',
  N: 'not authenticated: the payer failed or refused the check',
  U: 'not performed: the bank could not run the check',
  R: 'rejected by the bank',
  C: 'challenge required',
  I: 'informational only',
};

/** "3-D Secure 2.2.0, challenge: authenticated: the payer confirmed it (ECI 05)". */
export function threeDsInWords(t: ThreeDsAttributes | null | undefined): string | null {
  if (!t) return null;
  const status = TRANS_STATUS[t.transStatus] ?? `status ${t.transStatus}`;
  const flow = t.authenticationFlow === 'Challenge' ? 'challenge (the payer confirmed at their bank)' : 'frictionless (no question to the payer)';
  return `3-D Secure ${t.protocolVersion}, ${flow}: ${status}${t.eci ? ` (ECI ${t.eci})` : ''}`;
}

// --- the timeline ---------------------------------------------------------------------------------------------

const WHY: Record<PaymentAttempt['why'], string> = {
  routed: 'the router\'s choice',
  cascade: 'cascaded after a decline on the MID before',
  scheduled: 'a scheduled charge',
  retry: 'the merchant\'s retry',
};
const STOP: Record<string, string> = {
  hard_decline: 'a hard decline: no other MID tried',
  authenticated: 'the payer had authenticated: not retried elsewhere',
  not_retryable: 'not a decline another MID could change',
  no_more_candidates: 'no MID left to try',
  max_attempts: 'the most attempts allowed were made',
  integrity: 'the acquirer answered about another amount or reference',
};
const MONEY_TEXT: Partial<Record<Transaction['type'], string>> = {
  capture: 'Capture', refund: 'Refund', reversal: 'Reversal', void: 'Void', chargeback: 'Chargeback', credit: 'Credit',
};
/** The audit actions the money steps show already (a transaction names who asked). */
const SHOWN_BY_TRANSACTIONS = /^payment\.(capture|refund|reversal|void|follow_up)$/;

const declineText = (code: string | null): string | null => (code && isUnifiedCode(code) ? `${DECLINES[code].message} (${code})` : code);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** "Risk screen: block (merchant rule: Large; score 20); rules matched: Large (merchant, block), New mail (merchant, shadow: score)". */
function riskText(r: TimelineRisk): string {
  const parts = [`Risk screen: ${r.action} (${r.reason}; score ${r.score})`];
  if (r.rules.length > 0) parts.push(`rules matched: ${r.rules.map((m) => `${m.name} (${m.scope}, ${m.mode === 'shadow' ? `shadow: ${m.action}` : m.action})`).join(', ')}`);
  if (r.lists.length > 0) parts.push(`lists hit: ${r.lists.map((l) => `${l.scope} ${l.list} list (${l.kind})`).join(', ')}`);
  if (r.failed.length > 0) parts.push(`rules that failed: ${r.failed.map((f) => `${f.name} (${f.scope})`).join(', ')}`);
  return parts.join('; ');
}

const REVIEW_DECISIONS: Record<string, string> = {
  'risk.review.approve': 'Risk review approved: sent on to the acquirer',
  'risk.review.decline': 'Risk review declined',
  'risk.review.expire': 'Risk review expired: declined at its deadline',
};

export function paymentTimeline(input: TimelineInput): TimelineStep[] {
  const { payment: p, midNames } = input;
  const steps: TimelineStep[] = [];
  const add = (s: Omit<TimelineStep, 'attempt' | 'by' | 'outcome'> & Partial<TimelineStep>) =>
    steps.push({ attempt: null, by: null, outcome: null, ...s });
  const money = (minor: bigint, currency = p.currency) => `${formatAmount(minor, currency)} ${currency}`;
  const opened = new Set(input.attempts.map((a) => a.id));
  const attemptAt = (at: Date) => [...input.attempts].reverse().find((a) => a.createdAt <= at)?.seq ?? null;

  add({ at: p.createdAt, kind: 'created', text: `Created: ${p.operation} of ${money(p.amount)} through ${p.channel}, order ${p.orderId}` });
  if (input.risk) {
    const { createdAt, ...risk } = input.risk;
    add({ at: createdAt, kind: 'risk', text: riskText(risk), outcome: risk.action, risk });
  }

  for (const a of input.attempts) {
    const mid = a.midId ? (midNames.get(a.midId) ?? a.midId) : 'the merchant\'s provider';
    // An attempt opened before the screen stopped it (a scheduled charge's, opened with its claim): nothing was sent.
    if (a.declineCode === 'risk_blocked') {
      add({ at: a.createdAt, kind: 'routing', attempt: a.seq, text: `Attempt ${a.seq}: ${money(a.amount, a.currency)} for ${mid}${a.connector ? ` (${a.connector})` : ''}, ${WHY[a.why]}: stopped by the risk screen (risk_blocked), the acquirer was not asked`, outcome: 'declined' });
      continue;
    }
    add({ at: a.createdAt, kind: 'routing', attempt: a.seq, text: `Attempt ${a.seq}: ${money(a.amount, a.currency)} sent to ${mid}${a.connector ? ` (${a.connector})` : ''}, ${WHY[a.why]}` });
    if (a.finishedAt && (a.status === 'approved' || a.status === 'declined')) {
      const parts = [a.status === 'approved' ? 'Acquirer approved' : `Acquirer declined: ${declineText(a.declineCode) ?? 'no reason given'}`];
      if (a.acquirerRef) parts.push(`reference ${a.acquirerRef}`);
      if (a.stop) parts.push(`stopped: ${STOP[a.stop] ?? a.stop}`);
      add({ at: a.finishedAt, kind: 'acquirer', attempt: a.seq, text: parts.join('; '), outcome: a.status });
    } else if (!a.finishedAt) {
      const waiting = a.status === 'challenge' ? 'waiting for the payer at 3-D Secure' : a.status === 'redirect' ? 'waiting for the payer at the provider' : 'waiting for the acquirer\'s answer';
      add({ at: a.createdAt, kind: 'acquirer', attempt: a.seq, text: `No answer yet: ${waiting}`, outcome: 'waiting' });
    }
  }

  let threeDsShown = false;
  for (const t of input.transactions) {
    const d = t.details;
    const by = (d.initiatedBy as { name?: string } | undefined)?.name ?? null;
    if (t.type === '3ds' || t.type === 'redirect') {
      const words = t.type === '3ds' ? threeDsInWords(p.threeDs) : null;
      threeDsShown ||= words !== null;
      const text = t.type === '3ds'
        ? `3-D Secure: the payer was asked to confirm at their bank${words ? `; ${words}` : ''}`
        : 'The payer was sent to the provider\'s page';
      add({ at: t.createdAt, kind: 'three_ds', attempt: attemptAt(t.createdAt), text, outcome: t.status });
      continue;
    }
    // An attempt's opening transaction is the attempt's steps above; payments from before attempts were kept show it here.
    if (opened.has(t.id)) continue;
    const label = MONEY_TEXT[t.type];
    // The risk screen's decline (a block, a review declined or expired): the payment's own step, no acquirer's.
    if (t.status === 'fail' && (str(d.reason) ?? p.declineReason) === DECLINES.risk_blocked.message && !input.attempts.some((a) => a.createdAt <= t.createdAt)) {
      add({ at: t.createdAt, kind: 'risk', text: `${t.type === 'credit' ? 'Payout' : 'Payment'} of ${money(t.amount)} declined by the risk screen (risk_blocked): no acquirer or provider was asked`, outcome: 'declined', by });
      continue;
    }
    if (!label) {
      add({ at: t.createdAt, kind: 'acquirer', attempt: attemptAt(t.createdAt), text: `${t.type} of ${money(t.amount)}: ${t.status}${str(d.reason) ? ` (${str(d.reason)})` : ''}`, outcome: t.status, by });
      continue;
    }
    const why = str((d.initiatedBy as { reason?: unknown } | undefined)?.reason);
    const parts = [`${label} of ${money(t.amount)}: ${t.status === 'success' ? 'approved' : t.status === 'fail' ? `declined${str(d.reason) ? ` (${str(d.reason)})` : ''}` : 'waiting for the acquirer'}`];
    if (why) parts.push(`reason: ${why}`);
    if (str(d.resolution)) parts.push(`resolved ${str(d.resolution)} by ${(d.resolvedBy as { name?: string } | undefined)?.name ?? 'an operator'}${str(d.note) ? ` (${str(d.note)})` : ''}`);
    add({ at: t.createdAt, kind: 'money', text: parts.join('; '), outcome: t.status === 'success' ? 'approved' : t.status === 'fail' ? 'declined' : 'waiting', by });
  }
  if (!threeDsShown && p.threeDs) {
    const first = input.attempts.find((a) => a.status === 'approved') ?? input.attempts[0];
    add({ at: first?.createdAt ?? p.createdAt, kind: 'three_ds', attempt: first?.seq ?? null, text: threeDsInWords(p.threeDs)! });
  }

  for (const c of input.callbacks) {
    const event = callbackEventOf(c.fields);
    const name = `${event.type}${event.status ? ` (${event.status})` : ''}`;
    add({ at: c.createdAt, kind: 'callback', text: `Callback "${name}" queued for ${c.url}` });
    c.attemptLog.forEach((a, i) => add({
      at: a.attemptedAt, kind: 'callback',
      text: `Callback "${name}", delivery attempt ${i + 1}: ${a.outcome === 'delivered' ? `delivered (HTTP ${a.httpStatus ?? '?'}, ${a.durationMs} ms)` : `${a.outcome}${a.httpStatus ? ` (HTTP ${a.httpStatus})` : ''}${a.error ? `: ${a.error}` : ''}`}`,
      outcome: a.outcome === 'delivered' ? 'delivered' : 'failed',
    }));
  }

  for (const e of input.audit) {
    if (SHOWN_BY_TRANSACTIONS.test(e.action)) continue;
    const details = (e.details ?? {}) as Record<string, unknown>;
    if (e.action === 'payment.note') {
      add({ at: e.at, kind: 'note', text: `Note: ${str(details.note) ?? ''}`, by: e.userName });
      continue;
    }
    const text = e.action === 'callback.resend' ? `Callback resent (${str(details.result) ?? 'sent'})`
      : e.action === 'payment.resolve' ? `Operation resolved as ${str(details.outcome) ?? '?'}${str(details.note) ? `: ${str(details.note)}` : ''}`
      : REVIEW_DECISIONS[e.action] ? `${REVIEW_DECISIONS[e.action]}${str(details.note) ? `: ${str(details.note)}` : ''}`
      : e.action;
    add({ at: e.at, kind: 'operator', text, by: e.userName });
  }

  for (const d of input.disputes) {
    add({ at: d.createdAt, kind: 'dispute', text: `Dispute opened: ${d.stage.replace(/_/g, ' ')} of ${money(d.amount, d.currency)}${d.reasonCode ? `, reason code ${d.reasonCode}` : ''}; now ${d.status.replace(/_/g, ' ')}`, outcome: d.status });
  }

  // Time order; at one instant, the order the story was told in (creation before the attempt it led to, ...).
  return steps.map((s, i) => ({ s, i })).sort((a, b) => a.s.at.getTime() - b.s.at.getTime() || a.i - b.i).map(({ s }) => s);
}
