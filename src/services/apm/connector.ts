/**
 * Which APM connector serves a merchant. A merchant's test key routes to the sandbox provider (decisions D8); a
 * live merchant to the first enabled MID (by priority) whose connector serves alternative methods (an
 * `akurateco` MID with an S2S APM endpoint), or gets the routing error. A payment keeps the MID it started on.
 * One sandbox instance per service context; its notifications reach the gateway as a bank's would: an HTTP
 * POST to the bank callback endpoint, handled in process when the gateway cannot reach its own public address.
 */
import type { ServiceContext } from '../context.ts';
import { listMids } from '../../store/merchants-repo.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { connectorNotifyUrl, midAccess } from '../connector-access.ts';
import { limitRules } from '../../domain/mid-limits.ts';
import { GatewayError } from '../../domain/errors.ts';
import type { ApmConnector } from '../../connectors/apm-types.ts';
import { SandboxApmConnector, type ProviderNotification } from '../../connectors/sandbox/sandbox-apm.ts';
import { providerNotification } from '../../connectors/sandbox/sandbox-apm-provider.ts';
// A cycle (the handler asks this module for the connector), safe because both sides are only called later.
import { handleBankCallback } from './payments.ts';

export const BANK_CALLBACK_PATH = '/apm/bank/callback';

const sandboxes = new WeakMap<ServiceContext, SandboxApmConnector>();

/** A payment of the sandbox provider's HTTP side is notified at the callback address its create call gave. */
async function deliverToCallback(ctx: ServiceContext, n: ProviderNotification): Promise<boolean> {
  const note = await providerNotification(ctx.db, n.reference, n.status === 'ACSC' ? 'executed' : 'rejected');
  if (!note) return false;
  try {
    const res = await fetch(note.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(note.body), signal: AbortSignal.timeout(5_000) });
    await res.text();
    if (!res.ok) ctx.logger.warn({ status: res.status, reference: n.reference }, 'sandbox provider notification refused');
  } catch (err) {
    ctx.logger.warn({ err: (err as Error).message, reference: n.reference }, 'sandbox provider notification failed');
  }
  return true;
}

async function deliver(ctx: ServiceContext, n: ProviderNotification): Promise<void> {
  if (await deliverToCallback(ctx, n)) return;
  try {
    const res = await fetch(`${ctx.baseUrl}${BANK_CALLBACK_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ EndToEndId: n.endToEndId, TxId: n.reference, TxSts: n.status }).toString(),
      signal: AbortSignal.timeout(5_000),
    });
    await res.text();
    if (res.ok) return;
    ctx.logger.warn({ status: res.status, paymentId: n.endToEndId }, 'sandbox bank callback refused; handled in process');
  } catch (err) {
    ctx.logger.warn({ err: (err as Error).message, paymentId: n.endToEndId }, 'sandbox bank callback failed; handled in process');
  }
  try {
    await handleBankCallback(ctx, { endToEndId: n.endToEndId, status: n.status });
  } catch (err) {
    // The payer's decision stands at the provider; the next look (status lookup, payer page) applies it.
    ctx.logger.error({ err: (err as Error).message, paymentId: n.endToEndId }, 'sandbox bank callback not applied');
  }
}

export function sandboxApm(ctx: ServiceContext): SandboxApmConnector {
  let sandbox = sandboxes.get(ctx);
  if (!sandbox) {
    sandbox = new SandboxApmConnector({ db: ctx.db, clock: ctx.clock, baseUrl: () => ctx.baseUrl, notify: (n) => deliver(ctx, n) });
    sandboxes.set(ctx, sandbox);
  }
  return sandbox;
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
