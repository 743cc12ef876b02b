/**
 * The words the shared pieces (ui.tsx, charts.tsx) say and the locale they format amounts, numbers and times in.
 * By default English and the browser's own locale (the console); a front end that speaks another language (the
 * merchant portal, portal/src/i18n.ts) provides its catalog's words and its locale around its screens.
 */
import { createContext, useContext } from 'react';

export const SHARED_WORDS = {
  'ui.loading': 'Loading {what}…',
  'ui.forbidden': 'Your role does not permit this.',
  'ui.tryAgain': 'Try again',
  'ui.cancel': 'Cancel',
  'ui.working': 'Working…',
  'ui.shownOnce': 'shown this once; keep it now.',
  'ui.copy': 'Copy',
  'ui.copied': 'Copied',
  'ui.none': 'none',
  'chart.thisPeriod': 'This period',
  'chart.previousPeriod': 'Previous period',
  'chart.previous': 'previous {value}',
  'chart.point': '{day}: {value} (previous {previousDay}: {previousValue})',
  'chart.top': 'top: {value}',
  'chart.day': 'Day',
  'chart.previousDay': 'Previous day',
  'chart.asTable': 'Figures as a table',
  'chart.noReason': '(no reason given)',
} as const;
export type SharedKey = keyof typeof SHARED_WORDS;

/** A message with its `{name}` placeholders filled. */
export function fill(text: string, params?: Readonly<Record<string, string | number>>): string {
  return params ? text.replace(/\{([a-zA-Z]+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole)) : text;
}

export interface SharedLocale {
  /** An Intl locale; undefined: the browser's. */
  locale: string | undefined;
  /** The user's language (one of the seven: api-words.ts says the API's error texts in it); undefined: English. */
  language?: string;
  say(key: SharedKey, params?: Readonly<Record<string, string | number>>): string;
}

export const SharedLocaleContext = createContext<SharedLocale>({ locale: undefined, say: (key, params) => fill(SHARED_WORDS[key], params) });

export const useShared = (): SharedLocale => useContext(SharedLocaleContext);
