/**
 * Adyen's Checkout API v71 (`connector: adyen`): /payments for cards (3-D Secure 2 by redirect; stored cards
 * with shopperInteraction and recurringProcessingModel), /payments/details when the payer comes back, and the
 * modifications /captures, /cancels, /refunds and /reversals. Modifications are asynchronous at Adyen (201
 * "received"): they stay pending until the standard notification webhook (HMAC-signed) reports them.
 *
 * Transformers only: requests, outcomes, the error table and the webhook verifier. Every request carries an
 * Idempotency-Key (our payment or transaction id), so a retry after a crash cannot charge twice.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type {
  AuthorizeRequest, CardConnector, ChallengeResult, ConnectorOutcome, ConnectorState, FollowUpOutcome, FollowUpRequest, InboundRequest,
  InquiryRequest, MidAccess, NotificationEvent, NotificationPort, PayerPage, Reported,
} from '../types.ts';
import { ConnectorRejection } from '../types.ts';
import type { HttpPort, HttpResponse } from '../http.ts';
import { classify, declinedOutcome } from '../error-codes.ts';
import { ADYEN_ERRORS } from './errors.ts';
import type { CardParameterSet } from '../../domain/card-parameter-sets.ts';

export const AdyenSettings = Type.Object({
  /** https://checkout-test.adyen.com/v71, or the live prefix URL Adyen gives the account. */
  baseUrl: Type.String({ pattern: '^https?://', maxLength: 2048 }),
  merchantAccount: Type.String({ minLength: 1, maxLength: 255 }),
  environment: Type.Union([Type.Literal('test'), Type.Literal('live')]),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 1000, maximum: 120_000 })),
}, { additionalProperties: false });

export const AdyenCredentials = Type.Object({
  apiKey: Type.String({ minLength: 1 }),
  /** The webhook's HMAC key, hex, as the Customer Area shows it. */
  hmacKey: Type.String({ pattern: '^[0-9A-Fa-f]+$' }),
}, { additionalProperties: false });

/** Compiled once: the settings are checked on every call. */
const SETTINGS_CHECK = TypeCompiler.Compile(AdyenSettings);

type Settings = Static<typeof AdyenSettings>;
type Json = Record<string, unknown>;

const DEFAULT_TIMEOUT_MS = 30_000;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const obj = (v: unknown): Json | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);

function settingsOf(mid: MidAccess | undefined): Settings {
  if (!mid || !SETTINGS_CHECK.Check(mid.settings)) throw new Error('adyen: the MID settings are incomplete');
  return mid.settings as Settings;
}

/** Adyen amounts are minor units as integers: safe in a JSON number up to 2^53. */
const amountOf = (amount: bigint, currency: string) => ({ currency, value: Number(amount) });

function reportedOf(r: Json): Reported {
  const out: Reported = {};
  const amount = obj(r.amount);
  if (amount && typeof amount.value === 'number' && Number.isSafeInteger(amount.value)) out.amount = BigInt(amount.value);
  if (amount && str(amount.currency)) out.currency = str(amount.currency);
  if (str(r.merchantReference)) out.reference = str(r.merchantReference);
  return out;
}

/** The Set 6 cart as Adyen line items; amounts of the cart are decimal strings, Adyen's minor units. */
function lineItems(parameters: Readonly<Record<string, unknown>>, exponent: number): Json[] | undefined {
  const items = obj(parameters.cart)?.items;
  if (!Array.isArray(items)) return undefined;
  const minor = (v: unknown) => {
    if (typeof v !== 'string' && typeof v !== 'number') return undefined;
    const n = Number(v);
    return Number.isFinite(n) ? Math.round(n * 10 ** exponent) : undefined;
  };
  return items.map((raw) => {
    const i = obj(raw) ?? {};
    const item: Json = {};
    if (str(i.name) ?? str(i.description)) item.description = str(i.description) ?? str(i.name);
    if (str(i.merchantItemId) ?? str(i.sku)) item.id = str(i.merchantItemId) ?? str(i.sku);
    if (i.quantity !== undefined && Number.isInteger(Number(i.quantity))) item.quantity = Number(i.quantity);
    const price = minor(i.price);
    if (price !== undefined) item.amountIncludingTax = price;
    const tax = minor(i.taxAmount);
    if (tax !== undefined) item.taxAmount = tax;
    if (str(i.productUrl)) item.productUrl = str(i.productUrl);
    if (str(i.imageUrl)) item.imageUrl = str(i.imageUrl);
    return item;
  });
}

function deliveryAddress(p: Readonly<Record<string, unknown>>): Json | undefined {
  const s = obj(p.shipping);
  if (s && str(s.country) && str(s.city)) {
    return { street: str(s.street1) ?? '', houseNumberOrName: str(s.houseNumber1) ?? '', city: str(s.city), postalCode: str(s.postcode) ?? '', country: str(s.country), ...(str(s.state) ? { stateOrProvince: str(s.state) } : {}) };
  }
  return undefined;
}

const RECURRING_MODEL = { recurring: 'Subscription', unscheduled: 'UnscheduledCardOnFile', ecommerce: 'CardOnFile' } as const;

export class AdyenConnector implements CardConnector {
  readonly name = 'adyen';
  readonly settingsSchema = AdyenSettings;
  readonly credentialsSchema = AdyenCredentials;
  /**
   * What Adyen's /payments has a place for: installments (Set 1), socialSecurityNumber (Set 2, Brazil's CPF),
   * shopperStatement (Set 3), telephoneNumber (Set 4's phone; its numeric-country shipping address is not sent),
   * lineItems and deliveryAddress (Set 6). Payer and payee identity (Set 5) has none.
   */
  readonly parameterSets: ReadonlySet<CardParameterSet> = new Set(['instalments', 'tax_document', 'descriptor', 'phone_and_shipping', 'order_data']);
  readonly notifications: NotificationPort;

  constructor(private readonly http: HttpPort, private readonly exponentOf: (currency: string) => number = () => 2) {
    this.notifications = {
      notificationAck: { contentType: 'text/plain', body: '[accepted]' },
      notificationSubjects: (req) => items(req.body).map((i) => str(i.merchantReference)).filter((x): x is string => x !== undefined),
      readNotification: (mid, req) => this.readWebhook(mid, req),
    };
  }

  isLive(mid: MidAccess): boolean {
    return mid.settings.environment === 'live';
  }

  private async call(mid: MidAccess, path: string, body: Json, idempotencyKey?: string): Promise<HttpResponse> {
    const settings = settingsOf(mid);
    const apiKey = mid.credentials.expose().apiKey;
    if (!apiKey) throw new Error('adyen: the MID credentials are incomplete');
    return this.http.send({
      method: 'POST',
      url: `${settings.baseUrl.replace(/\/+$/, '')}${path}`,
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': apiKey, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
      body: JSON.stringify(body),
      timeoutMs: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
  }

  /** The /payments request of an authorization (exported through the class for the schema tests). */
  paymentRequest(req: AuthorizeRequest, mid: MidAccess): Json {
    const settings = settingsOf(mid);
    const p = req.parameters ?? {};
    const payer = req.payer ?? {};
    const stored = req.storedCard;
    const paymentMethod: Json = { type: 'scheme', number: req.card.pan, expiryMonth: req.card.expMonth, expiryYear: req.card.expYear };
    if (req.card.cvv) paymentMethod.cvc = req.card.cvv;
    if (req.card.holder) paymentMethod.holderName = req.card.holder;
    const body: Json = {
      amount: amountOf(req.amount, req.currency),
      reference: req.paymentId,
      merchantAccount: settings.merchantAccount,
      paymentMethod,
      returnUrl: req.returnUrl ?? 'https://invalid.example/return',
      channel: 'Web',
      // The payer is sent to the issuer's page (redirect flow): our channels hand out one redirect URL.
      authenticationData: { threeDSRequestData: { nativeThreeDS: 'disabled' } },
    };
    if (req.orderId) body.merchantOrderReference = req.orderId;
    if (req.intent === 'auth') body.additionalData = { manualCapture: 'true' };
    if (req.payerIp) body.shopperIP = req.payerIp;
    if (payer.email) body.shopperEmail = payer.email;
    if (payer.firstName && payer.lastName) body.shopperName = { firstName: payer.firstName, lastName: payer.lastName };
    if (payer.country && payer.city && payer.address && payer.zip) {
      body.billingAddress = { street: payer.address, houseNumberOrName: '', city: payer.city, postalCode: payer.zip, country: payer.country, ...(payer.state ? { stateOrProvince: payer.state } : {}) };
    }
    if (payer.birthDate) body.dateOfBirth = payer.birthDate;
    const browser = req.browser ?? {};
    if (browser.userAgent && browser.acceptHeader) body.browserInfo = { userAgent: browser.userAgent, acceptHeader: browser.acceptHeader, ...(browser.language ? { language: browser.language } : {}) };
    // Card sets 1 to 6 where Adyen has a place for them.
    const months = str(p.bnrg_installm_months);
    if (months) body.installments = { value: Number(months) };
    const document = str(p.document_number);
    if (document) body.socialSecurityNumber = document;
    const descriptor = str(p.descriptor) ?? mid.descriptor ?? undefined;
    if (descriptor) body.shopperStatement = descriptor.slice(0, 135);
    const phone = str(p.customer_phone) ?? payer.phone;
    if (phone) body.telephoneNumber = phone;
    const items = lineItems(p, this.exponentOf(req.currency));
    if (items) body.lineItems = items;
    const delivery = deliveryAddress(p);
    if (delivery) body.deliveryAddress = delivery;
    if (stored) {
      body.shopperInteraction = stored.initiator === 'merchant' ? 'ContAuth' : 'Ecommerce';
      body.recurringProcessingModel = RECURRING_MODEL[stored.source];
      if (stored.sequence === 'first') body.storePaymentMethod = true;
      if (stored.networkReference) paymentMethod.networkPaymentReference = stored.networkReference;
    }
    return body;
  }

  /** /payments and /payments/details answers -> our outcome. Only Authorised and Refused are final. */
  paymentOutcome(res: HttpResponse): ConnectorOutcome {
    if (res.status >= 500) return { kind: 'pending', reason: `Adyen answered ${res.status}` };
    let r: Json;
    try {
      r = JSON.parse(res.body) as Json;
    } catch {
      return { kind: 'pending', reason: `Adyen answered ${res.status} without JSON` };
    }
    if (res.status >= 400) {
      // A refused request (validation, configuration): no payment exists at Adyen.
      return declinedOutcome(classify(ADYEN_ERRORS, str(r.errorCode), str(r.message)));
    }
    const psp = str(r.pspReference);
    const reported = reportedOf(r);
    switch (r.resultCode) {
      case 'Authorised':
      {
        if (!psp) return { kind: 'pending', reason: 'Authorised without pspReference' };
        const extra = obj(r.additionalData) ?? {};
        const networkRef = str(extra.networkTxReference);
        return { kind: 'approved', reference: psp, reported, ...(str(extra.authCode) ? { approvalCode: str(extra.authCode) } : {}), ...(networkRef ? { storedCardReference: networkRef } : {}) };
      }
      case 'Refused':
      case 'Cancelled':
      case 'Error':
        return declinedOutcome(classify(ADYEN_ERRORS, str(r.refusalReasonCode), str(r.refusalReason) ?? String(r.resultCode)), { ...(psp ? { reference: psp } : {}), reported });
      case 'RedirectShopper':
      case 'ChallengeShopper':
      case 'IdentifyShopper': {
        const page = pageOf(obj(r.action));
        if (!page) return { kind: 'pending', reason: `${String(r.resultCode)} without a redirect action`, ...(psp ? { reference: psp } : {}) };
        const state: ConnectorState = { ...(psp ? { pspReference: psp } : {}) };
        return { kind: 'challenge', state, threeDs: {}, page };
      }
      default:
        // Pending, Received, PresentToShopper, and anything new: not final.
        return { kind: 'pending', reason: `Adyen resultCode ${String(r.resultCode)}`, ...(psp ? { reference: psp } : {}) };
    }
  }

  /** Modifications answer 201 "received": accepted, decided later by the webhook. */
  modificationOutcome(res: HttpResponse): FollowUpOutcome {
    if (res.status >= 500) return { kind: 'pending', reason: `Adyen answered ${res.status}` };
    let r: Json = {};
    try {
      r = JSON.parse(res.body) as Json;
    } catch {
      return { kind: 'pending', reason: `Adyen answered ${res.status} without JSON` };
    }
    if (res.status >= 400) return declinedOutcome(classify(ADYEN_ERRORS, str(r.errorCode), str(r.message)));
    return { kind: 'pending', reason: 'Received by Adyen; the webhook decides', ...(str(r.pspReference) ? { reference: str(r.pspReference) } : {}) };
  }

  async authorize(req: AuthorizeRequest, mid?: MidAccess): Promise<ConnectorOutcome> {
    if (!mid) throw new Error('adyen: no MID');
    if (req.intent === 'payout') return declinedOutcome(classify(ADYEN_ERRORS, '10'));
    return this.paymentOutcome(await this.call(mid, '/payments', this.paymentRequest(req, mid), req.idempotencyKey ?? req.paymentId));
  }

  /** The payer is back from the issuer's page with a redirectResult: /payments/details decides. */
  detailsRequest(result: ChallengeResult): Json {
    const params = result.params ?? {};
    const details: Json = {};
    if (params.redirectResult) details.redirectResult = params.redirectResult;
    if (params.MD) details.MD = params.MD;
    if (params.PaRes) details.PaRes = params.PaRes;
    return { details };
  }

  async complete(_state: ConnectorState, result: ChallengeResult, mid?: MidAccess): Promise<ConnectorOutcome> {
    if (!mid) throw new Error('adyen: no MID');
    const body = this.detailsRequest(result);
    if (Object.keys(body.details as Json).length === 0) return { kind: 'pending', reason: 'Payer returned without a redirect result' };
    return this.paymentOutcome(await this.call(mid, '/payments/details', body));
  }

  modificationRequest(p: FollowUpRequest, mid: MidAccess, withAmount: boolean): Json {
    return { merchantAccount: settingsOf(mid).merchantAccount, reference: p.paymentId, ...(withAmount ? { amount: amountOf(p.amount, p.currency) } : {}) };
  }

  private async modify(path: string, p: FollowUpRequest, mid: MidAccess | undefined, withAmount: boolean): Promise<FollowUpOutcome> {
    if (!mid) throw new Error('adyen: no MID');
    const url = `/payments/${encodeURIComponent(p.reference)}/${path}`;
    return this.modificationOutcome(await this.call(mid, url, this.modificationRequest(p, mid, withAmount), p.transId));
  }

  capture(p: FollowUpRequest, mid?: MidAccess) {
    return this.modify('captures', p, mid, true);
  }

  refund(p: FollowUpRequest, mid?: MidAccess) {
    return this.modify('refunds', p, mid, true);
  }

  /** A held authorization is cancelled. */
  reverse(p: FollowUpRequest, mid?: MidAccess) {
    return this.modify('cancels', p, mid, false);
  }

  /** A settled payment is voided with a reversal (Adyen cancels it, or refunds it when already captured). */
  void(p: FollowUpRequest, mid?: MidAccess) {
    return this.modify('reversals', p, mid, false);
  }

  /**
   * Adyen's Checkout API has no status lookup: the AUTHORISATION webhook tells. Until it arrives the payment
   * stays in flight; a payment whose /payments answer was lost is settled by that webhook, never guessed.
   */
  async inquire(_p: InquiryRequest): Promise<ConnectorOutcome | undefined> {
    return undefined;
  }

  // --- webhooks ------------------------------------------------------------------------------------

  private readWebhook(mid: MidAccess, req: InboundRequest): NotificationEvent[] {
    const hmacKey = mid.credentials.expose().hmacKey;
    if (!hmacKey) throw new ConnectorRejection('no HMAC key on the MID');
    const events: NotificationEvent[] = [];
    for (const item of items(req.body)) {
      if (!verifyHmac(item, hmacKey)) throw new ConnectorRejection('HMAC signature does not verify');
      const event = webhookEvent(item);
      if (event) events.push(event);
    }
    return events;
  }
}

function items(body: unknown): Json[] {
  const list = obj(body)?.notificationItems;
  if (!Array.isArray(list)) return [];
  return list.map((w) => obj(obj(w)?.NotificationRequestItem)).filter((x): x is Json => x !== undefined);
}

function pageOf(action: Json | undefined): PayerPage | undefined {
  const url = str(action?.url);
  if (!action || !url) return undefined;
  const data = obj(action.data) ?? {};
  return { url, method: action.method === 'POST' ? 'POST' : 'GET', params: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, String(v)])) };
}

/** The signing string of a standard notification item (Adyen: "Verify HMAC signatures"). */
export function hmacPayload(item: Json): string {
  const amount = obj(item.amount) ?? {};
  const esc = (v: unknown) => (v === undefined || v === null ? '' : String(v)).replace(/\\/g, '\\\\').replace(/:/g, '\\:');
  return [item.pspReference, item.originalReference, item.merchantAccountCode, item.merchantReference, amount.value, amount.currency, item.eventCode, item.success].map(esc).join(':');
}

export function hmacSignature(item: Json, hexKey: string): string {
  return createHmac('sha256', Buffer.from(hexKey, 'hex')).update(hmacPayload(item), 'utf8').digest('base64');
}

function verifyHmac(item: Json, hexKey: string): boolean {
  const given = str(obj(item.additionalData)?.hmacSignature);
  if (!given) return false;
  const a = Buffer.from(hmacSignature(item, hexKey));
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

const EVENT_OPERATIONS: Readonly<Record<string, NotificationEvent['operation']>> = {
  AUTHORISATION: 'authorize',
  CAPTURE: 'capture',
  CAPTURE_FAILED: 'capture',
  REFUND: 'refund',
  REFUND_FAILED: 'refund',
  CANCELLATION: 'reversal',
  CANCEL_OR_REFUND: 'void',
  TECHNICAL_CANCEL: 'void',
};

function webhookEvent(item: Json): NotificationEvent | undefined {
  const eventCode = String(item.eventCode);
  const operation = EVENT_OPERATIONS[eventCode];
  const paymentId = str(item.merchantReference);
  if (!operation || !paymentId) return undefined;
  const psp = operation === 'authorize' ? str(item.pspReference) ?? '' : str(item.originalReference) ?? str(item.pspReference) ?? '';
  const success = item.success === 'true' && eventCode !== 'CAPTURE_FAILED' && eventCode !== 'REFUND_FAILED';
  const reported = operation === 'authorize' ? reportedOf(item) : {};
  const outcome: ConnectorOutcome = success
    ? { kind: 'approved', reference: psp, reported }
    : declinedOutcome(classify(ADYEN_ERRORS, undefined, str(item.reason) ?? 'Refused'), { reference: psp, reported });
  return { paymentId, operation, outcome };
}
