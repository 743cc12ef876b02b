/**
 * Step 3 of an attempt: which MID carries it. The choice itself is the one pure MID picker
 * (domain/routing/route.ts); this step adds its I/O, once per attempt: the success-rate scores read before the
 * choice, the first candidate's daily-cap share reserved after it (and given back when nothing was sent or the
 * attempt was declined), and the outcome counted towards its MID's success rate.
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Sql } from '../../store/database.ts';
import { isRecurring, type Intent } from '../../domain/operations.ts';
import { route, dropCapped, refusalAfterCaps, CHAIN_ROUTING, NO_RULES, PATHS } from '../../domain/routing/route.ts';
import { DEFAULT_ROUTING, usesSuccessRate, type RoutingConfig, type Scorer } from '../../domain/routing/rules.ts';
import { cardFacts, statsBrand, type PaymentFacts } from '../../domain/routing/facts.ts';
import { capFor, utcDay, type VolumeHold } from '../../domain/routing/caps.ts';
import { DEFAULT_HALF_LIFE_MINUTES, scoreOf } from '../../domain/routing/success-rate.ts';
import type { Money } from '../../domain/money.ts';
import { GatewayError } from '../../domain/errors.ts';
import type { CardConnector } from '../../connectors/types.ts';
import { releaseVolume, reserveVolume } from '../../store/volume-caps-repo.ts';
import { readOutcomeCounts, recordOutcome } from '../../store/outcome-stats-repo.ts';
import { modeMids, usableConnectors } from '../connector-access.ts';
import { midsFor, panOf } from './source.ts';
import type { AttemptState, CardRoute, Routed, TakenCandidate } from './types.ts';

/**
 * The step: routes the attempt and reserves its MID's daily-cap share. A merchant-initiated charge stays on its
 * chain's MID, a wallet token outside the decrypted flow on the MID it was made for (the flow rules 1, 3 and 4:
 * no routing, no cascading). The rules may look at the card's brand and BIN: a stored card is opened for them only
 * when there are rules.
 */
export async function routeStep(ctx: ServiceContext, state: AttemptState): Promise<void> {
  const { merchant, intent, source } = state.input;
  const payment = state.target.subject;
  const config = configFor(merchant, payment.details?.merchantInitiated === true || (source.kind === 'wallet' && !source.use.smartRouting));
  const pan = source.kind !== 'vault' || config.rules.length > 0 ? await panOf(ctx, source) : undefined;
  const facts = cardFacts({
    intent, amount: payment.amount, currency: payment.currency, pan, country: payment.payer.country,
    recurring: isRecurring(payment.operation) || payment.details?.recurringInit === true, customData: payment.customData,
  }, ctx.binTable);
  state.routed = await routeAttempt(ctx, ctx.db, merchant, midsFor(ctx, source, state.input.mids), facts, config);
}

/**
 * The routing config of an attempt: a merchant-initiated charge stays on its chain's MID, a wallet token outside
 * the decrypted flow on the MID it was made for (no rules, no cascading); every other attempt the merchant's.
 */
export const configFor = (merchant: Merchant, fixed: boolean): RoutingConfig => (fixed ? CHAIN_ROUTING : merchant.routing ?? DEFAULT_ROUTING);

/**
 * Routes a card payment (one call of the picker); no eligible MID: the routing error, before anything is written.
 * The daily caps' counts are reserved afterwards (takeCandidate).
 */
export async function routeCard(
  ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], facts: PaymentFacts, config: RoutingConfig = merchant.routing ?? DEFAULT_ROUTING, scored = true,
): Promise<CardRoute> {
  const scores = scored ? await scorerFor(ctx, config, mids, facts) : undefined;
  const routed = route(facts, modeMids(ctx, merchant, mids), config, { connectors: usableConnectors(ctx, merchant), ...(scores ? { scores } : {}) });
  if (routed.refusal) throw new GatewayError(routed.refusal);
  return { candidates: routed.candidates, decision: routed.decision, config };
}

/**
 * Routes an attempt and reserves the first candidate whose daily cap still has room (`sql`: the transaction the
 * reservation joins, the schedule runner's claim). No candidate: the routing error, nothing reserved.
 */
export async function routeAttempt(
  ctx: ServiceContext, sql: Sql, merchant: Merchant, mids: readonly Mid[], facts: PaymentFacts, config: RoutingConfig, scored = true,
): Promise<Routed> {
  const routed = await routeCard(ctx, merchant, mids, facts, config, scored);
  const taken = await takeCandidate(ctx, sql, routed, 0, facts.money, (m) => ctx.connectors.has(m.connector));
  if (!taken) throw noCandidateError(routed);
  routed.decision.midId = taken.mid.id;
  return { route: routed, taken };
}

/**
 * Opening a Checkout session: the connector of the first MID that may carry this intent, amount and currency (a
 * merchant in live mode: never the sandbox). Priority alone, no daily caps: those are for the payment itself.
 */
export function routeMid(ctx: ServiceContext, mids: readonly Mid[], intent: Intent, merchant: Pick<Merchant, 'sandbox'>, money: Money): { mid: Mid; connector: CardConnector } {
  const facts: PaymentFacts = { intent, money, method: 'card', recurring: false };
  const [mid] = route(facts, modeMids(ctx, merchant, mids), NO_RULES, { connectors: usableConnectors(ctx, merchant), checks: PATHS.session }).candidates;
  const connector = mid && ctx.connectors.get(mid.connector);
  if (!mid || !connector) throw new GatewayError('noEligibleMid');
  return { mid, connector };
}

/** The MID and connector a payment was routed to (a later step of it: the challenge's completion). */
export function connectorFor(ctx: ServiceContext, midId: string | null, mids: readonly Mid[]): { mid: Mid; connector: CardConnector } {
  const mid = mids.find((m) => m.id === midId);
  const connector = mid && ctx.connectors.get(mid.connector);
  if (!mid || !connector) throw new GatewayError('noEligibleMid');
  return { mid, connector };
}

/** The success-rate scores of a payment's MIDs, read once, when the merchant's rules route by success rate. */
async function scorerFor(ctx: ServiceContext, config: RoutingConfig, mids: readonly Mid[], facts: PaymentFacts): Promise<Scorer | undefined> {
  if (!usesSuccessRate(config)) return undefined;
  const counts = await readOutcomeCounts(ctx.db, mids.map((m) => m.id), facts.money.currency, statsBrand(facts.brand));
  const now = ctx.clock.now();
  const halfLife = config.success_half_life_minutes ?? DEFAULT_HALF_LIFE_MINUTES;
  return (midId, params) => scoreOf(midId, counts.get(midId), now, halfLife, params);
}

/**
 * The first candidate from `from` on whose daily cap this payment still fits, its share reserved (one guarded
 * upsert: never past the cap under any concurrency). A candidate whose cap is reached is dropped from the
 * decision's candidates and shown in `considered` with the reason daily_cap. `usable` may refuse a candidate for
 * other reasons (then nothing is reserved on it).
 */
export async function takeCandidate(
  ctx: ServiceContext, sql: Sql, routed: CardRoute, from: number, money: Money, usable: (mid: Mid) => boolean = () => true,
): Promise<TakenCandidate | undefined> {
  for (let index = from; index < routed.candidates.length; index += 1) {
    const mid = routed.candidates[index]!;
    if (!usable(mid)) continue;
    const cap = capFor(mid.dailyCaps, money.currency);
    if (!cap) return { index, mid };
    const hold: VolumeHold = { midId: mid.id, day: utcDay(ctx.clock.now()), currency: money.currency, amount: money.minor.toString() };
    if (await reserveVolume(sql, hold, cap)) return { index, mid, hold };
    dropCapped(routed.decision, mid.id);
  }
  return undefined;
}

/** The routing error when no candidate could take the payment: the day limit when the daily caps dropped any. */
export function noCandidateError(routed: CardRoute): GatewayError {
  return new GatewayError(refusalAfterCaps(routed.decision));
}

/** Gives a reservation back, when there was one (a declined or failed attempt). */
export async function releaseHold(sql: Sql, hold: unknown): Promise<void> {
  if (isHold(hold)) await releaseVolume(sql, hold);
}

const isHold = (v: unknown): v is VolumeHold =>
  typeof v === 'object' && v !== null && typeof (v as VolumeHold).midId === 'string' && typeof (v as VolumeHold).amount === 'string';

/**
 * Counts an attempt's final outcome towards its MID's success rate, when the merchant routes by success rate.
 * A failure to count is logged, never the payment's failure.
 */
export async function noteOutcome(ctx: ServiceContext, merchant: Merchant, o: { midId: string | null; currency: string; brand: unknown; approved: boolean }): Promise<void> {
  const config = merchant.routing ?? DEFAULT_ROUTING;
  if (!o.midId || !usesSuccessRate(config)) return;
  try {
    await recordOutcome(ctx.db, {
      midId: o.midId, currency: o.currency, brand: statsBrand(typeof o.brand === 'string' && o.brand !== 'card' ? o.brand : undefined),
      approved: o.approved, at: ctx.clock.now(), halfLifeMinutes: config.success_half_life_minutes ?? DEFAULT_HALF_LIFE_MINUTES,
    });
  } catch (err) {
    ctx.logger.warn({ midId: o.midId, err: (err as Error).message }, 'success-rate counter not updated');
  }
}
