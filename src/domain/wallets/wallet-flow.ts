/**
 * The five flow rules of interface.md "Wallet settings" as one table. Every connector in the registry is a card
 * connector ("supports card flow"); what tells them apart for wallets is what they take:
 * - `decryptedWalletCards`: the decrypted card (the DPAN or PAN with its cryptogram and ECI);
 * - `walletTokens`: the token as the payer's wallet made it (the acquirer decrypts it).
 *
 * | decryption key | a MID whose connector takes | flow        | card stored | routing rules, cascading | rule |
 * |----------------|-----------------------------|-------------|-------------|--------------------------|------|
 * | set            | decrypted wallet cards      | decrypted   | yes         | yes                      | 2    |
 * | set            | wallet tokens only          | card_stored | yes         | no (the token's MID)     | 4    |
 * | not set        | wallet tokens               | virtual     | no          | no (the token's MID)     | 1, 3 |
 * | any            | neither                     | refused: no_wallet_connector                         |      |
 *
 * Rule 5 (the decrypted card shown masked to the operator) follows from the card being stored. In the virtual flow
 * the gateway holds no card: DMS and recurring are not offered (`flowLimit`), which is the spec's
 * "limited" taken strictly, and each is a decline with its own reason rather than a silent downgrade.
 */

export type WalletName = 'applepay' | 'googlepay';
export const WALLET_NAMES: readonly WalletName[] = ['applepay', 'googlepay'];
export const WALLET_LABELS: Readonly<Record<WalletName, string>> = { applepay: 'Apple Pay', googlepay: 'Google Pay' };

export type WalletFlow = 'decrypted' | 'card_stored' | 'virtual';

/**
 * The method keys paid with a wallet's token: the wallets, and their payment-page variants (interface.md's
 * <prefix>-applepay, <prefix>-googlepay; catalog keys applepay-page, googlepay-page), which take the payer's name,
 * e-mail and billing address (asked on the page when the request lacks them) before the wallet's sheet.
 */
export const WALLET_METHODS: Readonly<Record<string, { wallet: WalletName; pageVariant: boolean }>> = {
  applepay: { wallet: 'applepay', pageVariant: false },
  googlepay: { wallet: 'googlepay', pageVariant: false },
  'applepay-page': { wallet: 'applepay', pageVariant: true },
  'googlepay-page': { wallet: 'googlepay', pageVariant: true },
};

/**
 * The payer fields of a payment-page variant (interface.md: customer.name, customer.email and the billing address are
 * required), asked on the page when the session's request lacked them, posted with the wallet's token.
 */
export const WALLET_PAGE_FIELDS = ['customer_name', 'customer_email', 'billing_country', 'billing_city', 'billing_address', 'billing_zip'] as const;
export type WalletPageField = (typeof WALLET_PAGE_FIELDS)[number];

export const walletMethod = (key: string | undefined) => (key !== undefined && Object.hasOwn(WALLET_METHODS, key) ? WALLET_METHODS[key] : undefined);

/** What a connector takes of a wallet payment (both false when it says nothing). */
export interface WalletCapabilities {
  walletTokens: boolean;
  decryptedWalletCards: boolean;
}

interface FlowRule {
  rule: string;
  keySet: boolean | 'any';
  /** The capability a MID's connector needs to carry the payment in this flow. */
  needs: keyof WalletCapabilities;
  flow: WalletFlow;
  /** The token is decrypted and the card vaulted. */
  storesCard: boolean;
  /** The merchant's routing rules and cascading apply; otherwise the first capable MID by priority, alone. */
  smartRouting: boolean;
}

/** First match wins. */
export const WALLET_FLOW_RULES: readonly FlowRule[] = [
  { rule: '2', keySet: true, needs: 'decryptedWalletCards', flow: 'decrypted', storesCard: true, smartRouting: true },
  { rule: '4', keySet: true, needs: 'walletTokens', flow: 'card_stored', storesCard: true, smartRouting: false },
  { rule: '1, 3', keySet: false, needs: 'walletTokens', flow: 'virtual', storesCard: false, smartRouting: false },
];

export type FlowChoice =
  | { ok: true; flow: WalletFlow; rule: string; storesCard: boolean; smartRouting: boolean; needs: keyof WalletCapabilities }
  | { ok: false; reason: 'no_wallet_connector' };

/** The flow of a wallet payment, from the merchant's key and what the connectors of its eligible MIDs take. */
export function chooseWalletFlow(keySet: boolean, connectors: readonly WalletCapabilities[]): FlowChoice {
  for (const r of WALLET_FLOW_RULES) {
    if (r.keySet !== 'any' && r.keySet !== keySet) continue;
    if (!connectors.some((c) => c[r.needs])) continue;
    return { ok: true, flow: r.flow, rule: r.rule, storesCard: r.storesCard, smartRouting: r.smartRouting, needs: r.needs };
  }
  return { ok: false, reason: 'no_wallet_connector' };
}

/** What a payment asks that a flow cannot give, and the decline reason it gets. */
export interface WalletAsk {
  hold: boolean;
  recurring: boolean;
  cardToken: boolean;
}

export type LimitDecline = 'virtual_hold_unavailable' | 'virtual_recurring_unavailable';

/** The virtual flow holds no card: no held authorization to capture later, no recurring chain, no card_token. */
export function flowLimit(flow: WalletFlow, ask: WalletAsk): LimitDecline | undefined {
  if (flow !== 'virtual') return undefined;
  if (ask.hold) return 'virtual_hold_unavailable';
  if (ask.recurring || ask.cardToken) return 'virtual_recurring_unavailable';
  return undefined;
}
