/**
 * The wallet simulator's payment sheet on a sandbox merchant's Checkout page asks here for a token: genuinely
 * encrypted and signed, for the session's merchant, from the sandbox's test roots (simulator.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { loadSession } from '../../services/hosted-checkout.ts';
import { GatewayError } from '../../domain/errors.ts';
import { WALLET_NAMES, walletMethod } from '../../domain/wallets/wallet-flow.ts';
import { PAGE, stringFields } from '../../channels/pages/reply.ts';
import { SIMULATOR_CARDS, simulateWalletToken } from './simulator.ts';

export function registerWalletSimulatorRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  /** The sandbox wallet simulator's sheet asks for a token (sandbox merchants only: the production guard checks). */
  app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/sandbox/wallets/:id/token', { ...PAGE, config: { dialect: 'json' as const } }, async (req, reply) => {
    const state = await loadSession(ctx, req.params.id);
    const fields = stringFields(req.body, ['wallet', 'card']);
    const wallet = WALLET_NAMES.find((w) => w === fields.wallet);
    if (state.kind !== 'open' || !state.merchant.sandbox || !wallet || !state.session.request.methods.some((m) => walletMethod(m)?.wallet === wallet)) throw new GatewayError('notFound');
    const card = fields.card === 'decline' ? SIMULATOR_CARDS.decline : SIMULATOR_CARDS.success;
    const token = await simulateWalletToken(ctx, state.merchant, wallet, card, state.session.amount);
    if (!token) throw new GatewayError('notFound');
    return reply.header('cache-control', 'no-store').send({ payment_token: token });
  });
}
