/**
 * Money as integer minor units with its currency (decisions D6). Never a float: amounts arrive and leave
 * as decimal strings and live as bigint.
 */

/** ISO 4217 exponents that differ from 2, plus the crypto codes (3 to 6 letters) the platform knows. */
export const EXPONENT_OVERRIDES: Readonly<Record<string, number>> = {
  // exponent 0
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0,
  VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  // exponent 3
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  // exponent 4
  CLF: 4, UYW: 4,
  // crypto
  BTC: 8, BCH: 8, LTC: 8, DOGE: 8, DASH: 8, ETH: 18, USDT: 6, USDC: 6, TRX: 6, XRP: 6, SOL: 9, BNB: 8,
};

/** Active ISO 4217 codes (fiat). A code outside this list and the crypto list is rejected. */
const FIAT_CODES = new Set(
  ('AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD ' +
    'CAD CDF CHF CLF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP ' +
    'GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD ' +
    'KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK ' +
    'NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD ' +
    'SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYI UYU UYW UZS VES VND VUV WST ' +
    'XAF XCD XOF XPF YER ZAR ZMW ZWL').split(' '),
);

export interface Money {
  readonly minor: bigint;
  readonly currency: string;
}

export function isKnownCurrency(code: string): boolean {
  return FIAT_CODES.has(code) || (code in EXPONENT_OVERRIDES && /^[A-Z]{3,6}$/.test(code));
}

export function exponentOf(currency: string): number {
  return EXPONENT_OVERRIDES[currency] ?? 2;
}

export type ParseResult = { ok: true; money: Money } | { ok: false; reason: 'format' | 'precision' | 'currency' };

const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/**
 * Parses a decimal string ("10", "10.5", "10.50") in a currency. More fraction digits than the currency's
 * exponent are accepted only when the extra digits are zeros ("100.00" for JPY, as the platform's docs ask).
 */
export function parseAmount(text: string, currency: string): ParseResult {
  if (!isKnownCurrency(currency)) return { ok: false, reason: 'currency' };
  const match = DECIMAL.exec(text);
  if (!match) return { ok: false, reason: 'format' };
  const exponent = exponentOf(currency);
  const whole = match[1] as string;
  let fraction = match[2] ?? '';
  if (fraction.length > exponent) {
    if (/[^0]/.test(fraction.slice(exponent))) return { ok: false, reason: 'precision' };
    fraction = fraction.slice(0, exponent);
  }
  const minor = BigInt(whole + fraction.padEnd(exponent, '0'));
  return { ok: true, money: { minor, currency } };
}

/** The canonical wire form: exactly the currency's exponent of fraction digits, no leading zeros. */
export function formatAmount(minor: bigint, currency: string): string {
  const exponent = exponentOf(currency);
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = digits.slice(digits.length - exponent);
  return (negative ? '-' : '') + (exponent === 0 ? whole : `${whole}.${fraction}`);
}

export function format(money: Money): string {
  return formatAmount(money.minor, money.currency);
}
