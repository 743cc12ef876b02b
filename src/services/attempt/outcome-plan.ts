/**
 * Step 9 of an attempt, its pure half: which transition, transaction status and callback an acquirer's outcome
 * means for a payment, decided without I/O (the write is outcome.ts). The schedule runner plans its charges'
 * outcomes here too (services/schedules/charges.ts).
 */
import type { Payment, TransactionType } from '../../domain/model/payment.ts';
import type { PaymentPatch } from '../../store/payments-repo.ts';
import type { Intent } from '../../domain/operations.ts';
import { nextStatus, type PaymentEvent as StateEvent } from '../../domain/payment-state.ts';
import type { ConnectorOutcome } from '../../connectors/types.ts';
import { finalTxType, hasStepCallback } from '../../domain/operations.ts';

export interface OutcomePlan {
  step: 'final' | 'challenge' | 'redirect';
  patch: PaymentPatch;
  txStatus: 'success' | 'fail' | 'waiting';
  txDetails?: Record<string, unknown>;
  notify?: { type: TransactionType };
}

export type DecidedOutcome = Exclude<ConnectorOutcome, { kind: 'pending' }>;

const APPROVED_EVENT: Readonly<Record<Intent, StateEvent>> = { sale: 'sold', auth: 'authorized', payout: 'sold' };

function transition(payment: Pick<Payment, 'status'>, event: StateEvent): Payment['status'] {
  const to = nextStatus(payment.status, event);
  if (!to) throw new Error(`transition ${payment.status} -${event}-> is not in the state table`);
  return to;
}

/** Which transition, callback and transaction status an outcome means: decided without I/O. */
export function planOutcome(payment: Pick<Payment, 'operation' | 'status' | 'amount'>, intent: Intent, outcome: DecidedOutcome): OutcomePlan {
  const finalType = finalTxType(payment.operation);
  switch (outcome.kind) {
    case 'approved': {
      const patch: PaymentPatch = {
        status: transition(payment, APPROVED_EVENT[intent]),
        capturedAmount: intent === 'auth' ? 0n : payment.amount,
        details: { connectorRef: outcome.reference, rrn: outcome.rrn, arn: outcome.arn, approvalCode: outcome.approvalCode },
      };
      if (outcome.storedCardReference) patch.details = Object.assign({}, patch.details, { storedCardReference: outcome.storedCardReference });
      if (outcome.threeDs) patch.threeDs = outcome.threeDs;
      return { step: 'final', patch, txStatus: 'success', txDetails: { reference: outcome.reference }, notify: { type: finalType } };
    }
    case 'declined':
      return {
        step: 'final',
        patch: {
          status: transition(payment, 'declined'), declineReason: outcome.reason, ...(outcome.threeDs ? { threeDs: outcome.threeDs } : {}),
          ...(outcome.error || outcome.reference ? { details: { ...(outcome.error ? { declineCode: outcome.error.code } : {}), ...(outcome.reference ? { connectorRef: outcome.reference } : {}) } } : {}),
        },
        txStatus: 'fail',
        // The acquirer's own code and text stay on the transaction; the merchant reads the unified message.
        txDetails: { reason: outcome.reason, ...(outcome.error ? { code: outcome.error.code, rawCode: outcome.error.rawCode, rawMessage: outcome.error.rawMessage } : {}) },
        notify: { type: finalType },
      };
    case 'challenge':
      return {
        step: 'challenge',
        // A native 3DS2 step (fingerprint, then perhaps a challenge) keeps the payment in 3ds for the next step.
        patch: {
          status: transition(payment, 'challenge_required'), threeDs: outcome.threeDs as Payment['threeDs'],
          details: { connectorState: outcome.state, payerPage: outcome.page, threeDs2Step: outcome.native ?? null },
        },
        txStatus: 'waiting',
        // A debit reports its 3DS step (order_status 3ds, with card_token); other payments report only the end.
        ...(hasStepCallback(payment.operation) ? { notify: { type: '3ds' as const } } : {}),
      };
    case 'redirect':
      return {
        step: 'redirect',
        patch: { status: transition(payment, 'redirect_required'), details: { connectorState: outcome.state, payerPage: outcome.page } },
        txStatus: 'waiting',
        ...(hasStepCallback(payment.operation) ? { notify: { type: 'redirect' as const } } : {}),
      };
  }
}
