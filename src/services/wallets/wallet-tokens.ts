/**
 * A wallet token (an S2S SALE's payment_token, or what the hosted page's payment sheet returned) decrypted with the
 * keys of the merchant's Wallets tab and the trusted roots, and claimed once (replay refusal); or, in the virtual
 * flow, claimed by its hash and passed on unread. The PAN and cryptogram are never logged, only a refusal's reason.
 */
import { createPrivateKey, createHash, type KeyObject } from 'node:crypto';
import type { ServiceContext, WalletTrust } from '../context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { CardData } from '../../connectors/types.ts';
import { loadMerchantConfig, openWalletSecrets } from '../../store/merchant-config-repo.ts';
import { claimWalletToken, pruneWalletTokenUses } from '../../store/wallet-token-uses.ts';
import { decryptGooglePayToken } from '../../domain/wallets/google-pay-token.ts';
import { decryptApplePayToken, merchantIdHashOf } from '../../domain/wallets/apple-pay-token.ts';
import { parseJsonObject, refuse, type TokenResult } from '../../domain/wallets/token-result.ts';
import type { WalletName } from '../../domain/wallets/wallet-flow.ts';

export { WALLET_NAMES, type WalletName } from '../../domain/wallets/wallet-flow.ts';
export type { WalletTrust };

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

/** An Apple Pay token (or a token the gateway cannot read) carries no expiry: its use is remembered a day. */
const APPLE_REPLAY_MEMORY_MS = 86_400_000;

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

/** The configured roots (ctx.walletTrust), and for a sandbox merchant the sandbox's own beside them. */
export function trustFor(ctx: ServiceContext, extra?: WalletTrust): WalletTrust {
  const configured = ctx.walletTrust ?? { googleRootKeys: { TEST: [], PRODUCTION: [] }, appleRootCertificates: [] };
  if (!extra) return configured;
  return {
    googleRootKeys: {
      TEST: [...configured.googleRootKeys.TEST, ...extra.googleRootKeys.TEST],
      PRODUCTION: [...configured.googleRootKeys.PRODUCTION, ...extra.googleRootKeys.PRODUCTION],
    },
    appleRootCertificates: [...configured.appleRootCertificates, ...extra.appleRootCertificates],
  };
}

interface Decrypted { card: WalletCard; messageId: string; expiresAt: Date }

/** What either wallet's decryption yields, before it becomes a WalletCard. */
interface OpenedCard { messageId: string; pan: string; expMonth: number; expYear: number; cryptogram?: string; eci?: string }

/** One shape for both wallets: the expiry as the connectors take it, cryptogram and ECI only when present. */
function decrypted(wallet: WalletName, card: OpenedCard, authMethod: WalletCard['authMethod'], expiresAt: Date): Decrypted {
  return {
    messageId: card.messageId,
    expiresAt,
    card: {
      wallet,
      card: { pan: card.pan, expMonth: String(card.expMonth).padStart(2, '0'), expYear: String(card.expYear) },
      authMethod,
      ...(card.cryptogram ? { cryptogram: card.cryptogram } : {}),
      ...(card.eci ? { eci: card.eci } : {}),
    },
  };
}

function decryptGoogle(ctx: ServiceContext, trust: WalletTrust, settings: GoogleSettings, key: KeyObject, token: string): TokenResult<Decrypted> {
  const result = decryptGooglePayToken(tokenText(token), {
    // The merchant's own key decrypts (Google's DIRECT tokenization): the message is signed for the merchant id.
    recipientId: `merchant:${settings.merchantIdentifier}`,
    rootKeys: trust.googleRootKeys[settings.environment],
    privateKeys: [key],
    now: ctx.clock.now(),
  });
  if (!result.ok) return result;
  const card = result.value;
  return { ok: true, value: decrypted('googlepay', card, card.authMethod, card.expiresAt) };
}

function decryptApple(ctx: ServiceContext, trust: WalletTrust, settings: AppleSettings, key: KeyObject, token: string): TokenResult<Decrypted> {
  const now = ctx.clock.now();
  const parsed = parseJsonObject(tokenText(token));
  // The whole PKPaymentToken or only its paymentData.
  const paymentData = parsed && typeof parsed.paymentData === 'object' ? parsed.paymentData : parsed;
  const merchantIdHash = merchantIdHashOf(settings.certificate.pem);
  if (!merchantIdHash) return refuse('merchant_certificate_invalid');
  const result = decryptApplePayToken(paymentData, { rootCertificates: trust.appleRootCertificates, processingKeys: [key], merchantIdHash, now });
  if (!result.ok) return result;
  const card = result.value;
  const authMethod = card.cryptogram ? 'CRYPTOGRAM_3DS' : 'PAN_ONLY';
  return { ok: true, value: decrypted('applepay', card, authMethod, new Date(now.getTime() + APPLE_REPLAY_MEMORY_MS)) };
}

/** A merchant's wallet as its Wallets tab sets it: enabled or not, and its decryption key when one is set. */
export type WalletSetup =
  | { enabled: false }
  | { enabled: true; wallet: WalletName; settings: GoogleSettings | AppleSettings; key?: KeyObject };

export async function walletSetup(ctx: ServiceContext, merchant: Merchant, wallet: WalletName): Promise<WalletSetup> {
  const config = await loadMerchantConfig(ctx.db, ctx.keyring, merchant.id);
  const wallets = (config?.wallets ?? {}) as { applePay?: AppleSettings; googlePay?: GoogleSettings };
  const settings = wallet === 'applepay' ? wallets.applePay : wallets.googlePay;
  if (!config || !settings?.enabled) return { enabled: false };
  const secrets = openWalletSecrets(ctx.keyring, config).expose();
  const key = privateKey(wallet === 'applepay' ? secrets.apple_pay_processing_private_key : secrets.google_pay_private_key);
  return { enabled: true, wallet, settings, ...(key ? { key } : {}) };
}

/** Claims a token's id once per merchant and wallet; keyed by a hash, so the table holds no token content. */
async function claimOnce(ctx: ServiceContext, merchant: Merchant, wallet: WalletName, id: string, expiresAt: Date): Promise<boolean> {
  const messageId = createHash('sha256').update(id).digest('hex');
  return claimWalletToken(ctx.db, { merchantId: merchant.id, wallet, messageId, expiresAt });
}

/**
 * The card inside a merchant's wallet token (decrypted flow), the token claimed so it pays once. A refusal is a
 * reason (the caller records it as a decline), logged without anything of the token.
 */
export async function openWalletToken(ctx: ServiceContext, merchant: Merchant, setup: Extract<WalletSetup, { enabled: true }>, paymentToken: string, trust: WalletTrust): Promise<TokenResult<WalletCard>> {
  const { wallet, key } = setup;
  const opened: TokenResult<Decrypted> = !key ? refuse('decryption_key_missing')
    : wallet === 'applepay' ? decryptApple(ctx, trust, setup.settings as AppleSettings, key, paymentToken)
      : decryptGoogle(ctx, trust, setup.settings as GoogleSettings, key, paymentToken);
  const result: TokenResult<WalletCard> = !opened.ok ? opened
    : await claimOnce(ctx, merchant, wallet, opened.value.messageId, opened.value.expiresAt) ? { ok: true, value: opened.value.card } : refuse('token_replayed');
  // The reason only: never the token, never what it holds.
  if (!result.ok) ctx.logger.info({ merchantId: merchant.id, wallet, reason: result.reason }, 'wallet token refused');
  return result;
}

/**
 * A token passed on as it is (virtual flow): the gateway cannot read it, so it is remembered by its own hash for a
 * day and refused the second time (the acquirer would refuse it too, later and less clearly).
 */
export async function claimVirtualToken(ctx: ServiceContext, merchant: Merchant, wallet: WalletName, paymentToken: string): Promise<TokenResult<string>> {
  const text = tokenText(paymentToken);
  // Passed on as sent (JSON or base64): each connector shapes it as its acquirer wants.
  if (await claimOnce(ctx, merchant, wallet, `virtual:${text}`, new Date(ctx.clock.now().getTime() + APPLE_REPLAY_MEMORY_MS))) return { ok: true, value: paymentToken.trim() };
  ctx.logger.info({ merchantId: merchant.id, wallet, reason: 'token_replayed' }, 'wallet token refused');
  return refuse('token_replayed');
}

/** How long a use is kept past its token's expiry: room for nodes whose clocks disagree a little. */
export const WALLET_TOKEN_USE_MARGIN_MS = 60 * 60_000;

/**
 * Deletes a batch of recorded wallet token uses whose token expired over WALLET_TOKEN_USE_MARGIN_MS ago (the risk
 * pruner's pass): such a token is refused as expired before its use is looked up, so the row guards nothing.
 */
export async function pruneSpentWalletTokens(ctx: ServiceContext, limit = 10_000): Promise<number> {
  return pruneWalletTokenUses(ctx.db, new Date(ctx.clock.now().getTime() - WALLET_TOKEN_USE_MARGIN_MS), limit);
}
