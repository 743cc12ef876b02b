/**
 * The API's codes in the user's language: a payment's status, a transaction's type and status, a callback's status
 * and a delivery's outcome, a dispute's status, stage, event, category and deadline. The English catalog keeps the
 * API's own names (what the console, the exports and the API documentation show); a code this table does not know
 * (a newer gateway) is shown as the API sends it.
 */
import type { Key, Translate } from './i18n';

const CODES: Readonly<Record<string, Key>> = {
  // payments (domain/payment-state.ts STATUSES)
  prepare: 'code.prepare', '3ds': 'code.threeDs', redirect: 'code.redirect', pending: 'code.pending', settled: 'code.settled',
  decline: 'code.decline', refund: 'code.refund', reversal: 'code.reversal', void: 'code.void', chargeback: 'code.chargeback',
  // transactions (domain/model/payment.ts TransactionType, TransactionStatus)
  sale: 'code.sale', auth: 'code.auth', capture: 'code.capture', credit: 'code.credit', debit: 'code.debit', recurring: 'code.recurring',
  retry: 'code.retry', success: 'code.success', fail: 'code.fail', waiting: 'code.waiting', undefined: 'code.undefined',
  // callbacks and their deliveries (store/callbacks-repo.ts, domain/callback-policy.ts AttemptOutcome)
  delivered: 'code.delivered', failed: 'code.failed', http_error: 'code.httpError', not_ok_body: 'code.notOkBody', timeout: 'code.timeout',
  network_error: 'code.networkError',
  // disputes (domain/disputes.ts)
  open: 'code.open', evidence_required: 'code.evidenceRequired', evidence_submitted: 'code.evidenceSubmitted', won: 'code.won', lost: 'code.lost',
  accepted: 'code.accepted', reversed: 'code.reversed', inquiry: 'code.inquiry', first_chargeback: 'code.firstChargeback',
  second_chargeback: 'code.secondChargeback', arbitration: 'code.arbitration', request_for_information: 'code.requestForInformation',
  notification_of_chargeback: 'code.notificationOfChargeback', information_supplied: 'code.informationSupplied',
  defense_period_ended: 'code.defensePeriodEnded', chargeback_reversed: 'code.chargebackReversed', prearbitration_won: 'code.prearbitrationWon',
  prearbitration_lost: 'code.prearbitrationLost', accept: 'code.accept', fraud: 'code.fraud', authorization: 'code.authorization',
  processing_error: 'code.processingError', consumer_dispute: 'code.consumerDispute', due_soon: 'code.dueSoon', overdue: 'code.overdue',
};

/** A code as the user reads it: its translation, else the code itself. */
export const codeName = (t: Translate, code: string): string => (Object.hasOwn(CODES, code) ? t(CODES[code]!) : code);

/** The same, in words (underscores as spaces), for running text and table cells. */
export const codeWords = (t: Translate, code: string): string => codeName(t, code).replace(/_/g, ' ');
