/**
 * The method catalog: one declarative entry per payment method. Each entry holds its key (or kind), its
 * parameters with their rules, and its payer experience. `parameters.<key>` of a session is validated
 * against it (validate.ts), the hosted page shows and collects what it says, docs/merchants/methods.md is generated
 * from it, and adding a method is adding an entry to one of the family files beside this one.
 */
import { CARD } from './card-sets.ts';
import { OTHER_KINDS } from './other-kinds.ts';
import { INSTANT_PAYMENT } from './instant-payment.ts';
import { VOUCHER_PARTNER } from './voucher-partner.ts';
import { PAYOUTS } from './payouts.ts';
import { WALLETS } from './wallets.ts';
import { FIXED_RULES } from './fixed-rules.ts';
import type { MethodEntry } from './types.ts';

export type { Channel, Condition, MethodEntry, MethodRule, Operation, ParamFormat, ParamSource, ParamSpec, ParamType, PayerExperience, Requirement } from './types.ts';
export { QR_PROVIDER_STATES } from './fixed-rules.ts';

/** Every entry, in the order of the spec's sections (the docs list them so). */
export const METHOD_LIST: readonly MethodEntry[] = [CARD, ...OTHER_KINDS, ...INSTANT_PAYMENT, VOUCHER_PARTNER, ...PAYOUTS, ...WALLETS, ...FIXED_RULES];

function byKey(entries: readonly MethodEntry[]): Readonly<Record<string, MethodEntry>> {
  const map: Record<string, MethodEntry> = {};
  for (const entry of entries) {
    // A repeated key would silently hide a method; fail at start instead.
    if (Object.hasOwn(map, entry.key)) throw new Error(`method key ${entry.key} is in the catalog twice`);
    map[entry.key] = entry;
  }
  return Object.freeze(map);
}

export const METHODS: Readonly<Record<string, MethodEntry>> = byKey(METHOD_LIST);

export function findMethod(key: string): MethodEntry | undefined {
  return Object.hasOwn(METHODS, key) ? METHODS[key] : undefined;
}
