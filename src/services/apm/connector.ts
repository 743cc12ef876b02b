/**
 * Which APM connector serves a merchant. Only the sandbox provider exists, and a merchant's test key routes to
 * it (decisions D8); a live merchant has no APM connector yet and gets the routing error. One sandbox instance
 * per service context; its notifications reach the gateway as a bank's would: an HTTP POST to the bank
 * callback endpoint, handled in process when the gateway cannot reach its own public address.
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../store/merchants-repo.ts';
import { GatewayError } from '../../domain/errors.ts';
import type { ApmConnector } from '../../connectors/apm-types.ts';
import { SandboxApmConnector, type ProviderNotification } from '../../connectors/sandbox/sandbox-apm.ts';
// A cycle (the handler asks this module for the connector), safe because both sides are only called later.
import { handleBankCallback } from './payments.ts';

export const BANK_CALLBACK_PATH = '/apm/bank/callback';

const sandboxes = new WeakMap<ServiceContext, SandboxApmConnector>();

async function deliver(ctx: ServiceContext, n: ProviderNotification): Promise<void> {
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

export function apmConnector(ctx: ServiceContext, merchant: Merchant): ApmConnector {
  if (!merchant.sandbox) throw new GatewayError('noEligibleMid');
  return sandboxApm(ctx);
}
