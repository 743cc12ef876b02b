/**
 * What an APM payment keeps in details.apm, and the questions about it that callbacks, answers and pages ask.
 * Pure: no I/O.
 */
import type { Payment } from '../../domain/model/payment.ts';
import { s2sStatus } from '../../domain/payment-state.ts';
import type { ApmExperience, PayerAction } from '../../connectors/apm-types.ts';
import { contactPhone } from './methods.ts';
import { findMethod } from '../../domain/methods/catalog.ts';
import { isFiatCurrency } from '../../domain/methods/formats.ts';

export interface ApmDetails {
  method: string;
  experience: ApmExperience;
  /** new: chosen; fields: waiting for the payer's fields on the page; started: at the provider. */
  stage: 'new' | 'fields' | 'started';
  params: Record<string, unknown>;
  /** What the payer must do while the provider waits. */
  action?: PayerAction;
  /** S2S APM: where the payer goes when the payment is decided (return_url, return_url_target). */
  returnUrl?: string;
  returnTarget?: string;
  /** How many times the payer asked for a new one-time code. */
  resends?: number;
  /** The MID-configured provider (an `apm-provider` MID) carrying the payment; absent: the default connector. */
  midId?: string;
}

export function apmOf(p: Payment): ApmDetails | undefined {
  const apm = p.details.apm;
  return apm !== null && typeof apm === 'object' ? (apm as ApmDetails) : undefined;
}

/** The method a payment was made with, in the Checkout terminology (card, or the APM's key). */
export function paymentMethodOf(p: Payment): string {
  return apmOf(p)?.method ?? p.details.wallet?.name ?? 'card';
}

/** The payment document a payment used, by what paid (interface spec "brand"; the wire names in DOCUMENT_BRANDS). */
export type PaymentDocument = 'card' | 'virtual' | 'crypto';

export const DOCUMENT_BRANDS: Readonly<Record<PaymentDocument, string>> = {
  card: 'payment_document_card',
  virtual: 'payment_document_virtual',
  crypto: 'payment_document_crypto',
};

/**
 * Crypto when the method is one of the crypto kinds (an address, a wallet, an amount in crypto) or the order is in a
 * crypto currency; virtual for any other alternative method or a wallet paid without card data; card otherwise.
 */
export function paymentDocumentOf(p: Payment): PaymentDocument {
  const apm = apmOf(p);
  const method = apm && findMethod(apm.method);
  if ((method && (method.kind.startsWith('crypto') || method.currencyKind === 'crypto')) || (apm && !isFiatCurrency(p.currency))) return 'crypto';
  if (apm || p.details.wallet?.flow === 'virtual') return 'virtual';
  return 'card';
}

/** A payment the provider has and the payer has not finished (a page, an app, a QR code, a code). */
export function awaitingProvider(p: Payment): boolean {
  return apmOf(p)?.stage === 'started' && p.status === 'redirect' && !p.pendingOperation && typeof p.details.connectorRef === 'string';
}

/** An APM payment of a session the payer has not finished: choosing again first withdraws it. */
export function unfinishedApm(p: Payment): boolean {
  return apmOf(p) !== undefined && p.status === 'redirect' && !p.pendingOperation;
}

/**
 * The S2S status of an APM payment. One initiated and waiting for its payer elsewhere (an app, a QR code, a
 * transfer, a code, a link) is PENDING, the platform's meaning of the word for APMs and the QR method's provider
 * status pending; one whose payer still has to be sent to a page is REDIRECT.
 */
export function apmS2sStatus(p: Payment): string {
  const action = apmOf(p)?.action;
  if (awaitingProvider(p) && action && action.kind !== 'redirect') return 'PENDING';
  return s2sStatus(p.status);
}


/** The phone a code or app request goes to: the method's own phone member (payer_phone, mobile_number) first. */
export function payerPhone(p: Payment): string | undefined {
  return contactPhone(apmOf(p)?.params ?? {}) ?? p.payer.phone;
}
