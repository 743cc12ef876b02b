/**
 * The sandbox APM provider of a service context (one per context), and how its decisions reach the gateway: as a
 * bank's would, an HTTP POST to the bank callback endpoint (or, for a payment of the provider's HTTP side, to the
 * callback address its create call gave), handled in process when the gateway cannot reach its own public address.
 */
import type { ServiceContext } from '../../services/context.ts';
import { BANK_CALLBACK_PATH } from '../../services/apm/connector.ts';
import { handleBankCallback } from '../../services/apm/payments.ts';
import { SandboxApmConnector, type ProviderNotification } from './engine.ts';
import { providerNotification } from './provider.ts';
import { sqlSandboxStore } from './store.ts';

const sandboxes = new WeakMap<ServiceContext, SandboxApmConnector>();

/** A payment of the sandbox provider's HTTP side is notified at the callback address its create call gave. */
async function deliverToCallback(ctx: ServiceContext, n: ProviderNotification): Promise<boolean> {
  const note = await providerNotification(sqlSandboxStore(ctx.db), n.reference, n.status === 'ACSC' ? 'executed' : 'rejected');
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
    sandbox = new SandboxApmConnector({ store: sqlSandboxStore(ctx.db), clock: ctx.clock, baseUrl: () => ctx.baseUrl, notify: (n) => deliver(ctx, n) });
    sandboxes.set(ctx, sandbox);
  }
  return sandbox;
}
