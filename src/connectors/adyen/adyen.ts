/**
 * Adyen's Checkout API v71 (`connector: adyen`): /payments for cards (3-D Secure 2 by redirect, or native with our
 * page running the ACS steps; stored cards with shopperInteraction and recurringProcessingModel; wallet tokens as
 * they are, and decrypted wallet cards with their cryptogram), /payments/details when the payer comes back, and the
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
  DisputeNotice, InquiryRequest, MidAccess, NativeThreeDs2Step, NotificationEvent, NotificationPort, PayerPage, Reported, WalletPayment,
} from '../types.ts';
import { ConnectorRejection, nativeThreeDs2PageUrl } from '../types.ts';
import type { HttpPort, HttpResponse } from '../http.ts';
import { classify, declinedOutcome } from '../error-codes.ts';
import { ADYEN_ERRORS } from './errors.ts';
import type { CardParameterSet } from '../../domain/card-parameter-sets.ts';
import { isAuthorizationEvent } from '../../domain/operations.ts';
import type { DisputeEvent } from '../../domain/disputes.ts';

export const AdyenSettings = Type.Object({
  /** https://checkout-test.adyen.com/v71, or the live prefix URL Adyen gives the account. */
  baseUrl: Type.String({ pattern: '^https?://', maxLength: 2048 }),
  merchantAccount: Type.String({ minLength: 1, maxLength: 255 }),
  environment: Type.Union([Type.Literal('test'), Type.Literal('live')]),
  /** Native 3-D Secure 2 (`nativeThreeDS: preferred`): our page runs the fingerprint and the challenge; default the redirect flow. */
  nativeThreeDS: Type.Optional(Type.Boolean()),
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

/**
 * Adyen's browserInfo (3-D Secure 2 needs it, native flow above all) from the details our channels collected
 * (camelCased: acceptHeaders, colorDepth, screenWidth, timezoneOffset, ...). Adyen requires every member, so it
 * is sent whole or not at all.
 */
function browserInfo(b: Readonly<Record<string, string>>): Json | undefined {
  const int = (v: string | undefined) => (v !== undefined && /^-?\d+$/.test(v) ? Number(v) : undefined);
  const info = {
    userAgent: b.userAgent, acceptHeader: b.acceptHeaders ?? b.acceptHeader, language: b.language,
    colorDepth: int(b.colorDepth), screenHeight: int(b.screenHeight), screenWidth: int(b.screenWidth), timeZoneOffset: int(b.timezoneOffset),
    javaEnabled: b.javaEnabled === undefined ? undefined : b.javaEnabled === 'true',
  };
  if (Object.values(info).some((v) => v === undefined || v === '')) return undefined;
  return { ...info, ...(b.javascriptEnabled !== undefined ? { javaScriptEnabled: b.javascriptEnabled === 'true' } : {}) };
}

const RECURRING_MODEL = { recurring: 'Subscription', unscheduled: 'UnscheduledCardOnFile', ecommerce: 'CardOnFile' } as const;

export class AdyenConnector implements CardConnector {
  readonly name = 'adyen';
  readonly settingsSchema = AdyenSettings;
  /** Adyen's Checkout API hosts: checkout-test.adyen.com, and {prefix}-checkout-live.adyenpayments.com for live. */
  readonly endpoints = { settings: ['baseUrl'], knownHosts: ['checkout-test.adyen.com', '*.adyenpayments.com'] };
  readonly credentialsSchema = AdyenCredentials;
  /**
   * What Adyen's /payments has a place for: installments (Set 1), socialSecurityNumber (Set 2, Brazil's CPF),
   * shopperStatement (Set 3), telephoneNumber (Set 4's phone; its numeric-country shipping address is not sent),
   * lineItems and deliveryAddress (Set 6). Payer and payee identity (Set 5) has none.
   */
  readonly parameterSets: ReadonlySet<CardParameterSet> = new Set(['instalments', 'tax_document', 'descriptor', 'phone_and_shipping', 'order_data']);
  readonly notifications: NotificationPort;
  /** Adyen decrypts Apple Pay and Google Pay tokens itself (the merchant account's wallet certificates). */
  readonly walletTokens = true;
  /** A decrypted wallet card goes with its cryptogram and ECI as mpiData. */
  readonly decryptedWalletCards = true;

  constructor(private readonly http: HttpPort, private readonly exponentOf: (currency: string) => number = () => 2) {
    this.notifications = {
      notificationAck: { contentType: 'text/plain', body: '[accepted]' },
      notificationSubjects: (req) => items(req.body).map((i) => str(i.merchantReference)).filter((x): x is string => x !== undefined),
      readNotification: (mid, req) => this.readWebhook(mid, req),
      readDisputeNotices: (req) => items(req.body).map(disputeNotice).filter((n): n is DisputeNotice => n !== undefined),
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
    const wallet = req.wallet;
    if (wallet?.token !== undefined) return this.requestBody(req, mid, walletTokenMethod(wallet.name, wallet.token));
    // A decrypted wallet card is the wallet's scheme payment (brand applepay / googlepay).
    const paymentMethod: Json = { type: 'scheme', number: req.card.pan, expiryMonth: req.card.expMonth, expiryYear: req.card.expYear, ...(wallet ? { brand: wallet.name } : {}) };
    if (req.card.cvv) paymentMethod.cvc = req.card.cvv;
    if (req.card.holder) paymentMethod.holderName = req.card.holder;
    const body = this.requestBody(req, mid, paymentMethod);
    // The token's cryptogram stands for the cardholder's authentication on the device (a PAN_ONLY card has none).
    if (wallet?.cryptogram) body.mpiData = { cavv: wallet.cryptogram, ...(wallet.eci ? { eci: wallet.eci } : {}), directoryResponse: 'Y', authenticationResponse: 'Y' };
    return body;
  }

  /** Everything of a /payments request but the payment method. */
  private requestBody(req: Omit<AuthorizeRequest, 'card'>, mid: MidAccess, paymentMethod: Json): Json {
    const settings = settingsOf(mid);
    const p = req.parameters ?? {};
    const payer = req.payer ?? {};
    const stored = req.storedCard;
    const body: Json = {
      amount: amountOf(req.amount, req.currency),
      reference: req.paymentId,
      merchantAccount: settings.merchantAccount,
      paymentMethod,
      returnUrl: req.returnUrl ?? 'https://invalid.example/return',
      channel: 'Web',
      // Redirect flow: the payer is sent to the issuer's page. Native: our own page runs the EMV 3DS2 steps.
      authenticationData: { threeDSRequestData: { nativeThreeDS: settings.nativeThreeDS === true ? 'preferred' : 'disabled' } },
    };
    // The risk engine's require_3ds: authenticate whatever Adyen's Dynamic 3D Secure would decide, and ask the
    // issuer for a challenge (ThreeDS2RequestFields.threeDSRequestorChallengeInd 03: the requestor's preference).
    if (req.challenge === 'required') {
      (body.authenticationData as Json).attemptAuthentication = 'always';
      body.threeDS2RequestData = { threeDSRequestorChallengeInd: '03' };
    }
    if (req.orderId) body.merchantOrderReference = req.orderId;
    if (req.intent === 'auth') body.additionalData = { manualCapture: 'true' };
    if (req.payerIp) body.shopperIP = req.payerIp;
    if (payer.email) body.shopperEmail = payer.email;
    if (payer.firstName && payer.lastName) body.shopperName = { firstName: payer.firstName, lastName: payer.lastName };
    if (payer.country && payer.city && payer.address && payer.zip) {
      body.billingAddress = { street: payer.address, houseNumberOrName: '', city: payer.city, postalCode: payer.zip, country: payer.country, ...(payer.state ? { stateOrProvince: payer.state } : {}) };
    }
    if (payer.birthDate) body.dateOfBirth = payer.birthDate;
    const browser = browserInfo(req.browser ?? {});
    if (browser) body.browserInfo = browser;
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
  paymentOutcome(res: HttpResponse, returnUrl?: string): ConnectorOutcome {
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
        const action = obj(r.action);
        if (action?.type === 'threeDS2') return nativeStep(action, psp, returnUrl);
        const page = pageOf(action);
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
    return this.paymentOutcome(await this.call(mid, '/payments', this.paymentRequest(req, mid), req.idempotencyKey ?? req.paymentId), req.returnUrl);
  }

  /**
   * The payer is back: from the issuer's page with a redirectResult (or MD/PaRes), or from our native 3DS2 page
   * with the device fingerprint's threeDSCompInd (sent with the action's paymentData) or the challenge's
   * transStatus (sent as threeDSResult with the action's authorisationToken). /payments/details decides.
   */
  detailsRequest(result: ChallengeResult, state: ConnectorState = {}): Json {
    const params = result.params ?? {};
    const details: Json = {};
    const body: Json = { details };
    if (params.redirectResult) details.redirectResult = params.redirectResult;
    if (params.MD) details.MD = params.MD;
    if (params.PaRes) details.PaRes = params.PaRes;
    const base64 = (o: Json) => Buffer.from(JSON.stringify(o), 'utf8').toString('base64');
    if (state.threeDS2 === 'fingerprint' && COMP_IND.has(params.threeDSCompInd ?? '')) {
      details['threeds2.fingerprint'] = base64({ threeDSCompInd: params.threeDSCompInd });
      if (state.paymentData) body.paymentData = state.paymentData;
    }
    // The ACS's CRes (base64url JSON) says the same when it is posted to us instead.
    const transStatus = params.transStatus ?? str(decodeToken(params.cres).transStatus);
    if (state.threeDS2 === 'challenge' && transStatus && TRANS_STATUS.has(transStatus)) {
      details.threeDSResult = base64({ transStatus, ...(state.authorisationToken ? { authorisationToken: state.authorisationToken } : {}) });
    }
    return body;
  }

  async complete(state: ConnectorState, result: ChallengeResult, mid?: MidAccess): Promise<ConnectorOutcome> {
    if (!mid) throw new Error('adyen: no MID');
    const body = this.detailsRequest(result, state);
    if (Object.keys(body.details as Json).length === 0) return { kind: 'pending', reason: 'Payer returned without a redirect result' };
    return this.paymentOutcome(await this.call(mid, '/payments/details', body), state.returnUrl);
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

/**
 * A wallet token passed as it is (virtual flow): Apple Pay's `applePayToken` is the base64 of the token's
 * paymentData JSON, Google Pay's `googlePayToken` the token's JSON text. A token given the other way round (JSON for
 * Apple, base64 for Google) is turned into that form; nothing else is changed.
 */
function walletTokenMethod(wallet: WalletPayment['name'], token: string): Json {
  const text = tokenJson(token);
  return wallet === 'applepay'
    ? { type: 'applepay', applePayToken: text === undefined ? token : Buffer.from(text, 'utf8').toString('base64') }
    : { type: 'googlepay', googlePayToken: text ?? token };
}

/** A wallet token's JSON text, whether it came as JSON or base64 of JSON; undefined when it is neither. */
function tokenJson(token: string): string | undefined {
  const trimmed = token.trim();
  const isJson = (t: string) => {
    try {
      return typeof JSON.parse(t) === 'object';
    } catch {
      return false;
    }
  };
  if (isJson(trimmed)) return trimmed;
  const decoded = Buffer.from(trimmed, 'base64').toString('utf8');
  return isJson(decoded) ? decoded : undefined;
}

/** The EMV values our 3DS2 page may post back: the 3DS Method's completion, the challenge's transaction status. */
const COMP_IND: ReadonlySet<string> = new Set(['Y', 'N', 'U']);
const TRANS_STATUS: ReadonlySet<string> = new Set(['Y', 'N', 'U', 'A', 'C', 'R', 'I']);

const base64url = (o: Json) => Buffer.from(JSON.stringify(o), 'utf8').toString('base64url');

/** An action's token: base64 JSON (the ACS's addresses and ids); anything else reads as empty. */
function decodeToken(token: unknown): Json {
  if (typeof token !== 'string') return {};
  try {
    return obj(JSON.parse(Buffer.from(token, 'base64').toString('utf8'))) ?? {};
  } catch {
    return {};
  }
}

/**
 * A native 3DS2 action (`type: threeDS2`) -> the step our page runs: the fingerprint's 3DS Method (threeDSMethodData
 * to the method URL; without one, the page reports threeDSCompInd U) or the challenge (a CReq to the ACS URL).
 * The action's paymentData and authorisationToken come back with the result.
 */
function nativeStep(action: Json, psp: string | undefined, returnUrl: string | undefined): ConnectorOutcome {
  const token = decodeToken(action.token);
  const subtype = action.subtype === 'challenge' ? 'challenge' : 'fingerprint';
  const serverTransId = str(token.threeDSServerTransID) ?? '';
  let native: NativeThreeDs2Step;
  if (subtype === 'fingerprint') {
    const notification = str(token.threeDSMethodNotificationURL);
    native = { kind: 'method', url: str(token.threeDSMethodUrl) ?? '', field: 'threeDSMethodData', value: base64url({ threeDSServerTransID: serverTransId, ...(notification ? { threeDSMethodNotificationURL: notification } : {}) }) };
  } else {
    const acsUrl = str(token.acsURL);
    if (!acsUrl) return { kind: 'pending', reason: 'Adyen challenge without an ACS URL', ...(psp ? { reference: psp } : {}) };
    const creq = { threeDSServerTransID: serverTransId, acsTransID: str(token.acsTransID) ?? '', messageVersion: str(token.messageVersion) ?? '2.1.0', messageType: 'CReq', challengeWindowSize: '05' };
    native = { kind: 'challenge', url: acsUrl, field: 'creq', value: base64url(creq) };
  }
  if (!returnUrl) return { kind: 'pending', reason: 'Native 3DS2 without a return URL', ...(psp ? { reference: psp } : {}) };
  const state: ConnectorState = {
    threeDS2: subtype, returnUrl,
    ...(psp ? { pspReference: psp } : {}),
    ...(str(action.paymentData) ? { paymentData: str(action.paymentData)! } : {}),
    ...(str(action.authorisationToken) ? { authorisationToken: str(action.authorisationToken)! } : {}),
  };
  const threeDs = serverTransId ? { threeDSServerTransID: serverTransId } : {};
  return { kind: 'challenge', state, threeDs, page: { url: nativeThreeDs2PageUrl(returnUrl), method: 'GET', params: {} }, native };
}

/**
 * The signing string of a standard notification item (Adyen: "Verify HMAC signatures"): the eight fields joined
 * with ':' as they are, as Adyen's own libraries join them. Escaping ':' and '\' belongs to the key-value form
 * (HPP), not to webhooks: escaped, a reference holding a colon would be refused forever.
 */
export function hmacPayload(item: Json): string {
  const amount = obj(item.amount) ?? {};
  const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  return [item.pspReference, item.originalReference, item.merchantAccountCode, item.merchantReference, amount.value, amount.currency, item.eventCode, item.success].map(text).join(':');
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

/** Adyen's dispute event codes (Webhooks v1) -> the dispute table's events. */
const DISPUTE_EVENT_CODES: Readonly<Record<string, DisputeEvent>> = {
  REQUEST_FOR_INFORMATION: 'request_for_information',
  NOTIFICATION_OF_CHARGEBACK: 'notification_of_chargeback',
  CHARGEBACK: 'chargeback',
  SECOND_CHARGEBACK: 'second_chargeback',
  PREARBITRATION_WON: 'prearbitration_won',
  PREARBITRATION_LOST: 'prearbitration_lost',
  CHARGEBACK_REVERSED: 'chargeback_reversed',
  INFORMATION_SUPPLIED: 'information_supplied',
  DISPUTE_DEFENSE_PERIOD_ENDED: 'defense_period_ended',
};

/**
 * A dispute notice: the payment is the merchantReference; the dispute its pspReference, which the description's
 * examples keep through every stage (originalReference is there on some only).
 */
function disputeNotice(item: Json): DisputeNotice | undefined {
  const acquirerEvent = String(item.eventCode);
  const event = DISPUTE_EVENT_CODES[acquirerEvent];
  if (!event) return undefined;
  const psp = str(item.pspReference) ?? '';
  const disputeRef = psp || (str(item.originalReference) ?? '');
  const amount = obj(item.amount);
  const extra = obj(item.additionalData) ?? {};
  const value = amount?.value;
  const due = str(extra.defensePeriodEndsAt);
  const eventDate = str(item.eventDate);
  const { hmacSignature: _signature, ...kept } = extra;
  return {
    paymentRef: str(item.merchantReference), event, acquirerEvent, disputeRef, noticeKey: `adyen:${str(item.merchantReference) ?? ''}:${disputeRef}:${acquirerEvent}`,
    ...(typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value)) ? { amount: BigInt(value) } : {}),
    ...(str(amount?.currency) ? { currency: str(amount?.currency)! } : {}),
    ...(str(extra.chargebackReasonCode)?.trim() ? { reasonCode: str(extra.chargebackReasonCode)!.trim() } : {}),
    ...(due && !Number.isNaN(Date.parse(due)) ? { dueAt: new Date(due) } : {}),
    ...(eventDate && /^\d{4}-\d{2}-\d{2}/.test(eventDate) ? { bankDate: eventDate.slice(0, 10) } : {}),
    payload: { ...item, additionalData: kept },
  };
}

/**
 * What an AUTHORISATION notification tells beyond the outcome, as the payments answer does (its additionalData):
 * the approval code and the scheme's network reference that later merchant-initiated charges name. The webhook
 * settles the payment whenever it overtakes the answer, so it must not lose them.
 */
function authorisationExtras(item: Json): { approvalCode?: string; storedCardReference?: string } {
  const extra = obj(item.additionalData) ?? {};
  const approvalCode = str(extra.authCode);
  const networkRef = str(extra.networkTxReference);
  return { ...(approvalCode ? { approvalCode } : {}), ...(networkRef ? { storedCardReference: networkRef } : {}) };
}

function webhookEvent(item: Json): NotificationEvent | undefined {
  const eventCode = String(item.eventCode);
  const operation = EVENT_OPERATIONS[eventCode];
  const paymentId = str(item.merchantReference);
  if (!operation || !paymentId) return undefined;
  const psp = isAuthorizationEvent(operation) ? str(item.pspReference) ?? '' : str(item.originalReference) ?? str(item.pspReference) ?? '';
  const success = item.success === 'true' && eventCode !== 'CAPTURE_FAILED' && eventCode !== 'REFUND_FAILED';
  const reported = isAuthorizationEvent(operation) ? reportedOf(item) : {};
  const outcome: ConnectorOutcome = success
    ? { kind: 'approved', reference: psp, reported, ...(isAuthorizationEvent(operation) ? authorisationExtras(item) : {}) }
    : declinedOutcome(classify(ADYEN_ERRORS, undefined, str(item.reason) ?? 'Refused'), { reference: psp, reported });
  return { paymentId, operation, outcome };
}
