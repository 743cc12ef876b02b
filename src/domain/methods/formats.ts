/** Value formats the catalog names (pure checks, no I/O). */
import { isCountryCode } from '../countries.ts';

function parsesAsHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * Merchants send the same few URLs (return and callback addresses) on every request, and parsing one costs
 * microseconds: recent verdicts are kept, in a map that is emptied when full and holds no long values.
 */
const urlVerdicts = new Map<string, boolean>();
const URL_VERDICTS_MAX = 1024;
const URL_VERDICT_MAX_LENGTH = 2048;

export function isHttpUrl(value: string): boolean {
  const known = urlVerdicts.get(value);
  if (known !== undefined) return known;
  const valid = parsesAsHttpUrl(value);
  if (value.length <= URL_VERDICT_MAX_LENGTH) {
    if (urlVerdicts.size >= URL_VERDICTS_MAX) urlVerdicts.clear();
    urlVerdicts.set(value, valid);
  }
  return valid;
}

/** No white space or control characters (a NUL cannot even be stored). */
export const isEmail = (value: string): boolean => /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u.test(value);

export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(value);
}

/** ISO 8601 date and time with seconds optional and a zone (Z or an offset). */
export function isIsoDateTime(value: string): boolean {
  const m = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/.exec(value);
  return m !== null && isCalendarDate(m[1] as string);
}

export const isCountry = (value: string): boolean => isCountryCode(value.toUpperCase());

/** Alpha-2 or the 3-digit numeric form of ISO 3166-1 (the spec's "A2 or N3"). */
export const isCountryOrNumeric = (value: string): boolean => /^\d{3}$/.test(value) || (value.length === 2 && isCountry(value));

/** A currency code as the session accepts it: 3 capitals (fiat) to 6 (crypto). */
export const isCurrencyCode = (value: string): boolean => /^[A-Z]{3,6}$/.test(value);

export const isBase64 = (value: string): boolean => value.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(value);

const FIAT = new Set(Intl.supportedValuesOf('currency'));

/** ISO 4217 codes are fiat; anything else the gateway accepts (BTC, USDT, ...) is crypto. */
export const isFiatCurrency = (code: string): boolean => FIAT.has(code);

/** N<integer>.N<fraction>: up to that many digits before and after an optional point. */
export const isDecimal = (value: string, integer: number, fraction: number): boolean =>
  new RegExp(`^\\d{1,${integer}}(\\.\\d{1,${fraction}})?$`).test(value);
