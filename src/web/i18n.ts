/**
 * The payer pages' languages: message catalogs (src/web/locales/<locale>.json, flat key -> text with
 * `{name}` placeholders, files a translator edits without touching code), the choice of a locale from what
 * the payer or merchant asked, and amounts, dates and country names through Intl in that locale.
 * English is the reference catalog: every other catalog has exactly its keys and placeholders (a test checks).
 */
import { readFileSync } from 'node:fs';
import { COUNTRIES } from '../domain/countries.ts';
import { exponentOf, formatAmount } from '../domain/money.ts';

export const LOCALES = ['en', 'es', 'pt-BR', 'fr', 'de', 'ar', 'tr'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

/** Right-to-left scripts among the locales. */
const RTL: ReadonlySet<Locale> = new Set<Locale>(['ar']);

/**
 * Intl locale per catalog. Arabic uses Latin digits: card numbers, codes and references are typed and printed
 * in Latin digits, so amounts and dates beside them read the same way.
 */
const INTL_LOCALE: Readonly<Record<Locale, string>> = { en: 'en', es: 'es', 'pt-BR': 'pt-BR', fr: 'fr', de: 'de', ar: 'ar-u-nu-latn', tr: 'tr' };

export type Catalog = Readonly<Record<string, string>>;

function loadCatalog(locale: Locale): Catalog {
  return JSON.parse(readFileSync(new URL(`./locales/${locale}.json`, import.meta.url), 'utf8')) as Catalog;
}

export const CATALOGS: Readonly<Record<Locale, Catalog>> = Object.fromEntries(LOCALES.map((l) => [l, loadCatalog(l)])) as Record<Locale, Catalog>;

/** The `{name}` placeholders of a message, sorted (a translation must keep exactly these). */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(/\{([a-zA-Z]+)\}/g)].map((m) => m[1]!).sort();
}

/** The supported locale for a language tag ("pt" and "pt-PT" take pt-BR, "es-MX" takes es), if any. */
export function supportedLocale(tag: string | undefined): Locale | undefined {
  if (!tag) return undefined;
  const clean = tag.trim().replace(/_/g, '-').toLowerCase();
  if (!/^[a-z]{2,3}(-[a-z0-9]{1,8})*$/.test(clean)) return undefined;
  const exact = LOCALES.find((l) => l.toLowerCase() === clean);
  if (exact) return exact;
  const language = clean.split('-')[0];
  return LOCALES.find((l) => l.split('-')[0]!.toLowerCase() === language);
}

/** Language tags of an Accept-Language header, best first (q=0 dropped; at most 20 read). */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .slice(0, 512)
    .split(',')
    .slice(0, 20)
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: (tag ?? '').trim(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((l) => l.tag !== '' && l.tag !== '*' && Number.isFinite(l.q) && l.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((l) => l.tag);
}

/**
 * The page's locale: the payer's explicit choice (the `lang` query or cookie), then the session's `locale`
 * set by the merchant, then the browser's Accept-Language, then English.
 */
export function negotiateLocale(o: { choice?: string; sessionLocale?: string; acceptLanguage?: string }): Locale {
  return (
    supportedLocale(o.choice) ??
    supportedLocale(o.sessionLocale) ??
    acceptedLanguages(o.acceptLanguage).map(supportedLocale).find((l) => l !== undefined) ??
    DEFAULT_LOCALE
  );
}

export type Params = Readonly<Record<string, string | number>>;

export interface Translator {
  readonly locale: Locale;
  readonly dir: 'ltr' | 'rtl';
  /** The message in this locale (English when the catalog lacks it), placeholders filled. */
  t(key: string, params?: Params): string;
  /** Whether the catalogs know the key (English included). */
  has(key: string): boolean;
  /** An amount of minor units in the currency's own format ("€1,234.50", "1.234,50 €", "US$ 1.234,50"). */
  money(minor: bigint, currency: string): string;
  /** A date and time ("24 Nov 2026, 14:05"), in UTC unless a time zone is given. */
  dateTime(at: Date, timeZone?: string): string;
  country(code: string): string;
  /** Every country, named and sorted in this locale (for pickers). */
  countries(): readonly { code: string; name: string }[];
}

function fill(text: string, params: Params | undefined): string {
  if (!params) return text;
  return text.replace(/\{([a-zA-Z]+)\}/g, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

function makeTranslator(locale: Locale): Translator {
  const catalog = CATALOGS[locale];
  const english = CATALOGS.en;
  const intl = INTL_LOCALE[locale];
  const regions = new Intl.DisplayNames([intl], { type: 'region', fallback: 'none' });
  const moneyFormats = new Map<string, Intl.NumberFormat | null>();
  const dates = new Map<string, Intl.DateTimeFormat>();
  let sorted: { code: string; name: string }[] | undefined;

  const moneyFormat = (currency: string): Intl.NumberFormat | null => {
    let f = moneyFormats.get(currency);
    if (f === undefined) {
      const digits = exponentOf(currency);
      try {
        f = new Intl.NumberFormat(intl, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
      } catch {
        f = null; // not an ISO 4217 shape (crypto codes such as USDT): digits and code instead
      }
      moneyFormats.set(currency, f);
    }
    return f;
  };

  const self: Translator = {
    locale,
    dir: RTL.has(locale) ? 'rtl' : 'ltr',
    t: (key, params) => fill(catalog[key] ?? english[key] ?? key, params),
    has: (key) => Object.hasOwn(english, key),
    money(minor, currency) {
      const decimal = formatAmount(minor, currency);
      const f = moneyFormat(currency);
      if (f) return f.format(decimal as unknown as number); // a decimal string is formatted exactly (no float)
      const plain = new Intl.NumberFormat(intl, { minimumFractionDigits: exponentOf(currency), maximumFractionDigits: exponentOf(currency) });
      return `${plain.format(decimal as unknown as number)} ${currency}`;
    },
    dateTime(at, timeZone = 'UTC') {
      let f = dates.get(timeZone);
      if (!f) {
        f = new Intl.DateTimeFormat(intl, { dateStyle: 'medium', timeStyle: 'short', timeZone });
        dates.set(timeZone, f);
      }
      return f.format(at);
    },
    country(code) {
      const upper = code.toUpperCase();
      return regions.of(upper) ?? COUNTRIES.find((c) => c.code === upper)?.name ?? upper;
    },
    countries() {
      sorted ??= COUNTRIES.map((c) => ({ code: c.code, name: self.country(c.code) })).sort((a, b) => a.name.localeCompare(b.name, intl));
      return sorted;
    },
  };
  return self;
}

const TRANSLATORS: Readonly<Record<Locale, Translator>> = Object.fromEntries(LOCALES.map((l) => [l, makeTranslator(l)])) as Record<Locale, Translator>;

export function translator(locale: Locale): Translator {
  return TRANSLATORS[locale];
}

/** The English translator: the default of every render function. */
export const EN: Translator = TRANSLATORS.en;

/** The messages the page scripts need, in the page's locale (sent in the page's JSON config). */
export function clientMessages(t: Translator, keys: readonly string[]): Record<string, string> {
  return Object.fromEntries(keys.map((k) => [k, t.t(k)]));
}
