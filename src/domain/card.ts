/**
 * Card data rules: PAN shape and Luhn check, brand detection, masking, expiry and CVV. Pure, no I/O.
 * Brands are a declarative table (prefix ranges, lengths, CVV length), read by one lookup.
 */

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'discover' | 'jcb' | 'diners' | 'unionpay' | 'maestro' | 'mir';

/** A prefix range: both ends have the same number of digits and compare numerically ("2221".."2720"). */
type PrefixRange = readonly [from: string, to: string];

interface BrandRule {
  readonly brand: CardBrand;
  readonly prefixes: readonly PrefixRange[];
  readonly lengths: readonly number[];
  readonly cvvLength: number;
}

const range = (from: number, to: number = from): PrefixRange => [String(from), String(to)];
const lengths = (from: number, to: number = from): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Issuer identification ranges. When ranges overlap, the longest matching prefix wins. */
export const BRAND_RULES: readonly BrandRule[] = [
  { brand: 'visa', prefixes: [range(4)], lengths: [13, 16, 19], cvvLength: 3 },
  { brand: 'mastercard', prefixes: [range(51, 55), range(2221, 2720)], lengths: [16], cvvLength: 3 },
  { brand: 'amex', prefixes: [range(34), range(37)], lengths: [15], cvvLength: 4 },
  { brand: 'discover', prefixes: [range(6011), range(644, 649), range(65)], lengths: lengths(16, 19), cvvLength: 3 },
  { brand: 'jcb', prefixes: [range(3528, 3589)], lengths: lengths(16, 19), cvvLength: 3 },
  { brand: 'diners', prefixes: [range(300, 305), range(3095), range(36), range(38, 39)], lengths: lengths(14, 19), cvvLength: 3 },
  { brand: 'unionpay', prefixes: [range(62), range(81)], lengths: lengths(16, 19), cvvLength: 3 },
  { brand: 'maestro', prefixes: [range(50), range(56, 58), range(6304), range(6390), range(67)], lengths: lengths(13, 19), cvvLength: 3 },
  { brand: 'mir', prefixes: [range(2200, 2204)], lengths: lengths(16, 19), cvvLength: 3 },
];

export const PAN_MIN_LENGTH = 13;
export const PAN_MAX_LENGTH = 19;

/** Removes the spaces and dashes payers type or paste between digit groups. */
export function normalizePan(input: string): string {
  return input.replace(/[\s-]/g, '');
}

/** True for a string of digits whose Luhn (mod 10) checksum is 0. Catches every single-digit error. */
export function luhnValid(pan: string): boolean {
  if (!/^[0-9]+$/.test(pan)) return false;
  let sum = 0;
  for (let i = 0; i < pan.length; i++) {
    const digit = pan.charCodeAt(pan.length - 1 - i) - 48;
    const doubled = i % 2 === 1 ? digit * 2 : digit;
    sum += doubled > 9 ? doubled - 9 : doubled;
  }
  return sum % 10 === 0;
}

const PAN_SHAPE = new RegExp(`^[0-9]{${PAN_MIN_LENGTH},${PAN_MAX_LENGTH}}$`);

/** 13 to 19 digits. */
export function hasPanShape(pan: string): boolean {
  return PAN_SHAPE.test(pan);
}

/** A card number the gateway accepts: the right shape and a valid Luhn checksum. */
export function panValid(pan: string): boolean {
  return hasPanShape(pan) && luhnValid(pan);
}

/** Longest prefix of any range: 4 digits ("2221".."2720"). */
const MAX_PREFIX_DIGITS = Math.max(...BRAND_RULES.flatMap((rule) => rule.prefixes.map(([from]) => from.length)));

/**
 * Every prefix a range covers ("51".."55" -> "51", "52", ... "55") -> the rules it names, in table order, so
 * a brand lookup is a few map reads instead of a scan of every range on each request.
 */
const RULES_BY_PREFIX: ReadonlyMap<string, readonly BrandRule[]> = (() => {
  const byPrefix = new Map<string, BrandRule[]>();
  for (const rule of BRAND_RULES) {
    for (const [from, to] of rule.prefixes) {
      for (let n = Number(from); n <= Number(to); n++) {
        const prefix = String(n);
        const rules = byPrefix.get(prefix);
        if (!rules) byPrefix.set(prefix, [rule]);
        else if (!rules.includes(rule)) rules.push(rule);
      }
    }
  }
  return byPrefix;
})();

/**
 * A card number the gateway takes: the right shape, a valid checksum and a known brand. The brand matters:
 * the docs' invalid test card 1111222233334444 passes Luhn; the platform rejects it as an unsupported brand.
 */
export function cardNumberAccepted(pan: string): boolean {
  return panValid(pan) && cardBrand(pan) !== undefined;
}

/** The brand whose range matches the longest prefix of the PAN and which issues numbers of its length. */
export function cardBrand(pan: string): CardBrand | undefined {
  if (!hasPanShape(pan)) return undefined;
  return longestPrefixBrand(pan, (rule) => rule.lengths.includes(pan.length));
}

/**
 * The brand by prefix alone, for when only the first digits are known (first6Last4, a mask, a token's
 * card): "411111" -> visa, "378282" -> amex.
 */
export function cardBrandByPrefix(digits: string): CardBrand | undefined {
  if (!/^[0-9]{1,19}$/.test(digits)) return undefined;
  return longestPrefixBrand(digits);
}

/**
 * The first rule (in table order) that `accepts`, at the longest prefix of the digits that any rule's range
 * covers; shorter prefixes are tried only when no rule at a longer one accepts.
 */
function longestPrefixBrand(digits: string, accepts: (rule: BrandRule) => boolean = () => true): CardBrand | undefined {
  for (let length = Math.min(MAX_PREFIX_DIGITS, digits.length); length > 0; length--) {
    const rule = RULES_BY_PREFIX.get(digits.slice(0, length))?.find(accepts);
    if (rule) return rule.brand;
  }
  return undefined;
}

/** First six and last four digits, as the signature formulas use them; empty when the value is too short. */
export function first6Last4(pan: string): string {
  return pan.length >= 10 ? pan.slice(0, 6) + pan.slice(-4) : '';
}

/** `411111****1111`, as the platform's callbacks show a card. Anything not shaped like a PAN is fully hidden. */
export function maskPan(pan: string): string {
  if (!hasPanShape(pan)) return '****';
  return `${pan.slice(0, 6)}****${pan.slice(-4)}`;
}

// ---------------------------------------------------------------------------------------------------
// Expiry

export interface Expiry {
  /** 1..12 */
  readonly month: number;
  /** Four digits. */
  readonly year: number;
}

const MONTH = /^(0?[1-9]|1[0-2])$/;

/** Two-digit years are 20YY: card expiries are never in the last century. */
function parseYear(year: string): number | undefined {
  if (/^[0-9]{4}$/.test(year)) return Number(year);
  if (/^[0-9]{2}$/.test(year)) return 2000 + Number(year);
  return undefined;
}

/** Month "MM" (or "M") with year "YYYY" or "YY"; undefined when either is malformed. */
export function parseExpiry(month: string, year: string): Expiry | undefined {
  const m = month.trim();
  const y = parseYear(year.trim());
  if (!MONTH.test(m) || y === undefined) return undefined;
  return { month: Number(m), year: y };
}

/** "MM/YY" or "MM/YYYY" as payers type it on a card form ("12/38", "12 / 2038"). */
export function parseExpiryText(text: string): Expiry | undefined {
  const match = /^\s*([0-9]{1,2})\s*\/\s*([0-9]{2}|[0-9]{4})\s*$/.exec(text);
  return match ? parseExpiry(match[1] as string, match[2] as string) : undefined;
}

/** A card is valid through the last moment of its expiry month (UTC). */
export function isExpired(expiry: Expiry, now: Date): boolean {
  const firstInstantAfter = Date.UTC(expiry.year, expiry.month, 1); // Date.UTC months are 0-based: this is month + 1
  return now.getTime() >= firstInstantAfter;
}

/** "MM/YYYY", the callbacks' card_expiration_date. */
export function cardExpirationDate(expiry: Expiry): string {
  return `${String(expiry.month).padStart(2, '0')}/${String(expiry.year).padStart(4, '0')}`;
}

// ---------------------------------------------------------------------------------------------------
// CVV (checked, never stored)

/** The wire rule of card_cvv2: 3 or 4 digits. */
export const CVV_WIRE_PATTERN = /^[0-9]{3,4}$/;

/** With a known brand, its exact CVV length (4 for amex, else 3); without one, the wire rule of 3 or 4 digits. */
export function cvvValid(cvv: string, brand?: CardBrand): boolean {
  const rule = BRAND_RULES.find((r) => r.brand === brand);
  if (!rule) return CVV_WIRE_PATTERN.test(cvv);
  return cvv.length === rule.cvvLength && /^[0-9]+$/.test(cvv);
}
