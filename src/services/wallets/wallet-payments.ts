/**
 * The first step of a wallet payment's pipeline: resolve the source. Which flow the payment takes (the table of
 * domain/wallets/wallet-flow.ts, from the merchant's decryption key and what the connectors of its eligible MIDs
 * take), then the token opened (decrypted, decrypted and stored) or claimed as it is (virtual). Whatever goes wrong
 * is a refusal reason: the card service records it as a declined payment, as an acquirer's decline would be.
 */
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { PaymentDetails } from '../../domain/model/payment.ts';
import type { WalletDecline } from '../../domain/wallets/token-result.ts';
import { chooseWalletFlow, flowLimit, type WalletAsk, type WalletCapabilities, type WalletFlow, type WalletName } from '../../domain/wallets/wallet-flow.ts';
import type { Intent } from '../../domain/operations.ts';
import { reachable } from '../../domain/routing/route.ts';
import type { CardConnector } from '../../connectors/types.ts';
import { modeMids, usableConnectors } from '../connector-access.ts';
import { claimVirtualToken, openWalletToken, trustFor, walletSetup, type WalletCard } from './wallet-tokens.ts';

/** A wallet payment as the card service runs it. */
export interface WalletUse {
  name: WalletName;
  flow: WalletFlow;
  /** The capability a MID's connector needs to carry it; absent (a refusal with no capable MID): any MID records it. */
  needs?: keyof WalletCapabilities;
  /** The merchant's routing rules and cascading apply (decrypted flow only). */
  smartRouting: boolean;
  /** decrypted, card_stored: the card inside the token, vaulted with the payment. */
  card?: WalletCard;
  /** virtual, card_stored: the token, passed to the connector as it is. */
  token?: string;
  /** Refused before any connector call: recorded as a decline with this reason. */
  refusal?: WalletDecline;
}

export const capabilitiesOf = (c: CardConnector | undefined): WalletCapabilities => ({
  walletTokens: c?.walletTokens === true,
  decryptedWalletCards: c?.decryptedWalletCards === true,
});

/** Whether a MID's connector has a capability. */
export const midTakes = (ctx: ServiceContext, needs: keyof WalletCapabilities) => (mid: Mid): boolean =>
  capabilitiesOf(ctx.connectors.get(mid.connector))[needs];

export interface WalletPaymentRequest {
  wallet: WalletName;
  paymentToken: string;
  intent: Intent;
  ask: WalletAsk;
  /** The payer's name, the vaulted card's holder. */
  holder?: string;
}

/** What the payment keeps of its wallet (the pages, callbacks and admin views read it). */
export const walletDetails = (use: WalletUse): NonNullable<PaymentDetails['wallet']> =>
  ({ name: use.name, flow: use.flow, ...(use.card ? { authMethod: use.card.authMethod } : {}) });

/** Refused before a flow could be chosen: recorded on any eligible MID, as a virtual payment (no card known). */
const refused = (name: WalletName, reason: WalletDecline): WalletUse => ({ name, flow: 'virtual', smartRouting: false, refusal: reason });

/** Resolves a wallet payment's flow and source; never throws for what the token or the setup holds. */
export async function resolveWalletPayment(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], req: WalletPaymentRequest): Promise<WalletUse> {
  const { wallet } = req;
  const setup = await walletSetup(ctx, merchant, wallet);
  if (!setup.enabled) return refused(wallet, 'wallet_not_enabled');
  const eligible = reachable(modeMids(ctx, merchant, mids), req.intent, usableConnectors(ctx, merchant));
  const choice = chooseWalletFlow(setup.key !== undefined, eligible.map((m) => capabilitiesOf(ctx.connectors.get(m.connector))));
  if (!choice.ok) return refused(wallet, choice.reason);
  const base = { name: wallet, flow: choice.flow, needs: choice.needs, smartRouting: choice.smartRouting };
  const limit = flowLimit(choice.flow, req.ask);
  if (limit) return { ...base, refusal: limit };
  if (!choice.storesCard) {
    const claimed = await claimVirtualToken(ctx, merchant, wallet, req.paymentToken);
    return claimed.ok ? { ...base, token: claimed.value } : { ...base, refusal: claimed.reason };
  }
  // A sandbox merchant also trusts the sandbox's roots (its hosted page's wallet simulator signs with them).
  const trust = trustFor(ctx, merchant.sandbox ? await ctx.sandbox?.walletTrust() : undefined);
  const opened = await openWalletToken(ctx, merchant, setup, req.paymentToken, trust);
  if (!opened.ok) return { ...base, refusal: opened.reason };
  const card = req.holder ? { ...opened.value, card: { ...opened.value.card, holder: req.holder } } : opened.value;
  return { ...base, card, ...(choice.flow === 'card_stored' ? { token: req.paymentToken.trim() } : {}) };
}
