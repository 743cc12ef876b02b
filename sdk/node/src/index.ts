/**
 * The Portcullis merchant SDK: one client per merchant account, with the three channels and the checks of
 * what the gateway sends back.
 *
 *   const portcullis = new Portcullis({ baseUrl, merchantKey, password });
 *   const { redirect_url } = await portcullis.checkout.createSession({ ... });
 *   const callback = portcullis.callbacks.verifyCheckout(rawBody);
 */
import { CheckoutClient, type Credentials } from './checkout.ts';
import { S2sCardClient } from './s2s-card.ts';
import { S2sApmClient } from './s2s-apm.ts';
import { Transport, type TransportOptions } from './http.ts';
import type { Digest, OrderTerms } from './hash.ts';
import {
  verifyCheckoutCallback, verifyReturnUrl, verifyS2sApmCallback, verifyS2sCardCallback, verifyWebhook,
  type CallbackBody, type HeaderBag, type WebhookVerifyOptions,
} from './callbacks.ts';

export interface PortcullisOptions extends TransportOptions {
  /** The gateway's address, e.g. https://pay.example.com (Checkout and S2S CARD). */
  baseUrl: string;
  /** `{s2s_apm_host}`; default `${baseUrl}/apm`. */
  apmBaseUrl?: string;
  /** merchant_key (Checkout) and client_key (S2S): the same key. */
  merchantKey: string;
  /** The merchant password: only hashed, never sent. */
  password: string;
  /** sha256 when the account has "Use SHA256 encryption algorithm for hash" on. */
  digest?: Digest;
  /** The `whsec_...` secret of the callback signature headers; it also signs your requests (signRequests). */
  webhookSecret?: string;
  /**
   * Send the `Portcullis-Signature` header on every request, made with webhookSecret (default: true when
   * webhookSecret is given). Needed when the merchant's `request_signature` setting is `required`.
   */
  signRequests?: boolean;
  /** S2S CARD on /v2/post (redirect_params as a [{name, value}] list). */
  s2sV2?: boolean;
}

export class Portcullis {
  readonly checkout: CheckoutClient;
  readonly s2sCard: S2sCardClient;
  readonly s2sApm: S2sApmClient;
  readonly callbacks: CallbackVerifier;

  constructor(opts: PortcullisOptions) {
    const baseUrl = opts.baseUrl.replace(/\/+$/, '');
    const credentials: Credentials = { merchantKey: opts.merchantKey, password: opts.password, digest: opts.digest ?? 'md5' };
    const transport = new Transport({ ...opts, signingSecret: opts.signRequests === false ? undefined : opts.webhookSecret });
    this.checkout = new CheckoutClient(transport, baseUrl, credentials);
    this.s2sCard = new S2sCardClient(transport, baseUrl, credentials, opts.s2sV2 ?? false);
    this.s2sApm = new S2sApmClient(transport, (opts.apmBaseUrl ?? `${baseUrl}/apm`).replace(/\/+$/, ''), credentials);
    this.callbacks = new CallbackVerifier(credentials, opts.webhookSecret);
  }
}

/** The checks of what reaches the merchant, bound to the account's password and webhook secret. */
export class CallbackVerifier {
  constructor(
    private readonly credentials: Credentials,
    private readonly webhookSecret?: string,
  ) {}

  /** A Checkout callback's `hash`; answers the fields. Throws SignatureVerificationError. */
  verifyCheckout(body: CallbackBody) {
    return verifyCheckoutCallback(body, this.credentials.password, this.credentials.digest);
  }

  /** An S2S CARD callback's `hash` (Formula 2 over the payer e-mail you sent, Formula 6 for payouts). */
  verifyS2sCard(body: CallbackBody, payment: { payerEmail?: string; card?: string } = {}) {
    return verifyS2sCardCallback(body, this.credentials.password, payment, this.credentials.digest);
  }

  /** An S2S APM callback's `hash`. */
  verifyS2sApm(body: CallbackBody) {
    return verifyS2sApmCallback(body, this.credentials.password, this.credentials.digest);
  }

  /** The `webhook-*` signature headers over the raw body; answers the event id to de-duplicate on. */
  verifyWebhook(rawBody: string | Buffer, headers: HeaderBag, opts?: WebhookVerifyOptions) {
    if (!this.webhookSecret) throw new Error('Portcullis: webhookSecret is not configured');
    return verifyWebhook(rawBody, headers, this.webhookSecret, opts);
  }

  /** The query the gateway appends to success_url and cancel_url, against the order you stored. */
  verifyReturnUrl(url: string | URL, order: OrderTerms) {
    return verifyReturnUrl(url, this.credentials.password, order, this.credentials.digest);
  }
}

export * from './errors.ts';
export * from './hash.ts';
export * from './callbacks.ts';
export type * from './checkout.ts';
export type * from './s2s-card.ts';
export type * from './s2s-apm.ts';
export { CheckoutClient } from './checkout.ts';
export { S2sCardClient } from './s2s-card.ts';
export { S2sApmClient } from './s2s-apm.ts';
export { Transport, encodeForm, requestSignatureHeader, type TransportOptions, type RequestOptions, type FormValue } from './http.ts';
