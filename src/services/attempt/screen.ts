/**
 * Step 2 of an attempt: the screen, the risk engine (issue 26, services/risk/engine.ts): every attempt is
 * evaluated against the platform's and its merchant's risk rules and lists, and the verdict returned.
 *
 * Contract (what the risk engine may rely on, and what every payment path must keep):
 * - Every attempt calls `screen` exactly once, before ANY acquirer or provider call, on every channel and kind:
 *   card payments (S2S, Checkout, hosted fields), wallet payments, card payouts, merchant-initiated charges of a
 *   chain, scheduled charges (the schedule runner), APM initiations and APM payouts. A cascade to another MID is
 *   the same attempt (not screened again); a challenge's completion or a status inquiry is no new attempt.
 * - It is called before the attempt is routed and before anything of it is written, so a refusal leaves nothing
 *   behind (the schedule runner, whose payment is written by its claim, screens before its connector call).
 * - Its input is the attempt's facts only (no I/O handles): it may read its own stores through `ctx` later.
 * - Its answer is a verdict: `allow`; `block` (declined with the unified code `risk_blocked`, never sent to an
 *   acquirer, never cascaded); `require_3ds` (the connector is asked for a challenge); `review` (held for an
 *   operator before the acquirer call: the card attempt's hold step, services/risk/review.ts). Each path maps it
 *   onto its decline and hold steps; a path that cannot hold or challenge declines a review and sends a
 *   require_3ds as it is (see docs/operators/risk.md).
 * - The screen's own store (counters, lists, evaluations) is the risk engine's: recording the evaluation is not
 *   writing the payment. The card attempt writes the evaluation and the attempt's counters in the payment's own
 *   first statement all the same (screenUnwritten; a SALE's screen then costs no statement of its own), and alone
 *   when the attempt ends before that write; the other paths write it when they screen.
 */
import type { ServiceContext } from '../context.ts';
import { asThreeDsResult, type RiskAction, type ThreeDsResult } from '../../domain/risk/rules.ts';
import { evaluateScreen, screenRisk, type RiskSubject } from '../risk/engine.ts';
import type { RiskEvaluation } from '../../domain/risk/evaluate.ts';
import type { ScreenRecord } from '../../store/risk-repo.ts';
import type { ConnectorOutcome } from '../../connectors/types.ts';
import { DECLINES } from '../../domain/declines.ts';
import { isRecurring } from '../../domain/operations.ts';
import { refusalOutcome, sentCard } from './source.ts';
import type { AttemptState } from './types.ts';

export interface ScreenFacts {
  paymentId: string;
  merchantId: string;
  /** The MID the attempt is bound to, when it is chosen before the screen (a scheduled charge); else undefined. */
  midId?: string | null;
  /** How the payment came in: s2s_card, checkout, s2s_apm, the schedule runner ('schedule'). */
  channel: string;
  /** card (a card, a stored card, a wallet's card) or apm (an alternative method). */
  kind: 'card' | 'apm';
  /** The payment's operation (purchase, debit, credit, recurring, recurring_debit). */
  operation: string;
  intent: 'sale' | 'auth' | 'payout';
  amount: bigint;
  currency: string;
  card?: {
    bin?: string; last4?: string; brand?: string; country?: string; wallet?: string; stored: boolean;
    /** The number when at hand: read for the card's fingerprint (a keyed hash), never kept nor passed on. */
    pan?: string;
    /** A stored card: opened for its fingerprint when no number is at hand. */
    vaultId?: string;
  };
  /** The APM method key (an APM attempt). */
  method?: string;
  payer: { ip?: string; email?: string; country?: string };
  /** A charge of a stored card the payer is not present for (a chain's charge, a scheduled charge). */
  merchantInitiated: boolean;
  /** A payment of a recurring chain (its first one or a later charge). */
  recurring: boolean;
  /** A sandbox merchant's attempt (undefined: not known to the caller, read as live). */
  sandbox?: boolean;
  /** The Checkout or hosted-fields session the attempt is made in. */
  sessionId?: string | null;
  /** The payer's device as the hosted page identifies it. */
  deviceId?: string;
  customData?: Readonly<Record<string, unknown>> | null;
  /** The 3-D Secure result known before the screen: a chain's charge carries its chain's (PaymentDetails.chainThreeDs). */
  threeDs?: ThreeDsResult;
}

export interface ScreenVerdict {
  action: RiskAction;
  /** Why, for the operator (the evaluation's reason). */
  reason: string;
  /** review: when an undecided hold is declined. */
  reviewDeadline?: Date;
}

/** Screens an attempt before any acquirer call (see the contract above); its evaluation is written at once. */
export async function screen(ctx: ServiceContext, facts: ScreenFacts): Promise<ScreenVerdict> {
  const { evaluation, reviewDeadline } = await screenRisk(ctx, riskSubjectOf(ctx, facts));
  return verdictOf(evaluation, reviewDeadline);
}

/**
 * screen, with the evaluation's record handed back unwritten: the card attempt writes it with the payment's own
 * first write (record.ts), or alone when the attempt ends before that (index.ts), exactly once either way.
 */
export async function screenUnwritten(ctx: ServiceContext, facts: ScreenFacts): Promise<ScreenVerdict & { record: ScreenRecord }> {
  const { evaluation, reviewDeadline, record } = await evaluateScreen(ctx, riskSubjectOf(ctx, facts));
  return Object.assign(verdictOf(evaluation, reviewDeadline), { record });
}

const verdictOf = (evaluation: RiskEvaluation, reviewDeadline: Date | undefined): ScreenVerdict =>
  reviewDeadline ? { action: evaluation.action, reason: evaluation.reason, reviewDeadline } : { action: evaluation.action, reason: evaluation.reason };

function riskSubjectOf(ctx: ServiceContext, facts: ScreenFacts): RiskSubject {
  const { card, payer } = facts;
  ctx.attemptHooks?.screened?.(card?.pan ? { ...facts, card: { ...card, pan: undefined } } : facts);
  return {
    paymentId: facts.paymentId, merchantId: facts.merchantId, midId: facts.midId, channel: facts.channel,
    method: facts.kind === 'card' ? 'card' : facts.method ?? 'apm', intent: facts.intent, amount: facts.amount, currency: facts.currency,
    pan: card?.pan, vaultId: card?.pan ? undefined : card?.vaultId, bin: card?.bin, brand: card?.brand,
    ip: payer.ip, email: payer.email, billingCountry: payer.country, sessionId: facts.sessionId ?? undefined, deviceId: facts.deviceId,
    merchantInitiated: facts.merchantInitiated, sandbox: facts.sandbox === true, recurring: facts.recurring, customData: facts.customData, threeDs: facts.threeDs,
  };
}

/**
 * An attempt the risk screen blocked, as the decline it is recorded with (no connector is asked). A review the
 * path does not hold (an APM, a payout, a scheduled charge: no one waits) is declined as a block.
 */
export function screenRefusal(verdict: ScreenVerdict): ConnectorOutcome | undefined {
  if (verdict.action !== 'block' && verdict.action !== 'review') return undefined;
  return riskDecline(verdict.reason);
}

/** The risk engine's decline (a block, a review declined by an operator or by its deadline). */
export const riskDecline = (why: string): ConnectorOutcome =>
  ({ kind: 'declined', reason: DECLINES.risk_blocked.message, error: { code: 'risk_blocked', rawCode: 'risk_blocked', rawMessage: why } });

/**
 * Whether a card attempt can wait for an operator's review before its acquirer call: a sale or an authorization
 * the payer (or the merchant's server) makes now, of a card the gateway can send later (its number, sent or
 * stored). Not a payout, a merchant-initiated charge (no one waits), nor a wallet payment (its cryptogram is
 * good for one authorization now).
 */
function holdsForReview({ input }: AttemptState): boolean {
  const { source } = input;
  return input.intent !== 'payout' && input.details?.merchantInitiated !== true && (source.kind === 'card' || source.kind === 'transient' || source.kind === 'vault');
}

/**
 * The step: a card attempt screened before it is routed or written. A decline known before any connector call
 * (the screen's block, a review the attempt cannot wait for, a refused wallet token) is the attempt's refusal: it
 * is recorded and never sent. A review it can wait for is held after the record step (hold.ts).
 * The screen's record rides in the state to the record step, which writes it in the payment's own statement.
 */
export async function screenStep(ctx: ServiceContext, state: AttemptState): Promise<void> {
  const verdict = await screenUnwritten(ctx, cardScreenFacts(state));
  state.screened = verdict.record;
  const held = verdict.action === 'review' && verdict.reviewDeadline !== undefined && holdsForReview(state);
  if (held) verdict.record.review = { deadline: verdict.reviewDeadline! };
  state.review = held;
  state.refusal = (held ? undefined : screenRefusal(verdict)) ?? refusalOutcome(state.input.source);
  state.challenge = verdict.action === 'require_3ds';
}

/** The facts the screen reads of a card attempt (a stored card is not opened for them). Plain reads: every payment pays for them. */
function cardScreenFacts({ input, target }: AttemptState): ScreenFacts {
  const p = target.subject;
  const { source } = input;
  const pan = sentCard(source)?.pan;
  const payer = input.payer;
  const recurringInit = input.details?.recurringInit ?? p.details?.recurringInit;
  return {
    paymentId: p.id, merchantId: input.merchant.id, channel: p.channel, kind: 'card', operation: p.operation, intent: input.intent,
    amount: p.amount, currency: p.currency,
    card: { bin: pan?.slice(0, 8), last4: pan?.slice(-4), wallet: source.kind === 'wallet' ? source.use.name : undefined, stored: source.kind === 'vault', pan, vaultId: source.kind === 'vault' ? source.vaultId : undefined },
    payer: { ip: payer?.ip ?? p.payer.ip, email: payer?.email ?? p.payer.email, country: payer?.country ?? p.payer.country },
    merchantInitiated: (input.details?.merchantInitiated ?? p.details?.merchantInitiated) === true,
    recurring: isRecurring(p.operation) || recurringInit === true,
    sessionId: p.sessionId, deviceId: input.details?.deviceId ?? p.details?.deviceId, customData: p.customData, sandbox: input.merchant.sandbox,
    threeDs: asThreeDsResult(input.details?.chainThreeDs ?? p.details?.chainThreeDs),
  };
}
