/**
 * The method picker's groups (cards, wallets, bank, cash, crypto): a payer looks for "my wallet" or "a bank
 * transfer" before a brand. One table from catalog key to group; a key not listed is a bank method.
 */
export const METHOD_GROUPS = ['card', 'wallet', 'bank', 'cash', 'crypto'] as const;
export type MethodGroup = (typeof METHOD_GROUPS)[number];

const GROUP_OF: Readonly<Record<string, MethodGroup>> = {
  card: 'card',
  'card-by-bank': 'card',
  applepay: 'wallet',
  googlepay: 'wallet',
  'applepay-page': 'wallet',
  'googlepay-page': 'wallet',
  'mobile-money': 'wallet',
  'mobile-money-narrative': 'wallet',
  'mtn-mobile-money': 'wallet',
  'mobile-money-bj': 'wallet',
  'mobile-money-tg': 'wallet',
  'mobile-money-payout': 'wallet',
  'retail-credit-a': 'wallet',
  'retail-credit-b': 'wallet',
  'installment-product': 'wallet',
  'otp-confirmation': 'wallet',
  'payer-challenge': 'wallet',
  'voucher-partner': 'cash',
  'instant-service-pe': 'cash',
  awcc: 'crypto',
  'crypto-amount': 'crypto',
  'crypto-wallet': 'crypto',
  'crypto-only': 'crypto',
  'crypto-fiat': 'crypto',
};

export function methodGroup(key: string): MethodGroup {
  return GROUP_OF[key] ?? 'bank';
}
