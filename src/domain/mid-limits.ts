/**
 * A MID's eligibility limits (admin API: currencies, min_amount, max_amount): which payments it may carry
 * besides its payment mode (domain/routing.ts). Limits are decimal strings in major units; they are compared
 * with the payment's minor units exactly, scaled to a common number of decimals (never floats).
 */
import { exponentOf, type Money } from './money.ts';
import type { RoutableMid, RoutingRule } from './routing.ts';

export interface MidLimits {
  currencies: readonly string[] | null;
  minAmount: string | null;
  maxAmount: string | null;
}

const SCALE = 8;

/** "12.5" -> 1250000000n (8 decimals); the admin API's pattern allows at most 8. */
export function scaledDecimal(amount: string): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole) * 10n ** BigInt(SCALE) + BigInt(fraction.padEnd(SCALE, '0').slice(0, SCALE));
}

function scaledMoney(money: Money): bigint {
  return money.minor * 10n ** BigInt(SCALE - Math.min(exponentOf(money.currency), SCALE));
}

/**
 * Whether a MID's limits let it carry a payment. A zero amount (an account check, a recurring chain's
 * initialisation) is not held to the amount limits, which are about money moved.
 */
export function withinLimits(mid: MidLimits, money: Money): boolean {
  if (mid.currencies && !mid.currencies.includes(money.currency)) return false;
  if (money.minor === 0n) return true;
  const amount = scaledMoney(money);
  if (mid.minAmount !== null && amount < scaledDecimal(mid.minAmount)) return false;
  if (mid.maxAmount !== null && amount > scaledDecimal(mid.maxAmount)) return false;
  return true;
}

/** The limits as routing rules, each with the reason a routing decision records for a MID it keeps out. */
export function limitRules(money: Money): RoutingRule<MidLimits & RoutableMid>[] {
  return [
    { reason: 'currency', allows: (mid) => !mid.currencies || mid.currencies.includes(money.currency) },
    { reason: 'amount', allows: (mid) => withinLimits({ currencies: null, minAmount: mid.minAmount, maxAmount: mid.maxAmount }, money) },
  ];
}
