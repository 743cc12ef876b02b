/**
 * Step 1 of an attempt: the source of the card (sent in full, stored, used once, or a wallet payment) and what
 * the payment keeps of it. The vault is written here, inside the attempt's first write (record.ts).
 */
import type { ServiceContext } from '../context.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { PaymentDetails } from '../../domain/model/payment.ts';
import { storeCard, loadCard, findCardByToken, type VaultedCard } from '../../store/card-vault.ts';
import { first6Last4, maskPan } from '../../domain/card.ts';
import { GatewayError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { CardData, ConnectorOutcome } from '../../connectors/types.ts';
import { DECLINES } from '../../domain/declines.ts';
import { WALLET_DECLINES, WALLET_DECLINE_CODES } from '../../domain/wallets/token-result.ts';
import { midTakes, resolveWalletPayment, walletDetails, type WalletPaymentRequest, type WalletUse } from '../wallets/wallet-payments.ts';

export type CardSource =
  | { kind: 'card'; card: CardData }
  /** A stored card; `expiry` the one the payer typed (a payout by card_token asks MM/YY), used instead of the stored one. */
  | { kind: 'vault'; vaultId: string; cvv?: string; expiry?: { expMonth: string; expYear: string } }
  /** A card used once and never stored (a payout card sent without expiry): only its mask is kept. */
  | { kind: 'transient'; card: CardData }
  /** A wallet payment: its decrypted card is vaulted; a token passed as it is leaves no card at all. */
  | { kind: 'wallet'; use: WalletUse };

/**
 * What a request names as the card, before it is resolved: a card sent in full (`keep`: vaulted, because a token
 * or a recurring chain needs it; otherwise used once and only its mask kept), a card_token of the merchant (with a
 * typed CVV or expiry), or a wallet's payment token.
 */
export type SourceRequest =
  | { kind: 'card'; card: CardData; keep: boolean }
  | { kind: 'token'; token: string | undefined; cvv?: string; expiry?: { expMonth: string; expYear: string } }
  | { kind: 'wallet'; request: WalletPaymentRequest };

/** A resolved source, with the stored card's holder when a card_token named it and what the payment keeps of it. */
export interface ResolvedSource {
  source: CardSource;
  holder?: string | null;
  /** Details the payment keeps of its source (a wallet payment: the wallet, its flow and authentication). */
  details?: Pick<PaymentDetails, 'wallet'>;
}

type Resolver<K extends SourceRequest['kind']> = (ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], req: Extract<SourceRequest, { kind: K }>) => Promise<ResolvedSource>;

/** One resolver per kind of source; a new kind (a network token, a payment link's card) is one row. */
const RESOLVERS: { readonly [K in SourceRequest['kind']]: Resolver<K> } = {
  card: async (_ctx, _merchant, _mids, req) => ({ source: req.keep ? { kind: 'card', card: req.card } : { kind: 'transient', card: req.card } }),
  token: (ctx, merchant, _mids, req) => tokenSource(ctx, merchant.id, req.token, {
    ...(req.cvv !== undefined ? { cvv: req.cvv } : {}), ...(req.expiry ? { expiry: req.expiry } : {}),
  }),
  // Never throws for what the token or the wallet setup holds: a refusal is recorded as a decline (wallet-payments.ts).
  wallet: async (ctx, merchant, mids, req) => {
    const use = await resolveWalletPayment(ctx, merchant, mids, req.request);
    return { source: { kind: 'wallet', use }, details: { wallet: walletDetails(use) } };
  },
};

/**
 * The source a request names, resolved before anything is written: an unknown card_token is the token error and
 * leaves no payment behind.
 */
export function resolveSource(ctx: ServiceContext, merchant: Merchant, mids: readonly Mid[], req: SourceRequest): Promise<ResolvedSource> {
  const resolve = RESOLVERS[req.kind] as Resolver<SourceRequest['kind']>;
  return resolve(ctx, merchant, mids, req);
}

/** The card a source names in full, when it does (a wallet token passed as it is names none). */
export const sentCard = (source: CardSource): CardData | undefined =>
  (source.kind === 'card' || source.kind === 'transient' ? source.card : source.kind === 'wallet' ? source.use.card?.card : undefined);

/**
 * Vaulted with the payment: a stored card, a card sent to be kept, a decrypted wallet card (not a transient card,
 * not a wallet token passed on unread).
 */
export const storesCard = (source: CardSource): boolean => source.kind === 'vault' || (source.kind !== 'transient' && sentCard(source) !== undefined);

/**
 * The stored card a merchant's card_token names, as a source; the token error when it names none. Resolved
 * before anything is written, so an unknown token leaves no payment behind.
 */
export async function tokenSource(ctx: ServiceContext, merchantId: string, token: string | undefined, extra: Omit<Extract<CardSource, { kind: 'vault' }>, 'kind' | 'vaultId'> = {}): Promise<{ source: CardSource; holder: string | null }> {
  const stored = token ? await findCardByToken(ctx.db, merchantId, token) : undefined;
  if (!stored) throw new GatewayError('cardTokenInvalid');
  return { source: { kind: 'vault', vaultId: stored.id, ...extra }, holder: stored.holder };
}

/** The PAN of a source, opening the vault for a stored card (only where a rule or a live MID must look at it). */
export async function panOf(ctx: ServiceContext, source: CardSource): Promise<string | undefined> {
  return source.kind === 'vault' ? (await loadCard(ctx.db, ctx.keyring, source.vaultId))?.pan() : sentCard(source)?.pan;
}

/** The MIDs that may carry a source: a wallet payment only those whose connector takes it in its flow. */
export function midsFor(ctx: ServiceContext, source: CardSource, mids: readonly Mid[]): readonly Mid[] {
  if (source.kind !== 'wallet' || !source.use.needs) return mids;
  return mids.filter(midTakes(ctx, source.use.needs));
}

/** A wallet payment refused before any connector call, as the decline it is recorded with. */
export function refusalOutcome(source: CardSource): ConnectorOutcome | undefined {
  const reason = source.kind === 'wallet' ? source.use.refusal : undefined;
  if (!reason) return undefined;
  const code = WALLET_DECLINE_CODES[reason];
  return { kind: 'declined', reason: WALLET_DECLINES[reason], error: { code, rawCode: reason, rawMessage: DECLINES[code].message } };
}

/** The card data the connector is sent: the source's own, or the stored card opened (with a typed expiry and CVV). */
export async function cardDataOf(ctx: ServiceContext, source: CardSource, vaulted: VaultedCard | undefined, none: CardData): Promise<CardData> {
  if (source.kind !== 'vault') return sentCard(source) ?? none;
  const pan = (await loadCard(ctx.db, ctx.keyring, vaulted!.id))?.pan() ?? '';
  return { pan, expMonth: source.expiry?.expMonth ?? vaulted!.expMonth, expYear: source.expiry?.expYear ?? vaulted!.expYear, cvv: source.cvv, holder: vaulted!.holder ?? undefined };
}

/** MM/YYYY of the card used: the typed expiry of a stored card when the payer gave one, else the card's own. */
export function expiryOf(source: CardSource, card: VaultedCard): string | undefined {
  const typed = source.kind === 'vault' ? source.expiry : undefined;
  if (typed) return `${typed.expMonth}/${typed.expYear}`;
  return card.expMonth ? `${card.expMonth}/${card.expYear}` : undefined;
}

/** What a transient card leaves behind: its mask and first6+last4, never the PAN. */
export function transientCard(merchantId: string, card: CardData): VaultedCard {
  return { id: '', merchantId, panMask: maskPan(card.pan), first6Last4: first6Last4(card.pan), expMonth: card.expMonth, expYear: card.expYear, holder: card.holder ?? null };
}

/** The card the payment keeps: the stored one, or the sent one stored now (in the caller's write). */
export async function vaultCard(ctx: ServiceContext, tx: Parameters<typeof storeCard>[0], merchantId: string, source: CardSource, now: Date): Promise<VaultedCard> {
  if (source.kind === 'vault') {
    const card = await loadCard(tx, ctx.keyring, source.vaultId);
    if (!card) throw new GatewayError('cardTokenInvalid');
    return card;
  }
  const sent = sentCard(source);
  if (!sent) throw new Error('no card to vault');
  const { pan, expMonth, expYear, holder } = sent;
  return storeCard(tx, ctx.keyring, { id: newId(), merchantId, pan, expMonth, expYear, holder, now });
}
