/**
 * A wallet token sent by a merchant (S2S SALE with digital_wallet and payment_token), decrypted with the keys of
 * the merchant's Wallets tab and the configured roots, and claimed once (replay refusal). What comes out is a card
 * for the card flow; the PAN and cryptogram are never logged, only the reason of a refusal.
 */
import { createPrivateKey, createHash, type KeyObject, type X509Certificate } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import type { Merchant } from '../../store/merchants-repo.ts';
import type { CardData } from '../../connectors/types.ts';
import { loadMerchantConfig, openWalletSecrets } from '../../store/merchant-config-repo.ts';
import { claimWalletToken } from '../../store/wallet-token-uses.ts';
import { GatewayError } from '../../domain/errors.ts';
import { decryptGooglePayToken, type GoogleRootKey } from '../../domain/wallets/google-pay-token.ts';
import { decryptApplePayToken, merchantIdHashOf } from '../../domain/wallets/apple-pay-token.ts';
import { WALLET_DECLINES, parseJsonObject, type TokenResult, type WalletDecline } from '../../domain/wallets/token-result.ts';

export type WalletName = 'applepay' | 'googlepay';
export const WALLET_NAMES: readonly WalletName[] = ['applepay', 'googlepay'];

/** The roots a token must chain to: configuration (files), Google's TEST and PRODUCTION sets apart. */
export interface WalletTrust {
  googleRootKeys: Readonly<Record<'TEST' | 'PRODUCTION', readonly GoogleRootKey[]>>;
  appleRootCertificates: readonly X509Certificate[];
}

export interface WalletCard {
  wallet: WalletName;
  card: CardData;
  /** PAN_ONLY (Google) or a cryptogram-bearing token; the cryptogram itself stays in memory only. */
  authMethod: 'PAN_ONLY' | 'CRYPTOGRAM_3DS';
  cryptogram?: string;
  eci?: string;
}

interface GoogleSettings { enabled: boolean; environment: 'TEST' | 'PRODUCTION'; merchantIdentifier: string }
interface AppleSettings { enabled: boolean; certificate: { pem: string } }

const LABEL: Readonly<Record<WalletName, string>> = { applepay: 'Apple Pay', googlepay: 'Google Pay' };
/** An Apple Pay token carries no expiry of its own: its use is remembered a day (its signing window is minutes). */
const APPLE_REPLAY_MEMORY_MS = 86_400_000;

const decline = (reason: WalletDecline) => GatewayError.field('payment_token', WALLET_DECLINES[reason]);

/** payment_token as sent: the wallet's JSON, or that JSON base64-encoded (as many SDKs pass it). */
function tokenText(paymentToken: string): string {
  const trimmed = paymentToken.trim();
  if (trimmed.startsWith('{')) return trimmed;
  const decoded = Buffer.from(trimmed, 'base64').toString('utf8');
  return decoded.trim().startsWith('{') ? decoded : trimmed;
}

function privateKey(pem: unknown): KeyObject | undefined {
  if (typeof pem !== 'string') return undefined;
  try {
    return createPrivateKey(pem);
  } catch {
    return undefined;
  }
}

const trustOf = (ctx: ServiceContext): WalletTrust => ctx.walletTrust ?? { googleRootKeys: { TEST: [], PRODUCTION: [] }, appleRootCertificates: [] };

interface Decrypted { card: WalletCard; messageId: string; expiresAt: Date }

function fromResult<T>(ctx: ServiceContext, merchant: Merchant, wallet: WalletName, result: TokenResult<T>): T {
  if (result.ok) return result.value;
  // The reason only: never the token, never what it holds.
  ctx.logger.info({ merchantId: merchant.id, wallet, reason: result.reason }, 'wallet token refused');
  throw decline(result.reason);
}

function decryptGoogle(ctx: ServiceContext, merchant: Merchant, settings: GoogleSettings, key: KeyObject, token: string): Decrypted {
  const now = ctx.clock.now();
  const card = fromResult(ctx, merchant, 'googlepay', decryptGooglePayToken(tokenText(token), {
    // The merchant's own key decrypts (Google's DIRECT tokenization): the message is signed for the merchant id.
    recipientId: `merchant:${settings.merchantIdentifier}`,
    rootKeys: trustOf(ctx).googleRootKeys[settings.environment],
    privateKeys: [key],
    now,
  }));
  return {
    messageId: card.messageId,
    expiresAt: card.expiresAt,
    card: {
      wallet: 'googlepay',
      card: { pan: card.pan, expMonth: String(card.expMonth).padStart(2, '0'), expYear: String(card.expYear) },
      authMethod: card.authMethod,
      ...(card.cryptogram ? { cryptogram: card.cryptogram } : {}),
      ...(card.eci ? { eci: card.eci } : {}),
    },
  };
}

function decryptApple(ctx: ServiceContext, merchant: Merchant, settings: AppleSettings, key: KeyObject, token: string): Decrypted {
  const now = ctx.clock.now();
  const parsed = parseJsonObject(tokenText(token));
  // The whole PKPaymentToken or only its paymentData.
  const paymentData = parsed && typeof parsed.paymentData === 'object' ? parsed.paymentData : parsed;
  const merchantIdHash = merchantIdHashOf(settings.certificate.pem);
  if (!merchantIdHash) throw GatewayError.field('digital_wallet', 'The Apple Pay merchant certificate carries no merchant identifier.');
  const card = fromResult(ctx, merchant, 'applepay', decryptApplePayToken(paymentData, {
    rootCertificates: trustOf(ctx).appleRootCertificates, processingKeys: [key], merchantIdHash, now,
  }));
  return {
    messageId: card.messageId,
    expiresAt: new Date(now.getTime() + APPLE_REPLAY_MEMORY_MS),
    card: {
      wallet: 'applepay',
      card: { pan: card.pan, expMonth: String(card.expMonth).padStart(2, '0'), expYear: String(card.expYear) },
      authMethod: card.cryptogram ? 'CRYPTOGRAM_3DS' : 'PAN_ONLY',
      ...(card.cryptogram ? { cryptogram: card.cryptogram } : {}),
      ...(card.eci ? { eci: card.eci } : {}),
    },
  };
}

/**
 * The card inside a merchant's wallet token, the token claimed so it pays once. Refused with a field error when
 * the wallet is not set up, the token does not verify or decrypt, or it was used before.
 */
export async function openWalletToken(ctx: ServiceContext, merchant: Merchant, wallet: WalletName, paymentToken: string): Promise<WalletCard> {
  const config = await loadMerchantConfig(ctx.db, merchant.id);
  const wallets = (config?.wallets ?? {}) as { applePay?: AppleSettings; googlePay?: GoogleSettings };
  const settings = wallet === 'applepay' ? wallets.applePay : wallets.googlePay;
  if (!config || !settings?.enabled) throw GatewayError.field('digital_wallet', `${LABEL[wallet]} is not enabled for this merchant.`);
  const secrets = openWalletSecrets(ctx.keyring, config).expose();
  const key = privateKey(wallet === 'applepay' ? secrets.apple_pay_processing_private_key : secrets.google_pay_private_key);
  if (!key) {
    // The virtual flow (the token passed as it is to a connector that takes tokens) is not built yet.
    throw GatewayError.field('payment_token', `${WALLET_DECLINES.decryption_key_missing} Set it in the Wallets settings.`);
  }
  const opened = wallet === 'applepay'
    ? decryptApple(ctx, merchant, settings as AppleSettings, key, paymentToken)
    : decryptGoogle(ctx, merchant, settings as GoogleSettings, key, paymentToken);
  // Keyed by a hash: the table holds no token content.
  const messageId = createHash('sha256').update(opened.messageId).digest('hex');
  if (!await claimWalletToken(ctx.db, { merchantId: merchant.id, wallet, messageId, expiresAt: opened.expiresAt })) {
    ctx.logger.info({ merchantId: merchant.id, wallet, reason: 'token_replayed' }, 'wallet token refused');
    throw decline('token_replayed');
  }
  return opened.card;
}
