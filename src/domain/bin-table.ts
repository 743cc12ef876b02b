/**
 * The BIN table (issue 15): ranges of a card's first 6 to 8 digits -> issuing country (and, optionally, brand), so
 * routing rules can match `card_countries`. The gateway fetches nothing from the internet: the table is the small
 * sample below unless the operator gives a file of their own (BIN_TABLE_FILE, loaded and validated at start-up;
 * see docs/operators/admin-api.md). Where ranges overlap, the longest (then the narrowest) range wins, so a file can carve an
 * 8-digit exception out of a 6-digit range.
 */
import { isCountryCode } from './countries.ts';

export interface BinRange {
  /** Inclusive ends, digits only, both of one length (6 to 8). */
  from: string;
  to: string;
  /** ISO 3166-1 alpha-2 issuing country. */
  country: string;
  /** The brand as the gateway names it (visa, mastercard, ...); absent: by prefix (domain/card.ts). */
  brand?: string;
}

export interface BinInfo {
  country: string;
  brand?: string;
}

/**
 * The built-in sample: the sandbox test cards only (their countries are the sandbox's own choice, not facts about
 * real issuers). Production operators load their licensed BIN data with BIN_TABLE_FILE.
 */
export const SAMPLE_BIN_RANGES: readonly BinRange[] = [
  { from: '411111', to: '411111', country: 'US', brand: 'visa' },
  { from: '46015418', to: '46015418', country: 'GB', brand: 'visa' },
];

export class BinTable {
  /** Most specific first: longer prefixes, then narrower ranges. */
  private readonly ranges: readonly BinRange[];

  constructor(ranges: readonly BinRange[]) {
    const width = (r: BinRange) => Number(r.to) - Number(r.from);
    this.ranges = [...ranges].sort((a, b) => b.from.length - a.from.length || width(a) - width(b));
  }

  get size(): number {
    return this.ranges.length;
  }

  /** The issuer facts of a card's first digits (at least 6), or undefined when no range holds them. */
  lookup(digits: string | undefined): BinInfo | undefined {
    if (!digits || digits.length < 6) return undefined;
    for (const r of this.ranges) {
      if (digits.length < r.from.length) continue;
      const prefix = digits.slice(0, r.from.length);
      // Same length, digits only: string order is numeric order.
      if (prefix >= r.from && prefix <= r.to) return r.brand ? { country: r.country, brand: r.brand } : { country: r.country };
    }
    return undefined;
  }
}

export const SAMPLE_BIN_TABLE = new BinTable(SAMPLE_BIN_RANGES);

/** Checks a table as read from a file: every problem with its entry's position, none: the ranges. */
export function parseBinRanges(value: unknown): { ranges: BinRange[] } | { problems: string[] } {
  const list = Array.isArray(value) ? value : (value as { ranges?: unknown } | null)?.ranges;
  if (!Array.isArray(list)) return { problems: ['expected a JSON array of {from, to, country, brand?} (or {"ranges": [...]})'] };
  const problems: string[] = [];
  const ranges: BinRange[] = [];
  for (const [i, entry] of list.entries()) {
    const e = entry as Partial<Record<keyof BinRange, unknown>> | null;
    const from = e?.from, to = e?.to, country = e?.country, brand = e?.brand;
    if (typeof from !== 'string' || typeof to !== 'string' || !/^\d{6,8}$/.test(from) || from.length !== to.length || !/^\d+$/.test(to) || from > to) {
      problems.push(`[${i}]: from and to should be 6 to 8 digits, of one length, from not greater than to`);
    } else if (typeof country !== 'string' || !isCountryCode(country)) {
      problems.push(`[${i}]: country should be an ISO 3166-1 alpha-2 code`);
    } else if (brand !== undefined && (typeof brand !== 'string' || !/^[a-z_]{2,20}$/.test(brand))) {
      problems.push(`[${i}]: brand should be a brand name as the gateway names them (visa, mastercard, ...)`);
    } else {
      ranges.push(brand === undefined ? { from, to, country } : { from, to, country, brand: brand as string });
    }
  }
  return problems.length > 0 ? { problems } : { ranges };
}
