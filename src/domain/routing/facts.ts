/**
 * What the router knows of a payment when it routes it: its intent, money and method, and for a card the brand,
 * BIN and issuing country. The facts are gathered once per payment, before any MID is looked at.
 */
import { SAMPLE_BIN_TABLE, type BinTable } from '../bin-table.ts';
import { cardBrandByPrefix } from '../card.ts';
import type { Money } from '../money.ts';
import type { Intent } from '../operations.ts';

export interface PaymentFacts {
  intent: Intent;
  money: Money;
  method: string;
  brand?: string;
  /** The card's first digits (6 or more). */
  bin?: string;
  cardCountry?: string;
  billingCountry?: string;
  recurring: boolean;
  customData?: Readonly<Record<string, unknown>>;
}

/**
 * The facts of a card payment the rules look at. The card's country comes from the BIN table; its brand from the
 * brand prefixes (domain/card.ts), the table's brand filling in only where those know none.
 */
export function cardFacts(p: { intent: Intent; amount: bigint; currency: string; pan?: string; country?: string; recurring: boolean; customData?: Readonly<Record<string, unknown>> | null }, bins: BinTable = SAMPLE_BIN_TABLE): PaymentFacts {
  const facts: PaymentFacts = { intent: p.intent, money: { minor: p.amount, currency: p.currency }, method: 'card', recurring: p.recurring };
  if (p.pan) {
    facts.bin = p.pan.slice(0, 8);
    const issuer = bins.size > 0 ? bins.lookup(facts.bin) : undefined;
    const brand = cardBrandByPrefix(p.pan.slice(0, 6)) ?? issuer?.brand;
    if (brand) facts.brand = brand;
    if (issuer) facts.cardCountry = issuer.country;
  }
  if (p.country) facts.billingCountry = p.country;
  if (p.customData) facts.customData = p.customData;
  return facts;
}

/** The brand the success-rate counters are kept under. */
export const statsBrand = (brand: string | undefined): string => brand ?? 'card';
