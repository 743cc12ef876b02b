/**
 * One vocabulary for what went wrong at any acquirer, as one table: each unified code says what the merchant is
 * told, whether another attempt may succeed (cascading reads `retry`), and what the payer is advised. Each
 * connector maps its own codes to these with its own table (connectors/<name>/errors.ts); the acquirer's raw
 * code and message stay on the transaction, the merchant sees the unified message only.
 *
 * The payer never sees the merchant's message either: it may say more than a payer should read (fraud, lost or
 * stolen card). The advice is a message key of the payer pages' catalogs (src/web/locales).
 */

/**
 * - `no`: the same card will fail anywhere (stolen card, closed account): never retried;
 * - `later`: the card may pass later or after the payer acts (insufficient funds, limits): not cascaded now;
 * - `other_mid`: another acquirer may approve it (acquirer error, do-not-honour, unsupported): cascade.
 */
export type RetryDecision = 'no' | 'later' | 'other_mid';

/** What a payer is told about a declined attempt, and whether trying again can help. */
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

export interface Decline {
  /** What the merchant reads (the decline reason). */
  message: string;
  retry: RetryDecision;
  /** Lost, stolen and suspected fraud read as "contact your bank": the payer is never told why the issuer refused. */
  payerAdvice: DeclineAdvice;
  /**
   * false: trying again on the hosted page cannot change the answer (the acquirer refused our request itself), so
   * the payer is not put back on the form: the session ends as after the last try. Absent: the payer may retry.
   */
  payerRetry?: false;
}

export const DECLINES = {
  declined: { message: 'Declined by processing', retry: 'other_mid', payerAdvice: 'tryAnotherCard' },
  do_not_honor: { message: 'Declined by the issuer', retry: 'other_mid', payerAdvice: 'contactBank' },
  insufficient_funds: { message: 'Insufficient funds', retry: 'later', payerAdvice: 'insufficientFunds' },
  limit_exceeded: { message: 'Card limit exceeded', retry: 'later', payerAdvice: 'limitExceeded' },
  invalid_card: { message: 'Invalid card number', retry: 'no', payerAdvice: 'checkDetails' },
  expired_card: { message: 'Card expired', retry: 'no', payerAdvice: 'cardExpired' },
  invalid_cvv: { message: 'Invalid CVV', retry: 'no', payerAdvice: 'checkDetails' },
  lost_or_stolen: { message: 'Declined by the issuer', retry: 'no', payerAdvice: 'contactBank' },
  fraud_suspected: { message: 'Declined as suspected fraud', retry: 'no', payerAdvice: 'contactBank' },
  restricted_card: { message: 'Card not allowed for this payment', retry: 'other_mid', payerAdvice: 'tryAnotherCard' },
  authentication_failed: { message: '3-D Secure authentication failed', retry: 'no', payerAdvice: 'authenticationFailed' },
  authentication_required: { message: 'Authentication required', retry: 'later', payerAdvice: 'tryAgain' },
  cancelled_by_payer: { message: 'Cancelled by payer', retry: 'no', payerAdvice: 'cancelled' },
  not_supported: { message: 'Not supported by the acquirer', retry: 'other_mid', payerAdvice: 'tryAnotherCard' },
  invalid_request: { message: 'Request refused by the acquirer', retry: 'no', payerAdvice: 'generic', payerRetry: false },
  acquirer_error: { message: 'Acquirer error', retry: 'other_mid', payerAdvice: 'tryAgain' },
  configuration_error: { message: 'Acquirer configuration error', retry: 'other_mid', payerAdvice: 'generic' },
  // The gateway's own risk screen (issue 26): no acquirer was asked; the payer is not told which rule.
  risk_blocked: { message: 'Declined by risk management', retry: 'no', payerAdvice: 'tryAnotherCard' },
} as const satisfies Readonly<Record<string, Decline>>;

export type UnifiedCode = keyof typeof DECLINES;

export const isUnifiedCode = (code: unknown): code is UnifiedCode => typeof code === 'string' && Object.hasOwn(DECLINES, code);

/** Whether a payer may try again on the hosted page after a decline of this code (Decline.payerRetry). */
export const payerMayRetry = (code: unknown): boolean => !isUnifiedCode(code) || (DECLINES[code] as Decline).payerRetry !== false;

/**
 * Lower-cased reason -> advice, for declines without a unified code (the sandbox engines, the alternative-method
 * providers). The first rows are the reasons the sandbox engines give today.
 */
const BY_REASON: Readonly<Record<string, DeclineAdvice>> = {
  'declined by processing': 'tryAnotherCard',
  '3-d secure authentication failed': 'authenticationFailed',
  'cancelled by payer': 'cancelled',
  'processing interrupted': 'tryAgain',
  'too many wrong codes': 'tooManyCodes',
  'connector unavailable': 'tryAgain',
  'qr code expired': 'qrExpired',
  // Reasons acquirers commonly give (ISO 8583 response texts).
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

/** What a decline tells the payer: its unified code when a connector gave one, else its reason's text. */
export function declineAdvice(reason: string | null | undefined, code?: unknown): DeclineAdvice {
  if (isUnifiedCode(code)) return DECLINES[code].payerAdvice;
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
