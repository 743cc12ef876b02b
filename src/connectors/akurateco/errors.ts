/**
 * The platform family's refusals as its S2S CARD answers carry them: a decline_reason text (the test engine's
 * and the usual issuer texts), or an error_code of an ERROR answer. Upper-cased texts are matched whole.
 */
import type { ErrorTable } from '../error-codes.ts';

export const AKURATECO_ERRORS: ErrorTable = {
  fallback: 'declined',
  codes: {
    'DECLINED BY PROCESSING': 'declined',
    'DO NOT HONOR': 'do_not_honor',
    'INSUFFICIENT FUNDS': 'insufficient_funds',
    'EXCEEDS WITHDRAWAL LIMIT': 'limit_exceeded',
    'INVALID CARD NUMBER': 'invalid_card',
    'EXPIRED CARD': 'expired_card',
    'INVALID CVV': 'invalid_cvv',
    'LOST CARD': 'lost_or_stolen',
    'STOLEN CARD': 'lost_or_stolen',
    'SUSPECTED FRAUD': 'fraud_suspected',
    '3-D SECURE AUTHENTICATION FAILED': 'authentication_failed',
    'AUTHENTICATION REQUIRED': 'authentication_required',
    'CANCELLED BY PAYER': 'cancelled_by_payer',
    // ERROR answers (error_code): the request itself was refused, so nothing was charged.
    '100000': 'invalid_request',
    '204002': 'configuration_error',
    '204005': 'not_supported',
    '205005': 'invalid_card',
  },
};
