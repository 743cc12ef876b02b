/**
 * MID choice by payment mode (interface spec, Endpoints rule 7): a sale goes to an SMS-capable MID,
 * an authorization to a DMS-capable one. SMS/DMS serves both.
 */
export type PaymentMode = 'SMS' | 'DMS' | 'SMS/DMS';
export type Intent = 'sale' | 'auth' | 'payout';

const MODES_FOR: Readonly<Record<Intent, readonly PaymentMode[]>> = {
  sale: ['SMS', 'SMS/DMS'],
  auth: ['DMS', 'SMS/DMS'],
  payout: ['SMS', 'DMS', 'SMS/DMS'],
};

export interface RoutableMid {
  id: string;
  paymentMode: PaymentMode;
  enabled: boolean;
  priority: number;
  connector: string;
}

/** Eligible MIDs for an intent, best first. */
export function eligibleMids<T extends RoutableMid>(mids: readonly T[], intent: Intent, connectors?: ReadonlySet<string>): T[] {
  return mids
    .filter((m) => m.enabled && MODES_FOR[intent].includes(m.paymentMode) && (!connectors || connectors.has(m.connector)))
    .sort((a, b) => b.priority - a.priority);
}
