/**
 * The `apm-provider` connector: an APM provider reached over HTTP, speaking one of the provider kinds of
 * domain/methods/provider-kinds.ts. One instance serves one MID (its settings name the kind and the provider's
 * base URL; its sealed credentials hold the API key and secret or the private key), so every call is made with
 * that MID's authentication. The provider's answers become the gateway's outcomes and payer actions here;
 * anything that is not an explicit answer (a timeout, a 5xx, a body that does not parse) leaves the payment in
 * flight, as card connectors do.
 */
import { createSign } from 'node:crypto';
import type { HttpPort, HttpResponse } from '../http.ts';
import type { MidAccess, FollowUpOutcome } from '../types.ts';
import type { ApmConnector, ApmInitiateRequest, ApmOutcome, CodeAnswer, PayerAction, ProviderStatus } from '../apm-types.ts';
import { formatAmount } from '../../domain/money.ts';
import { parsePrivateKey } from '../../domain/pem-keys.ts';
import {
  convertToCrypto, currencyNumeric, providerKind, providerState, signingString, splitName, type ProviderKind, type SignedValue,
} from '../../domain/methods/provider-kinds.ts';

export const APM_PROVIDER = 'apm-provider';
const TIMEOUT_MS = 15_000;
const NOT_SUPPORTED = 'Operation not supported by the provider.';
export const UNKNOWN_TRANSACTION = 'Transaction does not exist';
const TOKEN_REFUSED = 'Authorization refused by the provider';
const NO_TOKEN_KEY = "No private key for the token call (the MID's private_key or the merchant's token_call option)";

type Json = Record<string, unknown>;

/** A provider answer: a parsed 2xx body, an explicit refusal (4xx with its message), or no usable answer. */
type Answer = { ok: true; body: Json } | { ok: false; refused: string } | { ok: false; refused?: undefined; why: string };

/** A text of the provider's answer, without NULs (the store cannot keep them); numbers as text. */
const str = (v: unknown): string | undefined => {
  const text = typeof v === 'string' ? v.replace(/\u0000/g, '') : typeof v === 'number' ? String(v) : undefined;
  return text === '' ? undefined : text;
};

/** A refusal's text: the first field error of a validation body, else its message (without the final period). */
function refusalText(body: Json): string | undefined {
  const first = Array.isArray(body.errors) ? (body.errors[0] as Json | undefined) : undefined;
  const text = str(first?.error_message) ?? str(body.error_message) ?? str(body.error) ?? str(body.Error);
  return text?.replace(/\.$/, '');
}

function readAnswer(res: HttpResponse): Answer {
  let body: Json = {};
  try {
    const parsed: unknown = res.body === '' ? {} : JSON.parse(res.body);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Json;
  } catch {
    return { ok: false, why: `unreadable answer (HTTP ${res.status})` };
  }
  if (res.status >= 200 && res.status < 300) return { ok: true, body };
  if (res.status >= 400 && res.status < 500) return { ok: false, refused: refusalText(body) ?? `HTTP ${res.status}` };
  return { ok: false, why: `HTTP ${res.status}` };
}

/** What a kind adds to the common create call, and how its answer becomes the payer's action. */
interface Flow {
  create(c: ProviderApmConnector, req: ApmInitiateRequest): Promise<Answer>;
  action(body: Json, req: ApmInitiateRequest): PayerAction | undefined;
}

const redirectAction = (body: Json): PayerAction | undefined => {
  const url = str(body.redirect_url) ?? str(body.RedirectUrl);
  return url ? { kind: 'redirect', url } : undefined;
};

const amountText = (req: ApmInitiateRequest) => formatAmount(req.amount, req.currency);
const payerOf = (req: ApmInitiateRequest) => ({ email: req.payer.email, phone: req.payer.phone, name: req.payer.name, country: req.payer.country });

/** The common body of a header-key kind's create call. */
function paymentBody(req: ApmInitiateRequest, extra: Json = {}): Json {
  return {
    public_id: req.paymentId, amount: amountText(req), currency: req.currency, method: req.method, description: req.description,
    callback_url: req.notifyUrl, return_url: req.returnUrl, payer: payerOf(req), ...extra,
  };
}

const FLOWS: Readonly<Record<ProviderKind['name'], Flow>> = {
  'header-key': {
    create: (c, req) => c.call('POST', '/payments', paymentBody(req, { params: req.params })),
    action: redirectAction,
  },
  'identity-transfer': {
    create: (c, req) => {
      const { firstName, lastName } = splitName(req.payer.name);
      return c.call('POST', '/payments', paymentBody(req, { first_name: firstName, last_name: lastName, payment_methods: 'OBT' }));
    },
    action: redirectAction,
  },
  'card-by-bank': {
    create: (c, req) => c.call('POST', '/payments', paymentBody(req, { beneficiary: req.params.beneficiary_details ?? null })),
    action: redirectAction,
  },
  'pix-payin': {
    create: (c, req) => {
      const p = req.params;
      const mid = c.mid.settings;
      const pick = (name: string) => p[name] ?? mid[name];
      return c.call('POST', '/pix/payin', {
        public_id: req.paymentId, amount: amountText(req), currency: req.currency, fine: p.fine ?? '0', type_fine: p.type_fine ?? 'NONE',
        branch_identifier: pick('branch_identifier'), source_account_number: pick('source_account_number'), type_document: pick('type_document'),
        debtor_document: pick('debtor_document'), debtor_name: pick('debtor_name'), callback_url: req.notifyUrl,
      });
    },
    action: (body, req) => {
      const payload = str(body.pix_copy_and_paste);
      if (!payload) return undefined;
      const lifetime = Number(req.options.qrLifetimeSeconds ?? 900);
      const expiresAt = str(body.expires_at) ?? new Date(Date.now() + lifetime * 1000).toISOString();
      const image = str(body.base_64_image);
      const providerId = str(body.qr_code_id);
      return { kind: 'qr', payload, expiresAt, ...(image ? { image } : {}), ...(providerId ? { providerId } : {}) };
    },
  },
  'mobile-money': {
    create: (c, req) => c.call('POST', '/mobile-money/charge', {
      public_id: req.orderId, amount: amountText(req), currency: req.currency, description: req.description,
      payer: { name: req.payer.name, email: req.payer.email }, mobile_number: str(req.params.mobile_number) ?? req.payer.phone,
      callback_url: req.notifyUrl, verify_url: req.returnUrl, fee_bearer: c.mid.settings.fee_bearer === true,
    }),
    action: (body, req) => {
      if (body.auth_method !== 'STK_PROMPT') return undefined;
      const message = str(body.message);
      return { kind: 'app', sentTo: maskPhone(str(req.params.mobile_number) ?? req.payer.phone ?? ''), ...(message ? { message } : {}) };
    },
  },
  'crypto-address': {
    create: (c, req) => c.call('POST', '/crypto/address', {
      public_id: req.paymentId, crypto_type: req.params.crypto_type, network_type: req.params.network_type,
      bech32: req.params.bech32 === true || req.params.bech32 === 'true', accountId: req.params.accountId, amount: amountText(req), currency: req.currency,
      callback_url: req.notifyUrl,
    }),
    action: cryptoDetails,
  },
  'crypto-fiat': {
    create: async (c, req) => {
      const coin = String(c.mid.settings.crypto_currency ?? 'USDT').toUpperCase();
      const rates = (c.mid.settings.rates ?? {}) as Record<string, unknown>;
      const rate = str(rates[req.currency]);
      const converted = rate ? convertToCrypto(req.amount, req.currency, rate, coin) : undefined;
      if (!converted || converted.minor <= 0n) return { ok: false, refused: `No conversion rate from ${req.currency} to ${coin}` };
      return c.call('POST', '/crypto/address', {
        public_id: req.paymentId, crypto_type: coin, crypto_amount: converted.text, fiat_amount: amountText(req), fiat_currency: req.currency, rate,
        callback_url: req.notifyUrl,
      });
    },
    action: cryptoDetails,
  },
  'payer-challenge': {
    create: async (c, req) => {
      const { firstName, lastName } = splitName(req.payer.name);
      const challenge = await c.call('POST', '/challenges', {
        phone: req.payer.phone, email: req.payer.email, first_name: firstName, last_name: lastName,
        country: req.payer.country, address: req.params.address ?? req.payer.address, city: req.params.city ?? req.payer.city, zip: req.params.zip ?? req.payer.zip,
      });
      if (!challenge.ok) return challenge;
      const challengeId = str(challenge.body.challengeId);
      if (!challengeId) return { ok: false, why: 'no challengeId' };
      return c.call('POST', '/payments', paymentBody(req, { challengeId }));
    },
    action: (body) => ({ kind: 'otp', sentTo: str(body.sent_to) ?? 'your phone' }),
  },
  'reference-auth': {
    create: async (c, req) => {
      const reference = await c.call('POST', '/reference-auth/references', {
        amount: Number(amountText(req)), public_id: req.orderId, single: req.recurring !== true, callback_url: req.notifyUrl, return_url: req.returnUrl,
      });
      if (!reference.ok) return reference;
      const gatewayId = str(reference.body.gateway_id);
      if (!gatewayId) return { ok: false, why: 'no gateway_id' };
      return c.call('POST', '/reference-auth/payments', { gateway_id: gatewayId });
    },
    action: redirectAction,
  },
  'voucher-partner': {
    create: async (c, req) => {
      const code = currencyNumeric(req.currency);
      if (code === undefined) return { ok: false, refused: `Currency ${req.currency} is not supported by the partner` };
      const p = req.params;
      const partnerId = c.partnerId(req.currency);
      const answer = await c.call('POST', '/voucher/initiate', {
        PartnerId: partnerId, PayerId: str(p.PayerId), PayerFirstName: str(p.PayerFirstName), PayerLastName: str(p.PayerLastName),
        PayerBirthDate: str(p.PayerBirthDate), PublicId: req.paymentId, Amount: amountText(req), Currency: code, PayType: 0, PayMethod: 2,
        CallbackUrl: req.notifyUrl, ReturnUrl: req.returnUrl, DeclineUrl: req.returnUrl, CancelUrl: req.returnUrl,
        Domain: str(c.mid.settings.domain), Language: str(c.mid.settings.language) ?? 'en',
      });
      // Later calls are signed for the same partner: the reference carries its PartnerId (ours is opaque to the gateway).
      const id = answer.ok ? str(answer.body.TransactionId) : undefined;
      return answer.ok && id ? { ok: true, body: { ...answer.body, TransactionId: voucherReference(partnerId, id) } } : answer;
    },
    action: redirectAction,
  },
};

/** "+254712345678" -> "*********5678": the payer page shows where the prompt went, not the whole number. */
const maskPhone = (phone: string) => (phone.length <= 4 ? phone : `${'*'.repeat(phone.length - 4)}${phone.slice(-4)}`);

function cryptoDetails(body: Json): PayerAction | undefined {
  const address = str(body.address);
  if (!address) return undefined;
  const details = [
    { label: 'Coin', value: str(body.crypto_type) ?? '' },
    { label: 'Network', value: str(body.network) ?? '' },
    { label: 'Deposit address', value: address },
    ...(str(body.crypto_amount) ? [{ label: 'Amount to send', value: `${str(body.crypto_amount)} ${str(body.crypto_type) ?? ''}`.trim() }] : []),
  ].filter((d) => d.value !== '');
  return { kind: 'details', details };
}

const voucherReference = (partnerId: string, publicId: string) => `${partnerId}:${publicId}`;
/** The PartnerId and PublicId of a voucher reference (a public id is our payment id: it holds no colon). */
function voucherParts(reference: string): { PartnerId: string; PublicId: string } {
  const at = reference.lastIndexOf(':');
  return { PartnerId: reference.slice(0, Math.max(0, at)), PublicId: reference.slice(at + 1) };
}

/** The provider's id of a created payment, whatever the kind calls it. */
const idOf = (body: Json): string | undefined => str(body.id) ?? str(body.payment_id) ?? str(body.qr_code_id) ?? str(body.TransactionId);

export class ProviderApmConnector implements ApmConnector {
  readonly name = APM_PROVIDER;
  readonly kind: ProviderKind;
  private token: string | undefined;

  constructor(private readonly http: HttpPort, readonly mid: MidAccess) {
    const k = providerKind(mid.settings.kind);
    if (!k) throw new Error(`MID ${mid.id}: unknown provider kind`);
    this.kind = k;
  }

  private get base(): string {
    return String(this.mid.settings.base_url ?? '').replace(/\/+$/, '');
  }

  private credential(name: string): string {
    return this.mid.credentials.expose()[name] ?? '';
  }

  partnerId(currency: string): string {
    const perCurrency = this.mid.settings.partner_ids as Record<string, unknown> | undefined;
    return str(perCurrency?.[currency]) ?? str(this.mid.settings.partner_id) ?? this.credential('api_key');
  }

  /** Base64 signature of a text with the MID's private key (the key type chooses the algorithm's family). */
  private sign(text: string): string {
    const parsed = parsePrivateKey(this.credential('private_key'));
    if (!parsed.ok) throw new Error(`MID ${this.mid.id}: private_key is not a usable key`);
    return createSign('sha256').update(text).sign(parsed.value.key, 'base64');
  }

  /** The token call: the MID's API key and a timestamp, signed with its private key. A refusal or no answer is passed on. */
  private async accessToken(): Promise<{ token: string } | Exclude<Answer, { ok: true }>> {
    if (this.token) return { token: this.token };
    // Neither the MID nor the merchant's token_call option holds a key: a refusal the merchant can read, no call.
    if (!this.credential('private_key')) return { ok: false, refused: NO_TOKEN_KEY };
    const apiKey = this.credential('api_key');
    const timestamp = String(Math.floor(Date.now() / 1000));
    const answer = readAnswer(await this.send('POST', '/reference-auth/token', { api_key: apiKey, timestamp, signature: this.sign(`${apiKey}.${timestamp}`) }, {}));
    if (!answer.ok) return answer.refused !== undefined ? { ok: false, refused: TOKEN_REFUSED } : answer;
    const token = str(answer.body.access_token);
    if (!token) return { ok: false, why: 'no access_token in the answer' };
    this.token = token;
    return { token };
  }

  private async authHeaders(body: Json | undefined): Promise<{ headers: Record<string, string>; body: Json | undefined } | Exclude<Answer, { ok: true }>> {
    if (this.kind.auth === 'header_key') return { headers: { 'X-API-Key': this.credential('api_key'), 'X-API-Secret': this.credential('api_secret') }, body };
    if (this.kind.auth === 'token') {
      const token = await this.accessToken();
      return 'token' in token ? { headers: { authorization: token.token }, body } : token;
    }
    const fields = Object.fromEntries(Object.entries(body ?? {}).filter(([, v]) => v !== undefined && v !== null)) as Record<string, SignedValue>;
    return { headers: {}, body: { ...fields, Signature: this.sign(signingString(fields)) } };
  }

  private send(method: 'GET' | 'POST', path: string, body: Json | undefined, headers: Record<string, string>): Promise<HttpResponse> {
    return this.http.send({
      method, url: `${this.base}${path}`, timeoutMs: TIMEOUT_MS,
      headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  }

  /** One authenticated call; a refused token call is a refusal of the call, a token call without answer none. */
  async call(method: 'GET' | 'POST', path: string, body?: Json): Promise<Answer> {
    const signed = await this.authHeaders(body);
    if ('ok' in signed) return signed;
    return readAnswer(await this.send(method, path, signed.body, signed.headers));
  }

  async initiate(req: ApmInitiateRequest): Promise<ApmOutcome> {
    const flow = FLOWS[this.kind.name];
    const answer = await flow.create(this, req);
    if (!answer.ok) return answer.refused !== undefined ? { kind: 'declined', reason: answer.refused } : { kind: 'pending', reason: answer.why };
    return this.outcomeOf(answer.body, req);
  }

  /** A create answer (or a lookup's) as the gateway's outcome: decided, or the payer's action. */
  private outcomeOf(body: Json, req: ApmInitiateRequest): ApmOutcome {
    const reference = idOf(body);
    if (!reference) return { kind: 'pending', reason: 'no payment id in the answer' };
    const state = providerState(body.status ?? body.Status);
    if (state === 'rejected') return { kind: 'declined', reason: str(body.reason) ?? 'Declined by the provider', reference };
    if (state === 'executed') return { kind: 'approved', reference };
    const action = FLOWS[this.kind.name].action(body, req);
    return action ? { kind: 'action', reference, action } : { kind: 'pending', reason: 'no payer action in the answer' };
  }

  /** The provider's status of one payment; the voucher partner is asked by the public id, signed for its PartnerId. */
  async status(reference: string): Promise<ProviderStatus> {
    const answer = this.kind.auth === 'signature'
      ? await this.call('POST', '/voucher/status', voucherParts(reference))
      : await this.call('GET', `${this.kind.auth === 'token' ? '/reference-auth' : ''}/payments/${encodeURIComponent(reference)}`);
    if (!answer.ok) {
      // "Transaction does not exist": the partner dropped it (a data mismatch): final, and said as the partner says it.
      if (answer.refused === UNKNOWN_TRANSACTION) return { state: 'rejected', reason: UNKNOWN_TRANSACTION };
      return { state: 'pending' };
    }
    const state = providerState(answer.body.status ?? answer.body.Status) ?? 'pending';
    const reason = str(answer.body.reason) ?? str(answer.body.Reason);
    return reason && state === 'rejected' ? { state, reason } : { state };
  }

  async cancel(reference: string, reason: string): Promise<ProviderStatus> {
    const path = this.kind.auth === 'signature' ? '/voucher/cancel' : `${this.kind.auth === 'token' ? '/reference-auth' : ''}/payments/${encodeURIComponent(reference)}/cancel`;
    const answer = await this.call('POST', path, this.kind.auth === 'signature' ? { ...voucherParts(reference), Reason: reason } : { reason });
    if (!answer.ok) return answer.refused === UNKNOWN_TRANSACTION ? { state: 'rejected', reason: UNKNOWN_TRANSACTION } : this.status(reference);
    return { state: providerState(answer.body.status ?? answer.body.Status) ?? 'pending', ...(str(answer.body.reason) ? { reason: str(answer.body.reason) } : {}) };
  }

  async verifyCode(reference: string, code: string): Promise<CodeAnswer> {
    const answer = await this.call('POST', `/payments/${encodeURIComponent(reference)}/otp`, { code });
    if (!answer.ok) return answer.refused !== undefined ? { state: 'rejected', reason: answer.refused } : { state: 'pending' };
    const state = providerState(answer.body.status) ?? 'pending';
    const retry = str(answer.body.retry);
    return { state, ...(str(answer.body.reason) ? { reason: str(answer.body.reason) } : {}), ...(retry ? { retry } : {}) };
  }

  async resendCode(reference: string): Promise<boolean> {
    const answer = await this.call('POST', `/payments/${encodeURIComponent(reference)}/otp/resend`, {});
    return answer.ok && answer.body.sent === true;
  }

  /**
   * What became of an initiation whose answer was lost: header-key kinds look the payment up by the public id the
   * create call carried and read the answer as initiate() would. The token and signature families have no lookup
   * by public id: undefined, and the payment stays in flight for an operator.
   */
  async inquire(req: ApmInitiateRequest): Promise<ApmOutcome | undefined> {
    if (this.kind.auth !== 'header_key') return undefined;
    const publicId = this.kind.name === 'mobile-money' ? req.orderId : req.paymentId;
    const answer = await this.call('GET', `/payments?public_id=${encodeURIComponent(publicId)}`);
    if (!answer.ok) return undefined;
    return this.outcomeOf(answer.body, req);
  }

  async capture(): Promise<FollowUpOutcome> {
    return { kind: 'declined', reason: NOT_SUPPORTED };
  }

  async refund(): Promise<FollowUpOutcome> {
    return { kind: 'declined', reason: NOT_SUPPORTED };
  }

  async reverse(): Promise<FollowUpOutcome> {
    return { kind: 'declined', reason: NOT_SUPPORTED };
  }

  async void(): Promise<FollowUpOutcome> {
    return { kind: 'declined', reason: NOT_SUPPORTED };
  }

  async payout(): Promise<ApmOutcome> {
    return { kind: 'declined', reason: NOT_SUPPORTED };
  }
}
