/**
 * Daily volume caps per MID (issue 15): at most `max_count` payments and `max_amount` moved per UTC day in one
 * currency. The static part decides without I/O whether a MID could take a payment at all (a cap of zero, or an
 * amount above the day's cap on its own); the running counts live in the store (store/volume-caps-repo.ts), where
 * each payment reserves its share with one guarded upsert before it is sent, so the cap holds however many
 * payments run at once on however many nodes.
 */
import { parseAmount, type Money } from '../money.ts';
import type { FieldError } from '../errors.ts';

/** One currency's cap, as the admin API takes it; an absent bound is no bound. */
export interface CurrencyCap {
  max_count?: number;
  /** Decimal string in major units of that currency. */
  max_amount?: string;
}

/** Caps by ISO 4217 currency; a currency not listed has no cap. */
export type DailyCaps = Record<string, CurrencyCap>;

/** A cap in the units the counters use. */
export interface CapLimits {
  maxCount: number | null;
  maxMinor: bigint | null;
}

/** What a payment reserved on a MID: given back, once, when its attempt there is declined or fails. */
export interface VolumeHold {
  midId: string;
  /** The UTC day the reservation counts on (YYYY-MM-DD). */
  day: string;
  currency: string;
  /** Minor units, as a decimal string (JSON has no bigint). */
  amount: string;
}

/** The UTC day of an instant: caps reset at 00:00 UTC. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The cap of a MID in a payment's currency, in minor units; undefined: none. */
export function capFor(caps: DailyCaps | null | undefined, currency: string): CapLimits | undefined {
  const cap = caps?.[currency];
  if (!cap || (cap.max_count === undefined && cap.max_amount === undefined)) return undefined;
  const parsed = cap.max_amount === undefined ? undefined : parseAmount(cap.max_amount, currency);
  return { maxCount: cap.max_count ?? null, maxMinor: parsed?.ok ? parsed.money.minor : null };
}

/** Whether a payment could ever fit the cap of the day (before any other payment counts). */
export function fitsEmptyDay(cap: CapLimits | undefined, money: Money): boolean {
  if (!cap) return true;
  return (cap.maxCount === null || cap.maxCount >= 1) && (cap.maxMinor === null || money.minor <= cap.maxMinor);
}

/** What no schema can say of a MID's caps: known currencies, amounts exact in their currency. */
export function validateCaps(caps: DailyCaps | null | undefined, isKnownCurrency: (code: string) => boolean): FieldError[] {
  const errors: FieldError[] = [];
  for (const [currency, cap] of Object.entries(caps ?? {})) {
    const at = `daily_caps.${currency}`;
    if (!isKnownCurrency(currency)) {
      errors.push({ field: at, message: 'This value is not a valid currency.' });
      continue;
    }
    if (cap.max_count === undefined && cap.max_amount === undefined) errors.push({ field: at, message: 'Give max_count, max_amount or both.' });
    if (cap.max_amount !== undefined && !parseAmount(cap.max_amount, currency).ok) errors.push({ field: `${at}.max_amount`, message: `This value is not a valid amount in ${currency}.` });
  }
  return errors;
}
