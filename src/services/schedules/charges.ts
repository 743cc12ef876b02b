/**
 * What the schedule runner writes, decided without I/O: the payment a due chain's next charge creates and
 * the chain's position after it (claim), the result of the connector's answer (outcome), and its callback.
 */
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Channel, Payment, PaymentDetails } from '../../domain/model/payment.ts';
import type { Claim, ChargeOutcome, DueChain, OutboxRow } from '../../store/schedules-repo.ts';
import { callbackBody } from '../../store/callbacks-repo.ts';
import type { ConnectorOutcome } from '../../connectors/types.ts';
import type { RoutingDecision } from '../../domain/routing/route.ts';
import type { VolumeHold } from '../../domain/routing/caps.ts';
import { planOutcome } from '../attempt/outcome-plan.ts';
import { attemptResult } from '../../domain/model/attempt.ts';
import { nextDueDate, startOfDay } from '../../domain/schedule-calendar.ts';
import { ERRORS } from '../../domain/errors.ts';
import { finalTxType } from '../../domain/operations.ts';
import { checkoutCallback } from '../callbacks/checkout-callback.ts';
import { s2sCardCallback } from '../callbacks/s2s-card-callback.ts';
import type { CallbackBuilder, PaymentEvent } from '../callbacks/fields.ts';
import { CARD_ON_FILE } from '../recurring/card-on-file.ts';
import { asThreeDsResult, threeDsResultOf } from '../../domain/risk/rules.ts';

/** Where a charge stands on its chain, kept with its payment. */
export interface ScheduleCharge {
  subscriptionId: string;
  seq: number;
  dueDate: string;
  /** Charged under a test clock: dated at its due instant, as if the runner had run through the skipped time. */
  simulated: boolean;
}

export const scheduleChargeOf = (p: Payment): ScheduleCharge | undefined => p.details.scheduleCharge as ScheduleCharge | undefined;

/** Where the routing of a charge (domain/routing/route.ts, as every card payment) sent it. */
export interface ChargeRoute {
  mid: Mid;
  decision: RoutingDecision;
  /** What the charge reserved of the MID's daily cap. */
  hold?: VolumeHold;
}

/** The instant a charge is dated: now, or under a test clock its due instant. */
export function chargeInstant(charge: Pick<ScheduleCharge, 'dueDate' | 'simulated'>, now: Date): Date {
  return charge.simulated ? startOfDay(charge.dueDate) : now;
}

/** The chain's 3-D Secure result: its origin payment's own, or the one the origin (a charge) carried. */
function chainThreeDsOf(origin: Payment): PaymentDetails {
  const result = threeDsResultOf(origin.threeDs) ?? asThreeDsResult(origin.details.chainThreeDs);
  return result ? { chainThreeDs: result } : {};
}

/** Card facts and chain ids the charge carries into its callbacks and status lookups. */
function chargeDetails(chain: DueChain, charge: ScheduleCharge, transactionId: string, route: ChargeRoute | undefined): PaymentDetails {
  const { subscription: s, origin } = chain;
  const d = origin.details;
  const routed: PaymentDetails = route ? { routing: route.decision, ...(route.hold ? { volumeHold: route.hold } : {}) } : {};
  return {
    ...routed,
    cardMask: d.cardMask, cardExpiry: d.cardExpiry, first6Last4: d.first6Last4, brand: d.brand,
    gatewayUrl: d.gatewayUrl, noCallbacks: d.noCallbacks,
    recurring_init_trans_id: s.initPaymentId, recurring_token: s.recurringToken, schedule_id: s.scheduleId, first_recurring_date: s.firstDate,
    merchantInitiated: true, cof: CARD_ON_FILE.scheduled, lastTransId: transactionId, scheduleCharge: charge,
    // The acquirer's own reference of the chain's stored card, sent with every charge (services/attempt/request.ts).
    ...(typeof d.storedCardReference === 'string' ? { storedCardReference: d.storedCardReference } : {}),
    // The 3-D Secure result the chain started under, for the risk screen's three_ds condition.
    ...chainThreeDsOf(origin),
  };
}

/**
 * The claim of a due chain's next payment: its charge row (held by `claim`), its payment (no operation in flight
 * until the runner's fence), the acquirer attempt it opens when it has a MID, the chain's next position.
 */
/** Why a charge has no route: the MIDs' daily caps alone, or no MID at all. */
export type RouteRefusal = 'dayMidLimit' | 'noEligibleMid';

export function claimOf(
  chain: DueChain, ids: { paymentId: string; transactionId: string }, claim: string, route: ChargeRoute | undefined, now: Date, lockedUntil: Date,
  refused?: RouteRefusal,
): Claim {
  const { subscription: s, origin, rule } = chain;
  const dueDate = s.nextDueDate as string;
  const charge: ScheduleCharge = { subscriptionId: s.id, seq: s.nextSeq, dueDate, simulated: chain.clockOffsetMs !== 0 };
  const at = chargeInstant(charge, now);
  const next = nextDueDate(rule, { nextSeq: s.nextSeq + 1, lastDue: dueDate, first: { date: s.firstDate, anchorDay: s.anchorDay } });
  const payment: Payment = {
    id: ids.paymentId, merchantId: s.merchantId, sessionId: null, channel: origin.channel, operation: s.operation,
    orderId: origin.orderId, amount: s.amount, currency: s.currency, description: origin.description, status: 'prepare', auth: false,
    capturedAmount: 0n, refundedAmount: 0n, midId: route?.mid.id ?? null, vaultId: origin.vaultId, cardToken: null, payer: origin.payer,
    threeDs: null, declineReason: null, customData: origin.customData, callbackUrl: origin.callbackUrl,
    details: { ...chargeDetails(chain, charge, ids.transactionId, route), ...(refused ? { routeRefused: refused } : {}) }, pendingOperation: null, version: 0, createdAt: at, updatedAt: at,
  };
  return {
    subscriptionId: s.id, seq: s.nextSeq, dueDate, transactionId: ids.transactionId, payment, claimedBy: claim, lockedUntil,
    ...(route ? { attempt: { midId: route.mid.id, connector: route.mid.connector, why: 'scheduled' as const } } : {}),
    next: { id: s.id, nextSeq: s.nextSeq + 1, lastDueDate: dueDate, nextDueDate: next ?? null },
  };
}

export type FinalOutcome = Extract<ConnectorOutcome, { kind: 'approved' | 'declined' }>;

/** A charge that found no MID to go to is declined with the routing error's text: the day limit's when only caps stood in the way. */
export const NO_MID: FinalOutcome = { kind: 'declined', reason: ERRORS.noEligibleMid.message };
export const DAY_LIMIT: FinalOutcome = { kind: 'declined', reason: ERRORS.dayMidLimit.message };
export const noRouteOutcome = (p: Pick<Payment, 'details'>): FinalOutcome => (p.details.routeRefused === 'dayMidLimit' ? DAY_LIMIT : NO_MID);

/** The write of a connector's final answer, the payment as it will read afterwards, and the event to report. */
export function outcomeOf(payment: Payment, outcome: FinalOutcome, at: Date): { write: ChargeOutcome; after: Payment; event: PaymentEvent } {
  const approved = outcome.kind === 'approved';
  const transactionId = String(payment.details.lastTransId);
  // The plan every card outcome is applied by (services/attempt/outcome-plan.ts), written here in the batch statement.
  const plan = planOutcome(payment, 'sale', outcome);
  const details: PaymentDetails = plan.patch.details ?? {};
  const write: ChargeOutcome = {
    paymentId: payment.id,
    status: plan.patch.status as Payment['status'],
    capturedAmount: plan.patch.capturedAmount ?? 0n,
    declineReason: plan.patch.declineReason ?? null,
    threeDs: plan.patch.threeDs ?? null,
    details,
    transactionId,
    transactionStatus: plan.txStatus,
    transactionDetails: plan.txDetails ?? {},
    attempt: attemptResult(outcome),
    at,
  };
  const after: Payment = {
    ...payment, status: write.status as Payment['status'], capturedAmount: write.capturedAmount, declineReason: write.declineReason,
    threeDs: outcome.threeDs ?? payment.threeDs, details: { ...payment.details, ...details }, pendingOperation: null, updatedAt: at,
  };
  const event: PaymentEvent = { transId: transactionId, type: finalTxType(payment.operation), status: write.transactionStatus as PaymentEvent['status'], ...(approved ? {} : { reason: outcome.reason }) };
  return { write, after, event };
}

/** The channels a recurring chain can start on, with their callback builders. */
const CALLBACKS: Partial<Record<Channel, CallbackBuilder>> = { checkout: checkoutCallback, s2s_card: s2sCardCallback };

/** The outbox row of a charge's callback, or undefined when the payment's callbacks go nowhere. */
export function outboxRowOf(merchant: Merchant, after: Payment, event: PaymentEvent, at: Date, id: string): OutboxRow | undefined {
  const builder = CALLBACKS[after.channel];
  const url = builder?.url(merchant, after);
  const fields = url ? builder?.fields(merchant, after, event, at) : undefined;
  if (!builder || !url || !fields) return undefined;
  return { id, merchantId: merchant.id, paymentId: after.id, url, protocol: builder.protocol, fields, body: callbackBody(builder.protocol, fields) };
}
