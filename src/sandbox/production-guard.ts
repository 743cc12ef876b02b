/**
 * Production mode (issue 12): the sandbox's own pages (ACS, provider pages, the sandbox APM provider) serve
 * only payments of sandbox merchants, and the outbox of "sent" e-mails and SMS is off, since it is readable by
 * address. A live merchant's payment never meets a page that lets anyone approve it. The test clock refuses
 * live merchants itself (testClockLiveMerchant).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../services/context.ts';
import { GatewayError } from '../domain/errors.ts';
import { sqlSandboxStore } from './apm/store.ts';

/** The payment a sandbox page URL names, or undefined when the page names none. */
async function paymentOfPage(ctx: ServiceContext, segments: string[]): Promise<string | undefined> {
  const [, , kind, id] = segments;
  if (!id) return undefined;
  if (kind === 'acs' || kind === 'provider') return id;
  if (kind === 'wallets') {
    // The wallet simulator names a Checkout session: its payment's merchant decides.
    const [row] = await ctx.db.query<{ payment_id: string | null }>('SELECT payment_id FROM sessions WHERE id = $1', [id]);
    return row?.payment_id ?? undefined;
  }
  if (kind === 'apm') {
    return (await sqlSandboxStore(ctx.db).find(id))?.end_to_end_id;
  }
  return undefined;
}

async function isSandboxPayment(ctx: ServiceContext, paymentId: string): Promise<boolean> {
  const rows = await ctx.db.query<{ sandbox: boolean }>(
    'SELECT m.sandbox FROM payments p JOIN merchants m ON m.id = p.merchant_id WHERE p.id = $1', [paymentId]);
  return rows[0]?.sandbox === true;
}

export function installProductionGuard(app: FastifyInstance, ctx: ServiceContext): void {
  app.addHook('onRequest', async (req: FastifyRequest) => {
    const path = req.url.split('?')[0] ?? '';
    if (!path.startsWith('/sandbox/') || path.startsWith('/sandbox/test-clock')) return;
    const paymentId = await paymentOfPage(ctx, path.split('/'));
    if (!paymentId || !(await isSandboxPayment(ctx, paymentId))) throw new GatewayError('notFound');
  });
}
