/**
 * A card payment attempt, whatever the channel (S2S CARD, Checkout, hosted fields, wallets, card payouts, a
 * chain's merchant-initiated charges), as an ordered table of steps (STEPS below), one per file, each a function
 * of one typed attempt state (types.ts AttemptState):
 *
 *   screen -> route -> record -> request -> call -> cascade -> outcome (integrity, transition, consequences, post)
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
import { requestStep } from './request.ts';
import { callStep } from './call.ts';
import { cascadeStep } from './cascade.ts';
import { outcomeStep } from './outcome.ts';
import type { AttemptState, AuthorizationWrite, AuthorizeInput, PaymentStep, Step } from './types.ts';

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
const STEPS: readonly Step[] = [screenStep, routeStep, recordStep, requestStep, callStep, cascadeStep, outcomeStep];

async function authorize(ctx: ServiceContext, input: Omit<AuthorizeInput, 'payment'>, target: AuthorizationWrite): Promise<PaymentStep> {
  const state: AttemptState = { input, target };
  let failure: unknown;
  try {
    for (const step of STEPS) {
      const done = await step(ctx, state);
      if (done) return done;
    }
    throw new Error('the attempt ran every step without an outcome');
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
