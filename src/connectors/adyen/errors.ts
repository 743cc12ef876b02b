/**
 * Adyen's refusal reasons (refusalReasonCode of /payments, and the refusal texts its test cards and holder
 * names trigger) and its API error codes, mapped to unified codes. Source: Adyen's "Refusal reasons" and
 * "Testing result codes and refusal reasons" pages; the test engine refuses with the holder name's text
 * (holderName "CVC_DECLINED" -> refusalReason "CVC Declined").
 */
import type { ErrorTable } from '../error-codes.ts';

export const ADYEN_ERRORS: ErrorTable = {
  fallback: 'declined',
  codes: {
    // refusalReasonCode
    '2': 'declined',
    '3': 'do_not_honor', // Referral
    '4': 'acquirer_error',
    '5': 'restricted_card', // Blocked Card
    '6': 'expired_card',
    '7': 'invalid_request', // Invalid Amount
    '8': 'invalid_card',
    '9': 'acquirer_error', // Issuer Unavailable
    '10': 'not_supported',
    '11': 'authentication_failed',
    '12': 'insufficient_funds',
    '14': 'fraud_suspected',
    '15': 'cancelled_by_payer',
    '16': 'cancelled_by_payer', // Shopper Cancelled
    '17': 'invalid_request', // Invalid PIN
    '18': 'invalid_request', // PIN tries exceeded
    '19': 'invalid_request', // PIN validation not possible
    '20': 'fraud_suspected', // FRAUD
    '21': 'acquirer_error', // Not Submitted
    '22': 'fraud_suspected', // FRAUD-CANCELLED
    '23': 'not_supported', // Transaction Not Permitted
    '24': 'invalid_cvv', // CVC Declined
    '25': 'restricted_card',
    '26': 'do_not_honor', // Revocation Of Auth
    '27': 'do_not_honor', // Declined Non Generic
    '28': 'limit_exceeded', // Withdrawal amount exceeded
    '29': 'limit_exceeded', // Withdrawal count exceeded
    '31': 'fraud_suspected', // Issuer Suspected Fraud
    '32': 'declined', // AVS Declined
    '33': 'authentication_required', // Card requires online pin
    '34': 'declined', // No checking account
    '35': 'declined', // No savings account
    '36': 'authentication_required', // Mobile PIN required
    '37': 'cancelled_by_payer', // Contactless fallback
    '38': 'authentication_required',
    '39': 'authentication_failed', // RReq not received from DS
    '42': 'not_supported',
    '46': 'do_not_honor',
    // refusalReason texts of the test engine (holder-name triggers), upper-cased
    'REFUSED': 'declined',
    'DECLINED': 'declined',
    'REFERRAL': 'do_not_honor',
    'ACQUIRER ERROR': 'acquirer_error',
    'BLOCKED CARD': 'restricted_card',
    'EXPIRED CARD': 'expired_card',
    'INVALID AMOUNT': 'invalid_request',
    'INVALID CARD NUMBER': 'invalid_card',
    'ISSUER UNAVAILABLE': 'acquirer_error',
    'NOT SUPPORTED': 'not_supported',
    '3D NOT AUTHENTICATED': 'authentication_failed',
    'NOT ENOUGH BALANCE': 'insufficient_funds',
    'ACQUIRER FRAUD': 'fraud_suspected',
    'CANCELLED': 'cancelled_by_payer',
    'SHOPPER CANCELLED': 'cancelled_by_payer',
    'FRAUD': 'fraud_suspected',
    'CVC DECLINED': 'invalid_cvv',
    'RESTRICTED CARD': 'restricted_card',
    'DECLINED NON GENERIC': 'do_not_honor',
    'WITHDRAWAL AMOUNT EXCEEDED': 'limit_exceeded',
    'WITHDRAWAL COUNT EXCEEDED': 'limit_exceeded',
    'ISSUER SUSPECTED FRAUD': 'fraud_suspected',
    'AVS DECLINED': 'declined',
    'TRANSACTION NOT PERMITTED': 'not_supported',
    // API errors (errorCode of a 4xx ServiceError)
    '000': 'acquirer_error',
    '010': 'configuration_error', // Not allowed
    '100': 'invalid_request', // No amount specified
    '101': 'invalid_card', // Invalid card number
    '103': 'invalid_cvv', // CVC is not the right length
    '129': 'expired_card', // Expiry date invalid
    '901': 'configuration_error', // Invalid merchant account
  },
};
