/** Amounts in the currency's own format and times in the operator's time zone (UTC on hover). */
const formatters = new Map<string, Intl.NumberFormat | null>();

function currencyFormat(currency: string, locale?: string): Intl.NumberFormat | null {
  const key = `${locale ?? ''}|${currency}`;
  if (!formatters.has(key)) {
    try {
      formatters.set(key, new Intl.NumberFormat(locale, { style: 'currency', currency, maximumFractionDigits: 8 }));
    } catch {
      formatters.set(key, null); // a code Intl does not know (a crypto asset): shown as text
    }
  }
  return formatters.get(key) ?? null;
}

/** A decimal string from the API (never a float: Intl formats the string's digits exactly). */
export function formatMoney(amount: string, currency: string, locale?: string): string {
  const format = currencyFormat(currency, locale);
  return format ? format.format(amount as unknown as number) : `${amount} ${currency}`;
}

const locals = new Map<string, Intl.DateTimeFormat>();

/** A time in the browser's time zone, in `locale` (undefined: the browser's). */
export function formatLocal(iso: string, locale?: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  let format = locals.get(locale ?? '');
  if (!format) locals.set(locale ?? '', format = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' }));
  return format.format(d);
}

export function formatUtc(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

export const timeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The operator's own midnight today, as an instant. */
export function startOfLocalDay(now = new Date()): Date {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate());
}
