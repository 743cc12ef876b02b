/**
 * Card-on-file (6.7.0, wire-reference 5.4): who started a payment on a stored card and how. The interface
 * spec names the discriminators initiator, source and sequence but not their values; ours are below.
 * A MID with card_on_file_support asks its connector for a card-on-file token, stored as recurring_token.
 */
import type { ServiceContext } from '../context.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Payment } from '../../domain/model/payment.ts';
import type { CardConnector, ConnectorOutcome } from '../../connectors/types.ts';
import { newId } from '../../domain/ids.ts';

export interface CardOnFile {
  /** cardholder (CIT) or merchant (MIT). */
  initiator: 'cardholder' | 'merchant';
  /** ecommerce: the payer is at the checkout; recurring: a schedule's payment; unscheduled: the merchant asks. */
  source: 'ecommerce' | 'recurring' | 'unscheduled';
  /** first: the card is stored by this payment; subsequent: a stored card is used. */
  sequence: 'first' | 'subsequent';
}

export const CARD_ON_FILE = {
  storedByCardholder: { initiator: 'cardholder', source: 'ecommerce', sequence: 'first' },
  usedByCardholder: { initiator: 'cardholder', source: 'ecommerce', sequence: 'subsequent' },
  usedByMerchant: { initiator: 'merchant', source: 'unscheduled', sequence: 'subsequent' },
  scheduled: { initiator: 'merchant', source: 'recurring', sequence: 'subsequent' },
} as const satisfies Record<string, CardOnFile>;

/**
 * The discriminators of a card payment, or undefined for a one-off payment that neither stores nor reuses a
 * card. payer_present=N on a stored card makes it merchant-initiated.
 */
export function cardOnFileOf(p: { storesCard: boolean; usesStoredCard: boolean; payerPresent: boolean }): CardOnFile | undefined {
  if (p.usesStoredCard) return p.payerPresent ? CARD_ON_FILE.usedByCardholder : CARD_ON_FILE.usedByMerchant;
  return p.storesCard ? CARD_ON_FILE.storedByCardholder : undefined;
}

/** A connector that issues card-on-file tokens (network tokens or the acquirer's stored-credential ids). */
export interface CardOnFileConnector {
  cardOnFileToken(req: { paymentId: string; reference?: string }): Promise<string>;
}

const issuesTokens = (c: CardConnector): c is CardConnector & CardOnFileConnector =>
  typeof (c as Partial<CardOnFileConnector>).cardOnFileToken === 'function';

/**
 * Connectors that do not issue tokens themselves but whose test engine does: the sandbox mints a UUID, the
 * shape the platform's recurring_token has. (A connector of the sandbox package could implement
 * CardOnFileConnector instead; this keeps the sandbox connector untouched.)
 */
const SANDBOX_TOKENS: Readonly<Record<string, () => string>> = { 'sandbox-card': () => newId() };

export interface RecurringToken {
  token: string;
  /** connector: the card-on-file token of a MID with card_on_file_support; gateway: our own. */
  issuer: 'connector' | 'gateway';
}

/**
 * The recurring_token of a chain whose first payment was just approved on `mid`. A connector failing to
 * issue one does not undo an approved payment: the chain then gets the gateway's own token.
 */
export async function recurringToken(ctx: ServiceContext, mid: Mid | undefined, payment: Payment): Promise<RecurringToken> {
  if (!mid?.cardOnFileSupport) return { token: newId(), issuer: 'gateway' };
  const connector = ctx.connectors.get(mid.connector);
  try {
    if (connector && issuesTokens(connector)) return { token: await connector.cardOnFileToken({ paymentId: payment.id, reference: payment.details.connectorRef }), issuer: 'connector' };
    const sandbox = SANDBOX_TOKENS[mid.connector];
    if (sandbox) return { token: sandbox(), issuer: 'connector' };
  } catch (err) {
    ctx.logger.warn({ paymentId: payment.id, err: (err as Error).message }, 'card-on-file token not issued; the gateway token is used');
  }
  return { token: newId(), issuer: 'gateway' };
}

export const AUTHENTICATION_REQUIRED = 'Authentication required';

/**
 * A merchant-initiated charge has no payer to pass a 3-D Secure challenge or a provider page: the acquirer
 * asking for one is a (soft) decline, which RETRY may try again.
 */
export function merchantInitiatedOutcome<T extends ConnectorOutcome>(outcome: T): T | { kind: 'declined'; reason: string } {
  if (outcome.kind === 'challenge' || outcome.kind === 'redirect') return { kind: 'declined', reason: AUTHENTICATION_REQUIRED };
  return outcome;
}
