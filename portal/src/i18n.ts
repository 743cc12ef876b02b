/**
 * The portal in the payer pages' seven languages (issue 30 item 5), by the payer pages' mechanism: a message
 * catalog per language (portal/src/locales/<language>.json, flat key -> text with `{name}` placeholders, files a
 * translator edits without touching code; English is the reference and every other catalog has exactly its keys and
 * placeholders, test/portal/i18n.test.ts), the user's choice kept in this browser, else the browser's own languages
 * (its Accept-Language), else English. Amounts, numbers and dates go through Intl in the chosen language; Arabic
 * reads right to left (the document's dir) with Latin digits, as the payer pages print it.
 */
import { Fragment, createContext, createElement, useContext, type ReactNode } from 'react';
import { fill, type SharedKey } from '../../console/src/locale';
import en from './locales/en.json';
import es from './locales/es.json';
import ptBR from './locales/pt-BR.json';
import fr from './locales/fr.json';
import de from './locales/de.json';
import ar from './locales/ar.json';
import tr from './locales/tr.json';

export const LANGUAGES = ['en', 'es', 'pt-BR', 'fr', 'de', 'ar', 'tr'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language by its own name (the picker shows these, whatever the language chosen). */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = { en: 'English', es: 'Español', 'pt-BR': 'Português', fr: 'Français', de: 'Deutsch', ar: 'العربية', tr: 'Türkçe' };

export type Key = keyof typeof en;
export type Params = Readonly<Record<string, string | number>>;
export type Translate = (key: Key, params?: Params) => string;

const CATALOGS: Readonly<Record<Language, Readonly<Record<string, string>>>> = { en, es, 'pt-BR': ptBR, fr, de, ar, tr };

/** Right-to-left languages among the seven. */
const RTL: ReadonlySet<Language> = new Set<Language>(['ar']);

/** Intl locale per language when the browser names no region of it; Arabic with Latin digits, as the payer pages. */
const INTL_LOCALE: Readonly<Record<Language, string>> = { en: 'en', es: 'es', 'pt-BR': 'pt-BR', fr: 'fr', de: 'de', ar: 'ar-u-nu-latn', tr: 'tr' };

/** The language for a tag: exact ("pt-BR"), else by its language ("pt-PT" takes pt-BR, "es-MX" es); none: undefined. */
export function languageOf(tag: string | undefined): Language | undefined {
  const clean = tag?.trim().replace(/_/g, '-').toLowerCase();
  if (!clean || !/^[a-z]{2,3}(-[a-z0-9]{1,8})*$/.test(clean)) return undefined;
  return LANGUAGES.find((l) => l.toLowerCase() === clean) ?? LANGUAGES.find((l) => l.split('-')[0]!.toLowerCase() === clean.split('-')[0]);
}

/** The browser's languages, best first (navigator.languages: what it sends as Accept-Language). */
const browserLanguages = (): readonly string[] => (typeof navigator === 'undefined' ? [] : navigator.languages?.length ? navigator.languages : [navigator.language]);

/**
 * The Intl locale of a language: the browser's own tag of that language when it has one (de-CH, en-GB, fr-CA: their
 * own date order and separators), else the language's. Arabic keeps Latin digits.
 */
export function intlLocaleOf(language: Language): string {
  if (language === 'ar') return INTL_LOCALE.ar;
  const own = browserLanguages().find((tag) => languageOf(tag) === language && tag.includes('-'));
  try {
    return own ? Intl.getCanonicalLocales(own)[0] ?? INTL_LOCALE[language] : INTL_LOCALE[language];
  } catch {
    return INTL_LOCALE[language];
  }
}

const STORAGE_KEY = 'portcullis.portal.language';

function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

/** The user's choice in this browser, else the first of the browser's languages the portal speaks, else English. */
export function initialLanguage(): Language {
  const stored = storage()?.getItem(STORAGE_KEY);
  if (stored && (LANGUAGES as readonly string[]).includes(stored)) return stored as Language;
  for (const tag of browserLanguages()) {
    const found = languageOf(tag);
    if (found) return found;
  }
  return 'en';
}

export function rememberLanguage(language: Language): void {
  storage()?.setItem(STORAGE_KEY, language);
}

/** The document's lang and dir follow the language. */
export function applyLanguage(language: Language): void {
  document.documentElement.lang = language;
  document.documentElement.dir = RTL.has(language) ? 'rtl' : 'ltr';
}

export const translatorFor = (language: Language): Translate => (key, params) => fill(CATALOGS[language][key] ?? en[key], params);

/** What the screens use: the language, its Intl locale, the translator and Intl formatters in that locale. */
export interface I18n {
  language: Language;
  locale: string;
  t: Translate;
  setLanguage(language: Language): void;
  /** A whole number or a decimal, grouped as the locale does. */
  number(n: number, digits?: number): string;
  /** A ratio (0.873) as a percentage (87.3 %) in the locale. */
  percent(ratio: number): string;
  /** A UTC day (YYYY-MM-DD) as the locale writes a date. */
  day(isoDay: string): string;
  /** The `one` message for a count the language calls singular, else the `other` one; `{count}` in the locale. */
  plural(count: number, one: Key, other: Key, params?: Params): string;
  /** A message whose placeholders are elements (a time, an amount, a link): the pieces in the message's order. */
  rich(key: Key, parts: Readonly<Record<string, ReactNode>>): ReactNode;
}

export function i18nFor(language: Language, setLanguage: (l: Language) => void): I18n {
  const locale = intlLocaleOf(language);
  const numbers = new Map<number, Intl.NumberFormat>();
  const pct = new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const days = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  const plurals = new Intl.PluralRules(locale);
  const t = translatorFor(language);
  const whole = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  return {
    language, locale, t, setLanguage,
    number(n, digits = 0) {
      let f = numbers.get(digits);
      if (!f) numbers.set(digits, f = new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }));
      return f.format(n);
    },
    percent: (ratio) => pct.format(ratio),
    day(isoDay) {
      const d = new Date(`${isoDay}T00:00:00Z`);
      return Number.isNaN(d.getTime()) ? isoDay : days.format(d);
    },
    plural: (count, one, other, params) => t(plurals.select(count) === 'one' ? one : other, { ...params, count: whole.format(count) }),
    rich(key, parts) {
      const text = CATALOGS[language][key] ?? en[key];
      return text.split(/\{([a-zA-Z]+)\}/).map((piece, i) => createElement(Fragment, { key: i }, i % 2 === 1 ? (piece in parts ? parts[piece] : `{${piece}}`) : piece));
    },
  };
}

/** The shared pieces' words (console/src/locale.ts) from the portal's catalog. */
export const sharedSay = (t: Translate) => (key: SharedKey, params?: Params) => t(key, params);

/** The merchant roles by name (domain/merchant-roles.ts); an unknown one as the API names it. */
const ROLE_KEYS: Readonly<Record<string, Key>> = { owner: 'role.owner', developer: 'role.developer', finance: 'role.finance', support: 'role.support', viewer: 'role.viewer' };
export const roleName = (t: Translate, role: string): string => (ROLE_KEYS[role] ? t(ROLE_KEYS[role]) : role);

export const I18nContext = createContext<I18n>(i18nFor('en', () => undefined));

export const useI18n = (): I18n => useContext(I18nContext);
export const useT = (): Translate => useContext(I18nContext).t;
