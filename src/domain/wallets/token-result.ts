/**
 * Why a wallet token is refused: one reason per check, each with the text the merchant sees in the decline.
 * The texts never quote the token's content (no PAN, no cryptogram).
 */
export const WALLET_DECLINES = {
  token_malformed: 'The payment token is not a well-formed wallet token.',
  token_protocol_unsupported: 'The payment token uses a protocol version the gateway does not accept.',
  intermediate_key_untrusted: 'The payment token\'s intermediate signing key is not signed by a configured root key.',
  intermediate_key_expired: 'The payment token\'s intermediate signing key has expired.',
  token_signature_invalid: 'The payment token\'s signature does not verify for this recipient.',
  token_tag_mismatch: 'The payment token\'s integrity tag does not match (or it was not encrypted for this merchant).',
  token_expired: 'The payment token has expired.',
  token_payment_method_unsupported: 'The payment token does not carry a card.',
  token_replayed: 'The payment token has already been used.',
  certificate_chain_untrusted: 'The payment token\'s certificates do not chain to the configured Apple root.',
  certificate_marker_missing: 'The payment token\'s signing certificates lack the Apple Pay marker extensions.',
  signing_time_out_of_window: 'The payment token was signed too long ago (or in the future).',
  public_key_hash_unknown: 'The payment token was encrypted for a key this merchant does not have.',
  decryption_key_missing: 'The merchant has no decryption key for this wallet.',
} as const;

export type WalletDecline = keyof typeof WALLET_DECLINES;

export type TokenResult<T> = { ok: true; value: T } | { ok: false; reason: WalletDecline };

export const refuse = (reason: WalletDecline): { ok: false; reason: WalletDecline } => ({ ok: false, reason });

export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

export function stringField(object: Record<string, unknown>, name: string): string | undefined {
  const value = object[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
