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
  wallet_not_enabled: 'This wallet is not enabled for the merchant (Wallets settings).',
  merchant_certificate_invalid: 'The merchant\'s Apple Pay certificate carries no merchant identifier (Wallets settings).',
  no_wallet_connector: 'None of the merchant\'s MIDs takes wallet payments (neither the token nor the decrypted card).',
  virtual_hold_unavailable: 'A held authorization (auth=Y) needs the decrypted flow: set the decryption key in the Wallets settings.',
  virtual_recurring_unavailable: 'Recurring payments and card tokens need the decrypted flow: set the decryption key in the Wallets settings.',
} as const;

export type WalletDecline = keyof typeof WALLET_DECLINES;

/**
 * The unified code each refusal is recorded with (connectors/error-codes.ts): a token that does not verify is an
 * invalid request, a merchant's setup that cannot carry the payment a configuration error, a virtual payment asking
 * for what only a stored card gives an unsupported request. None is retried on another MID: no MID was asked.
 */
export const WALLET_DECLINE_CODES: Readonly<Record<WalletDecline, 'invalid_request' | 'configuration_error' | 'not_supported'>> = {
  token_malformed: 'invalid_request',
  token_protocol_unsupported: 'invalid_request',
  intermediate_key_untrusted: 'invalid_request',
  intermediate_key_expired: 'invalid_request',
  token_signature_invalid: 'invalid_request',
  token_tag_mismatch: 'invalid_request',
  token_expired: 'invalid_request',
  token_payment_method_unsupported: 'invalid_request',
  token_replayed: 'invalid_request',
  certificate_chain_untrusted: 'invalid_request',
  certificate_marker_missing: 'invalid_request',
  signing_time_out_of_window: 'invalid_request',
  public_key_hash_unknown: 'invalid_request',
  decryption_key_missing: 'configuration_error',
  wallet_not_enabled: 'configuration_error',
  merchant_certificate_invalid: 'configuration_error',
  no_wallet_connector: 'configuration_error',
  virtual_hold_unavailable: 'not_supported',
  virtual_recurring_unavailable: 'not_supported',
};

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
