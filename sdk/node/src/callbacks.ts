/**
 * What arrives at the merchant: callbacks (form-encoded POSTs signed with the platform's `hash`, plus the
 * Standard Webhooks headers `webhook-id`, `webhook-timestamp`, `webhook-signature`) and the payer's return
 * to success_url (query signed with the callback formula). Every comparison is constant-time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { cardTerm, checkoutDigest, checkoutFields, s2sApmHash, s2sCardPieces, s2sDigest, type Digest, type NestedValue, type OrderTerms } from './hash.ts';
import { SignatureVerificationError } from './errors.ts';

/** A callback body as it arrived: the raw text (best), a Buffer, parsed pairs or a flat object. */
export type CallbackBody = string | Buffer | URLSearchParams | Readonly<Record<string, string>>;

function pairs(body: CallbackBody): [string, string][] {
  if (typeof body === 'string' || Buffer.isBuffer(body)) return [...new URLSearchParams(body.toString('utf8'))];
  if (body instanceof URLSearchParams) return [...body];
  return Object.entries(body);
}

/** The flat fields of a callback (bracket keys kept as they are: `custom_data[k]`). */
export function parseCallback(body: CallbackBody): Record<string, string> {
  return Object.fromEntries(pairs(body));
}

/** The fields with bracket keys nested (`transactions[0][amount]` -> transactions.0.amount), as PHP reads them. */
export function parseNested(body: CallbackBody): Record<string, NestedValue> {
  const root: Record<string, NestedValue> = Object.create(null);
  for (const [name, value] of pairs(body)) {
    const path = name.match(/^[^[]+|\[[^\]]*\]/g)?.map((p) => (p.startsWith('[') ? p.slice(1, -1) : p)) ?? [name];
    let node: Record<string, NestedValue> = root;
    path.forEach((key, i) => {
      if (i === path.length - 1) node[key] = value;
      else {
        const next = node[key];
        node = (node[key] = typeof next === 'object' ? next : Object.create(null)) as Record<string, NestedValue>;
      }
    });
  }
  return root;
}

/** Constant-time equality of two hex digests (case-insensitive); unequal lengths are simply unequal. */
export function sameHex(expected: string, given: string | undefined): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected.toLowerCase(), 'utf8');
  const b = Buffer.from(given.toLowerCase(), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

function requireFields(fields: Record<string, string>, names: readonly string[]): void {
  const missing = names.filter((n) => typeof fields[n] !== 'string');
  if (missing.length > 0) throw new SignatureVerificationError(`Callback lacks ${missing.join(', ')}`);
}

// --- Checkout -------------------------------------------------------------------------------------------

export interface CheckoutCallback {
  id: string;
  payment_id: string;
  trans_id: string;
  order_id: string;
  order_number: string;
  order_amount: string;
  order_currency: string;
  order_description: string;
  /** The payment's status after the event (settled, decline, refund...). */
  order_status: string;
  /** sale, 3ds, redirect, capture, refund, void, recurring, chargeback, debit, credit... */
  type: string;
  /** success, fail, waiting, undefined. */
  status: string;
  hash: string;
  reason?: string;
  amount?: string;
  card?: string;
  card_token?: string;
  recurring_token?: string;
  date?: string;
  [field: string]: string | undefined;
}

/** Verifies a Checkout callback: sha1(md5(UPPER(id . order_number . order_amount . order_currency . order_description . PASSWORD))). */
export function verifyCheckoutCallback(body: CallbackBody, password: string, digest: Digest = 'md5'): CheckoutCallback {
  const f = parseCallback(body);
  requireFields(f, ['id', 'order_number', 'order_amount', 'order_currency', 'order_description', 'hash']);
  const order = { number: f.order_number!, amount: f.order_amount!, currency: f.order_currency!, description: f.order_description! };
  if (!sameHex(checkoutDigest(checkoutFields.callback(f.id!, order), password, digest), f.hash)) throw new SignatureVerificationError('Checkout callback hash does not match');
  return f as CheckoutCallback;
}

// --- S2S CARD -------------------------------------------------------------------------------------------

export interface S2sCardCallback {
  action: string;
  result: string;
  status: string;
  order_id: string;
  trans_id: string;
  hash: string;
  amount?: string;
  currency?: string;
  card?: string;
  card_token?: string;
  decline_reason?: string;
  [field: string]: string | undefined;
}

/**
 * Verifies an S2S CARD callback: Formula 2 over the payment's payer e-mail (which the merchant sent and
 * keeps) and its card (from the callback's `card` mask unless given), Formula 6 for CREDIT2CARD.
 */
export function verifyS2sCardCallback(body: CallbackBody, password: string, payment: { payerEmail?: string; card?: string } = {}, digest: Digest = 'md5'): S2sCardCallback {
  const f = parseCallback(body);
  requireFields(f, ['action', 'trans_id', 'hash']);
  const card = cardTerm(payment.card ?? f.card ?? '');
  const pieces = f.action === 'CREDIT2CARD'
    ? s2sCardPieces.f6(password, f.trans_id!, card)
    : s2sCardPieces.f2(payment.payerEmail ?? '', password, f.trans_id!, card);
  if (!sameHex(s2sDigest(pieces, digest), f.hash)) throw new SignatureVerificationError('S2S CARD callback hash does not match');
  return f as S2sCardCallback;
}

// --- S2S APM --------------------------------------------------------------------------------------------

/** Verifies an S2S APM callback: the sorted reversed-values recipe, or CREDIT2VIRTUAL's own. Nested fields come back nested. */
export function verifyS2sApmCallback(body: CallbackBody, password: string, digest: Digest = 'md5'): Record<string, NestedValue> & { action: string; trans_id: string; hash: string } {
  const f = parseNested(body);
  const text = (k: string) => (typeof f[k] === 'string' ? (f[k] as string) : '');
  if (!text('trans_id') || !text('hash')) throw new SignatureVerificationError('Callback lacks trans_id, hash');
  const expected = text('action') === 'CREDIT2VIRTUAL'
    ? s2sApmHash.credit2virtualCallback({ transId: text('trans_id'), orderId: text('order_id'), status: text('status') }, password, digest)
    : s2sApmHash.callback(f, password, digest);
  if (!sameHex(expected, text('hash'))) throw new SignatureVerificationError('S2S APM callback hash does not match');
  return f as Record<string, NestedValue> & { action: string; trans_id: string; hash: string };
}

// --- Standard Webhooks signature headers ------------------------------------------------------------------

export type HeaderBag = Headers | Readonly<Record<string, string | string[] | undefined>>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

/** The HMAC key of a `whsec_` secret: the Base64 after the prefix. */
function webhookKey(secret: string): Buffer {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new SignatureVerificationError('Webhook secret is empty');
  return key;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`: what the gateway puts in `webhook-signature`. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string | Buffer): string {
  const mac = createHmac('sha256', webhookKey(secret)).update(`${id}.${timestampSeconds}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

export interface WebhookVerifyOptions {
  /** Largest accepted distance between the timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time (tests). */
  now?: Date;
}

/**
 * Verifies the Standard Webhooks headers over the RAW body (as received, before any parsing): the
 * timestamp within the tolerance (replays of old deliveries are refused), and one of the space-separated
 * `v1,` signatures equal, in constant time, to the HMAC-SHA256 of `id.timestamp.body`. Returns the id,
 * which stays the same across retries of one event: drop an id already processed.
 */
export function verifyWebhook(rawBody: string | Buffer, headers: HeaderBag, secret: string, opts: WebhookVerifyOptions = {}): { id: string; timestamp: Date } {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new SignatureVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^[0-9]{1,12}$/.test(timestamp)) throw new SignatureVerificationError('webhook-timestamp is not a Unix time in seconds');
  const seconds = Number(timestamp);
  const nowSeconds = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - seconds) > (opts.toleranceSeconds ?? 300)) throw new SignatureVerificationError('webhook-timestamp is outside the tolerance');
  const expected = Buffer.from(signWebhook(secret, id, seconds, rawBody).slice(3), 'base64');
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new SignatureVerificationError('No webhook-signature matches');
  return { id, timestamp: new Date(seconds * 1000) };
}

// --- return URLs ------------------------------------------------------------------------------------------

export interface ReturnParams {
  payment_id: string;
  trans_id: string;
  order_id: string;
  [extra: string]: string;
}

/**
 * Verifies the query the gateway appends to success_url / cancel_url: the callback formula over the
 * payment_id in the query and the order as the merchant stored it (amount in the currency's canonical
 * form, "10.00"; "1000" for JPY). Never trust a return URL that does not verify: confirm by status.
 */
export function verifyReturnUrl(url: string | URL, password: string, order: OrderTerms, digest: Digest = 'md5'): ReturnParams {
  const query = (typeof url === 'string' ? new URL(url) : url).searchParams;
  const f = Object.fromEntries(query) as Record<string, string>;
  requireFields(f, ['payment_id', 'hash']);
  if (f.order_id !== undefined && f.order_id !== order.number) throw new SignatureVerificationError('Return URL names another order');
  if (!sameHex(checkoutDigest(checkoutFields.callback(f.payment_id!, order), password, digest), f.hash)) throw new SignatureVerificationError('Return URL hash does not match');
  const { hash: _hash, ...rest } = f;
  return rest as ReturnParams;
}
