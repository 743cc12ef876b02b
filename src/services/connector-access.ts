/**
 * What the core gives a connector per call: the MID's settings and its credentials, opened for that call and
 * never logged (Secret), and the payment facts the connector's requests are built from.
 */
import type { ServiceContext } from './context.ts';
import type { Merchant } from '../domain/model/merchant.ts';
import type { Mid } from '../domain/model/mid.ts';
import type { Payment } from '../domain/model/payment.ts';
import { openMidCredentials } from '../store/merchants-repo.ts';
import type { CardConnector, ConnectorPayer, FollowUpRequest, InquiryRequest, MidAccess, StoredCardUse } from '../connectors/types.ts';
import { SANDBOX_CONNECTOR } from '../connectors/registry.ts';
import { SUCCESS_CARD, PAYOUT_CARD } from '../domain/test-cards.ts';
import { GatewayError } from '../domain/errors.ts';
import { Secret } from '../domain/secret.ts';
import { intentOf } from '../domain/operations.ts';

const NO_CREDENTIALS = new Secret<Readonly<Record<string, string>>>({});

export function midAccess(ctx: ServiceContext, mid: Mid): MidAccess {
  return {
    id: mid.id,
    settings: mid.settings,
    credentials: mid.sealedCredentials ? openMidCredentials(ctx.keyring, mid) : NO_CREDENTIALS,
    descriptor: mid.descriptor,
  };
}

/** The connectors a merchant may be charged through: a merchant in live mode never through the sandbox. */
export function usableConnectors(ctx: ServiceContext, merchant: Pick<Merchant, 'sandbox'> | undefined): Set<string> {
  const names = new Set(ctx.connectors.keys());
  if (merchant && !merchant.sandbox) names.delete(SANDBOX_CONNECTOR);
  return names;
}

/**
 * The MIDs a merchant's payments may reach in its mode (issue 25, item 26): a test-mode (sandbox) merchant's key
 * never reaches a MID its connector says is live (Adyen's live environment, an akurateco MID marked live), whatever
 * MIDs it was given; a live merchant's never reaches the sandbox connector (usableConnectors).
 */
export function modeMids<T extends Pick<Mid, 'id' | 'connector' | 'settings' | 'descriptor'>>(ctx: Pick<ServiceContext, 'connectors'>, merchant: Pick<Merchant, 'sandbox'>, mids: readonly T[]): readonly T[] {
  if (!merchant.sandbox) return mids;
  return mids.filter((mid) => ctx.connectors.get(mid.connector)?.isLive?.({ id: mid.id, settings: mid.settings, credentials: NO_CREDENTIALS, descriptor: mid.descriptor }) !== true);
}

/** The sandbox's test cards: a live MID refuses them (they exist to be charged by the test engine only). */
const TEST_CARDS: ReadonlySet<string> = new Set([SUCCESS_CARD, PAYOUT_CARD]);

export function refuseTestCardOnLiveMid(connector: CardConnector, mid: MidAccess, pan: string): void {
  if (TEST_CARDS.has(pan) && connector.isLive?.(mid) === true) throw GatewayError.field('card_number', 'Test cards are not accepted on a live MID.');
}

/** Where the acquirer's page sends our payer back, and where its notifications for the MID arrive. */
export const connectorReturnUrl = (ctx: ServiceContext, paymentId: string) => `${ctx.baseUrl}/connectors/return/${paymentId}`;
export const connectorNotifyUrl = (ctx: ServiceContext, connector: string, midId: string) => `${ctx.baseUrl}/connectors/${connector}/${midId}/notify`;

export function connectorPayer(p: Payment['payer']): ConnectorPayer {
  const [first, ...rest] = (p.name ?? '').split(' ');
  const out: ConnectorPayer = {
    email: p.email, firstName: p.firstName ?? (first || undefined), lastName: p.lastName ?? (rest.join(' ') || undefined), phone: p.phone,
    country: p.country, state: p.state, city: p.city, address: p.address, zip: p.zip, birthDate: p.birthDate,
    address2: p.address2, phoneCountryCode: p.phoneCountryCode, houseNumber: p.houseNumber,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined && v !== '')) as ConnectorPayer;
}

export function storedCardUse(p: Payment): StoredCardUse | undefined {
  const ref = typeof p.details.storedCardReference === 'string' ? { networkReference: p.details.storedCardReference } : {};
  const cof = p.details.cof as StoredCardUse | undefined;
  if (cof) return { ...cof, ...ref };
  if (p.details.merchantInitiated === true) return { initiator: 'merchant', source: 'recurring', sequence: 'subsequent', ...ref };
  return undefined;
}

const expiry = (p: Payment) => {
  const [expMonth = '', expYear = ''] = (p.details.cardExpiry ?? '/').split('/');
  return { expMonth, expYear };
};

const reference = (p: Payment): string => (typeof p.details.connectorRef === 'string' ? p.details.connectorRef : p.id);

/** A follow-up as a connector needs it. */
export function followUpRequest(p: Payment, amount: bigint, transId?: string): FollowUpRequest {
  return {
    paymentId: p.id, reference: reference(p), amount, currency: p.currency, card: expiry(p),
    ...(transId ? { transId } : {}),
    ...(p.payer.email ? { payerEmail: p.payer.email } : {}),
    ...(p.details.first6Last4 ? { first6Last4: p.details.first6Last4 } : {}),
  };
}

export function inquiryRequest(p: Payment): InquiryRequest {
  return {
    paymentId: p.id, intent: intentOf(p), amount: p.amount, currency: p.currency,
    ...(typeof p.details.connectorRef === 'string' ? { reference: p.details.connectorRef } : {}),
    ...(p.payer.email ? { payerEmail: p.payer.email } : {}),
    ...(p.details.first6Last4 ? { first6Last4: p.details.first6Last4 } : {}),
    ...(p.details.connectorState ? { state: p.details.connectorState } : {}),
  };
}
