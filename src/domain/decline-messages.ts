/**
 * What a payer is told about a declined attempt, and whether trying again can help. A real connector's
 * unified decline code (connectors/error-codes.ts) decides it; without one (the sandbox engines, the
 * alternative-method providers) the decline reason's text does. Either maps to a message key of the payer
 * pages' catalogs (src/web/locales). The payer never sees the raw reason: it is written for the
 * merchant and may say more than a payer should read (fraud, lost or stolen card).
 */
export type DeclineAdvice =
  | 'insufficientFunds'
  | 'cardExpired'
  | 'checkDetails'
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

/**
 * Unified decline code -> advice. Lost, stolen and suspected-fraud declines read as "contact your bank": the
 * payer is never told why the issuer refused. A test holds this table to the connectors' list of codes.
 */
export const BY_UNIFIED_CODE: Readonly<Record<string, DeclineAdvice>> = {
  declined: 'tryAnotherCard',
  do_not_honor: 'contactBank',
  insufficient_funds: 'insufficientFunds',
  limit_exceeded: 'limitExceeded',
  invalid_card: 'checkDetails',
  expired_card: 'cardExpired',
  invalid_cvv: 'checkDetails',
  lost_or_stolen: 'contactBank',
  fraud_suspected: 'contactBank',
  restricted_card: 'tryAnotherCard',
  authentication_failed: 'authenticationFailed',
  authentication_required: 'tryAgain',
  cancelled_by_payer: 'cancelled',
  not_supported: 'tryAnotherCard',
  invalid_request: 'generic',
  acquirer_error: 'tryAgain',
  configuration_error: 'generic',
};

/** What a decline tells the payer: its unified code when a connector gave one, else its reason's text. */
export function declineAdvice(reason: string | null | undefined, code?: unknown): DeclineAdvice {
  const byCode = typeof code === 'string' && Object.hasOwn(BY_UNIFIED_CODE, code) ? BY_UNIFIED_CODE[code] : undefined;
  if (byCode) return byCode;
  if (!reason) return 'generic';
  return BY_REASON[reason.trim().toLowerCase()] ?? 'generic';
}

/** Advice that names the card, for a payment made with another method. */
const NOT_A_CARD: Readonly<Partial<Record<DeclineAdvice, DeclineAdvice>>> = { tryAnotherCard: 'tryAnotherMethod' };

/** The message key of the payer pages' catalogs for a decline reason of a card or an alternative-method payment. */
export function declineMessageKey(reason: string | null | undefined, method: 'card' | 'apm' = 'card', code?: unknown): string {
  const advice = declineAdvice(reason, code);
  return `decline.${method === 'apm' ? (NOT_A_CARD[advice] ?? advice) : advice}`;
}
