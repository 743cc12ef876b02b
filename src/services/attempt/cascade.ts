/**
 * Step 7 of an attempt: cascading (issue 15). While an attempt is declined with a code the connector's error table
 * marks retryable on another MID, the next candidate of the routing output is tried, up to the merchant's extra
 * attempts. Each attempt closes its transaction (failed, with the acquirer's code) and its attempt row, and opens
 * the next ones, in one compare-and-set on the payment, which stays in flight throughout: the merchant sees only
 * the last attempt's outcome and callback. The declined attempt's daily-cap reservation is given back in that same
 * write, the next MID's taken just before it (a candidate whose cap is reached is passed over). Why the cascade
 * stopped goes with the last attempt's outcome (outcome.ts). A decline reporting another payment (integrity)
 * never cascades: it is held as it is (integrity.ts).
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { insertTransaction, updatePaymentAndTransaction } from '../../store/payments-repo.ts';
import { cascadeStop } from '../../domain/routing/cascade.ts';
import { attemptResult, type AttemptStop } from '../../domain/model/attempt.ts';
import { newId } from '../../domain/ids.ts';
import type { AuthorizeRequest, ConnectorOutcome } from '../../connectors/types.ts';
import { noteOutcome, releaseHold, takeCandidate } from './route.ts';
import { reached, type AttemptState, type CardRoute, type TakenCandidate } from './types.ts';
import { midAccess, refuseTestCardOnLiveMid } from '../connector-access.ts';
import { callConnector } from './call.ts';
import { cascadedRequest } from './request.ts';
import { authTxType, intentOf } from '../../domain/operations.ts';

export interface Attempt {
  payment: Payment;
  transId: string;
  outcome: ConnectorOutcome;
  request: AuthorizeRequest;
  pan: string;
  /** The attempt's MID's position among the route's candidates. */
  position: number;
  /** What the attempt reserved of its MID's daily cap. */
  hold?: TakenCandidate['hold'];
  /** Why no further attempt follows this one's decline. */
  stop?: AttemptStop;
}

/**
 * The step: a declined answer cascades to the next candidates. A refusal asked no connector: another MID could do
 * nothing differently, so it never cascades (the outcome gives the cap reservation back with the decline).
 */
export async function cascadeStep(ctx: ServiceContext, state: AttemptState): Promise<void> {
  const answer = reached(state, 'answer');
  if (answer.refused) return;
  const { route, taken } = reached(state, 'routed');
  const { request, pan } = reached(state, 'sent');
  const last = await cascade(ctx, state.input.merchant, route, { payment: answer.payment, transId: answer.transId, outcome: answer.outcome, request, pan, position: taken.index, hold: taken.hold });
  answer.payment = last.payment;
  answer.transId = last.transId;
  answer.outcome = last.outcome;
  answer.stop = last.stop;
}

export async function cascade(ctx: ServiceContext, merchant: Merchant, route: CardRoute, first: Attempt): Promise<Attempt> {
  const maxExtra = route.config.max_extra_attempts;
  const money = { minor: first.payment.amount, currency: first.payment.currency };
  let made = 1;
  let current = first;
  for (;;) {
    const declined = current.outcome;
    if (declined.kind !== 'declined') return current;
    const sent = { amount: current.payment.amount, currency: current.payment.currency, reference: current.payment.id };
    let stop = cascadeStop(declined, made, maxExtra, current.position + 1 < route.candidates.length, sent);
    const next = stop ? undefined : await takeCandidate(ctx, ctx.db, route, current.position + 1, money, (mid) => usableForCascade(ctx, mid, current.pan));
    if (!stop && !next) stop = 'no_more_candidates';
    if (stop || !next) {
      // The stop is written with the outcome (a held answer's by the hold: integrity.ts).
      return stop ? { ...current, stop } : current;
    }
    await noteOutcome(ctx, merchant, { midId: current.payment.midId, currency: money.currency, brand: current.payment.details.brand, approved: false });
    const moved = await moveTo(ctx, route, current, declined, next);
    // Someone else moved the payment meanwhile (a notification, an operator): their word stands.
    if (!moved) {
      await releaseHold(ctx.db, next.hold);
      return current;
    }
    const connector = ctx.connectors.get(next.mid.connector)!;
    const request = cascadedRequest(ctx, current.request, { connector: connector.name, midId: next.mid.id }, made);
    const outcome = await callConnector(ctx, () => connector.authorize(request, midAccess(ctx, next.mid)));
    made += 1;
    current = { payment: moved.payment, transId: moved.transId, outcome, request, pan: current.pan, position: next.index, hold: next.hold };
  }
}

/**
 * Closes the declined attempt (its transaction and its row) and opens the next MID's, in one compare-and-set on
 * the payment.
 */
async function moveTo(
  ctx: ServiceContext, route: CardRoute, current: Attempt, declined: Extract<ConnectorOutcome, { kind: 'declined' }>, next: TakenCandidate,
): Promise<{ payment: Payment; transId: string } | undefined> {
  const transId = newId();
  const moved = await ctx.db.transaction(async (tx) => {
    const updated = await updatePaymentAndTransaction(tx, current.payment.id, { status: current.payment.status, pendingOperation: 'authorize' },
      { midId: next.mid.id, details: { lastTransId: transId, volumeHold: next.hold ?? null, routing: { ...route.decision, midId: next.mid.id } } }, ctx.clock.now(),
      {
        id: current.transId, status: 'fail',
        details: { reason: declined.reason, ...(declined.error ? { code: declined.error.code, rawCode: declined.error.rawCode, rawMessage: declined.error.rawMessage } : {}), cascaded: true },
        attempt: attemptResult(declined),
      });
    if (updated) {
      await insertTransaction(tx, { id: transId, paymentId: updated.id, type: authTxType(updated.operation, intentOf(updated)), status: 'waiting', amount: updated.amount, now: ctx.clock.now() },
        { midId: next.mid.id, connector: next.mid.connector, why: 'cascade' });
      await releaseHold(tx, current.hold);
    }
    return updated;
  });
  return moved && { payment: moved, transId };
}

/** A candidate a cascade may go to: its connector is here, and a live MID never gets a sandbox test card. */
function usableForCascade(ctx: ServiceContext, mid: Mid, pan: string): boolean {
  const connector = ctx.connectors.get(mid.connector);
  if (!connector) return false;
  try {
    if (connector.isLive?.(midAccess(ctx, mid)) === true) refuseTestCardOnLiveMid(connector, midAccess(ctx, mid), pan);
  } catch {
    return false;
  }
  return true;
}
