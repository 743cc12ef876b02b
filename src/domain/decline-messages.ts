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
  | 'contactBank'
  | 'authenticationFailed'
  | 'cancelled'
  | 'tryAgain'
  | 'tooManyCodes'
  | 'limitExceeded'
  | 'generic';

/** Lower-cased reason -> advice. The first rows are the reasons the sandbox engines give today. */
const BY_REASON: Readonly<Record<string, DeclineAdvice>> = {
  'declined by processing': 'tryAnotherCard',
  '3-d secure authentication failed': 'authenticationFailed',
  'cancelled by payer': 'cancelled',
  'processing interrupted': 'tryAgain',
  'too many wrong codes': 'tooManyCodes',
  'connector unavailable': 'tryAgain',
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

/** The message key of the payer pages' catalogs for a decline reason. */
export function declineMessageKey(reason: string | null | undefined): string {
  return `decline.${declineAdvice(reason)}`;
}
