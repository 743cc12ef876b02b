/**
 * What a payer is told about a declined attempt, and whether trying again can help. A connector's decline
 * reason (today the sandbox engines' texts; later the connectors' unified decline codes) maps to a message key
 * of the payer pages' catalogs (src/web/locales). The payer never sees the raw reason: it is written for the
 * merchant and may say more than a payer should read (fraud, lost or stolen card).
 */
export type DeclineAdvice =
  | 'insufficientFunds'
  | 'cardExpired'
  | 'tryAnotherCard'
  | 'tryAnotherMethod'
  | 'contactBank'
  | 'authenticationFailed'
  | 'cancelled'
  | 'tryAgain'
  | 'tooManyCodes'
  | 'limitExceeded'
  | 'qrExpired'
  | 'generic';

/** Lower-cased reason -> advice. The first rows are the reasons the sandbox engines give today. */
const BY_REASON: Readonly<Record<string, DeclineAdvice>> = {
  'declined by processing': 'tryAnotherCard',
  '3-d secure authentication failed': 'authenticationFailed',
  'cancelled by payer': 'cancelled',
  'processing interrupted': 'tryAgain',
  'too many wrong codes': 'tooManyCodes',
  'connector unavailable': 'tryAgain',
  'qr code expired': 'qrExpired',
  // Reasons acquirers commonly give (ISO 8583 response texts), until the unified codes arrive.
  'insufficient funds': 'insufficientFunds',
  'not sufficient funds': 'insufficientFunds',
  'expired card': 'cardExpired',
  'card expired': 'cardExpired',
  'do not honor': 'contactBank',
  'do not honour': 'contactBank',
  'lost card': 'contactBank',
  'stolen card': 'contactBank',
  'pick up card': 'contactBank',
  'restricted card': 'contactBank',
  'suspected fraud': 'contactBank',
  'transaction not permitted': 'tryAnotherCard',
  'invalid card number': 'tryAnotherCard',
  'invalid card': 'tryAnotherCard',
  'exceeds withdrawal limit': 'limitExceeded',
  'exceeds amount limit': 'limitExceeded',
  'limit exceeded': 'limitExceeded',
  'issuer unavailable': 'tryAgain',
  'system error': 'tryAgain',
  timeout: 'tryAgain',
};

export function declineAdvice(reason: string | null | undefined): DeclineAdvice {
  if (!reason) return 'generic';
  return BY_REASON[reason.trim().toLowerCase()] ?? 'generic';
}

/** Advice that names the card, for a payment made with another method. */
const NOT_A_CARD: Readonly<Partial<Record<DeclineAdvice, DeclineAdvice>>> = { tryAnotherCard: 'tryAnotherMethod' };

/** The message key of the payer pages' catalogs for a decline reason of a card or an alternative-method payment. */
export function declineMessageKey(reason: string | null | undefined, method: 'card' | 'apm' = 'card'): string {
  const advice = declineAdvice(reason);
  return `decline.${method === 'apm' ? (NOT_A_CARD[advice] ?? advice) : advice}`;
}
