/**
 * Step 3 of an attempt: which MID carries it. The choice itself is pure (services/card-routing.ts routeCard over
 * the domain's routing tables); this step adds its I/O, once per attempt: the success-rate scores read before the
 * choice, the first candidate's daily-cap share reserved after it (and given back when nothing was sent).
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Sql } from '../../store/database.ts';
import type { Intent } from '../../domain/routing.ts';
import { eligibleMids } from '../../domain/routing.ts';
import { limitRules } from '../../domain/mid-limits.ts';
import { DEFAULT_ROUTING, type PaymentFacts, type RoutingConfig } from '../../domain/routing-rules.ts';
import type { Money } from '../../domain/money.ts';
import { GatewayError } from '../../domain/errors.ts';
import type { CardConnector } from '../../connectors/types.ts';
import {
  CHAIN_ROUTING, noCandidateError, releaseHold, routeCard, scorerFor, takeCandidate, type CardRoute, type TakenCandidate,
} from '../card-routing.ts';
import { usableConnectors } from '../connector-access.ts';

export { releaseHold, noteOutcome, CHAIN_ROUTING, type CardRoute, type TakenCandidate } from '../card-routing.ts';

/** A routed attempt: the candidates in order, and the one taken with its daily-cap share reserved. */
export interface Routed {
  route: CardRoute;
  taken: TakenCandidate;
}

/**
 * The routing config of an attempt: a merchant-initiated charge stays on its chain's MID, a wallet token outside
 * the decrypted flow on the MID it was made for (no rules, no cascading); every other attempt the merchant's.
 */
export const configFor = (merchant: Merchant, fixed: boolean): RoutingConfig => (fixed ? CHAIN_ROUTING : merchant.routing ?? DEFAULT_ROUTING);

/**
 * Routes an attempt and reserves the first candidate whose daily cap still has room (`sql`: the transaction the
 * reservation joins, the schedule runner's claim). No candidate: the routing error, nothing reserved.
 */
export async function routeAttempt(
  ctx: ServiceContext, sql: Sql, merchant: Merchant, mids: readonly Mid[], facts: PaymentFacts, config: RoutingConfig, scored = true,
): Promise<Routed> {
  const route = routeCard(ctx, merchant, mids, facts, config, Math.random, scored ? await scorerFor(ctx, config, mids, facts) : undefined);
  const taken = await takeCandidate(ctx, sql, route, 0, facts.money, (m) => ctx.connectors.has(m.connector));
  if (!taken) throw noCandidateError(route);
  route.decision.midId = taken.mid.id;
  return { route, taken };
}

/**
 * The connector of the first MID that may carry this intent (a merchant in live mode: never the sandbox), and,
 * when given, this amount and currency (the MID's limits): the check a Checkout session makes when it opens.
 */
export function routeMid(ctx: ServiceContext, mids: readonly Mid[], intent: Intent, merchant?: Pick<Merchant, 'sandbox'>, money?: Money): { mid: Mid; connector: CardConnector } {
  const rules = money ? limitRules(money) : [];
  const takers = mids.filter((m) => rules.every((rule) => rule.allows(m)));
  const [mid] = eligibleMids(takers, intent, usableConnectors(ctx, merchant));
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
