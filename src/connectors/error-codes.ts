/**
 * One vocabulary for what went wrong at any acquirer. Each connector maps its own codes to these unified codes
 * with a declarative table; the unified table says what the merchant is told and whether another attempt may
 * succeed (the routing issue's cascading reads `retry`). The acquirer's raw code and message stay on the
 * transaction; the merchant sees the unified message only.
 */
import type { Reported } from './types.ts';

/**
 * - `no`: the same card will fail anywhere (stolen card, closed account): never retried;
 * - `later`: the card may pass later or after the payer acts (insufficient funds, limits): not cascaded now;
 * - `other_mid`: another acquirer may approve it (acquirer error, do-not-honour, unsupported): cascade.
 */
export type RetryDecision = 'no' | 'later' | 'other_mid';

export interface UnifiedError {
  message: string;
  retry: RetryDecision;
}

export const UNIFIED_CODES = {
  declined: { message: 'Declined by processing', retry: 'other_mid' },
  do_not_honor: { message: 'Declined by the issuer', retry: 'other_mid' },
  insufficient_funds: { message: 'Insufficient funds', retry: 'later' },
  limit_exceeded: { message: 'Card limit exceeded', retry: 'later' },
  invalid_card: { message: 'Invalid card number', retry: 'no' },
  expired_card: { message: 'Card expired', retry: 'no' },
  invalid_cvv: { message: 'Invalid CVV', retry: 'no' },
  lost_or_stolen: { message: 'Declined by the issuer', retry: 'no' },
  fraud_suspected: { message: 'Declined as suspected fraud', retry: 'no' },
  restricted_card: { message: 'Card not allowed for this payment', retry: 'other_mid' },
  authentication_failed: { message: '3-D Secure authentication failed', retry: 'no' },
  authentication_required: { message: 'Authentication required', retry: 'later' },
  cancelled_by_payer: { message: 'Cancelled by payer', retry: 'no' },
  not_supported: { message: 'Not supported by the acquirer', retry: 'other_mid' },
  invalid_request: { message: 'Request refused by the acquirer', retry: 'no' },
  acquirer_error: { message: 'Acquirer error', retry: 'other_mid' },
  configuration_error: { message: 'Acquirer configuration error', retry: 'other_mid' },
} as const satisfies Record<string, UnifiedError>;

export type UnifiedCode = keyof typeof UNIFIED_CODES;

/** A connector's table: its codes (or upper-cased refusal texts) -> unified codes; anything else is `fallback`. */
export interface ErrorTable {
  readonly codes: Readonly<Record<string, UnifiedCode>>;
  readonly fallback: UnifiedCode;
}

export interface ClassifiedDecline {
  code: UnifiedCode;
  message: string;
  retry: RetryDecision;
  rawCode?: string;
  rawMessage?: string;
}

/** The unified code, message and retry decision of an acquirer's code (raw values kept as they came). */
export function classify(table: ErrorTable, rawCode: string | undefined, rawMessage?: string): ClassifiedDecline {
  const byCode = rawCode !== undefined ? table.codes[rawCode] : undefined;
  const byMessage = rawMessage !== undefined ? table.codes[rawMessage.trim().toUpperCase()] : undefined;
  const code = byCode ?? byMessage ?? table.fallback;
  return { code, ...UNIFIED_CODES[code], ...(rawCode !== undefined ? { rawCode } : {}), ...(rawMessage !== undefined ? { rawMessage } : {}) };
}

/** A declined outcome from a classified decline: the merchant reads the unified message. */
export function declinedOutcome(c: ClassifiedDecline, extra: { reference?: string; reported?: Reported } = {}) {
  return {
    kind: 'declined' as const,
    reason: c.message,
    error: { code: c.code, ...(c.rawCode !== undefined ? { rawCode: c.rawCode } : {}), ...(c.rawMessage !== undefined ? { rawMessage: c.rawMessage } : {}) },
    ...extra,
  };
}
