/**
 * The method catalog: one declarative entry per payment method the hosted page can offer. The card
 * entry is here now; the alternative methods of the spec arrive as further entries.
 */
export type Operation = 'purchase' | 'debit' | 'credit';
export type PayerExperience = 'card_form' | 'redirect' | 'qr' | 'details' | 'app_confirmation' | 'extra_fields' | 'otp' | 'link';

export interface MethodEntry {
  key: string;
  label: string;
  experience: PayerExperience;
  operations: readonly Operation[];
}

export const METHODS: Readonly<Record<string, MethodEntry>> = {
  card: { key: 'card', label: 'Card', experience: 'card_form', operations: ['purchase', 'debit', 'credit'] },
};

export function findMethod(key: string): MethodEntry | undefined {
  return Object.hasOwn(METHODS, key) ? METHODS[key] : undefined;
}
