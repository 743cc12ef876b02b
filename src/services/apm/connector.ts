/**
 * Which APM connector serves a merchant. A merchant's test key routes to the sandbox provider (decisions D8); a
 * live merchant to the first enabled MID (by priority) whose connector serves alternative methods (an
 * `akurateco` MID with an S2S APM endpoint), or gets the routing error. A payment keeps the MID it started on.
 * The sandbox provider is the sandbox's own (src/sandbox/apm/), reached through the context's sandbox port.
 */
import type { ServiceContext } from '../context.ts';
import { listMids } from '../../store/merchants-repo.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { connectorNotifyUrl, midAccess } from '../connector-access.ts';
import { NO_RULES, PATHS, route } from '../../domain/routing/route.ts';
import type { PaymentFacts } from '../../domain/routing/facts.ts';
import { GatewayError } from '../../domain/errors.ts';
import type { ApmConnector } from '../../connectors/apm-types.ts';

export const BANK_CALLBACK_PATH = '/apm/bank/callback';

/** The sandbox provider of this context: src/sandbox/ plugs it in (ctx.sandbox) when the gateway is assembled. */
function sandboxApm(ctx: ServiceContext): ApmConnector {
  if (!ctx.sandbox) throw new Error('no sandbox in this service context');
  return ctx.sandbox.apm(ctx);
}

export interface ApmRoute {
  connector: ApmConnector;
  /** The MID the payment goes through; null for the sandbox provider. */
  midId: string | null;
}

/**
 * The provider of a payment at its MID, or (`fresh`: a payment about to start at a provider, whatever MID an
 * earlier attempt had) the first MID the router gives on the APM path (enabled, currencies and amount limits, no
 * payment mode, best priority first) whose connector serves alternative methods.
 */
export async function apmRoute(ctx: ServiceContext, merchant: Merchant, payment: Pick<Payment, 'midId' | 'amount' | 'currency'>, fresh = false): Promise<ApmRoute> {
  if (merchant.sandbox) return { connector: sandboxApm(ctx), midId: null };
  const all = await listMids(ctx.db, merchant.id);
  const sticky = !fresh && payment.midId;
  // A payment keeps the MID it started on (a look-up, not a choice); a fresh one is routed.
  const mids = sticky ? all.filter((m) => m.id === sticky) : route(apmFacts(payment), all, NO_RULES, { connectors: ctx.connectors, checks: PATHS.apm }).candidates;
  for (const mid of mids) {
    const connector = ctx.connectors.get(mid.connector)?.apmFor?.(midAccess(ctx, mid), connectorNotifyUrl(ctx, mid.connector, mid.id));
    if (connector) return { connector, midId: mid.id };
  }
  throw new GatewayError('noEligibleMid');
}

/** What the router knows of an APM payment: its money (the path reads no payment mode, so the intent is not read). */
const apmFacts = (payment: Pick<Payment, 'amount' | 'currency'>): PaymentFacts =>
  ({ intent: 'sale', money: { minor: payment.amount, currency: payment.currency }, method: 'apm', recurring: false });

export async function apmConnector(ctx: ServiceContext, merchant: Merchant, payment: Pick<Payment, 'midId' | 'amount' | 'currency'>): Promise<ApmConnector> {
  return (await apmRoute(ctx, merchant, payment)).connector;
}
