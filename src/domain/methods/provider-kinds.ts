/**
 * The provider-side mechanics of the alternative methods (issue 17 item 8) as reusable kinds: a MID of the
 * `apm-provider` connector names one kind in its settings, and the kind says how the provider is spoken to
 * (its authentication scheme), which catalog methods it serves by default, what the payer then does and which
 * credentials the MID must hold. The transformers here are pure (no I/O): the connector and the sandbox
 * provider both use them, so the two sides of the wire agree by construction only where the spec fixes a rule.
 */
import type { ApmExperience } from './types.ts';
import { exponentOf } from '../money.ts';

/** How every call of a kind is authenticated (interface.md, Authentication 4 to 6). */
export type ProviderAuth =
  /** X-API-Key and X-API-Secret headers on every call. */
  | 'header_key'
  /** A token call signed with the MID's private key, then an `authorization` header on every call. */
  | 'token'
  /** Every request carries a `Signature` made with the MID's private key. */
  | 'signature';

export const PROVIDER_KIND_NAMES = [
  'header-key', 'reference-auth', 'voucher-partner', 'payer-challenge', 'pix-payin', 'mobile-money', 'crypto-address', 'crypto-fiat', 'card-by-bank', 'identity-transfer',
] as const;
export type ProviderKindName = (typeof PROVIDER_KIND_NAMES)[number];

export interface ProviderKind {
  name: ProviderKindName;
  auth: ProviderAuth;
  /** Catalog method keys served when the MID's settings name none (`settings.methods`). */
  methods: readonly string[];
  /** What the payer does once the provider has the payment. */
  experience: ApmExperience;
  /** Credential names the MID must hold. */
  credentials: readonly string[];
  /** Settings the MID must hold besides kind and base_url. */
  settings: readonly string[];
}

/**
 * The credentials a MID must hold per way of authenticating. The token call's private key may instead be the
 * merchant's (connector_options.token_call.private_key of the admin panel), so a token MID needs only its API key.
 */
const CREDENTIALS: Readonly<Record<ProviderAuth, readonly string[]>> = {
  header_key: ['api_key', 'api_secret'],
  token: ['api_key'],
  signature: ['api_key', 'private_key'],
};

const kind = (name: ProviderKindName, auth: ProviderAuth, experience: ApmExperience, methods: readonly string[], settings: readonly string[] = []): ProviderKind => ({
  name, auth, experience, methods, settings, credentials: CREDENTIALS[auth],
});

/** The kinds, one row each. */
export const PROVIDER_KINDS: Readonly<Record<ProviderKindName, ProviderKind>> = {
  'header-key': kind('header-key', 'header_key', 'redirect', []),
  'reference-auth': kind('reference-auth', 'token', 'redirect', ['reference-auth']),
  'voucher-partner': kind('voucher-partner', 'signature', 'redirect', ['voucher-partner']),
  'payer-challenge': kind('payer-challenge', 'header_key', 'otp', ['payer-challenge']),
  'pix-payin': kind('pix-payin', 'header_key', 'qr', ['pix-payin']),
  'mobile-money': kind('mobile-money', 'header_key', 'app_confirmation', ['mobile-money']),
  'crypto-address': kind('crypto-address', 'header_key', 'details', ['awcc']),
  'crypto-fiat': kind('crypto-fiat', 'header_key', 'details', ['crypto-fiat'], ['crypto_currency', 'rates']),
  'card-by-bank': kind('card-by-bank', 'header_key', 'redirect', ['card-by-bank']),
  'identity-transfer': kind('identity-transfer', 'header_key', 'redirect', ['identity-transfer']),
};

export function providerKind(name: unknown): ProviderKind | undefined {
  return typeof name === 'string' && Object.hasOwn(PROVIDER_KINDS, name) ? PROVIDER_KINDS[name as ProviderKindName] : undefined;
}

/** Whether a MID of this kind (with its own method list, if any) serves a catalog method. */
export function servesMethod(k: ProviderKind, configured: readonly string[] | undefined, method: string): boolean {
  return (configured && configured.length > 0 ? configured : k.methods).includes(method);
}

/** "Maria da Silva" -> first Maria, last "da Silva": the identity-transfer and payer-challenge rule. */
export function splitName(full: string | undefined): { firstName: string; lastName: string } {
  const words = (full ?? '').trim().split(/\s+/).filter((w) => w !== '');
  return { firstName: words[0] ?? '', lastName: words.slice(1).join(' ') };
}

export type SignedValue = string | number | boolean;

/**
 * What a `Signature` covers: every other field, sorted by name (byte order), as name=value joined by &.
 * Nested values are not part of the partner's flat request, so they are refused rather than guessed.
 */
export function signingString(fields: Readonly<Record<string, SignedValue | null | undefined>>): string {
  return Object.keys(fields)
    .filter((k) => k !== 'Signature' && fields[k] !== undefined && fields[k] !== null)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((k) => `${k}=${String(fields[k])}`)
    .join('&');
}

/** ISO 4217 numeric codes: the voucher partner takes the currency as an int. */
const ISO_NUMERIC: Readonly<Record<string, number>> = {
  AMD: 51, ARS: 32, AUD: 36, AZN: 944, BRL: 986, BYN: 933, CAD: 124, CHF: 756, CLP: 152, COP: 170, CZK: 203, DKK: 208, EUR: 978,
  GBP: 826, GEL: 981, GHS: 936, HUF: 348, INR: 356, JPY: 392, KES: 404, KZT: 398, MDL: 498, MXN: 484, NGN: 566, NOK: 578, PEN: 604,
  PLN: 985, RON: 946, RSD: 941, RUB: 643, SEK: 752, TRY: 949, UAH: 980, USD: 840, UZS: 860, ZAR: 710,
};

export function currencyNumeric(code: string): number | undefined {
  return ISO_NUMERIC[code.toUpperCase()];
}

/** The alphabetic code of an ISO 4217 numeric code (the voucher partner's side of the same table). */
export function currencyAlpha(numeric: unknown): string | undefined {
  return Object.keys(ISO_NUMERIC).find((code) => ISO_NUMERIC[code] === numeric);
}

/** A decimal text as an integer scaled by 10^scale ("1.08", 6 -> 1080000n); undefined when not a plain decimal. */
function scaled(text: string, scale: number): bigint | undefined {
  const m = /^(\d{1,18})(?:\.(\d{1,18}))?$/.exec(text.trim());
  if (!m) return undefined;
  const fraction = (m[2] ?? '').slice(0, scale).padEnd(scale, '0');
  return BigInt(m[1]!) * 10n ** BigInt(scale) + BigInt(fraction || '0');
}

const RATE_SCALE = 18;

/**
 * The fiat-to-crypto conversion: `rate` is how many units of the coin one unit of the fiat currency buys (a
 * decimal text from the MID's settings). Exact integer arithmetic, rounded down to the coin's exponent (the
 * payer is never asked for more than the rate says). Undefined for a rate that is not a positive decimal.
 */
export function convertToCrypto(fiatMinor: bigint, fiatCurrency: string, rate: string, coin: string): { minor: bigint; text: string } | undefined {
  const r = scaled(rate, RATE_SCALE);
  if (r === undefined || r <= 0n) return undefined;
  const fiatExp = BigInt(exponentOf(fiatCurrency));
  const coinExp = BigInt(exponentOf(coin));
  // coinMinor = fiatMinor / 10^fiatExp * rate * 10^coinExp
  const minor = (fiatMinor * r * 10n ** coinExp) / (10n ** fiatExp * 10n ** BigInt(RATE_SCALE));
  return { minor, text: decimalText(minor, Number(coinExp)) };
}

/** Minor units as a decimal text with `exp` fraction digits. */
export function decimalText(minor: bigint, exp: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(exp + 1, '0');
  const text = exp === 0 ? digits : `${digits.slice(0, -exp)}.${digits.slice(-exp)}`;
  return negative ? `-${text}` : text;
}

/** The provider's word for a payment's state, in the words the kinds use (case-insensitive). */
const PROVIDER_STATES: Readonly<Record<string, 'pending' | 'executed' | 'rejected'>> = {
  pending: 'pending', created: 'pending', processing: 'pending',
  executed: 'executed', paid: 'executed', approved: 'executed', success: 'executed', completed: 'executed',
  rejected: 'rejected', declined: 'rejected', failed: 'rejected', cancelled: 'rejected', expired: 'rejected',
};

export function providerState(word: unknown): 'pending' | 'executed' | 'rejected' | undefined {
  return typeof word === 'string' ? PROVIDER_STATES[word.toLowerCase()] : undefined;
}

/** The reference-and-authorization family's public id: the merchant's order number, at most 40 positions. */
export const REFERENCE_PUBLIC_ID_MAX = 40;

/** The eight fields of the payer-challenge request, all required (interface.md, Other methods with fixed rules). */
export const CHALLENGE_FIELDS = ['phone', 'email', 'first_name', 'last_name', 'country', 'address', 'city', 'zip'] as const;
