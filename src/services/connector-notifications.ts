/**
 * Notifications from acquirers (the platform family's callbacks, Adyen's webhooks): the connector verifies and
 * transforms them, the core applies each event to the payment it names with the same compare-and-sets as a
 * synchronous answer, so a notification racing the answer or the payer's return changes a payment once.
 */
import type { ServiceContext } from './context.ts';
import { findMerchantById, findMidById } from '../store/merchants-repo.ts';
import { getPayment } from '../store/payments-repo.ts';
import type { Payment } from '../domain/model/payment.ts';
import type { ConnectorOutcome, FollowUpOutcome, InboundRequest, NotificationEvent, NotifiedPayment } from '../connectors/types.ts';
import { GatewayError } from '../domain/errors.ts';
import { isAuthorizationEvent, settlesInFlight } from '../domain/operations.ts';
import { midAccess } from './connector-access.ts';
import { applyNotifiedOutcome } from './attempt/index.ts';
import { applyLateFollowUp } from './follow-ups.ts';
import { applyProviderNotice } from './apm/payments.ts';
import type { ApmOutcome } from '../connectors/apm-types.ts';
import { applyDisputeNotices } from './disputes/notices.ts';
import { isAcquirerDisputeSource } from '../domain/disputes.ts';

/** An S2S APM payment (a sale or a payout): its notifications go to the APM service. */
const isApm = (p: Payment): boolean => p.channel === 's2s_apm' || (p.details.apm !== null && typeof p.details.apm === 'object');

/** A notified outcome as an APM provider's answer (its reported facts kept for the integrity check). */
function apmOutcome(o: ConnectorOutcome): ApmOutcome {
  if (o.kind === 'approved') return { kind: 'approved', reference: o.reference, ...(o.reported ? { reported: o.reported } : {}) };
  if (o.kind === 'declined') return { kind: 'declined', reason: o.reason, ...(o.reference ? { reference: o.reference } : {}), ...(o.reported ? { reported: o.reported } : {}) };
  return { kind: 'pending', reason: o.kind === 'pending' ? o.reason : 'not final' };
}

function followUpOutcome(o: ConnectorOutcome): FollowUpOutcome {
  if (o.kind === 'approved') return { kind: 'approved', reference: o.reference };
  if (o.kind === 'declined') return { kind: 'declined', reason: o.reason, ...(o.error ? { error: o.error } : {}) };
  return { kind: 'pending', reason: o.kind === 'pending' ? o.reason : 'not final' };
}

/** Verifies and applies a notification; answers what the acquirer expects back. Unknown MID: 404; bad signature: ConnectorRejection. */
export async function handleConnectorNotification(ctx: ServiceContext, connectorName: string, midId: string, req: InboundRequest): Promise<{ contentType: string; body: string }> {
  const connector = ctx.connectors.get(connectorName);
  const port = connector?.notifications;
  const mid = port ? await findMidById(ctx.db, midId) : undefined;
  if (!connector || !port || !mid || mid.connector !== connectorName) throw new GatewayError('notFound');
  const payments = new Map<string, Payment>();
  for (const id of port.notificationSubjects(req)) {
    const p = await getPayment(ctx.db, id).catch(() => undefined);
    if (p && p.midId === mid.id) payments.set(id, p);
  }
  const facts = new Map<string, NotifiedPayment>([...payments].map(([id, p]) => [id, {
    id, payerEmail: p.payer.email, first6Last4: p.details.first6Last4, reference: typeof p.details.connectorRef === 'string' ? p.details.connectorRef : undefined, currency: p.currency,
  }]));
  const events = port.readNotification(midAccess(ctx, mid), req, facts);
  for (const event of events) {
    const payment = payments.get(event.paymentId);
    if (!payment) continue; // another MID's payment, or none of ours: acknowledged, nothing changes
    const merchant = await findMerchantById(ctx.db, ctx.keyring, payment.merchantId);
    if (!merchant) continue;
    const current = (await getPayment(ctx.db, payment.id)) ?? payment;
    if (isAuthorizationEvent(event.operation) && isApm(current)) {
      await applyProviderNotice(ctx, merchant, current, apmOutcome(event.outcome));
    } else if (isAuthorizationEvent(event.operation)) {
      await applyNotifiedOutcome(ctx, merchant, current, event.outcome);
    } else if (settlesInFlight(event.operation, current.pendingOperation)) {
      await applyLateFollowUp(ctx, merchant, current, followUpOutcome(event.outcome));
    }
  }
  if (port.readDisputeNotices && isAcquirerDisputeSource(connectorName)) await applyDisputeNotices(ctx, connectorName, mid.id, port.readDisputeNotices(req, facts, midAccess(ctx, mid)));
  return port.notificationAck;
}
