/**
 * The sandbox: the outside world a sandbox merchant meets, played by the gateway itself (an acquirer with its
 * 3-D Secure and bank pages, an APM provider with its API, pages and outbox, wallet payment sheets, a demo shop
 * and a test clock). The rest of the gateway reaches it through two doors only: its routes and its connectors.
 */
import type { CardConnector } from '../connectors/types.ts';
import type { SandboxPort } from '../services/context.ts';
import { SandboxCardConnector } from './acquirer/card.ts';
import { sandboxApm } from './apm/instance.ts';
import { sandboxWallets } from './wallets/simulator.ts';

export { registerSandbox } from './routes.ts';
/** The gateway's e-mail in development: the sandbox outbox (issue 30). */
export { sandboxMail } from './mail.ts';

/**
 * The sandbox's connectors: its card acquirer, listed beside the real ones by name, and the port through which
 * the services reach its APM provider and wallet roots (ServiceContext.sandbox).
 */
export function sandboxConnectors(): { cards: readonly CardConnector[]; port: SandboxPort } {
  return {
    cards: [new SandboxCardConnector()],
    port: { apm: sandboxApm, walletTrust: async () => (await sandboxWallets()).trust },
  };
}
