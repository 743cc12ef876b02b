/**
 * The hosted page's wallet buttons: which wallets the session offers and the merchant has enabled, and what the
 * page's script needs to run each one's payment sheet. A sandbox merchant's page runs the gateway's wallet simulator
 * (the sandbox sheet, tokens from src/sandbox/wallets/simulator.ts); a live merchant's page runs the real thing: Google Pay's
 * PaymentsClient with the PaymentDataRequest built here, Apple Pay's ApplePaySession with the payment request built
 * here and merchant validation through the gateway (apple-merchant-validation.ts).
 */
import { createPublicKey } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Session } from '../../store/sessions-repo.ts';
import { formatAmount } from '../../domain/money.ts';
import { takesWallets } from '../../domain/operations.ts';
import { WALLET_PAGE_FIELDS, walletMethod, type WalletName, type WalletPageField } from '../../domain/wallets/wallet-flow.ts';
import { walletSetup, type WalletSetup } from './wallet-tokens.ts';

export interface WalletButton {
  /** The session's method key: the wallet, or its payment-page variant. */
  method: string;
  wallet: WalletName;
  /** simulator: the sandbox sheet; live: the wallet's own sheet (its script or the browser's API). */
  mode: 'simulator' | 'live';
  /** Live: Google's PaymentDataRequest (with `environment`) or Apple's ApplePayPaymentRequest. */
  request?: Record<string, unknown>;
  /** A payment-page variant: the payer fields the request lacked, asked on the page before the sheet. */
  collect?: WalletPageField[];
}

/** Which payer fields of a payment-page variant the session's request already holds. */
const HELD: Readonly<Record<WalletPageField, (r: Session['request']) => unknown>> = {
  customer_name: (r) => r.customer?.name,
  customer_email: (r) => r.customer?.email,
  billing_country: (r) => r.billingAddress?.country,
  billing_city: (r) => r.billingAddress?.city,
  billing_address: (r) => r.billingAddress?.address,
  billing_zip: (r) => r.billingAddress?.zip,
};

/** The payer fields a payment-page variant must still ask (interface.md: all required). */
export const missingPageFields = (session: Session): WalletPageField[] => WALLET_PAGE_FIELDS.filter((f) => !HELD[f](session.request));

/** Google's DIRECT tokenization names the merchant's public key as the uncompressed point, base64. */
function googlePublicKey(setup: Extract<WalletSetup, { enabled: true }>): string | undefined {
  if (!setup.key) return undefined;
  const jwk = createPublicKey(setup.key).export({ format: 'jwk' });
  return Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x as string, 'base64url'), Buffer.from(jwk.y as string, 'base64url')]).toString('base64');
}

interface GoogleStored { environment: string; allowedAuthMethods: string[]; supportedNetworks: string[]; merchantIdentifier: string; gateway: string; gatewayMerchantId: string }
interface AppleStored { merchantIdentifier: string; country: string; shopName: string; merchantCapabilities: string[]; supportedNetworks: string[] }

/**
 * With the merchant's decryption key the token is encrypted for the merchant (DIRECT: the gateway decrypts it, the
 * decrypted flow); without it, for the merchant's gateway (PAYMENT_GATEWAY: the virtual flow, passed on unread).
 */
function googleRequest(merchant: Merchant, session: Session, setup: Extract<WalletSetup, { enabled: true }>): Record<string, unknown> {
  const g = setup.settings as unknown as GoogleStored;
  const publicKey = googlePublicKey(setup);
  const tokenizationSpecification = publicKey
    ? { type: 'DIRECT', parameters: { protocolVersion: 'ECv2', publicKey } }
    : { type: 'PAYMENT_GATEWAY', parameters: { gateway: g.gateway, gatewayMerchantId: g.gatewayMerchantId } };
  return {
    environment: g.environment,
    apiVersion: 2,
    apiVersionMinor: 0,
    merchantInfo: { merchantId: g.merchantIdentifier, merchantName: merchant.name },
    allowedPaymentMethods: [{ type: 'CARD', parameters: { allowedAuthMethods: g.allowedAuthMethods, allowedCardNetworks: g.supportedNetworks }, tokenizationSpecification }],
    transactionInfo: { totalPriceStatus: 'FINAL', totalPrice: formatAmount(session.amount, session.currency), currencyCode: session.currency },
  };
}

function appleRequest(session: Session, setup: Extract<WalletSetup, { enabled: true }>): Record<string, unknown> {
  const a = setup.settings as unknown as AppleStored;
  return {
    countryCode: a.country,
    currencyCode: session.currency,
    merchantCapabilities: a.merchantCapabilities,
    supportedNetworks: a.supportedNetworks,
    total: { label: a.shopName, amount: formatAmount(session.amount, session.currency), type: 'final' },
  };
}

/** The wallet buttons of a session's page: each offered wallet the merchant enabled. */
export async function walletButtons(ctx: ServiceContext, merchant: Merchant, session: Session): Promise<WalletButton[]> {
  if (!takesWallets(session.operation)) return [];
  const buttons: WalletButton[] = [];
  for (const method of session.request.methods) {
    const offered = walletMethod(method);
    if (!offered) continue;
    const { wallet } = offered;
    const setup = await walletSetup(ctx, merchant, wallet);
    if (!setup.enabled) continue;
    const collect = offered.pageVariant ? missingPageFields(session) : [];
    const button: WalletButton = { method, wallet, mode: merchant.sandbox ? 'simulator' : 'live', ...(collect.length > 0 ? { collect } : {}) };
    if (!merchant.sandbox) button.request = wallet === 'googlepay' ? googleRequest(merchant, session, setup) : appleRequest(session, setup);
    buttons.push(button);
  }
  return buttons;
}
