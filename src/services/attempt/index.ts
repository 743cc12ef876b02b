/**
 * A card payment attempt, whatever the channel (S2S CARD, Checkout, hosted fields, wallets, card payouts, a
 * chain's merchant-initiated charges), as an ordered table of steps (STEPS below), one per file, each a function
 * of one typed attempt state (types.ts AttemptState):
 *
 *   screen -> route -> record -> hold -> request -> call -> cascade -> outcome (integrity, transition, consequences, post)
 *
 * (hold: an attempt the risk screen holds for an operator's review stops there; the approval runs the steps after it.)
 *
 * The card's source is resolved before the steps run, by the caller, through the table of source resolvers
 * (source.ts resolveSource), so that a request naming an unknown card leaves nothing behind.
 *
 * The risk screen's evaluation and the attempt's counters are written with the payment's first write (record.ts),
 * and the outcome's counts with the outcome's (outcome.ts), in the same statements.
 *
 * The attempt is persisted as in flight before the connector is called outside any transaction, and its outcome
 * applied with a compare-and-set, the callback written with it (design principle 4). The schedule runner keeps its
 * batch claim and single-statement writes but shares screen, request, integrity, the outcome plan and post; the
 * APM engine (services/apm/) keeps its state machine but shares screen, integrity and post.
 */
import type { ServiceContext } from '../context.ts';
import { insertPaymentWithTransaction, insertTransaction, updatePayment, type NewPayment } from '../../store/payments-repo.ts';
import { screenStep } from './screen.ts';
import { writeScreen } from '../risk/engine.ts';
import { routeStep } from './route.ts';
import { recordStep } from './record.ts';
import { holdStep } from './hold.ts';
import { requestStep } from './request.ts';
import { callStep } from './call.ts';
import { cascadeStep } from './cascade.ts';
import { outcomeStep } from './outcome.ts';
import type { AttemptState, AuthorizationWrite, AuthorizeInput, PaymentStep, Step } from './types.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Payment } from '../../domain/model/payment.ts';
import type { Sql } from '../../store/database.ts';
import type { RoutingDecision } from '../../domain/routing/route.ts';
import type { VolumeHold } from '../../domain/routing/caps.ts';
import { openAttempt } from '../../store/attempts-repo.ts';
import { loadCard } from '../../store/card-vault.ts';
import { GatewayError } from '../../domain/errors.ts';
import { intentOf, REVIEW_OPERATION } from '../../domain/operations.ts';
import { configFor } from './route.ts';

export type { AuthorizeInput, PaymentStep } from './types.ts';
export type { CardSource, SourceRequest } from './source.ts';
export { resolveSource, tokenSource } from './source.ts';
export { routeMid } from './route.ts';
export { applyOutcome } from './outcome.ts';
export { intentOf } from '../../domain/operations.ts';
export { applyNotifiedOutcome, completeChallenge, resolveHeldAuthorization } from './resume.ts';

/** Runs the first step of a card payment stored already (a Checkout session's): vault, claim, ask the connector. */
export async function authorizeCard(ctx: ServiceContext, input: AuthorizeInput): Promise<PaymentStep> {
  const { payment } = input;
  return authorize(ctx, input, {
    subject: payment,
    single: false,
    async write(sql, patch, transaction, attempt, screened) {
      const claimed = await updatePayment(sql, payment.id, { status: 'prepare', pendingOperation: null }, patch, transaction.now);
      if (claimed) await insertTransaction(sql, transaction, attempt);
      if (claimed && screened) await writeScreen(sql, screened);
      return claimed;
    },
  });
}

/**
 * authorizeCard for a payment not stored yet (the S2S channel): it is created already claimed, with its first
 * transaction, in one statement, so a sale with no card to vault costs two writes in all.
 */
export async function createAndAuthorize(ctx: ServiceContext, input: Omit<AuthorizeInput, 'payment'> & { payment: NewPayment }): Promise<PaymentStep> {
  const p = input.payment;
  return authorize(ctx, input, {
    subject: { id: p.id, channel: p.channel, operation: p.operation, amount: p.amount, currency: p.currency, payer: p.payer ?? {}, cardToken: p.cardToken ?? null, details: p.details, customData: p.customData ?? null },
    single: true,
    // Object.assign rather than spreads here and below, on the path of every card payment: in Node 20 each
    // property that follows a spread in an object literal is defined by a runtime call, about 0.6 µs apiece.
    write: (sql, patch, transaction, attempt, screened) => insertPaymentWithTransaction(sql, Object.assign({}, p, {
      status: 'prepare' as const,
      pendingOperation: patch.pendingOperation,
      midId: patch.midId,
      vaultId: patch.vaultId,
      cardToken: patch.cardToken,
      payer: patch.payer ?? p.payer,
      details: Object.assign({}, p.details, patch.details),
    }), transaction, attempt, screened),
  });
}

/**
 * The attempt's steps, in order: each a function of the attempt's state, one per file. The screen's refusal (the
 * risk engine's block) rides in the state: it is recorded and applied as a decline, no connector asked. The
 * outcome's step ends the attempt (integrity, the transition, the consequences and the ledger's post, all in its
 * write); a step may also end it earlier by answering where it stands. A new step is one row here.
 */
const STEPS: readonly Step[] = [screenStep, routeStep, recordStep, holdStep, requestStep, callStep, cascadeStep, outcomeStep];

/** The steps an operator's approval of a held attempt runs (after the hold). */
const AFTER_HOLD: readonly Step[] = STEPS.slice(STEPS.indexOf(holdStep) + 1);

async function runSteps(ctx: ServiceContext, state: AttemptState, steps: readonly Step[]): Promise<PaymentStep> {
  for (const step of steps) {
    const done = await step(ctx, state);
    if (done) return done;
  }
  throw new Error('the attempt ran every step without an outcome');
}

async function authorize(ctx: ServiceContext, input: Omit<AuthorizeInput, 'payment'>, target: AuthorizationWrite): Promise<PaymentStep> {
  const state: AttemptState = { input, target };
  let failure: unknown;
  try {
    return await runSteps(ctx, state, STEPS);
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    // The screen's record goes with the payment's first write (record.ts); an attempt that ended before that write
    // committed (no MID to route to, a refused claim, a write that failed) still leaves its evaluation and counts.
    if (state.screened) {
      await writeScreen(ctx.db, state.screened).catch((err: unknown) => {
        // The attempt's own failure is the one to answer with; this one is logged.
        if (failure === undefined) throw err;
        ctx.logger.error({ paymentId: state.screened?.paymentId, err: (err as Error).message }, 'risk: the screen of a failed attempt could not be recorded');
      });
    }
  }
}

/**
 * An attempt held for a risk review, approved: claimed back from `risk_review` for its authorization (a
 * compare-and-set; `within` adds the caller's rows, the review's decision and audit entry, to that transaction),
 * its acquirer attempt opened on the MID it was routed to, then the steps after the hold run as they would have:
 * request (the vaulted card, without a CVV: none is ever stored), call, cascade, outcome and its one callback.
 * Undefined when the payment is no longer held (decided meanwhile).
 */
export async function continueReviewed(
  ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], payment: Payment, within: (tx: Sql, claimed: Payment) => Promise<void>,
): Promise<PaymentStep | undefined> {
  const mid = mids.find((m) => m.id === payment.midId);
  const connector = mid && ctx.connectors.get(mid.connector);
  const transId = payment.details.lastTransId;
  if (!mid || !connector || !payment.vaultId || !transId) throw new GatewayError('reviewNotResumable');
  const card = await loadCard(ctx.db, ctx.keyring, payment.vaultId);
  if (!card) throw new GatewayError('reviewNotResumable');
  const now = ctx.clock.now();
  const claimed = await ctx.db.transaction(async (tx) => {
    const c = await updatePayment(tx, payment.id, { status: 'prepare', pendingOperation: REVIEW_OPERATION }, { pendingOperation: 'authorize' }, now);
    if (c) {
      await openAttempt(tx, transId, payment.id, { midId: mid.id, connector: mid.connector, why: 'routed' }, now);
      await within(tx, c);
    }
    return c;
  });
  if (!claimed) return undefined;
  const decision = payment.details.routing as RoutingDecision | undefined;
  const candidates = (decision?.candidates ?? [mid.id]).map((id) => mids.find((m) => m.id === id)).filter((m): m is Mid => m !== undefined);
  const state: AttemptState = {
    input: { merchant, mids, source: { kind: 'vault', vaultId: payment.vaultId }, intent: intentOf(payment), tokenize: false },
    target: { subject: payment, single: false, write: () => Promise.reject(new Error('a reviewed attempt is written already')) },
    routed: {
      route: { candidates: candidates.length > 0 ? candidates : [mid], decision: decision as RoutingDecision, config: configFor(merchant, payment.details.merchantInitiated === true) },
      taken: { index: Math.max(0, candidates.indexOf(mid)), mid, ...(payment.details.volumeHold ? { hold: payment.details.volumeHold as VolumeHold } : {}) },
    },
    recorded: { claimed, card, connector, transId },
  };
  return runSteps(ctx, state, AFTER_HOLD);
}
