/**
 * Step 4 of an attempt: the attempt written on its MID before the connector is called (design principle 4): the
 * card vaulted, the payment claimed with its first transaction and the acquirer attempt it opens (a row of
 * payment_attempts), the routing decision, any daily-cap reservation and the risk screen's record (its evaluation
 * and the attempt's counters) with it. One statement when nothing is vaulted; a transaction otherwise.
 */
import type { ServiceContext } from '../context.ts';
import type { PaymentPatch } from '../../store/payments-repo.ts';
import type { Sql } from '../../store/database.ts';
import type { ScreenRecord } from '../../store/risk-repo.ts';
import { issueCardToken } from '../../store/card-vault.ts';
import { authTxType } from '../../domain/operations.ts';
import { cardBrandByPrefix } from '../../domain/card.ts';
import { GatewayError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { unsentParameterSets } from '../../domain/card-parameter-sets.ts';
import { midAccess, refuseTestCardOnLiveMid } from '../connector-access.ts';
import { expiryOf, panOf, sentCard, storesCard, transientCard, vaultCard } from './source.ts';
import type { AttemptOpening } from '../../domain/model/attempt.ts';
import { releaseHold } from './route.ts';
import { markScheduleUsed } from '../schedules/subscriptions.ts';
import { REVIEW_OPERATION } from '../../domain/operations.ts';
import { reached, type AttemptState, type AuthorizationWrite, type AuthorizeInput, type Recorded, type Routed } from './types.ts';

/** The card parameter sets of the request (S2S parameters, Checkout parameters.card). */
export const parametersOf = (input: Omit<AuthorizeInput, 'payment'>, subject: AuthorizationWrite['subject']): Record<string, unknown> | undefined =>
  (input.details?.parameters ?? subject.details?.parameters ?? undefined) as Record<string, unknown> | undefined;

/**
 * `refused`: the screen or the wallet token's checks decline it before any acquirer is asked (no attempt is opened).
 * `held`: the screen holds it for an operator's review (services/risk/review.ts): written with the operation
 * `risk_review` in flight instead of `authorize`, no attempt opened, and its card vaulted (encrypted, as a stored
 * card is) so that an approval can send it; its CVV is never stored, so that request goes without one.
 */
export async function recordAuthorization(ctx: ServiceContext, input: Omit<AuthorizeInput, 'payment'>, target: AuthorizationWrite, routed: Routed, refused: boolean, screened?: ScreenRecord, held = false): Promise<Recorded> {
  const { merchant, intent, source } = input;
  const { route, taken } = routed;
  const payment = target.subject;
  const mid = taken.mid;
  const connector = ctx.connectors.get(mid.connector)!;
  const access = midAccess(ctx, mid);
  // Before anything is written: a live MID refuses the sandbox test cards (a stored card is looked at only then).
  if (connector.isLive?.(access) === true) {
    const pan = await panOf(ctx, source);
    if (pan) refuseTestCardOnLiveMid(connector, access, pan);
  }
  // The card parameter sets the connector has no place for are recorded with the payment (and reported in logs).
  const unsent = connector.parameterSets ? unsentParameterSets(parametersOf(input, payment), connector.parameterSets) : [];
  const now = ctx.clock.now();
  const transId = newId();
  const stored = storesCard(source) || held;
  const card = sentCard(source);
  // The attempt opened with the transaction: the request the connector is about to get (a refusal asks none).
  const attempt: AttemptOpening | undefined = refused || held ? undefined : { midId: mid.id, connector: mid.connector, why: 'routed' };
  // The schedule a payment is put on is marked used with it, not before (a request refused on the way marks nothing).
  const named = input.details?.schedule_id ?? payment.details?.schedule_id;
  const scheduleId = typeof named === 'string' ? named : undefined;
  const record = async (sql: Sql) => {
    if (scheduleId) await markScheduleUsed(sql, merchant.id, scheduleId);
    const vaulted = stored ? await vaultCard(ctx, sql, merchant.id, source, now) : card ? transientCard(merchant.id, card) : undefined;
    const token = input.tokenize && stored && vaulted ? await issueCardToken(sql, { merchantId: merchant.id, vaultId: vaulted.id, now }) : null;
    const patch: PaymentPatch = {
      pendingOperation: held ? REVIEW_OPERATION : 'authorize',
      midId: mid.id,
      vaultId: stored && vaulted ? vaulted.id : null,
      cardToken: token ?? payment.cardToken,
      // The MID's descriptor goes with the payment: what the statement shows does not change with later settings.
      details: Object.assign({}, input.details, mid.descriptor ? { descriptor: mid.descriptor } : undefined, vaulted ? {
        cardMask: vaulted.panMask,
        cardExpiry: expiryOf(source, vaulted),
        first6Last4: vaulted.first6Last4,
        brand: cardBrandByPrefix(vaulted.first6Last4.slice(0, 6)) ?? 'card',
      } : undefined, {
        lastTransId: transId,
        // For the operator's view of the payment (GET /admin/v1/payments/{id}): which MID and why.
        routing: route.decision,
      }, unsent.length > 0 ? { unsentParameters: unsent } : {}, taken.hold ? { volumeHold: taken.hold } : {}),
    };
    if (input.payer) patch.payer = Object.assign({}, payment.payer, input.payer);
    const claimed = await target.write(sql, patch, { id: transId, paymentId: payment.id, type: authTxType(payment.operation, intent), status: 'waiting', amount: payment.amount, now }, attempt, screened);
    if (!claimed) throw new GatewayError('sessionNotPayable');
    return { claimed, card: vaulted };
  };
  const written = target.single && !stored && !scheduleId ? await record(ctx.db) : await ctx.db.transaction(record);
  return { ...written, connector, transId };
}

/** The step: the attempt written on its MID; a write that fails gives the reservation back (nothing was sent). */
export async function recordStep(ctx: ServiceContext, state: AttemptState): Promise<void> {
  const routed = reached(state, 'routed');
  try {
    state.recorded = await recordAuthorization(ctx, state.input, state.target, routed, state.refusal !== undefined, state.screened, state.review === true);
    // Written (committed) with the payment: not to be written again.
    state.screened = undefined;
  } catch (err) {
    await releaseHold(ctx.db, routed.taken.hold);
    throw err;
  }
}
