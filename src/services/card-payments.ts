/**
 * Card payments, whatever the channel: persist the attempt as in flight, call the connector outside any
 * transaction, then apply its outcome with a compare-and-set and write the callback in the same
 * transaction (design principle 4).
 */
import type { ServiceContext } from './context.ts';
import type { Merchant } from '../domain/model/merchant.ts';
import type { Mid } from '../domain/model/mid.ts';
import type { PayerInfo, Payment, PaymentDetails, TransactionType } from '../domain/model/payment.ts';
import { getPayment, insertPaymentWithTransaction, insertTransaction, updatePayment, updatePaymentAndTransaction, type NewPayment, type NewTransaction, type PaymentPatch } from '../store/payments-repo.ts';
import type { Sql } from '../store/database.ts';
import { markSessionPaid } from '../store/sessions-repo.ts';
import { storeCard, loadCard, issueCardToken, type VaultedCard } from '../store/card-vault.ts';
import { eligibleMids, explainRouting, type Intent, type RoutingAttempt } from '../domain/routing.ts';
import {
  authTxType, awaitsAuthorization, finalTxType, hasStepCallback, intentOf, intentTxType, isRecurring, type Operation,
} from '../domain/operations.ts';
import { DEFAULT_ROUTING } from '../domain/routing-rules.ts';
import {
  attemptRecord, cardFacts, cascadeStop, CHAIN_ROUTING, noCandidateError, noteOutcome, releaseHold, routeCard, scorerFor, takeCandidate, type CardRoute, type TakenCandidate,
} from './card-routing.ts';
import { limitRules } from '../domain/mid-limits.ts';
import type { Money } from '../domain/money.ts';
import { nextStatus, type PaymentEvent as StateEvent } from '../domain/payment-state.ts';
import { cardBrandByPrefix, first6Last4, maskPan } from '../domain/card.ts';
import { GatewayError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { NO_CARD, type AuthorizeRequest, type CardConnector, type CardData, type ChallengeResult, type ConnectorOutcome, type WalletPayment } from '../connectors/types.ts';
import { unsentParameterSets } from '../domain/card-parameter-sets.ts';
import { integrityMismatches } from '../domain/integrity.ts';
import { holdForOperator, needsOperatorOf } from '../store/payments-repo.ts';
import type { OperatorDecision, OperatorWrite } from './operator-write.ts';
import {
  connectorNotifyUrl, connectorPayer, connectorReturnUrl, midAccess, refuseTestCardOnLiveMid, storedCardUse, usableConnectors,
} from './connector-access.ts';
import { callbackExpected, callbackFor, notify, type PaymentEvent } from './callbacks/index.ts';
import { prepareRecurring } from './recurring/recurring-init.ts';
import { merchantInitiatedOutcome } from './recurring/card-on-file.ts';
import { midTakes, type WalletUse } from './wallets/wallet-payments.ts';
import { WALLET_DECLINES, WALLET_DECLINE_CODES } from '../domain/wallets/token-result.ts';
import { DECLINES } from '../domain/declines.ts';

export type CardSource =
  | { kind: 'card'; card: CardData }
  /** A stored card; `expiry` the one the payer typed (a payout by card_token asks MM/YY), used instead of the stored one. */
  | { kind: 'vault'; vaultId: string; cvv?: string; expiry?: { expMonth: string; expYear: string } }
  /** A card used once and never stored (a payout card sent without expiry): only its mask is kept. */
  | { kind: 'transient'; card: CardData }
  /** A wallet payment: its decrypted card is vaulted; a token passed as it is leaves no card at all. */
  | { kind: 'wallet'; use: WalletUse };

/** The card a source names in full, when it does (a wallet token passed as it is names none). */
const sentCard = (source: CardSource): CardData | undefined =>
  (source.kind === 'card' || source.kind === 'transient' ? source.card : source.kind === 'wallet' ? source.use.card?.card : undefined);

/**
 * Vaulted with the payment: a stored card, a card sent to be kept, a decrypted wallet card (not a transient card,
 * not a wallet token passed on unread).
 */
const storesCard = (source: CardSource): boolean => source.kind === 'vault' || (source.kind !== 'transient' && sentCard(source) !== undefined);

/** The MIDs that may carry a source: a wallet payment only those whose connector takes it in its flow. */
function midsFor(ctx: ServiceContext, source: CardSource, mids: readonly Mid[]): readonly Mid[] {
  if (source.kind !== 'wallet' || !source.use.needs) return mids;
  return mids.filter(midTakes(ctx, source.use.needs));
}

/** What the connector is told of a wallet payment: its token, or the decrypted card's cryptogram and ECI. */
function walletPayment(use: WalletUse): WalletPayment {
  const card = use.card;
  return {
    name: use.name,
    ...(use.token !== undefined && use.flow !== 'decrypted' ? { token: use.token } : {}),
    ...(card ? { authMethod: card.authMethod } : {}),
    ...(card?.cryptogram ? { cryptogram: card.cryptogram } : {}),
    ...(card?.eci ? { eci: card.eci } : {}),
  };
}

/** A wallet payment refused before any connector call, as the decline it is recorded with. */
function refusalOutcome(source: CardSource): ConnectorOutcome | undefined {
  const reason = source.kind === 'wallet' ? source.use.refusal : undefined;
  if (!reason) return undefined;
  const code = WALLET_DECLINE_CODES[reason];
  return { kind: 'declined', reason: WALLET_DECLINES[reason], error: { code, rawCode: reason, rawMessage: DECLINES[code].message } };
}

export interface AuthorizeInput {
  merchant: Merchant;
  mids: readonly Mid[];
  /** A payment in status prepare with no operation in flight. */
  payment: Payment;
  source: CardSource;
  intent: Intent;
  /** Issue a card_token for the card (req_token, or always for a debit). */
  tokenize: boolean;
  payer?: PayerInfo;
  details?: PaymentDetails;
}

export type PaymentStep =
  | { kind: 'challenge'; payment: Payment }
  | { kind: 'redirect'; payment: Payment }
  | { kind: 'final'; payment: Payment; transId: string }
  | { kind: 'processing'; payment: Payment };

/**
 * The connector of the first MID that may carry this intent (a merchant in live mode: never the sandbox), and,
 * when given, this amount and currency (the MID's limits).
 */
export function routeMid(ctx: ServiceContext, mids: readonly Mid[], intent: Intent, merchant?: Pick<Merchant, 'sandbox'>, money?: Money): { mid: Mid; connector: CardConnector } {
  const rules = money ? limitRules(money) : [];
  const takers = mids.filter((m) => rules.every((rule) => rule.allows(m)));
  const [mid] = eligibleMids(takers, intent, usableConnectors(ctx, merchant));
  const connector = mid && ctx.connectors.get(mid.connector);
  if (!mid || !connector) throw new GatewayError('noEligibleMid');
  return { mid, connector };
}

function connectorFor(ctx: ServiceContext, payment: Payment, mids: readonly Mid[]): { mid: Mid; connector: CardConnector } {
  const mid = mids.find((m) => m.id === payment.midId);
  const connector = mid && ctx.connectors.get(mid.connector);
  if (!mid || !connector) throw new GatewayError('noEligibleMid');
  return { mid, connector };
}

/** How the first write of an authorization lands: claiming a stored payment, or creating it already claimed. */
interface AuthorizationWrite {
  /** What the step needs of the payment before it is written. */
  subject: { id: string; operation: Operation; amount: bigint; currency: string; payer: PayerInfo; cardToken: string | null; details?: PaymentDetails; customData?: Record<string, unknown> | null };
  /** The write is one statement, atomic without a transaction of its own when nothing is vaulted with it. */
  single: boolean;
  write(sql: Sql, patch: PaymentPatch, transaction: NewTransaction): Promise<Payment | undefined>;
}

/** Runs the first step of a card payment: vault the card, claim the payment, ask the connector. */
export async function authorizeCard(ctx: ServiceContext, input: AuthorizeInput): Promise<PaymentStep> {
  const { payment } = input;
  return authorize(ctx, input, {
    subject: payment,
    single: false,
    async write(sql, patch, transaction) {
      const claimed = await updatePayment(sql, payment.id, { status: 'prepare', pendingOperation: null }, patch, transaction.now);
      if (claimed) await insertTransaction(sql, transaction);
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
    subject: { id: p.id, operation: p.operation, amount: p.amount, currency: p.currency, payer: p.payer ?? {}, cardToken: p.cardToken ?? null, details: p.details, customData: p.customData ?? null },
    single: true,
    // Object.assign rather than spreads here and below, on the path of every card payment: in Node 20 each
    // property that follows a spread in an object literal is defined by a runtime call, about 0.6 µs apiece.
    write: (sql, patch, transaction) => insertPaymentWithTransaction(sql, Object.assign({}, p, {
      status: 'prepare' as const,
      pendingOperation: patch.pendingOperation,
      midId: patch.midId,
      vaultId: patch.vaultId,
      cardToken: patch.cardToken,
      payer: patch.payer ?? p.payer,
      details: Object.assign({}, p.details, patch.details),
    }), transaction),
  });
}

async function authorize(ctx: ServiceContext, input: Omit<AuthorizeInput, 'payment'>, target: AuthorizationWrite): Promise<PaymentStep> {
  const { merchant, intent, source } = input;
  const payment = target.subject;
  // A merchant-initiated charge stays on its chain's MID; a wallet token outside the decrypted flow on the MID it
  // was made for (the flow rules 1, 3 and 4: no routing, no cascading).
  const fixed = payment.details?.merchantInitiated === true || (source.kind === 'wallet' && !source.use.smartRouting);
  const config = fixed ? CHAIN_ROUTING : merchant.routing ?? DEFAULT_ROUTING;
  const card = sentCard(source);
  const mids = midsFor(ctx, source, input.mids);
  // The rules may look at the card's brand and BIN: a stored card is opened for them only when there are rules.
  const knownPan = source.kind !== 'vault' ? card?.pan
    : config.rules.length > 0 ? (await loadCard(ctx.db, ctx.keyring, source.vaultId))?.pan() : undefined;
  const facts = cardFacts({
    intent, amount: payment.amount, currency: payment.currency, pan: knownPan, country: payment.payer.country,
    recurring: isRecurring(payment.operation) || payment.details?.recurringInit === true, customData: target.subject.customData,
  }, ctx.binTable);
  const route = routeCard(ctx, merchant, mids, facts, config, Math.random, await scorerFor(ctx, config, mids, facts));
  // The first candidate whose daily cap still has room carries the payment (its share reserved now).
  const taken = await takeCandidate(ctx, ctx.db, route, 0, facts.money, (m) => ctx.connectors.has(m.connector));
  if (!taken) throw noCandidateError(route);
  route.decision.midId = taken.mid.id;
  let recorded: Awaited<ReturnType<typeof recordAuthorization>>;
  try {
    recorded = await recordAuthorization(ctx, input, target, route, taken);
  } catch (err) {
    await releaseHold(ctx.db, taken.hold); // nothing was sent: the reservation goes back
    throw err;
  }
  const { claimed, card: vaulted, connector, transId } = recorded;
  const mid = taken.mid;
  const access = midAccess(ctx, mid);
  const parameters = (input.details?.parameters ?? payment.details?.parameters ?? undefined) as Record<string, unknown> | undefined;
  const cardData: CardData = source.kind !== 'vault'
    ? card ?? NO_CARD
    : { pan: (await loadCard(ctx.db, ctx.keyring, vaulted!.id))?.pan() ?? '', expMonth: source.expiry?.expMonth ?? vaulted!.expMonth, expYear: source.expiry?.expYear ?? vaulted!.expYear, cvv: source.cvv, holder: vaulted!.holder ?? undefined };
  const request: AuthorizeRequest = {
    paymentId: payment.id, intent, amount: payment.amount, currency: payment.currency, card: cardData, payerIp: claimed.payer.ip,
    browser: connectorBrowser(claimed.details.browser),
    orderId: claimed.orderId, description: claimed.description, payer: connectorPayer(claimed.payer),
    returnUrl: connectorReturnUrl(ctx, payment.id), notifyUrl: connectorNotifyUrl(ctx, connector.name, mid.id),
    // Our payment id: a retry of this authorization (after a crash) is the same request to the acquirer.
    idempotencyKey: payment.id,
  };
  if (parameters) request.parameters = parameters;
  const stored = storedCardUse(claimed);
  if (stored) request.storedCard = stored;
  if (source.kind === 'wallet') request.wallet = walletPayment(source.use);
  const refusal = refusalOutcome(source);
  const outcome = refusal ?? await callConnector(ctx, () => connector.authorize(request, access));
  // A refusal asked no connector: another MID could do nothing differently, so it never cascades (applyOutcome gives
  // the cap reservation back with the decline).
  const last = refusal
    ? { payment: claimed, transId, outcome }
    : await cascade(ctx, merchant, route, { payment: claimed, transId, outcome, request, pan: cardData.pan, position: taken.index, hold: taken.hold });
  return applyOutcome(ctx, merchant, last.payment, last.transId, 'authorize', intent, last.outcome);
}

/**
 * Writes the attempt on the chosen MID before the connector is called: the card vaulted, the payment claimed with
 * its first transaction, the routing decision and any daily-cap reservation with it.
 */
async function recordAuthorization(
  ctx: ServiceContext, input: Omit<AuthorizeInput, 'payment'>, target: AuthorizationWrite, route: CardRoute, taken: TakenCandidate,
): Promise<{ claimed: Payment; card: VaultedCard | undefined; connector: CardConnector; transId: string }> {
  const { merchant, intent, source } = input;
  const payment = target.subject;
  const mid = taken.mid;
  const connector = ctx.connectors.get(mid.connector)!;
  const access = midAccess(ctx, mid);
  // Before anything is written: a live MID refuses the sandbox test cards (a stored card is looked at only then).
  if (connector.isLive?.(access) === true) {
    const pan = source.kind === 'vault' ? (await loadCard(ctx.db, ctx.keyring, source.vaultId))?.pan() : sentCard(source)?.pan;
    if (pan) refuseTestCardOnLiveMid(connector, access, pan);
  }
  const parameters = (input.details?.parameters ?? payment.details?.parameters ?? undefined) as Record<string, unknown> | undefined;
  // The card parameter sets the connector has no place for are recorded with the payment (and reported in logs).
  const unsent = connector.parameterSets ? unsentParameterSets(parameters, connector.parameterSets) : [];
  const now = ctx.clock.now();
  const transId = newId();
  const stored = storesCard(source);
  const card = sentCard(source);
  const record = async (sql: Sql) => {
    const vaulted = stored ? await vaultCard(ctx, sql, merchant.id, source, now) : card ? transientCard(merchant.id, card) : undefined;
    const token = input.tokenize && stored && vaulted ? await issueCardToken(sql, { merchantId: merchant.id, vaultId: vaulted.id, now }) : null;
    const patch: PaymentPatch = {
      pendingOperation: 'authorize',
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
    const claimed = await target.write(sql, patch, { id: transId, paymentId: payment.id, type: authTxType(payment.operation, intent), status: 'waiting', amount: payment.amount, now });
    if (!claimed) throw new GatewayError('sessionNotPayable');
    return { claimed, card: vaulted };
  };
  const written = target.single && !stored ? await record(ctx.db) : await ctx.db.transaction(record);
  return { ...written, connector, transId };
}

interface Attempt {
  payment: Payment;
  transId: string;
  outcome: ConnectorOutcome;
  request: AuthorizeRequest;
  pan: string;
  /** The attempt's MID's position among the route's candidates. */
  position: number;
  /** What the attempt reserved of its MID's daily cap. */
  hold?: TakenCandidate['hold'];
}

/**
 * Cascading (issue 15): while an attempt is declined with a code the connector's error table marks retryable on
 * another MID, the next candidate of the routing output is tried, up to the merchant's extra attempts. Each
 * attempt closes its transaction (failed, with the acquirer's code) and opens the next one in one compare-and-set
 * on the payment, which stays in flight throughout: the merchant sees only the last attempt's outcome and
 * callback. The declined attempt's daily-cap reservation is given back in that same write, the next MID's taken
 * just before it (a candidate whose cap is reached is passed over). The routing decision on the payment records
 * every attempt and why the cascade stopped.
 */
async function cascade(ctx: ServiceContext, merchant: Merchant, route: CardRoute, first: Attempt): Promise<Attempt> {
  const maxExtra = route.config.max_extra_attempts;
  const attempts = [attemptRecord(route.candidates[first.position]!.id, first.transId, 'routed', first.outcome)];
  const money = { minor: first.payment.amount, currency: first.payment.currency };
  let current = first;
  for (;;) {
    const declined = current.outcome;
    if (declined.kind !== 'declined') return finishCascade(ctx, route, current, attempts);
    const mismatched = integrityMismatches({ amount: current.payment.amount, currency: current.payment.currency, reference: current.payment.id }, declined.reported).length > 0;
    let stop: RoutingAttempt['stop'] = mismatched ? 'integrity' : cascadeStop(declined, attempts.length, maxExtra, current.position + 1 < route.candidates.length);
    const next = stop ? undefined : await takeCandidate(ctx, ctx.db, route, current.position + 1, money, (mid) => usableForCascade(ctx, mid, current.pan));
    if (!stop && !next) stop = 'no_more_candidates';
    if (stop || !next) {
      if (stop) attempts[attempts.length - 1]!.stop = stop;
      return finishCascade(ctx, route, current, attempts);
    }
    await noteOutcome(ctx, merchant, { midId: current.payment.midId, currency: money.currency, brand: current.payment.details.brand, approved: false });
    const transId = newId();
    const connector = ctx.connectors.get(next.mid.connector)!;
    const moved = await ctx.db.transaction(async (tx) => {
      const updated = await updatePaymentAndTransaction(tx, current.payment.id, { status: current.payment.status, pendingOperation: 'authorize' },
        { midId: next.mid.id, details: { lastTransId: transId, volumeHold: next.hold ?? null, routing: { ...route.decision, midId: next.mid.id, attempts } } }, ctx.clock.now(),
        { id: current.transId, status: 'fail', details: { reason: declined.reason, ...(declined.error ? { code: declined.error.code, rawCode: declined.error.rawCode, rawMessage: declined.error.rawMessage } : {}), cascaded: true } });
      if (updated) {
        await insertTransaction(tx, { id: transId, paymentId: updated.id, type: authTxType(updated.operation, intentOf(updated)), status: 'waiting', amount: updated.amount, now: ctx.clock.now() });
        await releaseHold(tx, current.hold);
      }
      return updated;
    });
    // Someone else moved the payment meanwhile (a notification, an operator): their word stands.
    if (!moved) {
      await releaseHold(ctx.db, next.hold);
      return current;
    }
    const request = { ...current.request, notifyUrl: connectorNotifyUrl(ctx, connector.name, next.mid.id), idempotencyKey: `${current.payment.id}.${attempts.length}` };
    const outcome = await callConnector(ctx, () => connector.authorize(request, midAccess(ctx, next.mid)));
    attempts.push(attemptRecord(next.mid.id, transId, 'cascade', outcome));
    current = { payment: moved, transId, outcome, request, pan: current.pan, position: next.index, hold: next.hold };
  }
}

/** The last attempt, with the attempts written into the decision when there was more than one or a stop. */
async function finishCascade(ctx: ServiceContext, route: CardRoute, current: Attempt, attempts: RoutingAttempt[]): Promise<Attempt> {
  if (attempts.length === 1 && !attempts[0]!.stop) return current;
  return { ...current, payment: await recordAttempts(ctx, current.payment, route, attempts) ?? current.payment };
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

/** Writes the attempts into the payment's routing decision (still in flight, compare-and-set). */
async function recordAttempts(ctx: ServiceContext, payment: Payment, route: CardRoute, attempts: RoutingAttempt[]): Promise<Payment | undefined> {
  return updatePayment(ctx.db, payment.id, { status: payment.status, pendingOperation: 'authorize' },
    { details: { routing: { ...route.decision, midId: payment.midId ?? route.decision.midId, attempts } } }, ctx.clock.now());
}

/** Browser details are stored as the callbacks name them (accept_headers); connectors take them camelCased (acceptHeaders). */
function connectorBrowser(browser: Record<string, string> | undefined): Record<string, string> | undefined {
  return browser && Object.fromEntries(Object.entries(browser).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]));
}

/** MM/YYYY of the card used: the typed expiry of a stored card when the payer gave one, else the card's own. */
function expiryOf(source: CardSource, card: VaultedCard): string | undefined {
  const typed = source.kind === 'vault' ? source.expiry : undefined;
  if (typed) return `${typed.expMonth}/${typed.expYear}`;
  return card.expMonth ? `${card.expMonth}/${card.expYear}` : undefined;
}

/** What a transient card leaves behind: its mask and first6+last4, never the PAN. */
function transientCard(merchantId: string, card: CardData): VaultedCard {
  return { id: '', merchantId, panMask: maskPan(card.pan), first6Last4: first6Last4(card.pan), expMonth: card.expMonth, expYear: card.expYear, holder: card.holder ?? null };
}

async function vaultCard(ctx: ServiceContext, tx: Parameters<typeof storeCard>[0], merchantId: string, source: CardSource, now: Date): Promise<VaultedCard> {
  if (source.kind === 'vault') {
    const card = await loadCard(tx, ctx.keyring, source.vaultId);
    if (!card) throw new GatewayError('cardTokenInvalid');
    return card;
  }
  const sent = sentCard(source);
  if (!sent) throw new Error('no card to vault');
  const { pan, expMonth, expYear, holder } = sent;
  return storeCard(tx, ctx.keyring, { id: newId(), merchantId, pan, expMonth, expYear, holder, now });
}

/** A connector that throws or hangs leaves the payment in flight for the re-check worker. */
async function callConnector(ctx: ServiceContext, call: () => Promise<ConnectorOutcome>): Promise<ConnectorOutcome> {
  try {
    return await call();
  } catch (err) {
    ctx.logger.error({ err: (err as Error).message }, 'connector call failed; payment left for re-check');
    return { kind: 'pending', reason: 'Connector unavailable' };
  }
}

/** The payer finished the ACS challenge or the provider page (the sandbox's, or the acquirer's own: `returned`). */
export async function completeChallenge(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], paymentId: string, decision: ChallengeResult['decision'], params?: Record<string, string>): Promise<PaymentStep> {
  const now = ctx.clock.now();
  const payment = await getPayment(ctx.db, paymentId);
  if (!payment || payment.merchantId !== merchant.id) throw new GatewayError('paymentNotFound');
  const settled = { kind: 'final', payment, transId: payment.details.lastTransId ?? payment.id } as const;
  if ((payment.status !== '3ds' && payment.status !== 'redirect') || payment.pendingOperation !== null) return settled;
  // Resolved before the claim: a MID removed meanwhile must refuse the step, not strand a claimed payment.
  const { mid, connector } = connectorFor(ctx, payment, mids);
  const transId = newId();
  const claimed = await ctx.db.transaction(async (tx) => {
    const claimed = await updatePayment(tx, payment.id, { status: ['3ds', 'redirect'], pendingOperation: null }, { pendingOperation: 'complete', details: { lastTransId: transId } }, now);
    if (claimed) {
      await insertTransaction(tx, { id: transId, paymentId: payment.id, type: intentTxType(intentOf(payment)), status: 'waiting', amount: payment.amount, now });
    }
    return claimed;
  });
  if (!claimed) return settled;
  const outcome = await callConnector(ctx, () => connector.complete(claimed.details.connectorState ?? {}, { decision, ...(params ? { params } : {}) }, midAccess(ctx, mid)));
  return applyOutcome(ctx, merchant, claimed, transId, 'complete', intentOf(claimed), outcome);
}

/**
 * The acquirer's own notification decides a payment of ours: in flight (authorize, complete), its outcome is
 * applied on that claim; waiting for its payer (3ds, redirect), it is claimed as the payer's return would claim
 * it. Whatever comes second finds the payment changed and changes nothing (compare-and-set).
 */
export async function applyNotifiedOutcome(ctx: ServiceContext, merchant: Merchant, payment: Payment, outcome: ConnectorOutcome): Promise<PaymentStep | undefined> {
  const op = payment.pendingOperation;
  // Held for an operator (an integrity mismatch): no automated word settles it.
  if (needsOperatorOf(payment)) return undefined;
  if (awaitsAuthorization(op)) return applyOutcome(ctx, merchant, payment, payment.details.lastTransId ?? payment.id, op, intentOf(payment), outcome);
  if (op !== null || (payment.status !== '3ds' && payment.status !== 'redirect')) return undefined;
  if (outcome.kind !== 'approved' && outcome.kind !== 'declined') return undefined;
  const transId = newId();
  const now = ctx.clock.now();
  const claimed = await ctx.db.transaction(async (tx) => {
    const claimed = await updatePayment(tx, payment.id, { status: payment.status, pendingOperation: null }, { pendingOperation: 'complete', details: { lastTransId: transId } }, now);
    if (claimed) await insertTransaction(tx, { id: transId, paymentId: payment.id, type: intentTxType(intentOf(payment)), status: 'waiting', amount: payment.amount, now });
    return claimed;
  });
  return claimed ? applyOutcome(ctx, merchant, claimed, transId, 'complete', intentOf(claimed), outcome) : undefined;
}

const APPROVED_EVENT: Readonly<Record<Intent, StateEvent>> = { sale: 'sold', auth: 'authorized', payout: 'sold' };

/**
 * Applies a connector outcome to a payment claimed with `operation`, writing the callback with it. An approved
 * payment that starts a recurring chain (or puts one on a schedule) writes the chain in the same transaction.
 */
export async function applyOutcome(
  ctx: ServiceContext, merchant: Merchant, payment: Payment, transId: string, operation: string, intent: Intent, answer: ConnectorOutcome, byOperator?: OperatorWrite,
): Promise<PaymentStep> {
  if (answer.kind === 'pending') return { kind: 'processing', payment };
  // An operator's decision on a held outcome is applied as it is: the mismatch is what they were asked to judge.
  if (!byOperator && (answer.kind === 'approved' || answer.kind === 'declined')) {
    const mismatches = integrityMismatches({ amount: payment.amount, currency: payment.currency, reference: payment.id }, answer.reported);
    if (mismatches.length > 0) {
      // The acquirer reports another payment than ours: nothing is applied, an operator decides.
      const held = await holdForOperator(ctx.db, payment.id, { status: payment.status, pendingOperation: operation }, { reason: 'integrity', mismatches, outcome: answer.kind, reference: answer.reference ?? null }, ctx.clock.now());
      ctx.logger.warn({ paymentId: payment.id, mismatches }, 'connector outcome does not match the payment; held for an operator');
      return { kind: 'processing', payment: held ?? payment };
    }
  }
  const outcome = payment.details.merchantInitiated === true ? merchantInitiatedOutcome(answer) : answer;
  const plan = planOutcome(payment, intent, outcome);
  const recurring = outcome.kind === 'approved' ? await prepareRecurring(ctx, merchant, payment) : undefined;
  if (recurring) plan.patch.details = { ...plan.patch.details, ...recurring.details };
  const now = ctx.clock.now();
  const expect = { status: payment.status, pendingOperation: operation, ...(byOperator ? { version: byOperator.version } : {}) };
  const patch: PaymentPatch = Object.assign({}, plan.patch, { pendingOperation: null });
  const transaction = { id: transId, status: plan.txStatus, details: byOperator ? { ...plan.txDetails, ...byOperator.txDetails } : plan.txDetails };
  // A callback is written only where the channel sends one and the payment has somewhere to send it; without
  // one the outcome needs no transaction at all.
  const notice = plan.notify && callbackExpected(merchant, payment) ? { type: plan.notify.type } : undefined;
  // A declined attempt gives its daily-cap reservation back, in the write that declines it (so exactly once).
  const hold = outcome.kind === 'declined' ? payment.details.volumeHold : undefined;
  const event = (updated: Payment, type: TransactionType): PaymentEvent => ({ transId, type, status: plan.txStatus, reason: updated.declineReason ?? undefined });
  const stepOf = async (sql: Sql, updated: Payment | undefined): Promise<PaymentStep> => {
    if (!updated) return { kind: 'final', payment: (await getPayment(sql, payment.id)) ?? payment, transId };
    if (outcome.kind === 'approved' || outcome.kind === 'declined') {
      await noteOutcome(ctx, merchant, { midId: updated.midId, currency: updated.currency, brand: updated.details.brand, approved: outcome.kind === 'approved' });
    }
    if (plan.step === 'challenge') return { kind: 'challenge', payment: updated };
    if (plan.step === 'redirect') return { kind: 'redirect', payment: updated };
    return { kind: 'final', payment: updated, transId };
  };
  // The outcome, its transaction and its callback are one write, group-committed with others made at the same
  // time; a session, a recurring chain or a reservation to give back written with them needs a transaction.
  if (!payment.sessionId && !recurring && !hold && !byOperator) {
    const outbox = notice ? (updated: Payment) => callbackFor(merchant, updated, event(updated, notice.type), now) : undefined;
    return stepOf(ctx.db, await updatePaymentAndTransaction(ctx.db, payment.id, expect, patch, now, transaction, outbox));
  }
  const updated = await ctx.db.transaction(async (tx) => {
    const updated = await updatePaymentAndTransaction(tx, payment.id, expect, patch, now, transaction);
    if (updated) {
      if (plan.step === 'final' && updated.sessionId && (updated.status === 'settled' || updated.status === 'pending')) {
        await markSessionPaid(tx, updated.sessionId, updated.id);
      }
      await recurring?.record(tx, updated, now);
      await releaseHold(tx, hold);
      if (notice) await notify(tx, merchant, updated, event(updated, notice.type), now);
      await byOperator?.within(tx, updated);
    }
    return updated;
  });
  return stepOf(ctx.db, updated);
}

/**
 * An authorization whose outcome was held for an operator (the acquirer reported another amount, currency or
 * reference): the operator checked with the acquirer and says whether it was carried out. Applied as the
 * acquirer's answer would have been: state, capture, session, recurring chain, daily-cap share, one callback.
 * Undefined when the payment moved meanwhile.
 */
export async function resolveHeldAuthorization(
  ctx: ServiceContext, merchant: Merchant, payment: Payment, decision: OperatorDecision, write: OperatorWrite,
): Promise<Payment | undefined> {
  const operation = payment.pendingOperation;
  if (!awaitsAuthorization(operation)) return undefined;
  let applied: Payment | undefined;
  const outcome: ConnectorOutcome = decision.settled ? { kind: 'approved', reference: decision.reference ?? String(payment.details.connectorRef ?? '') } : { kind: 'declined', reason: decision.reason };
  await applyOutcome(ctx, merchant, payment, payment.details.lastTransId ?? payment.id, operation, intentOf(payment), outcome, {
    ...write,
    async within(tx, updated) {
      applied = updated;
      await write.within(tx, updated);
    },
  });
  return applied;
}

interface OutcomePlan {
  step: 'final' | 'challenge' | 'redirect';
  patch: PaymentPatch;
  txStatus: 'success' | 'fail' | 'waiting';
  txDetails?: Record<string, unknown>;
  notify?: { type: TransactionType };
}

/** Which transition, callback and transaction status an outcome means: decided without I/O. */
function planOutcome(payment: Payment, intent: Intent, outcome: Exclude<ConnectorOutcome, { kind: 'pending' }>): OutcomePlan {
  const finalType = finalTxType(payment.operation);
  const transition = (event: StateEvent) => {
    const to = nextStatus(payment.status, event);
    if (!to) throw new Error(`transition ${payment.status} -${event}-> is not in the state table`);
    return to;
  };
  switch (outcome.kind) {
    case 'approved': {
      const patch: PaymentPatch = {
        status: transition(APPROVED_EVENT[intent]),
        capturedAmount: intent === 'auth' ? 0n : payment.amount,
        details: { connectorRef: outcome.reference, rrn: outcome.rrn, arn: outcome.arn, approvalCode: outcome.approvalCode },
      };
      if (outcome.storedCardReference) patch.details = Object.assign({}, patch.details, { storedCardReference: outcome.storedCardReference });
      if (outcome.threeDs) patch.threeDs = outcome.threeDs;
      return { step: 'final', patch, txStatus: 'success', txDetails: { reference: outcome.reference }, notify: { type: finalType } };
    }
    case 'declined':
      return {
        step: 'final',
        patch: {
          status: transition('declined'), declineReason: outcome.reason, ...(outcome.threeDs ? { threeDs: outcome.threeDs } : {}),
          ...(outcome.error || outcome.reference ? { details: { ...(outcome.error ? { declineCode: outcome.error.code } : {}), ...(outcome.reference ? { connectorRef: outcome.reference } : {}) } } : {}),
        },
        txStatus: 'fail',
        // The acquirer's own code and text stay on the transaction; the merchant reads the unified message.
        txDetails: { reason: outcome.reason, ...(outcome.error ? { code: outcome.error.code, rawCode: outcome.error.rawCode, rawMessage: outcome.error.rawMessage } : {}) },
        notify: { type: finalType },
      };
    case 'challenge':
      return {
        step: 'challenge',
        // A native 3DS2 step (fingerprint, then perhaps a challenge) keeps the payment in 3ds for the next step.
        patch: {
          status: transition('challenge_required'), threeDs: outcome.threeDs as Payment['threeDs'],
          details: { connectorState: outcome.state, payerPage: outcome.page, threeDs2Step: outcome.native ?? null },
        },
        txStatus: 'waiting',
        // A debit reports its 3DS step (order_status 3ds, with card_token); other payments report only the end.
        ...(hasStepCallback(payment.operation) ? { notify: { type: '3ds' as const } } : {}),
      };
    case 'redirect':
      return {
        step: 'redirect',
        patch: { status: transition('redirect_required'), details: { connectorState: outcome.state, payerPage: outcome.page } },
        txStatus: 'waiting',
        ...(hasStepCallback(payment.operation) ? { notify: { type: 'redirect' as const } } : {}),
      };
  }
}
