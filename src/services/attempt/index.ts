/**
 * A card payment attempt, whatever the channel (S2S CARD, Checkout, hosted fields, wallets, card payouts, a
 * chain's merchant-initiated charges), as explicit steps, one per file:
 *
 *   source -> screen -> route -> record -> request -> call -> cascade -> integrity -> outcome -> consequences -> post
 *
 * The attempt is persisted as in flight before the connector is called outside any transaction, and its outcome
 * applied with a compare-and-set, the callback written with it (design principle 4). The schedule runner keeps its
 * batch claim and single-statement writes but shares screen, request, integrity, the outcome plan and post; the
 * APM engine (services/apm/) keeps its state machine but shares screen, integrity and post.
 */
import type { ServiceContext } from '../context.ts';
import { insertPaymentWithTransaction, insertTransaction, updatePayment, type NewPayment } from '../../store/payments-repo.ts';
import { loadCard } from '../../store/card-vault.ts';
import { NO_CARD } from '../../connectors/types.ts';
import { cardFacts } from '../../domain/routing/facts.ts';
import { midAccess } from '../connector-access.ts';
import { cardDataOf, midsFor, refusalOutcome, screenRefusal, sentCard, type CardSource } from './source.ts';
import { screen, type ScreenFacts } from './screen.ts';
import { configFor, releaseHold, routeAttempt } from './route.ts';
import { parametersOf, recordAuthorization, type Recorded } from './record.ts';
import { isRecurring } from '../../domain/operations.ts';
import { authorizeRequest } from './request.ts';
import { callConnector } from './call.ts';
import { cascade, type LastAttempt } from './cascade.ts';
import { applyOutcome } from './outcome.ts';
import type { AuthorizationWrite, AuthorizeInput, PaymentStep } from './types.ts';

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
    async write(sql, patch, transaction, attempt) {
      const claimed = await updatePayment(sql, payment.id, { status: 'prepare', pendingOperation: null }, patch, transaction.now);
      if (claimed) await insertTransaction(sql, transaction, attempt);
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
    write: (sql, patch, transaction, attempt) => insertPaymentWithTransaction(sql, Object.assign({}, p, {
      status: 'prepare' as const,
      pendingOperation: patch.pendingOperation,
      midId: patch.midId,
      vaultId: patch.vaultId,
      cardToken: patch.cardToken,
      payer: patch.payer ?? p.payer,
      details: Object.assign({}, p.details, patch.details),
    }), transaction, attempt),
  });
}

async function authorize(ctx: ServiceContext, input: Omit<AuthorizeInput, 'payment'>, target: AuthorizationWrite): Promise<PaymentStep> {
  const { merchant, intent, source } = input;
  const payment = target.subject;
  const verdict = await screen(ctx, screenFacts(input, target));
  // A merchant-initiated charge stays on its chain's MID; a wallet token outside the decrypted flow on the MID it
  // was made for (the flow rules 1, 3 and 4: no routing, no cascading).
  const config = configFor(merchant, payment.details?.merchantInitiated === true || (source.kind === 'wallet' && !source.use.smartRouting));
  const card = sentCard(source);
  const mids = midsFor(ctx, source, input.mids);
  // The rules may look at the card's brand and BIN: a stored card is opened for them only when there are rules.
  const knownPan = source.kind !== 'vault' ? card?.pan
    : config.rules.length > 0 ? (await loadCard(ctx.db, ctx.keyring, source.vaultId))?.pan() : undefined;
  const facts = cardFacts({
    intent, amount: payment.amount, currency: payment.currency, pan: knownPan, country: payment.payer.country,
    recurring: isRecurring(payment.operation) || payment.details?.recurringInit === true, customData: payment.customData,
  }, ctx.binTable);
  const routed = await routeAttempt(ctx, ctx.db, merchant, mids, facts, config);
  const refusal = screenRefusal(verdict) ?? refusalOutcome(source);
  let recorded: Recorded;
  try {
    recorded = await recordAuthorization(ctx, input, target, routed, refusal !== undefined);
  } catch (err) {
    await releaseHold(ctx.db, routed.taken.hold); // nothing was sent: the reservation goes back
    throw err;
  }
  const { claimed, connector, transId } = recorded;
  const mid = routed.taken.mid;
  const cardData = await cardDataOf(ctx, source, recorded.card, NO_CARD);
  const request = authorizeRequest(ctx, claimed, {
    intent, card: cardData, connector: connector.name, midId: mid.id, parameters: parametersOf(input, payment), ...(source.kind === 'wallet' ? { wallet: source.use } : {}),
    challenge: verdict.action === 'require_3ds',
  });
  const outcome = refusal ?? await callConnector(ctx, () => connector.authorize(request, midAccess(ctx, mid)));
  // A refusal asked no connector: another MID could do nothing differently, so it never cascades (the outcome
  // gives the cap reservation back with the decline).
  const last: LastAttempt = refusal
    ? { payment: claimed, transId, outcome }
    : await cascade(ctx, merchant, routed.route, { payment: claimed, transId, outcome, request, pan: cardData.pan, position: routed.taken.index, hold: routed.taken.hold });
  return applyOutcome(ctx, { merchant, payment: last.payment, transId: last.transId, operation: 'authorize', intent, stop: last.stop }, last.outcome);
}

/** The facts the screen reads of a card attempt (a stored card is not opened for it). Plain reads: every payment pays for them. */
function screenFacts(input: Omit<AuthorizeInput, 'payment'>, target: AuthorizationWrite): ScreenFacts {
  const { subject: p } = target;
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
    sessionId: p.sessionId, customData: p.customData, sandbox: input.merchant.sandbox,
  };
}
