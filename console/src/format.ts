/** Amounts in the currency's own format and times in the operator's time zone (UTC on hover). */
const formatters = new Map<string, Intl.NumberFormat | null>();

function currencyFormat(currency: string): Intl.NumberFormat | null {
  if (!formatters.has(currency)) {
    try {
      formatters.set(currency, new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: 8 }));
    } catch {
      formatters.set(currency, null); // a code Intl does not know (a crypto asset): shown as text
    }
  }
  return formatters.get(currency) ?? null;
}

/** A decimal string from the API (never a float: Intl formats the string's digits exactly). */
export function formatMoney(amount: string, currency: string): string {
  const format = currencyFormat(currency);
  return format ? format.format(amount as unknown as number) : `${amount} ${currency}`;
}

const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function formatLocal(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : local.format(d);
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
