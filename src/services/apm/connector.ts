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
import { limitRules } from '../../domain/mid-limits.ts';
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
 * earlier attempt had) the first enabled MID whose currencies and amount limits take it, best priority first.
 */
export async function apmRoute(ctx: ServiceContext, merchant: Merchant, payment?: Pick<Payment, 'midId' | 'amount' | 'currency'>, fresh = false): Promise<ApmRoute> {
  if (merchant.sandbox) return { connector: sandboxApm(ctx), midId: null };
  const rules = payment ? limitRules({ minor: payment.amount, currency: payment.currency }) : [];
  const sticky = !fresh && payment?.midId;
  const mids = (await listMids(ctx.db, merchant.id))
    .filter((m) => (sticky ? m.id === sticky : m.enabled && rules.every((r) => r.allows(m))))
    .sort((a, b) => b.priority - a.priority);
  for (const mid of mids) {
    const connector = ctx.connectors.get(mid.connector)?.apmFor?.(midAccess(ctx, mid), connectorNotifyUrl(ctx, mid.connector, mid.id));
    if (connector) return { connector, midId: mid.id };
  }
  throw new GatewayError('noEligibleMid');
}

export async function apmConnector(ctx: ServiceContext, merchant: Merchant, payment?: Pick<Payment, 'midId' | 'amount' | 'currency'>): Promise<ApmConnector> {
  return (await apmRoute(ctx, merchant, payment)).connector;
}
