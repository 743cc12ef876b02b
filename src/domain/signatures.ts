/**
 * Every signature formula of wire-reference.md section 1 (decisions D2). Pure: strings in, hex out.
 *
 * PHP semantics: `strtoupper` changes ASCII a-z only and `strrev` reverses bytes, so the pre-image is
 * built as bytes. Verification also accepts the Unicode upper-case variant, which some merchant libraries
 * produce with mb_strtoupper.
 */
import * as crypto from 'node:crypto';

export type Digest = 'md5' | 'sha256';
export type UpperMode = 'ascii' | 'unicode';

/** A piece of a pre-image: plain text, or text whose UTF-8 bytes are reversed (PHP strrev). */
export type Term = string | { rev: string };

const rev = (value: string): Term => ({ rev: value });

/** PHP strtoupper on bytes, in place: the caller passes a buffer of its own. */
function asciiUpperInPlace(bytes: Buffer): Buffer {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b >= 0x61 && b <= 0x7a) bytes[i] = b - 0x20;
  }
  return bytes;
}

/** A term's bytes before upper-casing (PHP strrev reverses bytes, not characters). */
function rawTermBytes(term: Term): Buffer {
  return typeof term === 'string' ? Buffer.from(term, 'utf8') : Buffer.from(term.rev, 'utf8').reverse();
}

function unicodeUpperTermBytes(term: Term): Buffer {
  if (typeof term === 'string') return Buffer.from(term.toUpperCase(), 'utf8');
  // UPPER(strrev(x)): reverse first, then upper-case ("ŉ" upper-cases to two code points, so order matters).
  return Buffer.from([...term.rev].reverse().join('').toUpperCase(), 'utf8');
}

/**
 * UPPER(concat(terms)) as bytes. ASCII upper-casing works byte by byte, so it runs once over the joined
 * bytes; Unicode upper-casing is applied per term.
 */
export function preimage(terms: readonly Term[], upper: UpperMode = 'ascii'): Buffer {
  if (upper === 'unicode') return Buffer.concat(terms.map(unicodeUpperTermBytes));
  return asciiUpperInPlace(Buffer.concat(terms.map(rawTermBytes)));
}

/** One-shot hashing (Node 20.12 and later) is several times cheaper than a Hash object for short inputs. */
const oneShotHash = typeof crypto.hash === 'function' ? crypto.hash : undefined;

export function hex(algorithm: 'md5' | 'sha1' | 'sha256', data: Buffer | string): string {
  return oneShotHash ? oneShotHash(algorithm, data, 'hex') : crypto.createHash(algorithm).update(data).digest('hex');
}

/** First six and last four digits of a PAN (empty when no card is known). */
export function card6_4(pan: string): string {
  return pan.length >= 10 ? pan.slice(0, 6) + pan.slice(-4) : '';
}

// ---------------------------------------------------------------------------------------------------
// Checkout: sha1_hex(md5_hex(UPPER(fields + PASSWORD))), md5 replaced by sha256 in SHA256 mode.

export function checkoutHash(fields: readonly string[], password: string, digest: Digest = 'md5', upper: UpperMode = 'ascii'): string {
  return hex('sha1', hex(digest, preimage([...fields, password], upper)));
}

export const checkout = {
  session: (o: { number: string; amount: string; currency: string; description: string }) => [o.number, o.amount, o.currency, o.description],
  byPaymentId: (paymentId: string) => [paymentId],
  byOrderId: (orderId: string) => [orderId],
  captureOrRefund: (paymentId: string, amount: string) => [paymentId, amount],
  voidOrRetry: (paymentId: string) => [paymentId],
  recurring: (r: { initTransId: string; token: string; number: string; amount: string; description: string }) =>
    [r.initTransId, r.token, r.number, r.amount, r.description],
  callback: (c: { id: string; orderNumber: string; amount: string; currency: string; description: string }) =>
    [c.id, c.orderNumber, c.amount, c.currency, c.description],
  cardCredit: (c: { orderId: string; amount: string; currency: string; description: string }) =>
    [c.orderId, c.amount, c.currency, c.description],
} as const;

// ---------------------------------------------------------------------------------------------------
// S2S CARD: md5_hex(UPPER(...)) (sha256 in SHA256 mode). Each formula lists its terms; absent email is ''.

export const s2sCard = {
  /** F1: SALE, RECURRING_SALE, RETRY, DEBIT; `card` is first6+last4, or the card_token for token sales. */
  f1: (email: string, password: string, card: string): Term[] => [rev(email), password, rev(card)],
  /** F2: CAPTURE, CREDITVOID, VOID, GET_TRANS_STATUS, GET_TRANS_DETAILS and every callback. */
  f2: (email: string, password: string, transId: string, card: string): Term[] => [rev(email), password, transId, rev(card)],
  /** F3: CREATE_SCHEDULE. */
  f3: (password: string): Term[] => [rev(password)],
  /** F4: schedule actions by id. strrev(schedule_id . PASSWORD) = strrev(PASSWORD) . strrev(schedule_id). */
  f4: (scheduleId: string, password: string): Term[] => [rev(scheduleId + password)],
  /** F5: CREDIT2CARD request (card first6+last4 or card_token). */
  f5: (password: string, card: string): Term[] => [password, rev(card)],
  /** F6: CREDIT2CARD status lookups and callbacks. */
  f6: (password: string, transId: string, card: string): Term[] => [password, transId, rev(card)],
  /** F7: GET_TRANS_STATUS_BY_ORDER. */
  f7: (email: string, password: string, orderId: string, card: string): Term[] => [rev(email), password, orderId, rev(card)],
  /** F8: wallet SALE with payment_token. */
  f8: (email: string, password: string): Term[] => [rev(email), password],
  /** The interface spec's recipe for follow-ups: md5(UPPER(strrev(id)) . PASSWORD); the password keeps its case. */
  reversedId: (id: string, password: string) => ({ upper: [rev(id)] as Term[], raw: password }),
} as const;

/** md5 (or sha256) of the upper-cased terms. */
export function s2sHash(terms: readonly Term[], digest: Digest = 'md5', upper: UpperMode = 'ascii'): string {
  return hex(digest, preimage(terms, upper));
}

/** md5(UPPER(terms) . raw): for the recipes whose password is appended outside strtoupper. */
export function s2sHashWithRawSuffix(terms: readonly Term[], raw: string, digest: Digest = 'md5', upper: UpperMode = 'ascii'): string {
  return hex(digest, Buffer.concat([preimage(terms, upper), Buffer.from(raw, 'utf8')]));
}

// ---------------------------------------------------------------------------------------------------
// S2S APM (wire-reference 1.3).

export const s2sApm = {
  /** SALE, DEBIT2VIRTUAL: md5(UPPER(strrev(identifier . order_id . order_amount . order_currency . PASSWORD))). */
  sale: (p: { identifier?: string; orderId: string; amount?: string; currency: string }, password: string): Term[] =>
    [rev((p.identifier ?? '') + p.orderId + (p.amount ?? '') + p.currency + password)],
  /** CREDITVOID: md5(UPPER(strrev(trans_id . PASSWORD))). */
  creditvoid: (transId: string, password: string): Term[] => [rev(transId + password)],
} as const;

/** VOID, GET_TRANS_STATUS, CAPTURE, DEBIT2VIRTUAL_COMPLETE: md5(UPPER(strrev(trans_id)) . PASSWORD). */
export function apmByTransId(transId: string, password: string, digest: Digest = 'md5', upper: UpperMode = 'ascii'): string {
  return s2sHashWithRawSuffix([rev(transId)], password, digest, upper);
}

/** CREDIT2VIRTUAL request: md5(UPPER(strrev(order_id . order_amount . order_currency)) . PASSWORD). */
export function apmCredit2Virtual(p: { orderId: string; amount: string; currency: string }, password: string, digest: Digest = 'md5', upper: UpperMode = 'ascii'): string {
  return s2sHashWithRawSuffix([rev(p.orderId + p.amount + p.currency)], password, digest, upper);
}

/** CREDIT2VIRTUAL callback: md5(UPPER(strrev(trans_id . order_id . status)) . PASSWORD). */
export function apmCredit2VirtualCallback(p: { transId: string; orderId: string; status: string }, password: string, digest: Digest = 'md5'): string {
  return s2sHashWithRawSuffix([rev(p.transId + p.orderId + p.status)], password, digest);
}

export type CallbackValue = string | { readonly [key: string]: CallbackValue } | readonly CallbackValue[];

/**
 * The APM callback signature (PHP: array_walk_recursive strrev; ksort; implode; md5(strtoupper(s . PASSWORD))).
 * Every value is byte-reversed, each level sorted by key as PHP ksort does, and joined without separators.
 */
export function apmCallbackHash(params: Readonly<Record<string, CallbackValue>>, password: string, digest: Digest = 'md5'): string {
  const { hash: _ignored, ...rest } = params;
  return hex(digest, asciiUpperInPlace(Buffer.concat([flatten(rest), Buffer.from(password, 'utf8')])));
}

function flatten(value: CallbackValue): Buffer {
  if (typeof value === 'string') return Buffer.from(value, 'utf8').reverse();
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return Buffer.concat(entries.sort(([a], [b]) => phpKsortCompare(a, b)).map(([, v]) => flatten(v)));
}

/** PHP 8 ksort: numeric keys compare as numbers (and before strings), others as byte strings. */
function phpKsortCompare(a: string, b: string): number {
  const numeric = /^-?(0|[1-9][0-9]*)$/;
  const an = numeric.test(a);
  const bn = numeric.test(b);
  if (an && bn) return Number(a) - Number(b);
  if (an !== bn) return an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------

/** Constant-time comparison of two hex digests (case-insensitive). */
export function sameDigest(expected: string, given: string): boolean {
  const a = Buffer.from(expected.toLowerCase(), 'utf8');
  const b = Buffer.from(given.toLowerCase(), 'utf8');
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/**
 * Verifies a merchant's hash against every accepted way of computing it (ASCII and Unicode upper).
 * Each comparison is constant-time; stopping at the first match reveals only which recipe the merchant
 * uses, which is no secret.
 */
export function verifyAny(given: unknown, candidates: ReadonlyArray<(upper: UpperMode) => string>): boolean {
  if (typeof given !== 'string' || given.length === 0 || given.length > 128) return false;
  for (const upper of ['ascii', 'unicode'] as const) {
    for (const make of candidates) if (sameDigest(make(upper), given)) return true;
  }
  return false;
}
